"""Permutation test and WEAT against brute-force enumeration written out with itertools."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from wordlens.errors import (
    EmptyInputError,
    FewPartitionsWarning,
    UndefinedStatisticWarning,
    WordlensError,
)
from wordlens.stats import iter_partitions, permutation, permutation_test, weat

RNG = np.random.default_rng(7)


def _brute_force_p(scores: np.ndarray, n_x: int) -> tuple[float, float]:
    """One- and two-sided p over all partitions, by enumeration (scores: one layer, [n]).

    The null mean m is taken as the mean of the enumerated statistics, which also checks the
    closed form m = (n_x - n_y) * mean(scores) used by the implementation.
    """
    n = len(scores)
    observed = scores[:n_x].sum() - scores[n_x:].sum()
    statistics = np.array(
        [
            scores[list(chosen)].sum() - np.delete(scores, list(chosen)).sum()
            for chosen in itertools.combinations(range(n), n_x)
        ]
    )
    assert len(statistics) == math.comb(n, n_x)
    m = statistics.mean()
    tie = 1e-9
    one = np.mean(statistics > observed + tie)
    two = np.mean(np.abs(statistics - m) >= np.abs(observed - m) - tie)
    return float(one), float(two)


def _all_rows(n_x: int, n_y: int, **kwargs: int) -> np.ndarray:
    return np.concatenate(list(iter_partitions(n_x, n_y, **kwargs)))


def test_exact_partitions_are_all_combinations_observed_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(permutation, "_CHUNK_ELEMENTS", 72)  # 9 rows of 8 items per chunk
    rows = _all_rows(4, 4, n_samples=70)
    assert rows.shape == (70, 8)
    assert rows[0].tolist() == [True] * 4 + [False] * 4
    chosen = {tuple(np.flatnonzero(row).tolist()) for row in rows}
    assert chosen == set(itertools.combinations(range(8), 4))
    assert [len(chunk) for chunk in iter_partitions(4, 4, n_samples=70)] == [9] * 7 + [7]


def test_random_partitions_are_distinct_seeded_and_include_the_observed_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(permutation, "_CHUNK_ELEMENTS", 22 * 700)  # 700 draws per round
    rows = _all_rows(10, 12, n_samples=3000, seed=5)
    assert rows.shape == (3000, 22)
    assert (rows.sum(axis=1) == 10).all()
    assert rows[0].tolist() == [True] * 10 + [False] * 12
    assert len({row.tobytes() for row in rows}) == 3000  # no partition twice, observed once
    np.testing.assert_array_equal(_all_rows(10, 12, n_samples=3000, seed=5), rows)
    other = _all_rows(10, 12, n_samples=3000, seed=6)
    assert {row.tobytes() for row in other[1:]} != {row.tobytes() for row in rows[1:]}
    # Every item lands in the first set about n_x / n of the time (uniform draws).
    np.testing.assert_allclose(rows[1:].mean(axis=0), 10 / 22, atol=0.05)


def test_random_partitions_without_replacement_up_to_all_but_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """C(10, 5) = 252 partitions; asking for 251 forces many rejected duplicates."""
    monkeypatch.setattr(permutation, "_CHUNK_ELEMENTS", 640)  # 64 draws per round
    rows = _all_rows(5, 5, n_samples=251, seed=1)
    assert len({row.tobytes() for row in rows}) == 251
    assert not permutation.is_exact(5, 5, 251)
    assert permutation.is_exact(5, 5, 252)


def _drawn_one_by_one(
    n_x: int, n_y: int, n_samples: int, seed: int, chunk_rows: int
) -> list[np.ndarray]:
    """The sampled partitions as the plain loop draws them: rounds of ``chunk_rows`` full
    ``rng.permuted`` draws of ``arange(n)`` (int64), each row kept when its packed bits are not
    in the set of those already kept, stopping once ``n_samples - 1`` are; one chunk per round."""
    rng = np.random.default_rng(seed)
    n = n_x + n_y
    observed = np.arange(n)[np.newaxis] < n_x
    chunks, seen, missing = [observed], {np.packbits(observed[0]).tobytes()}, n_samples - 1
    while missing > 0:
        candidates = rng.permuted(np.tile(np.arange(n), (chunk_rows, 1)), axis=1) < n_x
        kept: list[int] = []
        for row, packed in enumerate(np.packbits(candidates, axis=1)):
            if len(kept) < missing and packed.tobytes() not in seen:
                seen.add(packed.tobytes())
                kept.append(row)
        missing -= len(kept)
        chunks.append(candidates[kept])
    return chunks


@pytest.mark.parametrize(
    ("n_x", "n_y", "n_samples", "seed", "chunk_rows"),
    [
        (16, 16, 100_000, 3, 65_536),  # 2 rounds, duplicates in the first (C(32, 16) = 6e8)
        (25, 25, 100_000, 0, 41_943),  # the last round drawn only as far as needed
        (5, 5, 251, 1, 64),  # all but one of the 252: most draws are duplicates
        (6, 7, 1000, 4, 100),  # duplicates across rounds and within them
        (40, 40, 5000, 9, 1000),  # 80 items: keys of 10 bytes, not one uint64
        (2, 2, 5, 0, 1),  # 5 of the C(4, 2) = 6, one draw per round: empty chunks on repeats
    ],
)
def test_random_partitions_are_those_of_the_one_by_one_loop(
    monkeypatch: pytest.MonkeyPatch, n_x: int, n_y: int, n_samples: int, seed: int, chunk_rows: int
) -> None:
    """The sampled partitions, chunk by chunk, are exactly those of the plain loop: drawing a
    round only as far as needed, in a smaller dtype, and deduplicating by sorted keys changes no
    partition, no order and no chunk (so no p-value)."""
    monkeypatch.setattr(permutation, "_CHUNK_ELEMENTS", chunk_rows * (n_x + n_y))
    expected = _drawn_one_by_one(n_x, n_y, n_samples, seed, chunk_rows)
    chunks = list(iter_partitions(n_x, n_y, n_samples=n_samples, seed=seed))
    assert [len(chunk) for chunk in chunks] == [len(chunk) for chunk in expected]
    for chunk, reference in zip(chunks, expected, strict=True):
        np.testing.assert_array_equal(chunk, reference)
    assert sum(len(chunk) for chunk in chunks) == n_samples


@pytest.mark.parametrize(("n_x", "n_y"), [(4, 4), (3, 5), (6, 2), (1, 1)])
def test_exact_p_values_equal_brute_force_on_every_layer(n_x: int, n_y: int) -> None:
    scores_x, scores_y = RNG.normal(size=(n_x, 3)), RNG.normal(0.5, size=(n_y, 3))
    result = permutation_test(scores_x, scores_y, n_samples=100)
    assert result.exact
    assert result.n_partitions == math.comb(n_x + n_y, n_x)
    scores = np.concatenate([scores_x, scores_y])
    for layer in range(3):
        one, two = _brute_force_p(scores[:, layer], n_x)
        assert result.p_one_sided[layer] == pytest.approx(one, abs=1e-12)
        assert result.p_two_sided[layer] == pytest.approx(two, abs=1e-12)
        expected_statistic = scores_x[:, layer].sum() - scores_y[:, layer].sum()
        assert result.statistic[layer] == pytest.approx(expected_statistic, abs=1e-12)
    single = permutation_test(scores_x[:, 0], scores_y[:, 0], n_samples=100)
    assert single.p_one_sided.shape == single.p_two_sided.shape == single.statistic.shape == ()
    assert float(single.p_one_sided) == result.p_one_sided[0]


def test_exact_p_values_do_not_depend_on_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    scores_x, scores_y = RNG.normal(size=(7, 20)), RNG.normal(0.3, size=(7, 20))
    whole = permutation_test(scores_x, scores_y, n_samples=5000)
    monkeypatch.setattr(permutation, "_CHUNK_ELEMENTS", 60)  # chunks of 4 rows, in blocks of 3
    chunked = permutation_test(scores_x, scores_y, n_samples=5000)
    assert whole.exact and chunked.exact
    assert whole.n_partitions == chunked.n_partitions == math.comb(14, 7)
    np.testing.assert_array_equal(chunked.p_one_sided, whole.p_one_sided)
    np.testing.assert_array_equal(chunked.p_two_sided, whole.p_two_sided)


def test_random_p_values_of_a_layer_do_not_depend_on_the_other_layers() -> None:
    """All layers see the same random partitions, whatever the number of layers."""
    scores_x, scores_y = RNG.normal(size=(12, 6)), RNG.normal(0.3, size=(12, 6))
    layered = permutation_test(scores_x, scores_y, n_samples=3000, seed=4)
    for layer in (0, 5):
        alone = permutation_test(scores_x[:, layer], scores_y[:, layer], n_samples=3000, seed=4)
        assert not alone.exact
        assert float(alone.p_one_sided) == layered.p_one_sided[layer]
        assert float(alone.p_two_sided) == layered.p_two_sided[layer]


def test_random_p_values_approach_the_exact_ones_and_depend_on_the_seed() -> None:
    scores_x, scores_y = RNG.normal(size=(9, 5)), RNG.normal(0.4, size=(9, 5))
    exact = permutation_test(scores_x, scores_y, n_samples=48620)
    assert exact.exact
    sampled = permutation_test(scores_x, scores_y, n_samples=20_000, seed=11)
    assert not sampled.exact
    assert sampled.n_partitions == 20_000
    for p_exact, p_sampled in [
        (exact.p_one_sided, sampled.p_one_sided),
        (exact.p_two_sided, sampled.p_two_sided),
    ]:
        # Sampling without replacement: the binomial standard error is an upper bound.
        bound = 5 * np.sqrt(p_exact * (1 - p_exact) / 20_000) + 1 / 20_000
        assert (np.abs(p_sampled - p_exact) <= bound).all()
    again = permutation_test(scores_x, scores_y, n_samples=20_000, seed=11)
    np.testing.assert_array_equal(again.p_two_sided, sampled.p_two_sided)
    other = permutation_test(scores_x, scores_y, n_samples=20_000, seed=12)
    assert not np.array_equal(other.p_two_sided, sampled.p_two_sided)


def test_ties_count_as_not_greater_for_one_sided_and_as_extreme_for_two_sided() -> None:
    """Exact rational enumeration against float64 with decimal scores that tie in fact.

    Many partitions have the observed statistic in exact arithmetic but come out a few ulps above
    or below it in float64: without the tie tolerance 17 (not 11) of the 70 would exceed it and 28
    (not 38) would be as extreme.
    """
    values = ["0.15", "0.05", "0.6", "0.3", "0.3", "0.1", "0.1", "0.1"]
    scores = np.array([float(v) for v in values])
    exact = [Fraction(v) for v in values]
    n_x = 4
    observed = Fraction(sum(exact[:n_x]) - sum(exact[n_x:]))
    statistics = [
        Fraction(2 * sum(exact[i] for i in chosen) - sum(exact))
        for chosen in itertools.combinations(range(8), n_x)
    ]
    one = Fraction(sum(s > observed for s in statistics), len(statistics))
    two = Fraction(sum(abs(s) >= abs(observed) for s in statistics), len(statistics))  # m = 0
    assert (one, two) == (Fraction(11, 70), Fraction(38, 70))
    result = permutation_test(scores[:n_x], scores[n_x:], n_samples=1000)
    assert float(result.p_one_sided) == pytest.approx(float(one), abs=1e-15)
    assert float(result.p_two_sided) == pytest.approx(float(two), abs=1e-15)


def test_integer_scores_with_many_ties() -> None:
    scores_x, scores_y = np.array([1.0, 1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 0.0, 0.0])
    one, two = _brute_force_p(np.concatenate([scores_x, scores_y]), 4)
    result = permutation_test(scores_x, scores_y)
    assert (float(result.p_one_sided), float(result.p_two_sided)) == pytest.approx((one, two))


def test_observed_partition_is_counted_in_n() -> None:
    """With n_samples=1 only the observed partition is left (m = 0 random ones): p = 1/1.

    Enumerated, the one-sided p is Caliskan's share of partitions exceeding the observed one, 0
    when it is the largest.
    """
    result = permutation_test([3.0, 2.0], [0.0, 1.0, -1.0], n_samples=1)
    assert result.n_partitions == 1
    assert not result.exact
    assert (float(result.p_one_sided), float(result.p_two_sided)) == (1.0, 1.0)
    largest = permutation_test([3.0, 2.0], [0.0, 1.0, -1.0])  # the largest of all 10
    assert largest.exact
    assert float(largest.p_one_sided) == 0.0
    # m = (2 - 3) * mean = -1; only the observed {3, 2} and {0, -1} are >= |5 - m| from m
    assert float(largest.p_two_sided) == pytest.approx(0.2)


def test_sampled_p_is_never_zero_even_when_no_partition_reaches_the_observed_one() -> None:
    """Perfectly separated groups: no random partition reaches the observed statistic (b = 0),
    and the sampled p is 1 / (m + 1) = 1 / N (Phipson & Smyth 2010), not 0."""
    rng = np.random.default_rng(1)
    scores_x = 100.0 + rng.normal(size=(10, 3))  # [10, 3 layers], every x above every y
    scores_y = rng.normal(size=(12, 3))
    result = permutation_test(scores_x, scores_y, n_samples=500, seed=2)
    assert not result.exact and result.n_partitions == 500
    np.testing.assert_array_equal(result.p_one_sided, 1 / 500)
    np.testing.assert_array_equal(result.p_two_sided, 1 / 500)  # unequal sizes: no mirror
    negated = permutation_test(-scores_x, -scores_y, n_samples=500, seed=2)
    np.testing.assert_array_equal(negated.p_one_sided, 1.0)  # every partition is above
    np.testing.assert_array_equal(negated.p_two_sided, 1 / 500)


@pytest.mark.parametrize(("n_samples", "seed"), [(200, 3), (37, 0)])
def test_sampled_p_is_b_plus_one_over_m_plus_one_by_hand(n_samples: int, seed: int) -> None:
    """The drawn partitions scored one by one: p = (b + 1) / (m + 1), m = n_samples - 1 random
    partitions besides the observed one, b those more extreme (one-sided: s_i > s_obs;
    two-sided: |s_i - mu| >= |s_obs - mu|)."""
    n_x, n_y = 6, 7  # C(13, 6) = 1,716 partitions
    scores = np.random.default_rng(5).normal(0.3, 1.0, size=n_x + n_y)
    scores[:n_x] += 0.8
    rows = _all_rows(n_x, n_y, n_samples=n_samples, seed=seed)  # [n_samples, 13]
    assert rows[0].tolist() == [True] * n_x + [False] * n_y  # the observed partition first
    drawn = [scores[row].sum() - scores[~row].sum() for row in rows[1:]]  # the m random ones
    observed = scores[:n_x].sum() - scores[n_x:].sum()
    mu = (n_x - n_y) * scores.mean()
    b_one = sum(s > observed for s in drawn)
    b_two = sum(abs(s - mu) >= abs(observed - mu) for s in drawn)
    assert 0 < b_one < len(drawn)  # a case where the counts matter
    result = permutation_test(scores[:n_x], scores[n_x:], n_samples=n_samples, seed=seed)
    assert not result.exact and result.n_partitions == len(drawn) + 1 == n_samples
    assert float(result.p_one_sided) == (b_one + 1) / (len(drawn) + 1)
    assert float(result.p_two_sided) == (b_two + 1) / (len(drawn) + 1)


def test_nan_and_constant_scores_give_nan_p_at_their_layer_only() -> None:
    scores_x, scores_y = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    scores_x[2, 0] = np.nan
    scores_x[:, 1] = scores_y[:, 1] = 0.25
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = permutation_test(scores_x, scores_y)
    assert [warning.category for warning in caught] == [UndefinedStatisticWarning]
    assert str(caught[0].message) == (
        "the p-values are NaN at layer 0: the score(s) x[2] are NaN or infinite; at layer 1: all "
        "9 scores are equal, so every partition has the same statistic"
    )
    assert result.nan_reason.tolist() == [
        "the score(s) x[2] are NaN or infinite",
        "all 9 scores are equal, so every partition has the same statistic",
        "",
    ]
    assert result.notes == (str(caught[0].message),)
    assert np.isnan(result.p_one_sided[:2]).all()
    assert np.isnan(result.p_two_sided[:2]).all()
    assert np.isfinite([result.p_one_sided[2], result.p_two_sided[2]]).all()


def test_permutation_test_rejects_bad_input() -> None:
    with pytest.raises(EmptyInputError):
        permutation_test([], [1.0, 2.0])
    with pytest.raises(EmptyInputError):
        permutation_test(np.ones((0, 3)), np.ones((0, 3)))
    with pytest.raises(WordlensError):
        permutation_test(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(WordlensError):
        permutation_test([1.0, 2.0], [3.0], n_samples=0)


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))


def _loop_weat(
    x: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray, ddof: int
) -> tuple[float, float, np.ndarray]:
    """Statistic, effect size and per-word s of Caliskan et al. (2017), one layer, by loops."""

    def s(w: np.ndarray) -> float:
        return float(np.mean([_cos(w, v) for v in a]) - np.mean([_cos(w, v) for v in b]))

    s_x, s_y = [s(w) for w in x], [s(w) for w in y]
    statistic = sum(s_x) - sum(s_y)
    d = float((np.mean(s_x) - np.mean(s_y)) / np.std(s_x + s_y, ddof=ddof))
    return statistic, d, np.array(s_x + s_y)


@pytest.mark.parametrize("ddof", [0, 1])
def test_weat_matches_loops_per_layer(ddof: int) -> None:
    n_layers, dim = 3, 6
    x, y = RNG.normal(size=(4, n_layers, dim)), RNG.normal(size=(5, n_layers, dim))
    a, b = RNG.normal(size=(6, n_layers, dim)), RNG.normal(size=(3, n_layers, dim))
    result = weat(x, y, a, b, ddof=ddof)
    assert result.exact
    assert result.n_partitions == math.comb(9, 4)
    assert (result.ddof, result.seed) == (ddof, 0)
    for name in ("statistic", "effect_size", "p_one_sided", "p_two_sided"):
        assert getattr(result, name).shape == (n_layers,)
    for layer in range(n_layers):
        x_l, y_l, a_l, b_l = (v[:, layer] for v in (x, y, a, b))
        statistic, d, scores = _loop_weat(x_l, y_l, a_l, b_l, ddof)
        assert result.statistic[layer] == pytest.approx(statistic, abs=1e-12)
        assert result.effect_size[layer] == pytest.approx(d, abs=1e-12)
        one, two = _brute_force_p(scores, 4)
        assert result.p_one_sided[layer] == pytest.approx(one, abs=1e-12)
        assert result.p_two_sided[layer] == pytest.approx(two, abs=1e-12)
        static = weat(x_l, y_l, a_l, b_l, ddof=ddof)
        assert static.effect_size.shape == ()
        assert float(static.effect_size) == pytest.approx(result.effect_size[layer], abs=1e-12)
        assert float(static.p_one_sided) == result.p_one_sided[layer]


def test_weat_single_word_sets() -> None:
    """|X| = |Y| = 1: std over the 2 scores is defined for ddof=1, so d = ±sqrt(2); 2 partitions,
    the observed one and its mirror: the strict one-sided p is 0 or 1/2 (a FewPartitionsWarning
    says so)."""
    x, y, a, b = RNG.normal(size=(4, 1, 5))
    with pytest.warns(FewPartitionsWarning, match="only 2 distinct partitions"):
        result = weat(x, y, a, b)
    assert float(np.abs(result.effect_size)) == pytest.approx(np.sqrt(2.0), abs=1e-12)
    assert result.n_partitions == 2
    assert float(result.p_one_sided) == (0.0 if result.statistic > 0 else 0.5)
    assert float(result.p_two_sided) == 1.0
    with pytest.raises(WordlensError, match="ddof"):
        weat(x, y, a, b, ddof=2)


def test_weat_of_identical_targets_is_nan_with_its_reason_and_no_numpy_warning() -> None:
    target = RNG.normal(size=(1, 2, 5))
    a, b = RNG.normal(size=(3, 2, 5)), RNG.normal(size=(3, 2, 5))
    x, y = np.repeat(target, 3, axis=0), np.repeat(target, 4, axis=0)
    y[0, 1] = 0.0  # a zero vector at layer 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = weat(x, y, a, b)
    assert [warning.category for warning in caught] == [
        FewPartitionsWarning,  # C(7, 3) = 35
        UndefinedStatisticWarning,
    ]
    assert result.nan_reason[0].startswith("all 7 target vectors (X and Y) point the same way")
    assert result.nan_reason[1].startswith("the vector(s) of Y[0] are zero")
    for name in ("effect_size", "p_one_sided", "p_two_sided"):
        assert np.isnan(getattr(result, name)).all(), name
    assert np.isfinite(result.statistic[0])
    assert np.isnan(result.statistic[1])


@pytest.mark.parametrize(
    ("shapes", "error"),
    [
        (((0, 4), (2, 4), (2, 4), (2, 4)), EmptyInputError),
        (((2, 4), (2, 4), (0, 4), (2, 4)), EmptyInputError),
        (((2, 3, 4), (2, 2, 4), (2, 3, 4), (2, 3, 4)), WordlensError),
        (((2, 4), (2, 4), (2, 5), (2, 4)), WordlensError),
    ],
)
def test_weat_rejects_bad_sets(shapes: tuple[tuple[int, ...], ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        weat(*(np.ones(shape) for shape in shapes))


def test_exact_partitions_are_boolean_masks_in_combinations_order() -> None:
    rows = np.concatenate(list(iter_partitions(3, 3, n_samples=100)))
    assert rows.dtype == np.bool_
    items = np.arange(6)
    assert [tuple(items[row]) for row in rows] == list(itertools.combinations(range(6), 3))


def _random_partitions_by_hand(n_x: int, n_y: int, n_samples: int, seed: int) -> np.ndarray:
    """The documented stream, one draw at a time: the observed partition, then each
    ``rng.permuted(0 .. n - 1) < n_x`` not yielded before, until `n_samples`."""
    n = n_x + n_y
    rng = np.random.default_rng(seed)
    observed = tuple(range(n_x))
    rows, seen = [observed], {observed}
    while len(rows) < n_samples:
        draw = rng.permuted(np.arange(n, dtype=np.min_scalar_type(n))) < n_x
        members = tuple(np.flatnonzero(draw).tolist())
        if members not in seen:
            seen.add(members)
            rows.append(members)
    indicator = np.zeros((n_samples, n), dtype=bool)
    for i, members in enumerate(rows):
        indicator[i, list(members)] = True
    return indicator


def test_random_partitions_of_64_items_keep_every_distinct_draw() -> None:
    # 64 items pack into 8 bytes, one uint64 key. About half of the draws of 60 + 4 items have
    # all of items 48-51 and 57-63 in the first set: those 8 bytes read as a float64 are NaN, so
    # a key of any type other than the exact bits would merge distinct partitions (the
    # one-by-one-loop test above stops at 50 and jumps to 80 items).
    n_x, n_y = 60, 4
    expected = _random_partitions_by_hand(n_x, n_y, 300, seed=4)
    drawn = np.concatenate(list(iter_partitions(n_x, n_y, n_samples=300, seed=4)))
    np.testing.assert_array_equal(drawn, expected)


def test_weat_passes_its_seed_to_the_random_partitions() -> None:
    rng = np.random.default_rng(1)
    x, y, attr_a, attr_b = (rng.normal(size=(8, 5)) for _ in range(4))
    x[:, 0] += 0.4  # a modest effect, so that p is neither 0 nor 1

    def unit(vectors: np.ndarray) -> np.ndarray:
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    targets = unit(np.concatenate([x, y]))
    scores = (targets @ unit(attr_a).T).mean(axis=1) - (targets @ unit(attr_b).T).mean(axis=1)
    observed = scores[:8].sum() - scores[8:].sum()
    for seed in (0, 7):
        partitions = _random_partitions_by_hand(8, 8, 200, seed)
        statistics = partitions @ scores - (~partitions) @ scores
        exceeding = np.count_nonzero(statistics > observed + 1e-12 * np.abs(scores).sum())
        result = weat(x, y, attr_a, attr_b, n_samples=200, seed=seed)
        assert not result.exact and result.seed == seed
        assert float(result.p_one_sided) == pytest.approx((exceeding + 1) / 200, abs=1e-15)
