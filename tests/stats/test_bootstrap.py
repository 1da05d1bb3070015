"""Percentile bootstrap intervals (wordlens.stats.bootstrap, the probe's micro-F1 interval, the
top-PC probes' weighted F1, the cosine with a mean pair direction):
each against a brute-force loop over the same resamples that recomputes the statistic from the
raw values (not from the vectorized counts), and against the normal theory where it applies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score

from wordlens.errors import WordlensError
from wordlens.probing.metrics import group_counts, micro_f1, micro_f1_interval
from wordlens.stats.bootstrap import (
    direction_cosine_interval,
    effect_size_interval,
    weighted_f1_interval,
)
from wordlens.stats.bootstrap import micro_f1_interval as bootstrap_f1


def _cohen_d(first: np.ndarray, second: np.ndarray) -> float:
    """d with the std over the union (ddof 1), written out."""
    union = np.concatenate([first, second])
    return float((first.mean() - second.mean()) / union.std(ddof=1))


def test_effect_size_interval_is_the_percentiles_of_resampled_d() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(0.5, 1, 12), rng.normal(0, 1, 9)
    low, high = effect_size_interval(x, y, n_resamples=500, seed=3)
    draws = np.random.default_rng(3)
    rows_x, rows_y = draws.integers(0, 12, (500, 12)), draws.integers(0, 9, (500, 9))
    d = [_cohen_d(x[a], y[b]) for a, b in zip(rows_x, rows_y, strict=True)]
    assert (float(low), float(high)) == (
        pytest.approx(np.quantile(d, 0.025)),
        pytest.approx(np.quantile(d, 0.975)),
    )
    assert low < _cohen_d(x, y) < high


def test_effect_size_interval_matches_the_normal_theory_for_large_groups() -> None:
    # Hedges & Olkin's SE of d, sqrt((n1 + n2) / (n1 n2) + d^2 / (2 (n1 + n2))), for 400 + 400
    rng = np.random.default_rng(0)
    x, y = rng.normal(0.5, 1, 400), rng.normal(0, 1, 400)
    low, high = effect_size_interval(x, y, seed=0)
    d = _cohen_d(x, y)
    normal = stats.norm.ppf(0.975) * math.sqrt(800 / 400**2 + d * d / 1600)
    assert (high - low) / 2 == pytest.approx(normal, rel=0.15)


def test_effect_size_interval_per_layer_and_its_edges() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(8, 3)), rng.normal(size=(6, 3))  # [words, layers]
    low, high = effect_size_interval(x, y, n_resamples=300, seed=5)
    assert low.shape == high.shape == (3,)
    alone = effect_size_interval(x[:, 1], y[:, 1], n_resamples=300, seed=5)
    assert (low[1], high[1]) == (pytest.approx(alone[0]), pytest.approx(alone[1]))
    # one word in a set: no interval; identical scores: d undefined in every resample
    assert np.isnan(effect_size_interval(x[:1], y, seed=0)[0]).all()
    flat = effect_size_interval(np.ones(5), np.ones(4), seed=0)
    assert math.isnan(float(flat[0])) and math.isnan(float(flat[1]))


def _labels(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.random((n, k)) < 0.3
    guess = np.where(rng.random((n, k)) < 0.7, truth, ~truth)
    return truth, guess


def test_group_counts_sum_to_the_micro_counts() -> None:
    rng = np.random.default_rng(4)
    truth, guess = _labels(rng, 30, 4)
    groups = np.sort(rng.integers(0, 7, 30))
    counts = group_counts(truth, guess, groups)
    for group in range(counts.shape[0]):
        t, g = truth[groups == group], guess[groups == group]
        assert list(counts[group]) == [(t & g).sum(), (~t & g).sum(), (t & ~g).sum()]
    tp, fp, fn = counts.sum(axis=0)
    assert 2 * tp / (2 * tp + fp + fn) == pytest.approx(micro_f1(truth, guess))
    with pytest.raises(WordlensError):
        group_counts(truth, guess, groups[:-1])


def test_micro_f1_interval_resamples_sentences() -> None:
    rng = np.random.default_rng(6)
    truth, guess = _labels(rng, 40, 3)
    sentence = np.repeat(np.arange(10), 4)  # 10 sentences of 4 targets
    low, high = micro_f1_interval(truth, guess, sentence, n_resamples=400, seed=2)
    draws = np.random.default_rng(2).integers(0, 10, (400, 10))
    f1 = []
    for chosen in draws:  # the resampled sentences' targets, scored by micro_f1 itself
        rows = np.concatenate([np.flatnonzero(sentence == s) for s in chosen])
        f1.append(micro_f1(truth[rows], guess[rows]))
    assert (low, high) == (
        pytest.approx(np.quantile(f1, 0.025)),
        pytest.approx(np.quantile(f1, 0.975)),
    )
    assert low <= micro_f1(truth, guess) <= high


def test_micro_f1_interval_edges() -> None:
    assert all(math.isnan(end) for end in bootstrap_f1([[3, 1, 0]]))  # one sentence
    # no positive anywhere: F1 0 in every resample, as micro_f1's zero division
    assert bootstrap_f1([[0, 0, 0], [0, 0, 0]], seed=0) == (0.0, 0.0)
    # every target right: [1, 1]
    assert bootstrap_f1([[2, 0, 0], [1, 0, 0], [4, 0, 0]], seed=0) == (1.0, 1.0)
    with pytest.raises(WordlensError):
        bootstrap_f1([[1, 2]])


def test_weighted_f1_interval_is_the_percentiles_of_sklearns_f1() -> None:
    rng = np.random.default_rng(4)
    truth = rng.choice(np.array(["NOUN", "VERB", "ADJ", "ADP"]), size=60)
    noise = rng.choice(np.array(["NOUN", "VERB", "X"]), size=60)  # "X" never true
    predicted = np.where(rng.random(60) < 0.6, truth, noise)
    low, high = weighted_f1_interval(truth, predicted, n_resamples=300, seed=5)
    rows = np.random.default_rng(5).integers(0, 60, (300, 60))
    brute = [f1_score(truth[r], predicted[r], average="weighted", zero_division=0) for r in rows]
    assert (low, high) == pytest.approx(tuple(np.quantile(brute, [0.025, 0.975])), abs=1e-12)
    assert low < f1_score(truth, predicted, average="weighted") < high


def test_weighted_f1_interval_of_booleans_and_edges() -> None:
    truth = np.array([True, False, True, True, False, False, True, False])
    predicted = np.array([True, False, False, True, True, False, True, False])
    low, high = weighted_f1_interval(truth, predicted, n_resamples=200, seed=0)
    rows = np.random.default_rng(0).integers(0, 8, (200, 8))
    brute = [f1_score(truth[r], predicted[r], average="weighted", zero_division=0) for r in rows]
    assert (low, high) == pytest.approx(tuple(np.quantile(brute, [0.025, 0.975])), abs=1e-12)
    assert all(math.isnan(end) for end in weighted_f1_interval(truth[:1], predicted[:1]))
    with pytest.raises(WordlensError, match="1-D of one length"):
        weighted_f1_interval(truth, predicted[:3])


def test_direction_cosine_interval_resamples_the_pairs() -> None:
    rng = np.random.default_rng(6)
    differences = rng.normal(0.3, 1, (10, 2, 5))  # 10 pairs, 2 layers, d = 5
    vectors = rng.normal(0, 1, (3, 2, 5))
    low, high = direction_cosine_interval(differences, vectors, n_resamples=400, seed=7)
    rows = np.random.default_rng(7).integers(0, 10, (400, 10))
    brute = np.empty((400, 3, 2))
    for b, r in enumerate(rows):
        for layer in range(2):
            g = differences[r, layer].mean(axis=0)
            for i in range(3):
                v = vectors[i, layer]
                brute[b, i, layer] = v @ g / (np.linalg.norm(v) * np.linalg.norm(g))
    np.testing.assert_allclose(low, np.quantile(brute, 0.025, axis=0), atol=1e-12)
    np.testing.assert_allclose(high, np.quantile(brute, 0.975, axis=0), atol=1e-12)
    assert low.shape == (3, 2) and (low < high).all()


def test_direction_cosine_interval_edges() -> None:
    vectors = np.ones((2, 1, 3))
    low, high = direction_cosine_interval(np.ones((1, 1, 3)), vectors)  # one pair
    assert np.isnan(low).all() and np.isnan(high).all() and low.shape == (2, 1)
    same = np.tile([[[1.0, 0.0, 0.0]]], (4, 1, 1))  # identical pairs: every resample agrees
    low, high = direction_cosine_interval(same, vectors, n_resamples=50)
    np.testing.assert_allclose(low, 1 / math.sqrt(3))
    np.testing.assert_allclose(high, low)
    with pytest.raises(WordlensError, match=r"\[P, L, d\]"):
        direction_cosine_interval(np.ones((3, 1, 4)), vectors)
