"""The learned valence direction (linear SVC per layer) and scalar projections (eq. 1)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.resources import pleasant_unpleasant
from wordlens.stats import DirectionSettings, fit_direction, scalar_projection

RNG = np.random.default_rng(20260101)
N_POS, N_NEG, N_LAYERS, DIM = 12, 9, 3, 16


def _groups(shift: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Layered groups ``[n, L, d]`` separated along feature 0 (positive group higher)."""
    positive = RNG.normal(size=(N_POS, N_LAYERS, DIM))
    negative = RNG.normal(size=(N_NEG, N_LAYERS, DIM))
    positive[..., 0] += shift
    negative[..., 0] -= shift
    return positive, negative


def test_direction_is_unit_oriented_and_follows_the_separating_feature() -> None:
    positive, negative = _groups()
    direction = fit_direction(positive, negative)
    assert direction.vectors.shape == (N_LAYERS, DIM)
    np.testing.assert_allclose(np.linalg.norm(direction.vectors, axis=1), 1.0, atol=1e-12)
    assert (direction.vectors[:, 0] > 0.5).all()  # feature 0 dominates, pointing to the positives
    pos, neg = direction.project(positive), direction.project(negative)
    assert pos.shape == (N_POS, N_LAYERS) and neg.shape == (N_NEG, N_LAYERS)
    assert (pos.mean(axis=0) > neg.mean(axis=0)).all()
    assert (direction.train_accuracy == 1.0).all() and direction.converged.all()
    assert direction.defined.all() and not direction.flipped.any()
    swapped = fit_direction(negative, positive)  # the other pole is positive now
    assert (swapped.vectors[:, 0] < -0.5).all()


def test_matches_the_authors_recipe_layer_by_layer() -> None:
    """normalize(X, axis=0), LinearSVC(C=5) on labels 1/0, coef / ||coef||, per layer."""
    positive, negative = _groups(shift=0.7)
    settings = DirectionSettings(seed=3)
    direction = fit_direction(positive, negative, settings)
    labels = [1] * N_POS + [0] * N_NEG
    for layer in range(N_LAYERS):
        features = normalize(np.concatenate([positive[:, layer], negative[:, layer]]), axis=0)
        classifier = LinearSVC(C=5.0, max_iter=10_000, random_state=3, dual=True)
        coef = classifier.fit(features, labels).coef_[0]
        np.testing.assert_allclose(direction.vectors[layer], coef / np.linalg.norm(coef), atol=1e-9)
        single = fit_direction(positive[:, layer], negative[:, layer], settings)
        assert single.vectors.shape == (1, DIM) and not single.layered
        np.testing.assert_array_equal(single.vectors[0], direction.vectors[layer])


def test_settings_change_the_fit() -> None:
    positive, negative = _groups(shift=0.3)
    positive[..., 1] *= 50.0  # a feature on another scale: column scaling matters
    base = fit_direction(positive, negative)
    raw = fit_direction(positive, negative, DirectionSettings(normalize_columns=False))
    soft = fit_direction(positive, negative, DirectionSettings(c=0.001))
    balanced = fit_direction(positive, negative, DirectionSettings(class_weight="balanced"))
    for other in (raw, soft, balanced):
        assert np.abs(other.vectors - base.vectors).max() > 1e-3
    stopped = fit_direction(positive, negative, DirectionSettings(max_iter=1))
    assert not stopped.converged.any() and (stopped.n_iter == 1).all()


def test_orientation_flip_is_applied_and_recorded() -> None:
    """With column scaling the classifier weighs feature 0 (positives higher) most, but raw
    projections are dominated by feature 1 (scale ~4,000, negative weight, positives also higher
    there): the raw means disagree with the classifier's side, so the direction is negated."""
    positive = np.array([[0.138, 3223.486], [0.3, 4877.984], [0.295, 4754.789]])
    negative = np.array([[0.023, 3268.869], [0.278, 4762.343], [0.217, 4391.898]])
    classifier = LinearSVC(C=5.0, max_iter=10_000, random_state=0, dual=True).fit(
        normalize(np.concatenate([positive, negative]), axis=0), [1, 1, 1, 0, 0, 0]
    )
    coef = classifier.coef_[0] / np.linalg.norm(classifier.coef_[0])
    assert (positive @ coef).mean() < (negative @ coef).mean()  # the unflipped orientation
    direction = fit_direction(positive, negative)
    assert list(direction.flipped) == [True]
    np.testing.assert_allclose(direction.vectors[0], -coef, atol=1e-12)
    assert direction.project(positive).mean() > direction.project(negative).mean()
    unscaled = fit_direction(positive, negative, DirectionSettings(normalize_columns=False))
    assert unscaled.project(positive).mean() > unscaled.project(negative).mean()


def test_scalar_projection_is_equation_one() -> None:
    vectors = RNG.normal(size=(5, DIM))
    axis = RNG.normal(size=DIM) * 7.0  # not unit length
    expected = vectors @ axis / np.linalg.norm(axis)
    np.testing.assert_allclose(scalar_projection(vectors, axis), expected, atol=1e-12)
    layered = scalar_projection(np.stack([vectors, 2 * vectors], axis=1), np.stack([axis, -axis]))
    np.testing.assert_allclose(layered, np.stack([expected, -2 * expected], axis=1), atol=1e-12)


