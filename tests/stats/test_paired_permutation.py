"""The paired permutation (sign-flip) test, :func:`wordlens.stats.paired_permutation_test`:
against every relabelling enumerated by hand, its sampled p's rule, its NaNs and warnings."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from wordlens.errors import (
    EmptyInputError,
    FewPartitionsWarning,
    UndefinedStatisticWarning,
    WordlensError,
)
from wordlens.stats import paired_permutation_test, permutation_test
from wordlens.stats.permutation import iter_swaps


def _brute_force(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """One- and two-sided p over all 2^n swaps, by loops (strict > one-sided, >= two-sided)."""
    observed = float(np.sum(x - y))
    statistics = [
        float(np.sum(np.where(swap, y - x, x - y)))
        for swap in itertools.product([False, True], repeat=len(x))
    ]
    n = len(statistics)
    one = sum(s > observed + 1e-12 for s in statistics) / n
    two = sum(abs(s) >= abs(observed) - 1e-12 for s in statistics) / n
    return one, two


@pytest.mark.parametrize("n", [1, 3, 7, 10])
def test_exact_p_values_equal_brute_force_on_every_layer(n: int) -> None:
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=(n, 3)), rng.normal(size=(n, 3)) + 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewPartitionsWarning)
        result = paired_permutation_test(x, y, n_samples=2**n)
    assert result.exact and result.n_partitions == 2**n
    for layer in range(3):
        one, two = _brute_force(x[:, layer], y[:, layer])
        assert result.p_one_sided[layer] == pytest.approx(one)
        assert result.p_two_sided[layer] == pytest.approx(two)
    np.testing.assert_allclose(result.statistic, (x - y).sum(axis=0))


def test_all_swaps_are_the_binary_digits_observed_first() -> None:
    rows = np.concatenate(list(iter_swaps(4, n_samples=16)))
    assert rows.shape == (16, 4) and not rows[0].any()
    assert {tuple(r) for r in rows.tolist()} == set(itertools.product([False, True], repeat=4))


def test_random_swaps_are_distinct_seeded_and_start_with_the_observed_one() -> None:
    rows = np.concatenate(list(iter_swaps(9, n_samples=300, seed=4)))
    assert rows.shape == (300, 9) and not rows[0].any()
    assert len({tuple(r) for r in rows.tolist()}) == 300  # without replacement, of 512
    again = np.concatenate(list(iter_swaps(9, n_samples=300, seed=4)))
    other = np.concatenate(list(iter_swaps(9, n_samples=300, seed=5)))
    assert np.array_equal(rows, again) and not np.array_equal(rows, other)


def test_sampled_p_is_b_plus_one_over_n_and_near_the_exact_one() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=14), rng.normal(size=14) + 0.3
    exact = paired_permutation_test(x, y, n_samples=2**14)
    sampled = paired_permutation_test(x, y, n_samples=4000, seed=1)
    assert not sampled.exact and sampled.n_partitions == 4000
    assert sampled.p_one_sided * 4000 == pytest.approx(round(float(sampled.p_one_sided) * 4000))
    assert sampled.p_one_sided >= 1 / 4000
    assert abs(sampled.p_two_sided - exact.p_two_sided) < 0.03
    strong = paired_permutation_test(x + 10, y, n_samples=1000, seed=1)
    assert strong.p_one_sided == strong.p_two_sided == 1 / 1000  # never 0 when sampled


def test_pairing_removes_the_spread_between_pairs() -> None:
    """Pairs far apart from each other but with a steady small gap within each pair: the paired
    test sees the gap, the unpaired test of the same scores does not."""
    rng = np.random.default_rng(2)
    base = rng.normal(scale=10.0, size=40)
    x, y = base + 0.5 + rng.normal(scale=0.1, size=40), base
    paired = paired_permutation_test(x, y, n_samples=2000, seed=0)
    unpaired = permutation_test(x, y, n_samples=2000, seed=0)
    assert paired.p_two_sided < 0.001 < 0.5 < unpaired.p_two_sided


@pytest.mark.filterwarnings("ignore::wordlens.errors.FewPartitionsWarning")
def test_equal_pairs_and_nan_give_nan_at_their_layer_with_the_reason() -> None:
    x = np.array([[1.0, 1.0, 2.0], [2.0, np.nan, 3.0], [3.0, 1.0, 1.0]])
    y = np.array([[1.0, 0.0, 1.0], [2.0, 0.0, 1.0], [3.0, 0.0, 2.0]])
    with pytest.warns(UndefinedStatisticWarning):
        result = paired_permutation_test(x, y, n_samples=8)
    assert np.isnan(result.p_one_sided[:2]).all() and np.isnan(result.p_two_sided[:2]).all()
    assert not np.isnan(result.p_two_sided[2])
    assert "equal" in result.nan_reason[0] and "NaN" in result.nan_reason[1]
    assert result.nan_reason[2] == ""


def test_few_pairs_warn_and_bad_input_is_refused() -> None:
    with pytest.warns(FewPartitionsWarning, match=r"only 8 relabellings of the 3 pairs"):
        paired_permutation_test([1.0, 2.0, 3.0], [0.0, 0.5, 1.0])
    with pytest.raises(EmptyInputError):
        paired_permutation_test([], [])
    with pytest.raises(WordlensError, match="the same"):
        paired_permutation_test([1.0, 2.0], [1.0, 2.0, 3.0])
