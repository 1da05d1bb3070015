"""Cosine similarity, s(w, A, B), SC-WEAT and effect sizes against loops over the formulas."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.stats import association, cosine_similarity, effect_size, sc_weat

RNG = np.random.default_rng(20240601)
N_WORDS, N_A, N_B, N_LAYERS, DIM = 5, 4, 6, 3, 7


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))


def _vectors(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


def test_cosine_similarity_matches_loop_and_broadcasts_leading_axes() -> None:
    a, b = _vectors(N_LAYERS, N_WORDS, DIM), _vectors(N_LAYERS, N_A, DIM)
    got = cosine_similarity(a, b)
    assert got.shape == (N_LAYERS, N_WORDS, N_A)
    assert got.dtype == np.float64
    for layer in range(N_LAYERS):
        for i in range(N_WORDS):
            for j in range(N_A):
                assert got[layer, i, j] == pytest.approx(_cos(a[layer, i], b[layer, j]), abs=1e-12)
    # [2, 1, n, d] against [L, m, d] broadcasts to [2, L, n, m]; cosines ignore scale
    broadcast = cosine_similarity(np.stack([a[:1], 2.0 * a[:1]]), b)
    assert broadcast.shape == (2, N_LAYERS, N_WORDS, N_A)
    for layer in range(N_LAYERS):
        expected = [[_cos(u, v) for v in b[layer]] for u in a[0]]
        np.testing.assert_allclose(broadcast[:, layer], [expected, expected], atol=1e-12)


def test_cosine_of_zero_vector_is_nan_without_warning() -> None:
    a = _vectors(3, DIM)
    a[1] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = cosine_similarity(a, _vectors(2, DIM))
    assert np.isnan(got[1]).all()
    assert np.isfinite(got[[0, 2]]).all()


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "error"),
    [
        ((3, 4), (2, 5), WordlensError),  # vector sizes differ
        ((4,), (2, 4), WordlensError),  # not [..., n, d]
        ((2, 3, 4), (3, 2, 4), WordlensError),  # leading axes do not broadcast
        ((3, 0), (2, 0), EmptyInputError),  # vectors of size 0
    ],
)
def test_cosine_similarity_rejects_bad_shapes(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], error: type[Exception]
) -> None:
    with pytest.raises(error):
        cosine_similarity(np.ones(a_shape), np.ones(b_shape))


def _loop_scores(
    words: np.ndarray, attr_a: np.ndarray, attr_b: np.ndarray, ddof: int
) -> tuple[np.ndarray, np.ndarray]:
    """s(w, A, B) and SC-WEAT (eq. 1 of VAST) by explicit loops, layers on axis 1."""
    n_words, n_layers = words.shape[:2]
    s = np.empty((n_words, n_layers))
    d = np.empty((n_words, n_layers))
    for i in range(n_words):
        for layer in range(n_layers):
            cos_a = [_cos(words[i, layer], a) for a in attr_a[:, layer]]
            cos_b = [_cos(words[i, layer], b) for b in attr_b[:, layer]]
            s[i, layer] = np.mean(cos_a) - np.mean(cos_b)
            d[i, layer] = s[i, layer] / np.std(cos_a + cos_b, ddof=ddof)
    return s, d


@pytest.mark.parametrize("ddof", [0, 1])
def test_association_and_sc_weat_match_loops_per_layer(ddof: int) -> None:
    words = _vectors(N_WORDS, N_LAYERS, DIM)
    attr_a, attr_b = _vectors(N_A, N_LAYERS, DIM), _vectors(N_B, N_LAYERS, DIM)
    expected_s, expected_d = _loop_scores(words, attr_a, attr_b, ddof)
    got_s = association(words, attr_a, attr_b)
    got_d = sc_weat(words, attr_a, attr_b, ddof=ddof)
    assert got_s.shape == got_d.shape == (N_WORDS, N_LAYERS)
    np.testing.assert_allclose(got_s, expected_s, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_d, expected_d, rtol=0, atol=1e-12)
    # Static [n, d] input gives [n_words], equal to the layer taken alone.
    for layer in range(N_LAYERS):
        static = [v[:, layer] for v in (words, attr_a, attr_b)]
        assert association(*static).shape == (N_WORDS,)
        np.testing.assert_allclose(association(*static), got_s[:, layer], atol=1e-12)
        np.testing.assert_allclose(sc_weat(*static, ddof=ddof), got_d[:, layer], atol=1e-12)


def test_sc_weat_default_is_sample_std() -> None:
    words, attr_a, attr_b = _vectors(2, DIM), _vectors(N_A, DIM), _vectors(N_B, DIM)
    sample = sc_weat(words, attr_a, attr_b, ddof=1)
    np.testing.assert_array_equal(sc_weat(words, attr_a, attr_b), sample)
    # d_0 = d_1 * sqrt(n / (n - 1)) with n = n_a + n_b cosines
    n = N_A + N_B
    np.testing.assert_allclose(
        sc_weat(words, attr_a, attr_b, ddof=0), sample * np.sqrt(n / (n - 1)), atol=1e-12
    )


def test_nan_and_zero_vectors_propagate_to_their_layer_only() -> None:
    words = _vectors(N_WORDS, N_LAYERS, DIM)
    attr_a, attr_b = _vectors(N_A, N_LAYERS, DIM), _vectors(N_B, N_LAYERS, DIM)
    words[1, 0, 3] = np.nan  # word 1 at layer 0
    words[2, 1] = 0.0  # word 2 at layer 1 has no direction
    attr_b[0, 2, 0] = np.nan  # an attribute at layer 2: every word at layer 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sc_weat(words, attr_a, attr_b)
    expected_nan = np.zeros((N_WORDS, N_LAYERS), dtype=bool)
    expected_nan[1, 0] = expected_nan[2, 1] = True
    expected_nan[:, 2] = True
    np.testing.assert_array_equal(np.isnan(got), expected_nan)
    np.testing.assert_array_equal(np.isnan(association(words, attr_a, attr_b)), expected_nan)


def test_sc_weat_is_nan_when_all_cosines_are_equal() -> None:
    """Identical attribute vectors give equal cosines: zero std, so NaN rather than 0/0 noise."""
    words = _vectors(3, DIM)
    attribute = _vectors(1, DIM)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sc_weat(words, np.repeat(attribute, 4, axis=0), np.repeat(attribute, 5, axis=0))
    assert np.isnan(got).all()


@pytest.mark.parametrize(
    ("shapes", "error"),
    [
        (((0, DIM), (N_A, DIM), (N_B, DIM)), EmptyInputError),
        (((N_WORDS, DIM), (N_A, DIM), (0, DIM)), EmptyInputError),
        (((N_WORDS, DIM), (N_A, DIM + 1), (N_B, DIM)), WordlensError),  # vector sizes differ
        (((N_WORDS, 2, DIM), (N_A, 3, DIM), (N_B, 3, DIM)), WordlensError),  # layers differ
        (((N_WORDS, 2, DIM), (N_A, DIM), (N_B, DIM)), WordlensError),  # layered vs static
        (((DIM,), (N_A, DIM), (N_B, DIM)), WordlensError),  # a single vector, not a set
    ],
)
def test_sc_weat_rejects_bad_sets(
    shapes: tuple[tuple[int, ...], ...], error: type[Exception]
) -> None:
    words, attr_a, attr_b = (np.ones(shape) for shape in shapes)
    with pytest.raises(error):
        sc_weat(words, attr_a, attr_b)
    with pytest.raises(error):
        association(words, attr_a, attr_b)


def test_effect_size_matches_formula_along_any_axis() -> None:
    first, second = _vectors(4, N_LAYERS), _vectors(7, N_LAYERS)
    for ddof in (0, 1, 3):
        expected = [
            (first[:, layer].mean() - second[:, layer].mean())
            / np.std(np.r_[first[:, layer], second[:, layer]], ddof=ddof)
            for layer in range(N_LAYERS)
        ]
        np.testing.assert_allclose(effect_size(first, second, ddof=ddof), expected, atol=1e-12)
        np.testing.assert_allclose(
            effect_size(first.T, second.T, axis=-1, ddof=ddof), expected, atol=1e-12
        )
    scalar = effect_size(first[:, 0], second[:, 0], ddof=3)
    assert scalar.shape == ()
    assert float(scalar) == pytest.approx(expected[0], abs=1e-12)


def test_effect_size_single_values_and_ddof_limits() -> None:
    """One value per group: n = 2, so ddof=1 is defined and d = ±sqrt(2); ddof=2 is rejected."""
    assert float(effect_size([3.0], [1.0])) == pytest.approx(np.sqrt(2.0), abs=1e-12)
    assert float(effect_size([1.0], [3.0], ddof=0)) == pytest.approx(-2.0, abs=1e-12)
    with pytest.raises(WordlensError, match="ddof"):
        effect_size([3.0], [1.0], ddof=2)
    with pytest.raises(WordlensError, match="ddof"):
        effect_size([3.0], [1.0], ddof=-1)
    with pytest.raises(EmptyInputError):
        effect_size([], [1.0, 2.0])
    with pytest.raises(WordlensError):
        effect_size(np.ones((3, 2)), np.ones((3, 4)))


def test_effect_size_of_constant_values_is_nan_without_warning() -> None:
    """0.1 repeated has a float std of ~1e-17, not 0: the tolerance must still call it constant."""
    values = np.full((7, 2), 0.1)
    values[:, 1] = np.linspace(0.0, 1.0, 7)
    assert np.std(values[:, 0]) > 0.0  # the rounding this test is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = effect_size(values[:3], values[3:])
    assert np.isnan(got[0])
    assert np.isfinite(got[1])
    assert np.isnan(effect_size([0.0, 0.0], [0.0]))


def test_cosine_size_mismatch_message_names_each_vector_size() -> None:
    # The sizes are the last axes: 3 for [2, 3] and 4 for [1, 5, 4] (not 2 or 5).
    with pytest.raises(
        WordlensError, match=r"vector sizes differ: 3 \(shape \(2, 3\)\) vs 4 \(shape \(1, 5, 4\)\)"
    ):
        cosine_similarity(np.ones((2, 3)), np.ones((1, 5, 4)))


def test_an_empty_vector_set_is_named_in_the_error() -> None:
    with pytest.raises(EmptyInputError, match="attr_b is empty"):
        sc_weat(np.ones((2, 3)), np.ones((2, 3)), np.ones((0, 3)))


def test_effect_size_of_float32_values_is_computed_in_float64() -> None:
    # Model outputs are often float32; d must be that of the same values in float64, not of a
    # float32 mean (which is off by ~1e-7 relative).
    rng = np.random.default_rng(0)
    first = rng.normal(0.3, 1.0, 1000).astype(np.float32)
    second = rng.normal(0.0, 1.0, 800).astype(np.float32)
    a, b = first.astype(np.float64), second.astype(np.float64)
    expected = (a.mean() - b.mean()) / np.concatenate([a, b]).std(ddof=1)
    assert float(effect_size(first, second)) == pytest.approx(expected, rel=1e-13, abs=0.0)
