"""Reproducing Zhang et al. (2021) (``wordlens.reproduce.asymmetry``) on the real models:
GloVe 6B 50d on the paper's full sample (every EAT and USF pair: about 25 s) and the masked
MiniLM at smoke scale (a few pairs and contexts: about a minute)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from wordlens.models.options import ModelOptions
from wordlens.reproduce.asymmetry import (
    EVOCATION,
    REPRODUCTION,
    SWOW_EXPERIMENT,
    check_distance,
    check_hard_relations,
    check_polarized_relations,
    check_relatedness_above_similarity,
)
from wordlens.reproduce.base import Reproduction
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.results import Run

VERDICTS = {"holds", "does not hold", "not measurable"}


@pytest.fixture(scope="module")
def glove(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("asymmetry-glove")
    return reproduce("asymmetry", ModelOptions("glove-6b-50d"), out, scale="paper"), out


@pytest.fixture(scope="module")
def mlm(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("asymmetry-mlm")
    model = ModelOptions(str(shared / "models" / "minilm-l6-mlm"))
    return reproduce("asymmetry", model, out, scale="smoke"), out


def _row(reproduction: Reproduction, item: str) -> pd.Series:
    table = reproduction.table
    return table[table["item"] == item].iloc[0]


def _table(out: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(out / EVOCATION / f"asymmetry_{name}.parquet")


def _copy(run: Run) -> Run:
    return Run(run.method, {k: v.copy() for k, v in run.tables.items()}, dict(run.metadata))


def _check_every_item_and_finding(reproduction: Reproduction) -> None:
    published = load_published("asymmetry")
    table = reproduction.table
    assert len(table) == len(published.items) == 931
    assert table["item"].tolist() == [item.id for item in published.items]
    assert table["location"].tolist() == [location_text(item) for item in published.items]
    assert set(reproduction.findings["finding"]) == {f.id for f in published.findings}
    assert set(reproduction.findings["verdict"]) <= VERDICTS
    assert reproduction.findings["evidence"].str.len().min() > 0
    unmeasured = table[table["measured"].isna()]
    assert unmeasured["note"].str.len().min() > 0  # every item left out says why


def test_glove_every_item_has_one_row_and_every_finding_a_verdict(
    glove: tuple[Reproduction, Path],
) -> None:
    _check_every_item_and_finding(glove[0])


def test_glove_measured_values_are_the_method_tables(glove: tuple[Reproduction, Path]) -> None:
    reproduction, out = glove
    table1 = _table(out, "table1").set_index("relation")
    cam = _table(out, "cam").set_index(["norm", "relation"])
    similarity = _table(out, "similarity").set_index(["set", "measure"])
    expected = {
        "table1-isa-eat-count": table1.loc["isA", "count_eat"],
        "table1-isa-fa-alar": 100 * table1.loc["isA", "alar_usf"],  # the paper prints x100
        "table1-atlocation-cam-eat-fa": table1.loc["atLocation", "cam_eat_usf"],
        "table2-isa-fa-glv": cam.loc[("usf", "isA"), "cam"],
        "table6-partof-eat-w2v": cam.loc[("eat", "partOf"), "cam"],
        "table4-men-glv": similarity.loc[("men", "cosine"), "spearman"],
        "table4-men-brt": similarity.loc[("men", "geometric_mean"), "spearman"],
        "table8-mt771-bert": 100 * similarity.loc[("mturk771", "geometric_mean"), "spearman"],
        "text-table2-eat-pairs": cam.loc[("eat", "all"), "n"],
    }
    for item, value in expected.items():
        assert _row(reproduction, item)["measured"] == pytest.approx(float(value), abs=1e-12)
    # GloVe 6B 50d on every pair: CAM of USF isA .44 as the paper's GloVe 42B (Table 2)
    assert _row(reproduction, "table2-isa-fa-glv")["agrees"]


def test_glove_items_without_data_say_why(glove: tuple[Reproduction, Path]) -> None:
    reproduction, _ = glove
    table = reproduction.table
    swow = table[table["data"].str.contains("swow")]
    assert len(swow) > 0 and swow["measured"].isna().all()
    assert swow["note"].str.contains("--set swow_file=").all()
    assert "--swow-file" in reproduction.failures[SWOW_EXPERIMENT]
    antonym = _row(reproduction, "table2-antonym-eat-glv")
    assert math.isnan(antonym["measured"]) and "conceptnet5" in antonym["note"]
    assert "not define" in _row(reproduction, "table2-sa-eat-glv")["note"]
    assert "setup" in _row(reproduction, "table3-bert-base-params")["note"]
    assert "Ethayarajh" in _row(reproduction, "table4-men-kel1")["note"]


def test_glove_hard_relations_do_not_hold(glove: tuple[Reproduction, Path]) -> None:
    """GloVe's ALAR has EAT's sign on hasProperty, capableOf and hasA: not "hard"."""
    findings = glove[0].findings.set_index("finding")
    assert findings.loc["hard-relations", "verdict"] == "does not hold"
    assert "fails: eat hasProperty" in findings.loc["hard-relations", "evidence"]
    for finding in ("more-contexts-help-up-to-5000", "contextual-rel-above-sim"):
        assert "static" in findings.loc[finding, "evidence"]


def test_hard_relations_follow_the_alar_table(glove: tuple[Reproduction, Path]) -> None:
    run = _copy(glove[0].runs[EVOCATION])
    alar = run.tables["alar"]
    hard = alar["relation"].isin(["hasProperty", "capableOf", "hasA"])
    alar.loc[hard, "alar_model"] = -alar.loc[hard, "alar_data"]  # the model's sign: wrong
    assert check_hard_relations({EVOCATION: run}).verdict == "not measurable"  # no hasContext
    context = pd.DataFrame(
        {"norm": ["eat", "usf"], "relation": "hasContext", "n_pairs": 20}
        | {"alar_data": [0.3, 0.2], "alar_model": [0.1, 0.1]}
    )
    run.tables["alar"] = pd.concat([alar, context], ignore_index=True)
    relations = run.tables["relations"]
    relations.loc[relations["relation"] == "hasContext", "in_source"] = True
    assert check_hard_relations({EVOCATION: run}).verdict == "holds"


def test_polarized_relations_follow_the_data_alar_table(glove: tuple[Reproduction, Path]) -> None:
    run = _copy(glove[0].runs[EVOCATION])
    runs = {EVOCATION: run}
    assert check_polarized_relations(runs).verdict == "not measurable"  # no antonym here
    data = run.tables["data_alar"]
    neutral = pd.DataFrame(
        {"norm": ["eat", "eat"], "relation": ["antonym", "distinctFrom"], "n_pairs": 50}
        | {"n_undefined": 0, "alar": [0.9, -0.01]}
    )
    run.tables["data_alar"] = pd.concat([data, neutral], ignore_index=True)
    check = check_polarized_relations(runs)
    assert check.verdict == "does not hold"  # |antonym| 90 above |atLocation| 12.81
    assert "eat |atLocation| 12.81 > |antonym| 90.00" in check.evidence


@pytest.mark.slow
def test_masked_lm_smoke_every_item_and_finding(mlm: tuple[Reproduction, Path]) -> None:
    reproduction, out = mlm
    _check_every_item_and_finding(reproduction)
    measured = reproduction.table[reproduction.table["measured"].notna()]
    assert len(measured) > 100
    assert measured["note"].str.contains("depart from the paper").all()
    cam = _table(out, "cam").set_index(["norm", "relation"])
    row = _row(reproduction, "table2-relatedto-eat-bert")
    assert row["measured"] == cam.loc[("eat", "relatedTo"), "cam"]
    similarity = _table(out, "similarity").set_index(["set", "measure"])
    assert set(similarity.index.get_level_values("measure")) == {"geometric_mean"}
    assert "needs static vectors" in _row(reproduction, "table4-men-glv")["note"]


@pytest.mark.slow
def test_masked_lm_contextual_checks_follow_the_tables(mlm: tuple[Reproduction, Path]) -> None:
    run = _copy(mlm[0].runs[EVOCATION])
    runs = {EVOCATION: run}
    similarity = run.tables["similarity"].set_index("set")
    similarity.loc["ws353-rel", "spearman"], similarity.loc["ws353-sim", "spearman"] = 0.5, 0.1
    run.tables["similarity"] = similarity.reset_index()
    assert check_relatedness_above_similarity(runs).verdict == "holds"
    similarity.loc["ws353-rel", "spearman"] = 0.0
    run.tables["similarity"] = similarity.reset_index()
    assert check_relatedness_above_similarity(runs).verdict == "does not hold"
    pairs = run.tables["pairs"]
    right = (pairs["lar_data"] > 0) == (pairs["lar_model"] > 0)
    run.tables["pairs"] = pairs.assign(mean_distance=right.astype(float) * 100 + pairs.index)
    check = check_distance(runs)
    assert check.verdict == "does not hold" and "fails: eat word distance" in check.evidence
    assert set(REPRODUCTION.checks()) == {f.id for f in load_published("asymmetry").findings}
