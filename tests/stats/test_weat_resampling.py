"""WEAT's permutation p and bootstrap interval are array work (an indicator matrix times the
per-word scores; a ``[resamples, words]`` matrix of row numbers): on GloVe vectors they equal a
loop computing the statistic once per partition or resample, for the same seed; a different
seed gives a different result, so that the comparison can fail."""

from __future__ import annotations

import numpy as np
import pytest

from wordlens.contexts import decontextualized_targets
from wordlens.models.base import WordEmbedder
from wordlens.stats import iter_partitions, weat
from wordlens.stats.association import RELATIVE_TOLERANCE, association, effect_size
from wordlens.stats.bootstrap import effect_size_interval

WORDS = {
    "x": ["rose", "tulip", "daisy", "lily", "orchid", "iris", "violet", "poppy"],
    "y": ["ant", "wasp", "flea", "moth", "beetle", "spider", "roach", "bee"],
    "a": ["love", "peace", "gift", "joy", "honest", "lucky", "happy", "heaven"],
    "b": ["hate", "war", "filth", "rotten", "agony", "evil", "poison", "ugly"],
}


@pytest.fixture(scope="module")
def vectors(glove: WordEmbedder) -> dict[str, np.ndarray]:
    return {
        name: np.asarray(glove.embed(decontextualized_targets(words)).vectors[:, 0], np.float64)
        for name, words in WORDS.items()
    }


def _loop_weat_p(
    scores: np.ndarray, n_x: int, n_samples: int, seed: int
) -> tuple[float, float, int]:
    """One- and two-sided sampled p (Phipson & Smyth) over the partitions of
    :func:`iter_partitions`, the statistic computed one partition at a time."""
    observed = scores[:n_x].sum() - scores[n_x:].sum()
    tolerance = RELATIVE_TOLERANCE * np.abs(scores).sum()
    null_mean = (n_x - (len(scores) - n_x)) * scores.mean()
    exceeding = as_extreme = n = 0
    for chunk in iter_partitions(n_x, len(scores) - n_x, n_samples=n_samples, seed=seed):
        for first in chunk:
            statistic = scores[first].sum() - scores[~first].sum()
            exceeding += statistic > observed + tolerance
            as_extreme += abs(statistic - null_mean) >= abs(observed - null_mean) - tolerance
            n += 1
    return (exceeding + 1) / n, as_extreme / n, n


@pytest.mark.parametrize(("n_x", "n_y"), [(8, 8), (3, 8), (8, 2)])
def test_weat_sampled_p_equals_the_per_partition_loop(
    vectors: dict[str, np.ndarray], n_x: int, n_y: int
) -> None:
    x, y = vectors["x"][:n_x], vectors["y"][:n_y]
    scores = association(np.concatenate([x, y]), vectors["a"], vectors["b"])  # [n]
    results = []
    for seed in (3, 4):
        result = weat(x, y, vectors["a"], vectors["b"], n_samples=40, seed=seed)
        one, two, n = _loop_weat_p(scores, n_x, 40, seed)
        assert not result.exact and result.n_partitions == n == 40
        assert float(result.p_one_sided) == pytest.approx(one, abs=1e-15)
        assert float(result.p_two_sided) == pytest.approx(two, abs=1e-15)
        results.append((one, two))
    if (n_x, n_y) == (8, 8):  # 12,870 partitions: the seed matters, the comparison can fail
        assert results[0] != results[1]


def test_weat_interval_equals_the_per_resample_loop(vectors: dict[str, np.ndarray]) -> None:
    """The effect size's interval over 300 resamples (blocks of 256 and a last one of 44)
    equals the effect size computed one resample at a time from the same row numbers."""
    sx = association(vectors["x"], vectors["a"], vectors["b"])
    sy = association(vectors["y"][:5], vectors["a"], vectors["b"])
    lows = []
    for seed in (0, 1):
        low, high = effect_size_interval(sx, sy, n_resamples=300, seed=seed, confidence=0.9)
        rng = np.random.default_rng(seed)
        rows_x = rng.integers(0, len(sx), size=(300, len(sx)))
        rows_y = rng.integers(0, len(sy), size=(300, len(sy)))
        d = np.array([effect_size(sx[rx], sy[ry]) for rx, ry in zip(rows_x, rows_y, strict=True)])
        expected = np.nanquantile(d, [0.05, 0.95])
        np.testing.assert_allclose([low, high], expected, rtol=0, atol=1e-12)
        lows.append(float(low))
    assert lows[0] != lows[1]