def test_nan_zero_and_constant_vectors() -> None:
    positive, negative = _groups()
    direction = fit_direction(positive, negative)
    probe = RNG.normal(size=(3, N_LAYERS, DIM))
    probe[0, 1, 4] = np.nan
    probe[1] = 0.0
    projected = direction.project(probe)
    assert np.isnan(projected[0, 1]) and np.isfinite(projected[0, [0, 2]]).all()
    np.testing.assert_array_equal(projected[1], 0.0)  # a zero vector projects to 0, not NaN
    poisoned = positive.copy()
    poisoned[2, 0, 3] = np.inf
    with pytest.raises(WordlensError, match=r"positive vectors \[2\] contain NaN or infinity"):
        fit_direction(poisoned, negative)
    constant = np.ones((4, 2, DIM))
    constant[:, 1] = RNG.normal(size=(4, DIM))  # layer 0 is the same vector for every word
    undefined = fit_direction(constant[:2], constant[2:])
    assert list(undefined.defined) == [False, True]
    assert np.isnan(undefined.vectors[0]).all() and np.isnan(undefined.train_accuracy[0])
    assert np.isnan(undefined.project(constant)[:, 0]).all()
    assert np.isfinite(undefined.project(constant)[:, 1]).all()


def test_bad_input_raises_specific_errors() -> None:
    positive, negative = _groups()
    with pytest.raises(EmptyInputError):
        fit_direction(positive[:0], negative)
    with pytest.raises(WordlensError, match="same layer count"):
        fit_direction(positive, negative[:, :2])
    with pytest.raises(WordlensError, match="C must be a positive"):
        DirectionSettings(c=0.0)
    with pytest.raises(WordlensError, match="max_iter"):
        DirectionSettings(max_iter=0)
    with pytest.raises(WordlensError, match="class_weight"):
        DirectionSettings(class_weight="even")  # type: ignore[arg-type]
    direction = fit_direction(positive, negative)
    with pytest.raises(WordlensError, match="do not match a direction"):
        direction.project(positive[:, :2])
    with pytest.raises(WordlensError, match=r"shape \[n, d\]"):
        scalar_projection(positive[0, 0], direction)


def test_glove_valence_direction_separates_the_weat_words(glove: WordEmbedder) -> None:
    polar = pleasant_unpleasant()
    pleasant = glove.embed_words(polar.pleasant).vectors
    unpleasant = glove.embed_words(polar.unpleasant).vectors
    direction = fit_direction(pleasant, unpleasant)
    assert direction.train_accuracy[0] == 1.0
    happy, vomit = glove.embed_words(["wonderful", "disgusting"]).vectors
    assert direction.project(happy[None])[0, 0] > direction.project(vomit[None])[0, 0]


def test_a_zero_coefficient_vector_leaves_the_layer_undefined() -> None:
    # With a vanishing (subnormal) C, LinearSVC's coefficients are exactly 0 though the groups
    # differ: no direction exists, so the layer is NaN and undefined (module notes), not an error.
    positive, negative = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[3.0, 1.0], [0.0, 2.0]])
    settings = DirectionSettings(c=1e-320)
    classifier = LinearSVC(C=1e-320, max_iter=settings.max_iter, random_state=0, dual=True)
    classifier.fit(normalize(np.concatenate([positive, negative]), axis=0), [1, 1, 0, 0])
    assert not classifier.coef_.any()
    direction = fit_direction(positive, negative, settings=settings)
    assert np.isnan(direction.vectors).all() and not direction.defined.any()
    assert np.isnan(direction.train_accuracy).all()
    assert direction.n_iter.tolist() == [classifier.n_iter_]


def test_tiny_coefficients_still_give_a_unit_direction() -> None:
    # With C = 1e-300, LinearSVC's w is about 1e-300: its plain norm underflows to 0, the
    # direction is still defined (w / |w|, computed on w scaled by its largest entry).
    positive, negative = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[3.0, 1.0], [0.0, 2.0]])
    settings = DirectionSettings(c=1e-300)
    classifier = LinearSVC(C=1e-300, max_iter=settings.max_iter, random_state=0, dual=True)
    classifier.fit(normalize(np.concatenate([positive, negative]), axis=0), [1, 1, 0, 0])
    w = classifier.coef_[0]
    assert w.any() and np.linalg.norm(w) == 0.0  # the underflow this guards against
    direction = fit_direction(positive, negative, settings=settings)
    assert direction.defined.all()
    expected = (w * 1e300) / np.linalg.norm(w * 1e300)
    sign = np.sign(direction.vectors[0] @ expected)  # oriented toward the positive group
    np.testing.assert_allclose(direction.vectors[0], sign * expected, rtol=1e-12)


def test_the_direction_records_its_settings() -> None:
    settings = DirectionSettings(c=0.5, seed=3)
    positive, negative = np.array([[1.0, 0.0], [0.9, 0.2]]), np.array([[0.0, 1.0], [0.1, 0.8]])
    assert fit_direction(positive, negative, settings=settings).settings == settings
    assert fit_direction(positive, negative).settings == DirectionSettings()


def test_projection_shape_mismatch_message_counts_layers() -> None:
    direction = np.ones((2, 5))  # 2 layers of size 5
    with pytest.raises(WordlensError, match=r"direction of 2 layer\(s\) of size 5"):
        scalar_projection(np.ones((4, 3, 5)), direction)


def test_the_direction_counts_each_group() -> None:
    positive, negative = np.eye(4)[:3], -np.eye(4)[:2]
    direction = fit_direction(positive, negative)
    assert (direction.n_positive, direction.n_negative) == (3, 2)
