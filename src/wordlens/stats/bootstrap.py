"""Percentile bootstrap intervals of the measured quantities the reproductions judge (Efron &
Tibshirani 1993, ch. 13): the WEAT effect size over its target words, a probe's micro-F1
over its test sentences, a classifier's weighted F1 over its test examples, and the cosine of
vectors with a direction that is the mean of pair differences (over the pairs).

Both resample the units the quantity is an average over, with replacement and a fixed seed, and
take the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the recomputed
statistic. A resample where the statistic is undefined (all target words with the same
association, no positive label at all) is left out; fewer than two units give no interval (NaN).

References
----------
.. [1] Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall:
   ch. 6 (the bootstrap of a statistic), ch. 8 (two-sample problems: each sample resampled
   apart), ch. 13 (percentile intervals).
"""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

from wordlens.errors import WordlensError
from wordlens.stats.association import association, effect_size

FloatArray = npt.NDArray[np.float64]
RESAMPLES = 2_000
"""Bootstrap resamples by default: enough for the 2.5% and 97.5% quantiles of a 95% interval
(Efron & Tibshirani 1993, ch. 19, suggest at least 1,000 for percentile intervals)."""


def _quantiles(values: FloatArray, confidence: float) -> tuple[FloatArray, FloatArray]:
    """The percentile interval of ``values`` ``[n_resamples, ...]`` along axis 0, NaN
    resamples left out (all-NaN columns give NaN)."""
    if not 0 < confidence < 1:
        raise WordlensError(f"confidence must be in (0, 1), got {confidence}")
    tail = (1 - confidence) / 2
    with warnings.catch_warnings():  # an all-NaN column: NaN, without numpy's warning
        warnings.simplefilter("ignore", RuntimeWarning)
        low = np.nanquantile(values, tail, axis=0)
        high = np.nanquantile(values, 1 - tail, axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def effect_size_interval(
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    *,
    ddof: int = 1,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of the effect size
    (:func:`~wordlens.stats.association.effect_size`) of two groups, each group's members
    resampled apart (a two-sample bootstrap, Efron & Tibshirani 1993, ch. 8).

    For WEAT the members are the target words' associations ``s(w, A, B)``: the interval says
    how much d depends on which target words the test happens to list (the attribute words are
    held fixed).

    Parameters
    ----------
    first, second : array_like, shape ``[n_first, ...]`` / ``[n_second, ...]``
        The groups' values along axis 0 (e.g. ``[n_x, n_layers]``); the other axes must agree.
    ddof
        Of the effect size's standard deviation.
    n_resamples, seed
        Resamples, and the seed of ``numpy.random.default_rng`` that draws them.
    confidence
        Of the interval.

    Returns
    -------
    tuple of FloatArray
        ``(low, high)``, each of the groups' shape without axis 0 (0-d for 1-D input); NaN if a
        group has fewer than two members or every resample's d is undefined.
    """
    x = np.asarray(first, dtype=np.float64)
    y = np.asarray(second, dtype=np.float64)
    shape = x.shape[1:]
    if len(x) < 2 or len(y) < 2 or n_resamples < 1:
        nan = np.full(shape, np.nan)
        return nan, nan.copy()
    rng = np.random.default_rng(seed)
    rows_x = rng.integers(0, len(x), size=(n_resamples, len(x)))
    rows_y = rng.integers(0, len(y), size=(n_resamples, len(y)))
    d = np.concatenate(
        [  # in blocks of resamples: memory of a block's draws, not of all of them at once
            effect_size(x[rows_x[start:stop]], y[rows_y[start:stop]], axis=1, ddof=ddof)
            for start, stop in _blocks(n_resamples)
        ]
    )  # [n_resamples, ...]
    return _quantiles(d, confidence)


_BLOCK = 256
"""Resamples computed at once (:func:`effect_size_interval`)."""


def _blocks(n: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of consecutive blocks of at most :data:`_BLOCK` of ``n`` items."""
    return [(start, min(start + _BLOCK, n)) for start in range(0, n, _BLOCK)]


def weat_effect_size_interval(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    attr_a: npt.ArrayLike,
    attr_b: npt.ArrayLike,
    *,
    ddof: int = 1,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    """The bootstrap interval of the WEAT effect size over its target words: the associations
    ``s(w, A, B)`` (:func:`~wordlens.stats.association.association`) of ``x`` and ``y``, each
    set resampled apart (:func:`effect_size_interval`; the attribute words held fixed).

    Shapes as :func:`wordlens.stats.weat` (``[n, d]`` or ``[n, n_layers, d]``); returns
    ``(low, high)``, 0-d or ``[n_layers]``."""
    return effect_size_interval(
        association(x, attr_a, attr_b),
        association(y, attr_a, attr_b),
        ddof=ddof,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )


def micro_f1_interval(
    counts: npt.ArrayLike,
    *,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a micro-F1 over test examples: the examples (for edge
    probing, sentences, whose targets are scored together) resampled with replacement, the
    F1 recomputed from the summed counts, ``2 TP / (2 TP + FP + FN)`` (0 where there is no
    positive at all, as :func:`wordlens.probing.metrics.micro_f1`).

    Parameters
    ----------
    counts : array_like, shape ``[n_examples, 3]``
        Each example's true positives, false positives and false negatives over its targets
        and labels.
    n_resamples, seed, confidence
        As :func:`effect_size_interval`.

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN for fewer than two examples.

    Raises
    ------
    WordlensError
        If ``counts`` is not ``[n, 3]``.
    """
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != 3:
        raise WordlensError(f"counts must be [n_examples, 3] (TP, FP, FN), got {table.shape}")
    if len(table) < 2 or n_resamples < 1:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(table), size=(n_resamples, len(table)))
    sums = table[rows].sum(axis=1)  # [n_resamples, 3]
    denominator = 2 * sums[:, 0] + sums[:, 1] + sums[:, 2]
    f1 = np.divide(2 * sums[:, 0], denominator, out=np.zeros(n_resamples), where=denominator > 0)
    low, high = _quantiles(f1, confidence)
    return float(low), float(high)


def weighted_f1_interval(
    truth: npt.ArrayLike,
    predicted: npt.ArrayLike,
    *,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a classifier's support-weighted F1 over its test
    examples: the examples resampled with replacement and scikit-learn's
    ``f1_score(average="weighted", zero_division=0)`` recomputed from the resample's counts,
    ``sum_c support_c F1_c / sum_c support_c`` with ``F1_c = 2 TP_c / (support_c +
    predicted_c)`` (0 for a class neither true nor predicted in the resample).

    Parameters
    ----------
    truth, predicted : array_like, shape ``[n_examples]``
        True and predicted labels (any hashable values: booleans, tags).
    n_resamples, seed, confidence
        As :func:`effect_size_interval`.

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN for fewer than two examples.

    Raises
    ------
    WordlensError
        If ``truth`` and ``predicted`` are not 1-D of the same length.
    """
    true_labels, predicted_labels = np.asarray(truth), np.asarray(predicted)
    if true_labels.ndim != 1 or true_labels.shape != predicted_labels.shape:
        raise WordlensError(
            f"truth and predicted must be 1-D of one length, got {true_labels.shape} and "
            f"{predicted_labels.shape}"
        )
    if len(true_labels) < 2 or n_resamples < 1:
        return float("nan"), float("nan")
    _, codes = np.unique(np.concatenate([true_labels, predicted_labels]), return_inverse=True)
    n = len(true_labels)
    classes = int(codes.max()) + 1
    true_hot = np.eye(classes)[codes[:n]]  # [n, C]
    predicted_hot = np.eye(classes)[codes[n:]]
    hit_hot = true_hot * predicted_hot  # the example's true positive, in its class
    times = _draw_counts(n, n_resamples, seed)
    support, predicted_counts, hits = (times @ hot for hot in (true_hot, predicted_hot, hit_hot))
    denominator = support + predicted_counts
    per_class = np.divide(2 * hits, denominator, out=np.zeros_like(hits), where=denominator > 0)
    f1 = (support * per_class).sum(axis=1) / n
    low, high = _quantiles(f1, confidence)
    return float(low), float(high)


def direction_cosine_interval(
    differences: npt.ArrayLike,
    vectors: npt.ArrayLike,
    *,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of the cosine of each vector with a direction that is the
    mean of pair differences (e.g. ``g = mean_i (m_i - f_i)`` of gendered word pairs, Zhou et
    al.'s eq. 8): the pairs resampled with replacement, the direction and the cosines
    recomputed; the vectors held fixed. The interval says how much a cosine depends on which
    pairs define the direction.

    Parameters
    ----------
    differences : array_like, shape ``[n_pairs, n_layers, d]``
        Each pair's difference vector, per layer.
    vectors : array_like, shape ``[n_vectors, n_layers, d]``
        The vectors whose cosines are measured.
    n_resamples, seed, confidence
        As :func:`effect_size_interval`.

    Returns
    -------
    tuple of FloatArray
        ``(low, high)``, each ``[n_vectors, n_layers]``; NaN for fewer than two pairs, or where
        a resample's direction or a vector is zero.

    Raises
    ------
    WordlensError
        If the shapes are not ``[P, L, d]`` and ``[n, L, d]`` with the same ``L`` and ``d``.
    """
    pairs = np.asarray(differences, dtype=np.float64)
    targets = np.asarray(vectors, dtype=np.float64)
    if pairs.ndim != 3 or targets.ndim != 3 or pairs.shape[1:] != targets.shape[1:]:
        raise WordlensError(
            f"differences and vectors must be [P, L, d] and [n, L, d]; got {pairs.shape} and "
            f"{targets.shape}"
        )
    if len(pairs) < 2 or n_resamples < 1:
        nan = np.full(targets.shape[:2], np.nan)
        return nan, nan.copy()
    n_pairs, layers, d = pairs.shape
    weights = _draw_counts(n_pairs, n_resamples, seed) / n_pairs  # [n_resamples, n_pairs]
    flat = pairs.reshape(n_pairs, layers * d)
    unit = _unit(targets)  # [n, L, d]
    cosines = np.concatenate(
        [  # in blocks: the resampled directions of a block at once, [block, L, d]
            np.einsum(
                "rld,nld->rnl", _unit((weights[start:stop] @ flat).reshape(-1, layers, d)), unit
            )
            for start, stop in _blocks(n_resamples)
        ]
    )  # [n_resamples, n, L]
    return _quantiles(cosines, confidence)


def _draw_counts(n: int, n_resamples: int, seed: int) -> FloatArray:
    """How often each of ``n`` units is drawn in each resample, ``[n_resamples, n]``: the
    resamples of ``numpy.random.default_rng(seed).integers(0, n, (n_resamples, n))`` as
    counts, for a statistic that is a weighted sum over the units."""
    rows = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    offsets = (np.arange(n_resamples)[:, np.newaxis] * n + rows).ravel()
    counts = np.bincount(offsets, minlength=n_resamples * n).reshape(n_resamples, n)
    return counts.astype(np.float64)


def _unit(vectors: FloatArray) -> FloatArray:
    """``vectors`` scaled to unit length along the last axis (NaN where one is zero)."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled: FloatArray = vectors / np.where(norms > 0, norms, np.nan)
    return scaled
