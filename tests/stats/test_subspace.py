"""All-but-the-top (PC nullification) against a direct SVD formula and the VAST reference semantics,
on real GloVe and MiniLM vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from sklearn.decomposition import PCA

from wordlens.contexts import targets_from_template
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_similarity
from wordlens.stats import fit_principal_components, nullify_top_components

Array = npt.NDArray[np.float64]


def _words(name: str) -> list[str]:
    data = load_similarity(name).data
    return list(dict.fromkeys([*data["word1"], *data["word2"]]))


@pytest.fixture(scope="module")
def glove_ws353(glove: WordEmbedder, shared: Path) -> Array:
    """GloVe 6B 50d vectors of the 437 distinct WS-353 words, float64 ``[437, 50]``."""
    return glove.embed_words(_words("ws353")).vectors[:, 0].astype(np.float64)


@pytest.fixture(scope="module")
def minilm_rg65(minilm: WordEmbedder, shared: Path) -> npt.NDArray[np.float32]:
    """MiniLM-L6 vectors of the 49 RG-65 words in "This is {word}", layers 0, 3, 6: [49, 3, 384]."""
    return minilm.embed(targets_from_template(_words("rg65")), layers=[0, 3, 6]).vectors


def _svd_directions(vectors: Array) -> tuple[Array, Array]:
    """Centred vectors and all right singular vectors (rows), straight from numpy."""
    centered = vectors - vectors.mean(axis=0)
    return centered, np.linalg.svd(centered, full_matrices=False)[2]


def _reference_pca_transform(vectors: Array, k: int) -> tuple[Array, Array]:
    """The semantics of ``pca_transform(x, k, subtract_mean=True)`` in the VAST authors' code:
    sklearn PCA fitted on the mean-centred vectors; returns (nullified, fit_transform scores)."""
    centered = vectors - vectors.mean(axis=0)
    pca = PCA(n_components=k)
    scores = pca.fit_transform(centered)
    return centered - centered @ pca.components_.T @ pca.components_, scores


@pytest.mark.parametrize("k", [0, 1, 5, 20, 49])
def test_matches_direct_svd_formula(glove_ws353: Array, k: int) -> None:
    centered, directions = _svd_directions(glove_ws353)
    top = centered @ directions[:k].T @ directions[:k]
    fitted = fit_principal_components(glove_ws353, k)
    np.testing.assert_allclose(fitted.remove(glove_ws353, k), centered - top, atol=1e-12)
    np.testing.assert_allclose(fitted.top(glove_ws353, k), top, atol=1e-12)
    np.testing.assert_allclose(
        fitted.remove(glove_ws353, k) + fitted.top(glove_ws353, k), centered, atol=1e-12
    )
    assert fitted.components.shape == (1, k, 50) and fitted.rank.tolist() == [50]


@pytest.mark.parametrize("k", [1, 3, 8])
def test_matches_reference_pca_transform(glove_ws353: Array, k: int) -> None:
    removed, scores = _reference_pca_transform(glove_ws353, k)
    fitted = fit_principal_components(glove_ws353, k)
    np.testing.assert_allclose(fitted.remove(glove_ws353, k), removed, atol=1e-12)
    # same directions with sklearn's sign convention, so the scores agree entry by entry
    np.testing.assert_allclose(fitted.scores(glove_ws353, k), scores, atol=1e-12)
    reference_ratio = PCA(n_components=k).fit(glove_ws353).explained_variance_ratio_
    np.testing.assert_allclose(fitted.explained_variance_ratio[0], reference_ratio, rtol=1e-10)
    # top() lives in the original space but has the reference scores' inner products
    top = fitted.top(glove_ws353, k)
    np.testing.assert_allclose(top @ top.T, scores @ scores.T, atol=1e-10)


def test_k0_is_the_mean_centred_input(glove_ws353: Array, minilm_rg65: Array) -> None:
    centered = glove_ws353 - glove_ws353.mean(axis=0)
    np.testing.assert_allclose(nullify_top_components(glove_ws353, 0), centered, atol=1e-15)
    assert not np.allclose(centered, glove_ws353)
    layered = fit_principal_components(minilm_rg65, 2)
    expected = minilm_rg65.astype(np.float64) - minilm_rg65.astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(layered.remove(minilm_rg65, 0), expected, atol=1e-12)
    np.testing.assert_array_equal(layered.top(minilm_rg65, 0), 0.0)
    assert layered.scores(minilm_rg65, 0).shape == (49, 3, 0)


@pytest.mark.parametrize("k", [1, 4, 12])
def test_removed_vectors_are_orthogonal_to_the_top_directions(glove_ws353: Array, k: int) -> None:
    centered, directions = _svd_directions(glove_ws353)
    removed = nullify_top_components(glove_ws353, k)
    scale = np.abs(centered).max()
    np.testing.assert_allclose(removed @ directions[:k].T, 0.0, atol=1e-12 * scale)
    # the remaining directions keep their coordinates (only the top k are nullified)
    np.testing.assert_allclose(
        removed @ directions[k:].T, centered @ directions[k:].T, atol=1e-12 * scale
    )
    assert np.abs(centered @ directions[:k].T).min(axis=0).max() > 0  # there was something there


def test_sweep_equals_one_at_a_time(glove_ws353: Array, minilm_rg65: Array) -> None:
    for vectors, k_max in ((glove_ws353, 10), (minilm_rg65, 6)):
        fitted = fit_principal_components(vectors, k_max)
        swept = list(fitted.sweep(vectors))
        assert [k for k, _ in swept] == list(range(k_max + 1))
        for k, removed in swept:
            np.testing.assert_allclose(removed, fitted.remove(vectors, k), atol=1e-11)
        for k, top in fitted.sweep(vectors, part="top"):  # the part nullification removes
            np.testing.assert_allclose(top, fitted.top(vectors, k), atol=1e-11)
    fitted = fit_principal_components(glove_ws353, 10)
    sweep = fitted.sweep(glove_ws353, k_max=3)
    _, first = next(sweep)
    first[:] = np.nan  # yielded arrays are fresh: changing one cannot corrupt the next
    rest = list(sweep)
    assert [k for k, _ in rest] == [1, 2, 3]
    np.testing.assert_allclose(rest[-1][1], fitted.remove(glove_ws353, 3), atol=1e-12)


def test_layer_axis_is_fitted_per_layer(minilm_rg65: Array) -> None:
    fitted = fit_principal_components(minilm_rg65, 5)
    assert fitted.layered and fitted.components.shape == (3, 5, 384)
    assert fitted.rank.tolist() == [48, 48, 48]  # 49 centred vectors span 48 directions
    removed = fitted.remove(minilm_rg65, 5)
    assert removed.shape == (49, 3, 384) and removed.dtype == np.float64
    for layer in range(3):
        alone = fit_principal_components(minilm_rg65[:, layer], 5)
        np.testing.assert_allclose(removed[:, layer], alone.remove(minilm_rg65[:, layer], 5))
        np.testing.assert_allclose(fitted.components[layer], alone.components[0], atol=1e-12)
    # the layers differ, so one fit for all would be wrong
    assert not np.allclose(fitted.components[0], fitted.components[2], atol=1e-3)


def test_fit_on_one_set_apply_to_another(glove_ws353: Array) -> None:
    subset = glove_ws353[:100]
    fitted = fit_principal_components(glove_ws353, 3)
    np.testing.assert_allclose(fitted.remove(subset, 3), fitted.remove(glove_ws353, 3)[:100])
    np.testing.assert_allclose(
        nullify_top_components(subset, 3, fit_on=glove_ws353), fitted.remove(subset, 3)
    )
    # centred on the union's mean, not the subset's own
    assert not np.allclose(nullify_top_components(subset, 3), fitted.remove(subset, 3))


def test_float32_input_is_computed_in_float64(minilm_rg65: Array) -> None:
    single = nullify_top_components(minilm_rg65, 2)
    double = nullify_top_components(minilm_rg65.astype(np.float64), 2)
    assert single.dtype == np.float64
    np.testing.assert_array_equal(single, double)


def test_k_must_be_below_min_n_d(glove_ws353: Array) -> None:
    fit_principal_components(glove_ws353, 49)  # d = 50
    with pytest.raises(WordlensError, match=r"from 0 to 49 \(below min\(n_vectors=437, d=50\)\)"):
        fit_principal_components(glove_ws353, 50)
    with pytest.raises(WordlensError, match="from 0 to 2"):
        fit_principal_components(glove_ws353[:3], 3)  # n = 3
    three = fit_principal_components(glove_ws353[:3], 2)  # 3 centred vectors span 2 directions
    np.testing.assert_allclose(three.remove(glove_ws353[:3], 2), 0.0, atol=1e-14)
    for bad in (-1, 1.0, True, "2"):
        with pytest.raises(WordlensError, match="number of components"):
            fit_principal_components(glove_ws353, bad)  # type: ignore[arg-type]


def test_k_above_the_fit_is_refused(glove_ws353: Array) -> None:
    fitted = fit_principal_components(glove_ws353, 3)
    with pytest.raises(WordlensError, match=r"from 0 to 3 \(the n_components fitted"):
        fitted.remove(glove_ws353, 4)
    with pytest.raises(WordlensError, match="from 0 to 3"):
        fitted.sweep(glove_ws353, k_max=4)  # raised at the call, before iterating
    with pytest.raises(WordlensError, match="part must be 'removed' or 'top'"):
        fitted.sweep(glove_ws353, part="scores")  # type: ignore[arg-type]


def test_constant_and_repeated_vectors(glove: WordEmbedder) -> None:
    cat = glove.embed_words(["cat"]).vectors[:, 0].astype(np.float64)
    constant = np.repeat(cat / 3.0, 6, axis=0)
    np.testing.assert_allclose(nullify_top_components(constant, 0), 0.0, atol=1e-15)
    assert fit_principal_components(constant, 0).rank.tolist() == [0]
    with pytest.raises(WordlensError, match="vary along only 0 direction"):
        fit_principal_components(constant, 1)
    repeated = glove.embed_words(["cat", "dog", "cat", "dog", "cat"]).vectors  # [5, 1, 50]
    fitted = fit_principal_components(repeated, 1)
    assert fitted.rank.tolist() == [1]
    np.testing.assert_allclose(fitted.remove(repeated, 1), 0.0, atol=1e-14)
    with pytest.raises(WordlensError, match=r"at layer position 0.*only 1 direction"):
        fit_principal_components(repeated, 2)


def test_bad_input(glove_ws353: Array) -> None:
    with pytest.raises(WordlensError, match="shape"):
        fit_principal_components(glove_ws353[0], 0)
    with pytest.raises(WordlensError, match="shape"):
        fit_principal_components(glove_ws353[np.newaxis, np.newaxis], 0)
    with pytest.raises(EmptyInputError):
        fit_principal_components(np.zeros((0, 50)), 0)
    broken = glove_ws353.copy()
    broken[3, 7] = np.nan
    with pytest.raises(WordlensError, match="NaN or infinite"):
        fit_principal_components(broken, 1)
    fitted = fit_principal_components(glove_ws353, 2)
    with pytest.raises(WordlensError, match=r"shape \[m, d\] .*got \(4, 1, 50\)"):
        fitted.remove(glove_ws353[:4, np.newaxis], 1)
    with pytest.raises(WordlensError, match="d=50"):
        fitted.remove(glove_ws353[:4, :40], 1)
    with pytest.raises(WordlensError, match="NaN or infinite"):
        fitted.remove(broken, 1)
