"""Fast checks of the asymmetry experiment's helpers, each against a plain recount (numpy,
pandas, scipy or the tokenizer itself): they kill the mutants of issue 28 that the slow
masked-LM tests alone covered."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from tests.conftest import shared_dir
from wordlens.methods.asymmetry.experiment import (
    AsymmetrySettings,
    _factor_bins,
    _similarity_row,
    _with_factors,
    lm_vocabulary,
)


def _lar_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": [f"a{i}" for i in range(n)],
            "b": [f"b{i}" for i in range(n)],
            "lar_data": rng.normal(size=n),
            "lar_model": rng.normal(size=n),
            "pair_contexts": rng.integers(1, 40, size=n).astype(float),
            "mean_distance": rng.uniform(1, 30, size=n),
        }
    )


def test_factor_bins_are_numpy_quantile_bins_with_their_edges() -> None:
    table = _lar_table(40, seed=3)
    table.loc[[0, 5], "lar_model"] = np.nan  # left out: one LAR undefined
    factors = _factor_bins(table, AsymmetrySettings(n_bins=4))
    defined = table.dropna(subset=["lar_data", "lar_model"])
    assert list(factors.columns) == [
        "factor",
        "bin",
        "low",
        "high",
        "median",
        "n",
        "accuracy",
        "cam",
    ]
    for factor, column in (("contexts", "pair_contexts"), ("distance", "mean_distance")):
        values = defined[column].to_numpy()
        edges = np.unique(np.quantile(values, np.linspace(0, 1, 5)))
        rows = factors[factors["factor"] == factor]
        assert list(rows["bin"]) == list(range(len(edges) - 1))
        np.testing.assert_allclose(rows["low"], edges[:-1], rtol=1e-12)
        np.testing.assert_allclose(rows["high"], edges[1:], rtol=1e-12)
        for number, row in enumerate(rows.itertuples()):
            inside = (values > edges[number]) | (number == 0) & (values == edges[number])
            members = defined[inside & (values <= edges[number + 1])]
            assert row.n == len(members)
            assert row.median == pytest.approx(np.median(members[column]), rel=1e-12)
            right = np.sign(members["lar_model"]) == np.sign(members["lar_data"])
            assert row.accuracy == pytest.approx(right.mean(), rel=1e-12)
            rho = spearmanr(members["lar_data"], members["lar_model"]).statistic
            assert row.cam == pytest.approx(rho, rel=1e-12)


def test_similarity_row_keeps_a_score_of_two_distinct_values() -> None:
    score = np.array([0.0, 0.0, 1.0, 1.0, np.nan, 1.0])
    human = np.array([1.0, 2.0, 3.0, 5.0, 4.0, 4.5])
    pairs = pd.DataFrame({"score": human})
    pairs.attrs["n_set"] = 6
    row = _similarity_row("set", "cosine", score, pairs, AsymmetrySettings())
    assert row["n_pairs"] == 6 and row["n_used"] == 5
    expected = spearmanr(score[~np.isnan(score)], human[~np.isnan(score)]).statistic
    assert row["spearman"] == pytest.approx(expected, rel=1e-12)
    one_value = _similarity_row("set", "cosine", np.ones(6), pairs, AsymmetrySettings())
    assert np.isnan(one_value["spearman"])


def test_with_factors_reads_both_factors_of_each_unordered_pair() -> None:
    estimates = pd.DataFrame(
        {
            "cue": ["cat", "dog", "sun", "moon"],
            "response": ["dog", "cat", "moon", "sun"],
            "pair_contexts": [7, 7, 2, 2],
            "mean_distance": [3.5, 3.5, 9.0, 9.0],
        }
    )
    table = pd.DataFrame({"a": ["dog", "sun", "sky"], "b": ["cat", "moon", "sea"]})
    found = _with_factors(table, estimates)
    np.testing.assert_array_equal(found["pair_contexts"], [7.0, 2.0, np.nan])
    np.testing.assert_array_equal(found["mean_distance"], [3.5, 9.0, np.nan])


def test_lm_vocabulary_keeps_the_single_token_index_words() -> None:
    transformers = pytest.importorskip("transformers")
    path = shared_dir() / "models" / "minilm-l6-mlm"
    if not path.is_dir():
        pytest.skip(f"tokenizer not found at {path}")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path))
    words = ["dog", "house", "Dog", "well-known", "xylophonists", "the"]
    expected = {
        w
        for w in words
        if re.fullmatch(r"\w+", w) and w == w.lower() and len(tokenizer.tokenize(w)) == 1
    }
    assert expected == {"dog", "house", "the"}
    assert lm_vocabulary(SimpleNamespace(tokenizer=tokenizer), words) == expected  # type: ignore[arg-type]
