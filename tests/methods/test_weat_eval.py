"""run_weat composes embedding and statistics correctly, on real models and word lists."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.contexts import targets_from_template
from wordlens.errors import EmptyInputError
from wordlens.methods.weat import WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.base import WordEmbedder
from wordlens.resources import WeatTest, WordSet, load_weat_tests
from wordlens.results import Result
from wordlens.stats import weat


def test_glove_matches_direct_statistics(glove: WordEmbedder) -> None:
    result = run_weat(glove, config=WeatConfig(permutations=20_000, seed=3))
    table = result.tables["weat"]
    assert list(table["test"]) == list(range(1, 11)) and set(table["layer"]) == {0}
    assert result.metadata["dropped_words"] == {"1": ["gladiola"]}  # absent from GloVe 6B
    assert table.loc[table["test"] == 1, "n_x"].item() == 24
    for test in load_weat_tests():
        sets = [[w for w in ws.words if w != "gladiola"] for ws in (test.x, test.y, test.a, test.b)]
        direct = weat(
            *(glove.embed_words(words).vectors for words in sets), n_samples=20_000, seed=3
        )
        row = table[table["test"] == test.id].iloc[0]
        assert row["effect_size"] == pytest.approx(float(direct.effect_size[0]), abs=1e-12)
        assert row["p_one_sided"] == float(direct.p_one_sided[0])
        assert row["exact"] == direct.exact
    # the flowers/insects and instruments/weapons tests are strongly positive in GloVe
    assert (table.set_index("test").loc[[1, 2], "effect_size"] > 1.0).all()


def test_smollm2_bleached_context(smollm2: WordEmbedder) -> None:
    (test,) = load_weat_tests([7])
    result = run_weat(smollm2, [test], WeatConfig(layers=(0, 12, -1), seed=1))
    assert list(result.tables["weat"]["layer"]) == [0, 12, 30]
    assert result.metadata["config"]["template"] == "This is {word}"
    vectors = [
        smollm2.embed(targets_from_template(ws.words), layers=[0, 12, 30]).vectors
        for ws in (test.x, test.y, test.a, test.b)
    ]
    direct = weat(*vectors, seed=1)
    np.testing.assert_allclose(result.tables["weat"]["effect_size"], direct.effect_size, atol=1e-12)
    np.testing.assert_array_equal(result.tables["weat"]["p_one_sided"], direct.p_one_sided)
    assert result.tables["weat"]["exact"].all()  # C(16, 8) = 12,870 partitions <= 100,000
    alone = run_weat(smollm2, [test], WeatConfig(layers=(12,), context="none", seed=1))
    assert alone.tables["weat"]["effect_size"].item() != pytest.approx(
        result.tables["weat"]["effect_size"].iloc[1], abs=1e-6
    )


def test_result_files_round_trip(glove: WordEmbedder, tmp_path: Path) -> None:
    result = run_weat(glove, load_weat_tests([6, 9]))
    result.write(tmp_path)
    again = Result.read(tmp_path, "weat")
    pd.testing.assert_frame_equal(again.table, result.tables["weat"])
    from_csv = pd.read_csv(tmp_path / "weat.csv")
    np.testing.assert_array_equal(from_csv["effect_size"], result.tables["weat"]["effect_size"])
    meta = again.metadata
    assert meta["model"]["fingerprint"] == glove.info.fingerprint
    assert meta["config"]["seed"] == 0 and meta["config"]["ddof"] == 1
    assert {"numpy", "torch", "transformers", "python"} <= set(meta["versions"])
    assert meta["timings_s"]["statistics"] >= 0


def test_set_without_known_words(glove: WordEmbedder) -> None:
    nonsense = WordSet("nonsense", ("qqqzzzx", "xxqqzzw"))
    base = load_weat_tests([7])[0]
    broken = WeatTest(99, "broken", nonsense, base.y, base.a, base.b, base.original_finding)
    with pytest.raises(EmptyInputError, match="every word of 'nonsense'"):
        run_weat(glove, [broken])
