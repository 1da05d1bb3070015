"""Uncertainty of an association metric at every layer: a bootstrap percentile interval over
the words, and a permutation test over the two target sets' words.

A metric is a function of the sets' vectors (each ``[n_words, n_layers, dim]``) returning one
value per layer (:data:`Score`); both procedures call it on resampled sets, all layers at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from wordlens.methods.association.vectors import FloatArray

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


def permutation_p(
    score: Score,
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    permutations: int,
    seed: int,
    paired_targets: bool = False,
    tail: Tail = "two-sided",
) -> FloatArray:
    """Permutation p of ``score`` at each layer under the null that the two target sets are
    exchangeable: the words of ``X ∪ Y`` are split at random into sets of the sizes of ``X``
    and ``Y`` (without replacement, as Caliskan et al.'s WEAT test), and
    ``p = (1 + b) / (1 + m)`` with ``b`` the number of the ``m`` random partitions whose value
    reaches the observed one (Phipson & Smyth 2010: never 0) in the direction of ``tail``:
    ``|value|`` at least the observed ``|value|`` (``"two-sided"``, a metric whose no-bias value
    is 0), the value at least (``"greater"``) or at most (``"less"``: ECT, whose no-bias value
    is 1) the observed one. With
    ``paired_targets`` (pairs ``(x_i, y_i)`` by position) the null exchanges the two words
    within each pair: each random relabelling swaps a random subset of the pairs.

    Raises
    ------
    ValueError
        If there are not exactly two target sets (a bug in the metric, not the user's input).
    """
    if len(targets) != 2:
        raise ValueError("the permutation test partitions exactly two target sets")
    rng = np.random.default_rng(seed)
    sign = {"two-sided": 1.0, "greater": 1.0, "less": -1.0}[tail]

    def oriented(values: FloatArray) -> FloatArray:
        return np.abs(values) if tail == "two-sided" else sign * values

    observed = oriented(score(targets, attributes))
    pooled = np.concatenate(targets)
    size = len(targets[0])
    reached = np.zeros_like(observed)
    for _ in range(permutations):
        if paired_targets:
            swap = rng.random(size) < 0.5
            split = [np.where(swap[:, None, None], t1, t0) for t0, t1 in (targets, targets[::-1])]
        else:
            order = rng.permutation(len(pooled))
            split = [pooled[order[:size]], pooled[order[size:]]]
        with np.errstate(invalid="ignore"):
            reached += oriented(score(split, attributes)) >= observed - 1e-12
    p = (1 + reached) / (1 + permutations)
    return np.where(np.isnan(observed), np.nan, p)
