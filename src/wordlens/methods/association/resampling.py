"""Uncertainty of an association metric at every layer: a bootstrap percentile interval over
the words, and a permutation test over the two target sets' words.

A metric is a function of the sets' vectors returning one value per layer (:data:`Score`). Both
procedures are array work over the draws: every draw is a row of a ``[draws, n_words]`` matrix
of row numbers into a set's vectors (a bootstrap resample, a relabelling of the target words),
and the metric is computed on the gathered sets of a block of draws at once, ``[block,
n_words, n_layers, dim]`` each (:func:`per_draw` for a metric that cannot). The draws are those
a loop calling the metric once per draw would make, from the same random stream, so the
intervals and p-values are that loop's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from wordlens.errors import FewPartitionsWarning
from wordlens.methods.association.vectors import FloatArray
from wordlens.stats.association import RELATIVE_TOLERANCE
from wordlens.stats.diagnostics import few_partitions_warning, few_swaps_warning
from wordlens.stats.permutation import is_exact, iter_partitions, iter_swaps

Score = Callable[[Sequence[FloatArray], Sequence[FloatArray]], FloatArray]
"""(target sets, attribute sets) → the metric: each set ``[draws, n_words, n_layers, dim]``,
or ``[1, n_words, n_layers, dim]`` for a set every draw shares (broadcast), the value
``[draws, n_layers]``."""
Tail = Literal["two-sided", "greater", "less"]
"""Which permuted values count as reaching the observed one (:func:`permutation_p`)."""
IndexArray = npt.NDArray[np.intp]

BLOCK_BYTES = 64 << 20
"""Most bytes of the drawn sets' vectors gathered at once (float64), ``[block, n_words,
n_layers, dim]`` over the sets: with the copies a metric makes of them (unit vectors,
differences) a block stays within about 256 MiB."""
BLOCK_DRAWS = 256
"""Most draws scored at once: small vectors (GloVe's) are scored in blocks that stay in cache
(measured on GloVe, RND's default call on 8 + 8 target and 8 attribute words: 0.14-0.16 s in
blocks of 256 draws, 0.30-0.36 s with all 10,000 at once); large ones (13 layers of 768) in
blocks of :data:`BLOCK_BYTES` (50 draws of 16 words: 2.4-2.7 times faster than 3 draws a
block)."""


@dataclass(frozen=True)
class _Drawn:
    """One set of every draw: ``source[rows[k]]`` is draw ``k``'s vectors.

    Attributes
    ----------
    source : FloatArray, shape ``[n_source, n_layers, dim]``
        The vectors the rows number.
    rows : IndexArray, shape ``[draws, n_words]``, or None
        Row numbers into ``source`` per draw; None: every draw has ``source`` as it is.
    """

    source: FloatArray
    rows: IndexArray | None = None

    def take(self, start: int, stop: int) -> FloatArray:
        """Draws ``start .. stop - 1`` of the set, ``[stop - start, n_words, n_layers, dim]``
        (``[1, ...]`` when every draw has the same vectors)."""
        if self.rows is None:
            return self.source[np.newaxis]
        return self.source[self.rows[start:stop]]

    def bytes_per_draw(self) -> int:
        """Bytes of one draw's gathered vectors (0 for a shared set: gathered once)."""
        if self.rows is None:
            return 0
        return int(self.rows.shape[1] * self.source[0].size * 8)


def _scored(
    score: Score, targets: Sequence[_Drawn], attributes: Sequence[_Drawn], n_draws: int
) -> FloatArray:
    """``score`` of each of ``n_draws`` draws, ``[n_draws, n_layers]``, computed in blocks of
    at most :data:`BLOCK_DRAWS` draws whose gathered vectors fit :data:`BLOCK_BYTES`."""
    per_draw_bytes = sum(drawn.bytes_per_draw() for drawn in (*targets, *attributes))
    block = max(1, min(BLOCK_DRAWS, BLOCK_BYTES // max(1, per_draw_bytes)))
    values = [
        score(
            [drawn.take(start, start + block) for drawn in targets],
            [drawn.take(start, start + block) for drawn in attributes],
        )
        for start in range(0, n_draws, block)
    ]
    return np.asarray(np.concatenate(values), dtype=np.float64)


def per_draw(score: Callable[[Sequence[FloatArray], Sequence[FloatArray]], FloatArray]) -> Score:
    """A :data:`Score` of a metric computed one draw at a time: ``score`` takes sets
    ``[n_words, n_layers, dim]`` and returns ``[n_layers]`` (RNSB, whose classifiers are refitted
    on every draw), and is called on each draw of a block in turn."""

    def each(targets: Sequence[FloatArray], attributes: Sequence[FloatArray]) -> FloatArray:
        sets = [*targets, *attributes]
        n_draws = max(len(words) for words in sets)
        values = [
            score(
                [words[min(k, len(words) - 1)] for words in targets],
                [words[min(k, len(words) - 1)] for words in attributes],
            )
            for k in range(n_draws)
        ]
        return np.asarray(values, dtype=np.float64)  # [draws, n_layers]

    return each


def bootstrap_draws(
    sizes: Sequence[int], resamples: int, rng: np.random.Generator
) -> list[IndexArray]:
    """The row numbers of ``resamples`` bootstrap resamples of sets of ``sizes`` words, one
    ``[resamples, size]`` matrix per set: resample ``k`` draws every set's words with
    replacement, set after set.

    One call ``rng.integers(0, highs, (resamples, sum(sizes)))``, ``highs`` each column's set
    size: numpy draws a bounded integer per element, in order, from the same stream as the
    calls ``rng.integers(0, size, size)`` of a loop over the resamples and sets (tested), so the
    resamples are that loop's.
    """
    highs = np.repeat(np.asarray(sizes, dtype=np.int64), sizes)  # [sum(sizes)]
    rows = rng.integers(0, highs, size=(resamples, len(highs)))  # [resamples, sum(sizes)]
    return np.split(rows, np.cumsum(sizes)[:-1], axis=1)


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

    The resamples are drawn by ``numpy.random.default_rng(seed)`` as a loop would, resample
    after resample, set after set (:func:`bootstrap_draws`: the target pairs once when paired,
    then each attribute set), and scored in blocks (:data:`BLOCK_DRAWS`, :data:`BLOCK_BYTES`).

    Parameters
    ----------
    score
        The metric on many draws at once (:data:`Score`).
    targets, attributes
        The sets, ``[n_words, n_layers, dim]`` each.

    Returns
    -------
    low, high
        ``[n_layers]`` each.
    """
    rng = np.random.default_rng(seed)
    drawn_targets = targets[:1] if paired_targets else targets
    rows = bootstrap_draws([len(words) for words in (*drawn_targets, *attributes)], resamples, rng)
    if paired_targets:
        rows = [rows[0], *rows]  # both target sets take the pairs' rows
    sets = [
        _Drawn(words, chosen) for words, chosen in zip([*targets, *attributes], rows, strict=True)
    ]
    values = _scored(score, sets[: len(targets)], sets[len(targets) :], resamples)
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
    tolerance of 1e-12. Each chunk of relabellings becomes two ``[rows, n_words]`` matrices of
    row numbers into ``X ∪ Y`` (:func:`relabelled_rows`), scored in blocks.

    Parameters
    ----------
    score
        The metric on many draws at once (:data:`Score`).
    targets, attributes
        The sets, ``[n_words, n_layers, dim]`` each.

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

    n_x, n_y = len(targets[0]), len(targets[1])
    given = [words[np.newaxis] for words in (*targets, *attributes)]  # one draw: the sets given
    observed = oriented(score(given[:2], given[2:])[0])
    threshold = observed - RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(observed))
    reached = np.zeros_like(observed)
    n_relabellings = 0
    pooled = np.concatenate(targets)  # [n_x + n_y, n_layers, dim]
    shared = [_Drawn(words) for words in attributes]
    for first, second in relabelled_rows(n_x, n_y, permutations, seed, paired=paired_targets):
        relabelled = [_Drawn(pooled, first), _Drawn(pooled, second)]
        values = _scored(score, relabelled, shared, len(first))  # [rows, n_layers]
        with np.errstate(invalid="ignore"):
            reached += np.count_nonzero(oriented(values) >= threshold, axis=0)
        n_relabellings += len(first)
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


def relabelled_rows(
    n_x: int, n_y: int, permutations: int, seed: int, *, paired: bool
) -> Iterator[tuple[IndexArray, IndexArray]]:
    """The relabellings of :func:`permutation_p`, the observed one first, in chunks: row
    numbers into ``X ∪ Y`` (``X``'s words first), ``[rows, n_x]`` for the first set and
    ``[rows, n_y]`` for the second.

    Unpaired, a partition's indicator row (:func:`~wordlens.stats.permutation.iter_partitions`)
    numbers its first set's words in ascending order, then the others (a stable sort of the
    row), as ``pooled[first]`` and ``pooled[~first]`` do. Paired, a swap row
    (:func:`~wordlens.stats.permutation.iter_swaps`) takes ``y_i`` (row ``n_x + i``) for the
    first set where pair ``i`` swaps, and ``x_i`` for the second.
    """
    if paired:
        own = np.arange(n_x)
        for swaps in iter_swaps(n_x, n_samples=permutations, seed=seed):  # [rows, n_pairs] bool
            yield np.where(swaps, own + n_x, own), np.where(swaps, own, own + n_x)
        return
    for chunk in iter_partitions(n_x, n_y, n_samples=permutations, seed=seed):  # [rows, n] bool
        order = np.argsort(~chunk, axis=1, kind="stable")  # the first set's words, then the rest
        yield order[:, :n_x], order[:, n_x:]
