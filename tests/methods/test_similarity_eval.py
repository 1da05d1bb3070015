"""run_similarity against cosines and Spearman computed directly, on GloVe and SmolLM2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
from scipy import stats

from wordlens.contexts import targets_from_template
from wordlens.errors import EmptyInputError, ResourceNotFoundError, WordlensError
from wordlens.methods.vast.similarity import run_similarity
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.resources import SimilaritySet, load_similarity
from wordlens.results import Result


def _pair_cosines(first: npt.ArrayLike, second: npt.ArrayLike) -> npt.NDArray[np.float64]:
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def _glove_spearman(glove: WordEmbedder, pairs: pd.DataFrame) -> tuple[float, float]:
    first = glove.embed_words(list(pairs["word1"])).vectors[:, 0]
    second = glove.embed_words(list(pairs["word2"])).vectors[:, 0]
    result = stats.spearmanr(_pair_cosines(first, second), pairs["score"])
    return float(result.statistic), float(result.pvalue)


def test_glove_ws353_and_simlex999(glove: WordEmbedder, shared: Path) -> None:
    result = run_similarity(glove, ["ws353", "simlex999"])
    table = result.table.set_index("set")
    assert list(table.index) == ["ws353", "simlex999"] and set(table["layer"]) == {0}
    assert table["k_nullified"].isna().all()
    # published magnitude for GloVe 6B 50d; measured 0.5033 and 0.2646
    assert 0.48 < table.loc["ws353", "spearman"] < 0.53
    assert 0.24 < table.loc["simlex999", "spearman"] < 0.29
    for name, n_pairs in (("ws353", 353), ("simlex999", 999)):
        row = table.loc[name]
        r, p = _glove_spearman(glove, load_similarity(name).data)
        assert row["spearman"] == pytest.approx(r, abs=1e-12)
        assert row["p_value"] == pytest.approx(p, rel=1e-8)
        assert row["ci_low"] < row["spearman"] < row["ci_high"]
        assert row["n_pairs"] == row["n_used"] == n_pairs
        assert result.metadata["coverage"][name]["coverage"] == 1.0
    assert result.metadata["config"]["context"] == "none (static model)"


def test_nullification_matches_direct_formula(glove: WordEmbedder, shared: Path) -> None:
    pairs = load_similarity("ws353").data
    result = run_similarity(glove, "ws353", k_nullified=[None, 0, 2])
    by_k = result.table.set_index("k_nullified", drop=False)
    assert list(result.table["k_nullified"].astype("object").fillna(-1)) == [-1, 0, 2]
    words = list(dict.fromkeys([*pairs["word1"], *pairs["word2"]]))
    vectors = glove.embed_words(words).vectors[:, 0].astype(np.float64)  # all 437 words
    centered = vectors - vectors.mean(axis=0)
    directions = np.linalg.svd(centered, full_matrices=False)[2][:2]
    row = {word: index for index, word in enumerate(words)}
    first, second = pairs["word1"].map(row), pairs["word2"].map(row)
    for k in (0, 2):
        processed = centered - centered @ directions[:k].T @ directions[:k]
        cosines = _pair_cosines(processed[first], processed[second])
        expected = stats.spearmanr(cosines, pairs["score"]).statistic
        assert by_k.loc[k, "spearman"] == pytest.approx(expected, abs=1e-12)
    # mean subtraction alone changes cosines: k = 0 is not the raw vectors (measured .573 vs .503)
    assert by_k.loc[0, "spearman"] > result.table["spearman"].iloc[0] + 0.05


def test_coverage_of_rare_words(glove: WordEmbedder, shared: Path) -> None:
    result = run_similarity(glove, ["rw"])
    row = result.table.iloc[0]
    assert (row["n_pairs"], row["n_used"]) == (2034, 1782)
    coverage = result.metadata["coverage"]["rw"]
    assert coverage["coverage"] == pytest.approx(1782 / 2034)
    assert len(coverage["missing_words"]) == 216 and "algebraist" in coverage["missing_words"]
    data = load_similarity("rw").data
    missing = set(coverage["missing_words"])
    covered = data[~(data["word1"].isin(missing) | data["word2"].isin(missing))]
    assert glove.missing_words([*covered["word1"], *covered["word2"]]) == []
    assert row["spearman"] == pytest.approx(_glove_spearman(glove, covered)[0], abs=1e-12)


def test_smollm2_layers_end_to_end(smollm2: WordEmbedder, shared: Path, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path / "cache")
    result = run_similarity(smollm2, "mc30", layers=[0, 12, -1], k_nullified=[None, 2], cache=cache)
    table = result.table
    assert list(table["layer"]) == [0, 12, 30] * 2
    assert list(table["k_nullified"].astype("object").fillna(-1)) == [-1] * 3 + [2] * 3
    assert table["spearman"].between(-1, 1).all() and (table["n_used"] == 30).all()
    assert len(cache.stores()) == 1 and result.metadata["config"]["template"] == "This is {word}"
    pairs = load_similarity("mc30").data
    vectors = [  # served by the cache that run_similarity filled (bit-identical, see test_cache)
        smollm2.embed(
            targets_from_template(list(pairs[column])), layers=[0, 12, 30], cache=cache
        ).vectors
        for column in ("word1", "word2")
    ]
    cosines = _pair_cosines(*vectors)  # [30, 3]
    for position in range(3):
        expected = stats.spearmanr(cosines[:, position], pairs["score"]).statistic
        assert table["spearman"].iloc[position] == pytest.approx(expected, abs=1e-12)
    assert table["spearman"].iloc[5] != pytest.approx(table["spearman"].iloc[2], abs=1e-3)


def test_smollm2_words_alone(smollm2: WordEmbedder) -> None:
    pairs = pd.DataFrame(
        {
            "word1": ["car", "coast", "noon", "cord", "lad"],
            "word2": ["automobile", "shore", "string", "smile", "wizard"],
            "score": [3.92, 3.7, 0.04, 0.02, 0.42],
        }
    )
    result = run_similarity(smollm2, SimilaritySet("five", pairs), layers=[12], context="none")
    assert result.metadata["config"]["template"] is None
    vectors = [smollm2.embed_words(list(pairs[c]), layers=[12]).vectors for c in ("word1", "word2")]
    expected = stats.spearmanr(_pair_cosines(*vectors)[:, 0], pairs["score"]).statistic
    assert result.table["spearman"].item() == pytest.approx(expected, abs=1e-6)
    assert not np.isnan(result.table["ci_low"].item())  # n = 5 > 3 has an interval


def test_result_round_trip(glove: WordEmbedder, shared: Path, tmp_path: Path) -> None:
    result = run_similarity(glove, ["mc30", "rg65"], k_nullified=[None, 1])
    result.write(tmp_path)
    again = Result.read(tmp_path, "similarity")
    pd.testing.assert_frame_equal(again.table, result.table)
    assert again.table["k_nullified"].isna().sum() == 2
    assert again.metadata["config"]["k_nullified"] == [None, 1]
    assert again.metadata["model"]["fingerprint"] == glove.info.fingerprint


def test_bad_input(glove: WordEmbedder, shared: Path) -> None:
    with pytest.raises(ResourceNotFoundError, match="ws353"):
        run_similarity(glove, ["ws-353"])
    with pytest.raises(EmptyInputError, match="no similarity sets"):
        run_similarity(glove, [])
    with pytest.raises(EmptyInputError, match="no k_nullified"):
        run_similarity(glove, "mc30", k_nullified=[])
    for bad in (-1, 1.5, True):
        with pytest.raises(WordlensError, match="k_nullified values"):
            run_similarity(glove, "mc30", k_nullified=[bad])  # type: ignore[list-item]
    with pytest.raises(WordlensError, match="more than once: mc30"):
        run_similarity(glove, ["mc30", load_similarity("mc30")])
    with pytest.raises(WordlensError, match=r"'mc30': .*from 0 to 38 \(below min\(n_vectors=39"):
        run_similarity(glove, "mc30", k_nullified=[39])
    nonsense = SimilaritySet(
        "nonsense",
        pd.DataFrame({"word1": ["qqzzx", "cat"], "word2": ["dog", "xxqqz"], "score": [1.0, 2.0]}),
    )
    with pytest.raises(EmptyInputError, match="no pair of similarity set 'nonsense'"):
        run_similarity(glove, ["mc30", nonsense])
