"""Percentile bootstrap intervals (wordlens.stats.bootstrap, the probe's micro-F1 interval):
each against a brute-force loop over the same resamples that recomputes the statistic from the
raw values (not from the vectorized counts), and against the normal theory where it applies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from wordlens.errors import WordlensError
from wordlens.probing.metrics import group_counts, micro_f1, micro_f1_interval
from wordlens.stats.bootstrap import effect_size_interval
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
