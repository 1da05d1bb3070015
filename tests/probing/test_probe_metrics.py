"""Edge-probing scores: micro F1 and per-label scores against scikit-learn, F1 by span distance
(Tenney et al. 2019, Figure 3), the majority baseline and the expected layer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_recall_fscore_support

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.probing.metrics import (
    expected_layer,
    f1_by_distance,
    majority_baseline,
    majority_label_set,
    micro_f1,
    per_label_f1,
)


def _random_labels(seed: int, shape: tuple[int, int], rate: float) -> np.ndarray:
    return np.random.default_rng(seed).random(shape) < rate


@pytest.mark.parametrize(("seed", "rate"), [(0, 0.3), (1, 0.05), (2, 0.8)])
def test_micro_f1_matches_sklearn(seed: int, rate: float) -> None:
    labels = _random_labels(seed, (50, 7), rate)
    predicted = _random_labels(seed + 100, (50, 7), rate)
    expected = f1_score(labels, predicted, average="micro", zero_division=0)
    assert micro_f1(labels, predicted) == pytest.approx(expected, rel=1e-12)


def test_micro_f1_edge_cases_follow_sklearn_zero_division() -> None:
    nothing = np.zeros((4, 3), dtype=bool)
    some = nothing.copy()
    some[0, 1] = some[2, 0] = True
    cases = [(nothing, nothing), (some, nothing), (nothing, some), (some, some)]
    for labels, predicted in cases:
        expected = f1_score(labels, predicted, average="micro", zero_division=0)
        assert micro_f1(labels, predicted) == expected
    assert micro_f1(nothing, nothing) == 0.0  # no positives at all: 0.0, not NaN
    assert micro_f1(some, some) == 1.0
    assert micro_f1(some, ~some) == 0.0


def test_label_scores_match_sklearn_per_label() -> None:
    labels = _random_labels(3, (40, 5), 0.3)
    predicted = _random_labels(4, (40, 5), 0.3)
    predicted[:, 4] = False  # a label never predicted: precision 0/0 -> 0.0
    table = per_label_f1(labels, predicted, ["a", "b", "c", "d", "e"])
    precision, recall, f1, support = precision_recall_fscore_support(
        labels, predicted, average=None, zero_division=0
    )
    per_label = table.iloc[:5]
    np.testing.assert_allclose(per_label["precision"], precision, rtol=1e-12)
    np.testing.assert_allclose(per_label["recall"], recall, rtol=1e-12)
    np.testing.assert_allclose(per_label["f1"], f1, rtol=1e-12)
    np.testing.assert_array_equal(per_label["support"], support)
    np.testing.assert_array_equal(per_label["predicted"], predicted.sum(axis=0))
    micro = table.iloc[5]
    assert micro["label"] == "_micro_avg_"
    assert micro["f1"] == pytest.approx(micro_f1(labels, predicted), rel=1e-12)
    assert micro["support"] == labels.sum()
    with pytest.raises(WordlensError, match="label names"):
        per_label_f1(labels, predicted, ["a"])


def test_f1_by_distance_bins_like_figure_3() -> None:
    labels = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [1, 0]], dtype=bool)
    predicted = np.array([[1, 0], [0, 1], [0, 1], [0, 1], [1, 0], [0, 0]], dtype=bool)
    distance = np.array([0, 0, 1, 9, 8, 30])
    table = f1_by_distance(labels, predicted, distance)
    assert list(table["bin"]) == ["0", "1", "2", "3", "4", "5", "6", "7", "8+"]
    by_bin = table.set_index("bin")
    assert by_bin.loc["0", "micro_f1"] == 1.0 and by_bin.loc["0", "n_targets"] == 2
    assert by_bin.loc["1", "micro_f1"] == 0.0  # one false positive, one false negative
    assert math.isnan(by_bin.loc["2", "micro_f1"]) and by_bin.loc["2", "n_targets"] == 0
    eight_plus = micro_f1(labels[3:], predicted[3:])  # 2 TP, 1 FN -> 0.8
    assert by_bin.loc["8+", "micro_f1"] == pytest.approx(eight_plus) == pytest.approx(0.8)
    assert by_bin.loc["8+", "n_targets"] == 3

    coarse = f1_by_distance(labels, predicted, distance, bins=(0, 1, 4, 16))
    assert list(coarse["bin"]) == ["0", "1-3", "4-15"]
    assert list(coarse["n_targets"]) == [2, 1, 2]  # distance 30 lies beyond the last edge


def test_f1_by_distance_bootstraps_each_bin_over_its_sentences() -> None:
    """A bin's interval: the percentiles of micro_f1 over seeded resamples of the sentences
    with targets in the bin (a brute-force loop over their targets, not the counts)."""
    rng = np.random.default_rng(3)
    labels = rng.random((60, 3)) < 0.4
    predicted = np.where(rng.random((60, 3)) < 0.75, labels, ~labels)
    distance = rng.integers(0, 12, 60)
    sentence = np.repeat(np.arange(15), 4)
    table = f1_by_distance(labels, predicted, distance, (0, 4, 16), groups=sentence, seed=2)
    for row in table.itertuples():
        in_bin = (distance >= row.distance_low) & (distance < row.distance_high)
        present = np.unique(sentence[in_bin])
        draws = np.random.default_rng(2).integers(0, len(present), (2000, len(present)))
        brute = []
        for chosen in present[draws]:
            rows = np.concatenate([np.flatnonzero(in_bin & (sentence == s)) for s in chosen])
            brute.append(micro_f1(labels[rows], predicted[rows]))
        low, high = np.quantile(brute, [0.025, 0.975])
        assert (row.micro_f1_ci_low, row.micro_f1_ci_high) == pytest.approx((low, high))
        assert row.micro_f1_ci_low <= row.micro_f1 <= row.micro_f1_ci_high
    bare = f1_by_distance(labels, predicted, distance, (0, 4, 16))
    assert bare["micro_f1_ci_low"].isna().all() and bare["micro_f1_ci_high"].isna().all()
    with pytest.raises(WordlensError, match="groups must have shape"):
        f1_by_distance(labels, predicted, distance, groups=sentence[:-1])


def test_f1_by_distance_rejects_bad_input() -> None:
    labels = np.ones((3, 1), dtype=bool)
    with pytest.raises(WordlensError, match=">= 0"):
        f1_by_distance(labels, labels, np.array([0, -1, 2]))
    with pytest.raises(WordlensError, match="distance must have shape"):
        f1_by_distance(labels, labels, np.array([0, 1]))
    with pytest.raises(WordlensError, match="increasing integer edges"):
        f1_by_distance(labels, labels, np.array([0, 1, 2]), bins=(0, 4, 2))
    with pytest.raises(WordlensError, match="increasing integer edges"):
        f1_by_distance(labels, labels, np.array([0, 1, 2]), bins=(0, 0.5, 2))


def test_majority_baseline_single_label() -> None:
    names = np.array([0, 0, 1, 2, 0, 1])  # label 0 is the most frequent
    train = np.eye(3, dtype=bool)[names]
    test = np.eye(3, dtype=bool)[np.array([0, 1, 1, 0, 2])]
    np.testing.assert_array_equal(majority_label_set(train), [True, False, False])
    # one predicted label per target: micro F1 = accuracy = 2 / 5
    assert majority_baseline(train, test) == pytest.approx(0.4)
    expected = f1_score(test, np.broadcast_to(train[0], test.shape), average="micro")
    assert majority_baseline(train, test) == pytest.approx(expected)


def test_majority_baseline_multi_label_uses_the_label_set() -> None:
    train = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 0]], dtype=bool)
    np.testing.assert_array_equal(majority_label_set(train), [True, True, False])
    test = np.array([[1, 0, 0], [1, 1, 0]], dtype=bool)  # TP 3, FP 1, FN 0
    assert majority_baseline(train, test) == pytest.approx(6 / 7)
    tied = np.array([[0, 1], [1, 0]], dtype=bool)  # ties: first in numpy.unique order
    np.testing.assert_array_equal(majority_label_set(tied), [False, True])
    with pytest.raises(EmptyInputError):
        majority_label_set(np.zeros((0, 2), dtype=bool))


def test_expected_layer() -> None:
    assert expected_layer(np.full(7, 1 / 7)) == pytest.approx(3.0)
    assert expected_layer([0, 0, 0, 0, 0, 1.0, 0]) == 5.0
    assert expected_layer([0.25, 0.75], layer_numbers=[4, 8]) == pytest.approx(7.0)
    for bad in ([0.5, 0.6], [-0.5, 1.5], [math.nan, 1.0], []):
        with pytest.raises(WordlensError, match="weights"):
            expected_layer(bad)
    with pytest.raises(WordlensError, match="layer_numbers"):
        expected_layer([0.5, 0.5], layer_numbers=[1, 2, 3])


def test_bad_label_arrays_raise() -> None:
    labels = np.zeros((3, 2), dtype=bool)
    with pytest.raises(WordlensError, match="differ in shape"):
        micro_f1(labels, np.zeros((3, 3), dtype=bool))
    with pytest.raises(WordlensError, match="boolean"):
        micro_f1(labels, np.zeros((3, 2), dtype=np.int64))
    with pytest.raises(EmptyInputError, match="no targets"):
        micro_f1(np.zeros((0, 2), dtype=bool), np.zeros((0, 2), dtype=bool))
