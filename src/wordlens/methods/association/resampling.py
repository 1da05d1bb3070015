"""Uncertainty of an association metric at every layer: a bootstrap percentile interval over
the words, and a permutation test over the two target sets' words.

A metric is a function of the sets' vectors (each ``[n_words, n_layers, dim]``) returning one
value per layer (:data:`Score`); both procedures call it on resampled sets, all layers at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wordlens.errors import FewPartitionsWarning
from wordlens.methods.association.vectors import FloatArray
from wordlens.stats.association import RELATIVE_TOLERANCE
from wordlens.stats.diagnostics import few_partitions_warning, few_swaps_warning
from wordlens.stats.permutation import is_exact, iter_partitions, iter_swaps

Score = Callable[[Sequence[FloatArray], Sequence[FloatArray]], FloatArray]
"""(target sets, attribute sets) → the metric, ``[n_layers]``."""
Tail = Literal["two-sided", "greater", "less"]
"""Which permuted values count as reaching the observed one (:func:`permutation_p`)."""


def bootstrap_interval(
    score: Score,
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    resamples: int,
    confidence: float,
    seed: int,
    paired_targets: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of ``score`` at each layer (Efron & Tibshirani 1993,
    ch. 13): each resample draws every set's words with replacement (the set's size kept),
    the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the
    resampled values. With ``paired_targets`` the two target sets are pairs by position (RIPA's
    ``(x_i, y_i)``): a resample draws pairs, the same rows of both. A resample whose value is
    NaN (e.g. a constant set) is left out of the quantiles; a layer where every resample is NaN
    gets a NaN interval.

    Returns
    -------
    low, high
        ``[n_layers]`` each.
    """
    rng = np.random.default_rng(seed)
    draws = []

    def drawn(sets: Sequence[FloatArray]) -> list[FloatArray]:
        return [words[rng.integers(0, len(words), len(words))] for words in sets]

    for _ in range(resamples):
        if paired_targets:
            rows = rng.integers(0, len(targets[0]), len(targets[0]))
            chosen = [words[rows] for words in targets]
        else:
            chosen = drawn(targets)
        draws.append(score(chosen, drawn(attributes)))
    values = np.asarray(draws, dtype=np.float64)  # [resamples, n_layers]
    tail = (1 - confidence) / 2
    with np.errstate(all="ignore"):
        usable = ~np.isnan(values).all(axis=0)
        low = np.full(values.shape[1], np.nan)
        high = np.full(values.shape[1], np.nan)
        if usable.any():
            low[usable] = np.nanquantile(values[:, usable], tail, axis=0)
            high[usable] = np.nanquantile(values[:, usable], 1 - tail, axis=0)
    return low, high


@dataclass(frozen=True)
class PermutationOutcome:
    """A permutation test of a metric at every layer (:func:`permutation_p`).

    Attributes
    ----------
    p : FloatArray, shape ``[n_layers]``
        ``#{relabellings reaching the observed value} / N``, the observed relabelling counted
        (never 0); NaN where the observed value is NaN.
    n_relabellings : int
        ``N``: every relabelling (exact) or the observed one and ``N - 1`` random others.
    exact : bool
        Whether every relabelling was enumerated.
    warning : FewPartitionsWarning or None
        Given when there are fewer than
        :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS` relabellings in all (what p can be).
    """

    p: FloatArray
    n_relabellings: int
    exact: bool
    warning: FewPartitionsWarning | None


def permutation_p(
    score: Score,
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    permutations: int,
    seed: int,
    paired_targets: bool = False,
    tail: Tail = "two-sided",
) -> PermutationOutcome:
    """Permutation p of ``score`` at each layer under the null that the two target sets are
    exchangeable.

    Unpaired (the scheme of Caliskan et al.'s WEAT test), a relabelling is a partition of the
    words of ``X ∪ Y`` into sets of the sizes of ``X`` and ``Y``; paired (pairs ``(x_i, y_i)``
    by position, RIPA's ``relation="pairs"``), it swaps the two words of each pair in a subset
    of the pairs. Of the ``R`` relabellings (``C(|X| + |Y|, |X|)``, or ``2^n`` for ``n``
    pairs) all are enumerated when ``R <= permutations`` (exact test), else the observed one
    and ``permutations - 1`` distinct random others are used
    (:func:`~wordlens.stats.permutation.iter_partitions`, :func:`~wordlens.stats.permutation.
    iter_swaps`). Then
    ``p = #{relabellings reaching the observed value} / N`` over the ``N`` used, the observed
    one counted: the exact permutation p when all are enumerated, Phipson & Smyth's (2010)
    ``(b + 1) / (m + 1)`` when sampled, never 0. A relabelling reaches the observed value in
    the direction of ``tail``: ``|value|`` at least the observed ``|value|``
    (``"two-sided"``, a metric whose no-bias value is 0), the value at least (``"greater"``)
    or at most (``"less"``: ECT, whose no-bias value is 1) the observed one, up to a relative
    tolerance of 1e-12.

    Raises
    ------
    ValueError
        If there are not exactly two target sets (a bug in the metric, not the user's input).
    """
    if len(targets) != 2:
        raise ValueError("the permutation test relabels exactly two target sets")
    sign = -1.0 if tail == "less" else 1.0

    def oriented(values: FloatArray) -> FloatArray:
        return np.abs(values) if tail == "two-sided" else sign * values

    observed = oriented(score(targets, attributes))
    threshold = observed - RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(observed))
    reached = np.zeros_like(observed)
    n_relabellings = 0
    for split in _relabellings(targets, permutations, seed, paired=paired_targets):
        with np.errstate(invalid="ignore"):
            reached += oriented(score(split, attributes)) >= threshold
        n_relabellings += 1
    n_x, n_y = len(targets[0]), len(targets[1])
    if paired_targets:
        exact = 2**n_x <= permutations
        warning = few_swaps_warning(n_x, permutations, "target pairs", observed_counts=True)
    else:
        exact = is_exact(n_x, n_y, permutations)
        warning = few_partitions_warning(
            n_x, n_y, "target words", n_samples=permutations, observed_counts=True
        )
    p = np.where(np.isnan(observed), np.nan, reached / n_relabellings)
    return PermutationOutcome(p, n_relabellings, exact, warning)


def _relabellings(
    targets: Sequence[FloatArray], permutations: int, seed: int, *, paired: bool
) -> Iterator[list[FloatArray]]:
    """The relabelled target sets of :func:`permutation_p`, the observed ones first."""
    x, y = targets
    if paired:
        for chunk in iter_swaps(len(x), n_samples=permutations, seed=seed):
            for swap in chunk:  # [n_pairs] bool
                chosen = swap[:, None, None]
                yield [np.where(chosen, y, x), np.where(chosen, x, y)]
        return
    pooled = np.concatenate(targets)
    for chunk in iter_partitions(len(x), len(y), n_samples=permutations, seed=seed):
        for first in chunk:  # [n_x + n_y] bool
            yield [pooled[first], pooled[~first]]
