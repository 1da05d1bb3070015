"""Fast checks of the sense-bias WAT baseline and Table 2 labels against plain numpy (issue 28's
survivors of sense_bias/compute.py: the baseline was reached only by the slow MiniLM test)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.methods.test_sense_bias import wat_store
from wordlens.methods.sense_bias import SenseBiasConfig
from wordlens.methods.sense_bias.compute import WEAT_ROWS, _weat_table2, run_wat
from wordlens.models.static import StaticEmbedder


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def test_wat_baseline_is_eq4_on_the_baseline_vectors() -> None:
    senses = wat_store()
    words = ["tool", "doll", "car", "lace", "bank"]
    rng = np.random.default_rng(11)
    vocabulary = ["father", "mother", "man", "woman", "tool", "doll", "car", "lace"]  # no bank
    rows = rng.normal(size=(len(vocabulary), 6))
    vector = dict(zip(vocabulary, rows, strict=True))
    baseline = StaticEmbedder(vocabulary, rows.astype(np.float32), name="toy", case="lower")
    reference = pd.Series([0.3, -0.8, 1.1, -0.2, 0.5], index=words)
    pairs = (("father", "mother"), ("man", "woman"))
    run = run_wat(senses, reference, pairs=pairs, baseline=baseline)
    assert run.metadata["n_words"] == 5
    f32 = {w: v.astype(np.float32).astype(np.float64) for w, v in vector.items()}
    expected = [
        np.mean([_cos(f32[w], f32[m]) - _cos(f32[w], f32[f]) for m, f in pairs]) for w in words[:4]
    ]
    per_word = run.tables["wat_scores"]
    assert list(per_word["word"]) == words  # the reference's order
    np.testing.assert_array_equal(per_word["reference"], reference.to_numpy())
    np.testing.assert_allclose(per_word["baseline_score"][:4], expected, rtol=1e-6)
    assert np.isnan(per_word["baseline_score"].iloc[4])  # bank: not in the baseline's vocabulary
    row = run.tables["wat"].set_index("representation").loc["baseline"]
    assert row["n"] == 4
    r = np.corrcoef(expected, reference[words[:4]])[0, 1]
    assert row["r"] == pytest.approx(r, rel=1e-5)


def test_table2_weat_rows_name_the_effect_size_of_eq3() -> None:
    rows = _weat_table2({}, SenseBiasConfig(), layer=0)
    assert [row["row"] for row in rows] == list(WEAT_ROWS.values())
    assert {row["statistic"] for row in rows} == {"effect size (eq. 3)"}
    assert {row["note"] for row in rows} == {"experiment weat not run"}
