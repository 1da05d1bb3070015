r"""Scores of an edge probe: micro-averaged F1, per-label scores, F1 by span distance, baselines.

Tenney et al. (2019) [1]_ report every task with one metric, the **micro-averaged binary F1** over
all (target, label) decisions (Section 2): true positives, false positives and false negatives
are summed over every label and every target, then

.. math:: F_1 = \frac{2\,TP}{2\,TP + FP + FN}.

Zero division follows scikit-learn's ``zero_division=0``: where there are no positives at all,
neither true nor predicted (``TP + FP + FN = 0``), F1 is 0.0, not NaN, so a model is never credited
for an empty task (and training's "no improvement" logic sees a number); precision and recall of
a label that is never predicted / never true are 0.0 the same way. The per-label table says how
many true and predicted positives each label has, so such zeros can be told apart.

:func:`f1_by_distance` stratifies F1 by the distance between the two spans (Figure 3 of [1]_:
dependency labeling F1 against the number of tokens between a token and its head; the text
compares distance 0 with distance >= 8). :func:`expected_layer` summarizes scalar-mix weights as
in Tenney, Das & Pavlick (2019) [2]_ (Section 3).

References
----------
.. [1] Tenney, I., Xia, P., Chen, B., Wang, A., Poliak, A., McCoy, R. T., Kim, N., Van Durme, B.,
   Bowman, S. R., Das, D. & Pavlick, E. (2019). What do you learn from context? Probing for
   sentence structure in contextualized word representations. *ICLR*.
.. [2] Tenney, I., Das, D. & Pavlick, E. (2019). BERT rediscovers the classical NLP pipeline.
   *ACL*, 4593-4601.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.stats.bootstrap import RESAMPLES
from wordlens.stats.bootstrap import micro_f1_interval as bootstrap_f1

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

FIGURE3_DISTANCE_BINS: tuple[float, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, math.inf)
"""Default bin edges of :func:`f1_by_distance`: one bin per distance 0-7 and a last bin ``8+``,
the x axis of Figure 3 of [1]_ (the text contrasts distance 0 with distance >= 8)."""


def micro_f1(labels: BoolArray, predicted: BoolArray) -> float:
    r"""Micro-averaged F1 over all targets and labels ([1]_ Section 2; module notes).

    Parameters
    ----------
    labels, predicted : numpy.ndarray of bool, shape ``[N, K]``
        True and predicted label sets (multi-hot), one row per target.

    Returns
    -------
    float
        :math:`2TP / (2TP + FP + FN)`; 0.0 when there are no positives at all
        (scikit-learn's ``zero_division=0``).

    Raises
    ------
    WordlensError
        If the arrays are not boolean ``[N, K]`` arrays of the same shape.
    EmptyInputError
        If there are no targets.
    """
    true_positive, false_positive, false_negative = _confusion_counts(labels, predicted)
    return float(_f1(true_positive.sum(), false_positive.sum(), false_negative.sum()))


def group_counts(labels: BoolArray, predicted: BoolArray, groups: npt.ArrayLike) -> IntArray:
    """True positives, false positives and false negatives over all labels, summed per group
    of targets (for edge probing, per sentence: the examples a bootstrap over test examples
    resamples, :func:`micro_f1_interval`).

    Parameters
    ----------
    labels, predicted : numpy.ndarray of bool, shape ``[N, K]``
        As :func:`micro_f1`.
    groups : array_like of int, shape ``[N]``
        Each target's group (``0 .. G - 1``; a group without targets gets zeros).

    Returns
    -------
    numpy.ndarray of int64, shape ``[G, 3]``
        Per group ``(TP, FP, FN)``; their column sums are :func:`micro_f1`'s counts.

    Raises
    ------
    WordlensError
        If the arrays disagree in shape, or ``groups`` is not one non-negative int per target.
    EmptyInputError
        If there are no targets.
    """
    _confusion_counts(labels, predicted)  # the same checks as micro_f1
    group = np.asarray(groups)
    if group.shape != (labels.shape[0],) or (group.size and group.min() < 0):
        raise WordlensError(f"groups must be one non-negative int per target, got {group.shape}")
    counts = np.stack(
        [
            (labels & predicted).sum(axis=1),
            (~labels & predicted).sum(axis=1),
            (labels & ~predicted).sum(axis=1),
        ],
        axis=1,
    )  # [N, 3]
    out = np.zeros((int(group.max()) + 1, 3), dtype=np.int64)
    np.add.at(out, group.astype(np.int64), counts)
    return out


def micro_f1_interval(
    labels: BoolArray,
    predicted: BoolArray,
    groups: npt.ArrayLike,
    *,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of :func:`micro_f1` over the groups of targets
    (test sentences), resampled with replacement with ``seed`` (Efron & Tibshirani 1993;
    :func:`wordlens.stats.bootstrap.micro_f1_interval`). NaN for fewer than two groups."""
    return bootstrap_f1(group_counts(labels, predicted, groups), n_resamples=n_resamples, seed=seed)


def per_label_f1(
    labels: BoolArray, predicted: BoolArray, label_names: Sequence[str]
) -> pd.DataFrame:
    """Precision, recall and F1 of each label (and the micro average in a last row).

    Parameters
    ----------
    labels, predicted : numpy.ndarray of bool, shape ``[N, K]``
        True and predicted label sets.
    label_names : sequence of str, length ``K``
        Name of each label column.

    Returns
    -------
    pandas.DataFrame
        One row per label, then a row ``"_micro_avg_"``: ``label``, ``precision``, ``recall``,
        ``f1`` (0.0 where undefined, see module notes), ``support`` (true positives + false
        negatives: targets that carry the label), ``predicted`` (targets predicted with it),
        ``true_positive``.
    """
    true_positive, false_positive, false_negative = _confusion_counts(labels, predicted)
    if len(label_names) != labels.shape[1]:
        raise WordlensError(f"{len(label_names)} label names for {labels.shape[1]} label columns")
    counts = np.stack([true_positive, false_positive, false_negative], axis=1)
    counts = np.vstack([counts, counts.sum(axis=0, keepdims=True)])
    tp, fp, fn = counts.T
    return pd.DataFrame(
        {
            "label": [*label_names, "_micro_avg_"],
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "f1": _f1(tp, fp, fn),
            "support": tp + fn,
            "predicted": tp + fp,
            "true_positive": tp,
        }
    )


def f1_by_distance(
    labels: BoolArray,
    predicted: BoolArray,
    distance: IntArray,
    bins: Sequence[float] = FIGURE3_DISTANCE_BINS,
    *,
    groups: npt.ArrayLike | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Micro F1 of the targets in each span-distance bin ([1]_ Figure 3), with its 95%
    bootstrap interval over the groups (test sentences) that have targets in the bin.

    Parameters
    ----------
    labels, predicted : numpy.ndarray of bool, shape ``[N, K]``
        True and predicted label sets.
    distance : numpy.ndarray of int, shape ``[N]``
        Token distance between each target's two spans, >= 0.
    bins : sequence of float, default :data:`FIGURE3_DISTANCE_BINS`
        Increasing integer bin edges; bin ``i`` holds ``bins[i] <= distance < bins[i + 1]``.
        The last edge may be ``math.inf``; distances at or beyond the last edge fall in no bin.
    groups : array_like of int, shape ``[N]``, optional
        Each target's group (its test sentence), as :func:`group_counts`; without it the
        intervals are NaN.
    seed
        Of the bootstrap (:func:`micro_f1_interval`).

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``bin`` (``"3"`` for a one-distance bin, ``"4-7"``, ``"8+"``),
        ``distance_low``, ``distance_high`` (exclusive), ``n_targets``, ``micro_f1`` (NaN for a
        bin without targets: there is nothing to score, unlike a bin without positives), and
        ``micro_f1_ci_low``, ``micro_f1_ci_high``: its 95% percentile bootstrap interval, the
        bin's groups resampled (NaN without ``groups``, or with fewer than two groups in the
        bin).

    Raises
    ------
    WordlensError
        If the shapes disagree, a distance is negative, or the edges are not increasing.
    """
    _confusion_counts(labels, predicted)
    distance = np.asarray(distance)
    if distance.shape != (labels.shape[0],):
        raise WordlensError(
            f"distance must have shape [{labels.shape[0]}]; got {list(distance.shape)}"
        )
    if (distance < 0).any():
        raise WordlensError("span distances must be >= 0")
    if groups is not None and np.shape(groups) != (labels.shape[0],):
        raise WordlensError(f"groups must have shape [{labels.shape[0]}]; got {np.shape(groups)}")
    edges = np.asarray(bins, dtype=np.float64)
    finite = edges[np.isfinite(edges)]
    if (
        edges.ndim != 1
        or len(edges) < 2
        or not (np.diff(edges) > 0).all()
        or (finite != np.round(finite)).any()
    ):
        raise WordlensError(
            f"bins must be at least two increasing integer edges (the last may be inf); "
            f"got {list(bins)}"
        )
    rows = []
    for low, high in itertools.pairwise(edges):
        in_bin = (distance >= low) & (distance < high)
        n_targets = int(in_bin.sum())
        interval = (
            _bin_interval(labels[in_bin], predicted[in_bin], np.asarray(groups)[in_bin], seed)
            if groups is not None and n_targets
            else (math.nan, math.nan)
        )
        rows.append(
            {
                "bin": _bin_name(low, high),
                "distance_low": low,
                "distance_high": high,
                "n_targets": n_targets,
                "micro_f1": micro_f1(labels[in_bin], predicted[in_bin]) if n_targets else math.nan,
                "micro_f1_ci_low": interval[0],
                "micro_f1_ci_high": interval[1],
            }
        )
    return pd.DataFrame(rows)


def _bin_interval(
    labels: BoolArray, predicted: BoolArray, groups: IntArray, seed: int
) -> tuple[float, float]:
    """:func:`micro_f1_interval` over the groups present (renumbered ``0 .. G - 1``, so a
    group without targets in the bin is not resampled)."""
    _, present = np.unique(groups, return_inverse=True)
    return micro_f1_interval(labels, predicted, present, seed=seed)


def majority_label_set(train_labels: BoolArray) -> BoolArray:
    """The most frequent label set (row) of the training targets, shape ``[K]``.

    For single-label tasks this is the most frequent label. Ties go to the label set that comes
    first in ``numpy.unique``'s lexicographic row order (False before True, column by column).

    Raises
    ------
    EmptyInputError
        If there are no training targets.
    """
    _check_label_matrix(train_labels, "train_labels")
    if len(train_labels) == 0:
        raise EmptyInputError("the majority baseline needs at least one training target")
    label_sets, counts = np.unique(train_labels, axis=0, return_counts=True)
    majority: BoolArray = label_sets[int(np.argmax(counts))]
    return majority


def majority_baseline(train_labels: BoolArray, test_labels: BoolArray) -> float:
    """Micro F1 of predicting the training majority label set for every test target.

    Parameters
    ----------
    train_labels : numpy.ndarray of bool, shape ``[N_train, K]``
    test_labels : numpy.ndarray of bool, shape ``[N_test, K]``

    Returns
    -------
    float
        :func:`micro_f1` of ``test_labels`` against :func:`majority_label_set` repeated.
    """
    majority = majority_label_set(train_labels)
    _check_label_matrix(test_labels, "test_labels")
    predicted = np.broadcast_to(majority, test_labels.shape)
    return micro_f1(test_labels, predicted)


def expected_layer(weights: npt.ArrayLike, layer_numbers: npt.ArrayLike | None = None) -> float:
    r"""Expected layer of scalar-mix weights, Tenney, Das & Pavlick (2019) [2]_ Section 3.

    :math:`\mathbb{E}_s[\ell] = \sum_\ell \ell \cdot s^{(\ell)}`: the center of gravity of the
    learned mixing weights ``s`` over the layers.

    Parameters
    ----------
    weights : array_like, shape ``[L]``
        Non-negative mixing weights summing to 1 (``EdgeProbe.mix_weights()``).
    layer_numbers : array_like, shape ``[L]``, optional
        The layer number of each weight (e.g. the hidden-state indices the stored features hold);
        default ``0, 1, ..., L - 1``.

    Raises
    ------
    WordlensError
        If the weights are not a 1-D, finite, non-negative distribution, or the layer numbers do
        not match them.
    """
    mixing = np.asarray(weights, dtype=np.float64)
    if mixing.ndim != 1 or len(mixing) == 0:
        raise WordlensError(f"weights must be a non-empty 1-D array; got shape {mixing.shape}")
    if not np.isfinite(mixing).all() or (mixing < 0).any() or not np.isclose(mixing.sum(), 1.0):
        raise WordlensError("weights must be finite, non-negative and sum to 1")
    numbers = (
        np.arange(len(mixing), dtype=np.float64)
        if layer_numbers is None
        else np.asarray(layer_numbers, dtype=np.float64)
    )
    if numbers.shape != mixing.shape:
        raise WordlensError(
            f"{len(mixing)} weights but layer_numbers has shape {list(numbers.shape)}"
        )
    return float(numbers @ mixing)


def _confusion_counts(
    labels: BoolArray, predicted: BoolArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Per-label true positives, false positives and false negatives, each ``[K]``."""
    _check_label_matrix(labels, "labels")
    _check_label_matrix(predicted, "predicted")
    if labels.shape != predicted.shape:
        raise WordlensError(
            f"labels {list(labels.shape)} and predicted {list(predicted.shape)} differ in shape"
        )
    if labels.shape[0] == 0:
        raise EmptyInputError("no targets to score")
    true_positive = (labels & predicted).sum(axis=0, dtype=np.int64)
    false_positive = (~labels & predicted).sum(axis=0, dtype=np.int64)
    false_negative = (labels & ~predicted).sum(axis=0, dtype=np.int64)
    return true_positive, false_positive, false_negative


def _check_label_matrix(matrix: npt.NDArray[np.generic], name: str) -> None:
    if not isinstance(matrix, np.ndarray) or matrix.dtype != np.bool_ or matrix.ndim != 2:
        raise WordlensError(f"{name} must be a boolean [n_targets, n_labels] array")


def _f1(
    true_positive: npt.ArrayLike, false_positive: npt.ArrayLike, false_negative: npt.ArrayLike
) -> FloatArray:
    tp = np.asarray(true_positive, dtype=np.float64)
    return _ratio(2 * tp, 2 * tp + np.asarray(false_positive) + np.asarray(false_negative))


def _ratio(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """``numerator / denominator``, 0.0 where the denominator is 0 (``zero_division=0``)."""
    top = np.asarray(numerator, dtype=np.float64)
    bottom = np.asarray(denominator, dtype=np.float64)
    return np.divide(top, bottom, out=np.zeros(np.broadcast(top, bottom).shape), where=bottom > 0)


def _bin_name(low: float, high: float) -> str:
    if math.isinf(high):
        return f"{low:g}+"
    if high - low == 1:
        return f"{low:g}"
    return f"{low:g}-{high - 1:g}"
