"""The reproduction of Zhou, Kaneko & Bollegala (2022) (wordlens.reproduce.sense_bias), run at
smoke scale on the minilm-l6-mlm masked LM (sense vectors built from its encoder, AUL from its
head) and on GloVe (no sentence scorer): every published item has one row, measured cells equal
the methods' own tables, the findings follow the tables, and the SenseBERT/large columns say
which model they need."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.methods.likelihood_bias.compute import run_likelihood_bias
from wordlens.methods.likelihood_bias.config import LikelihoodBiasConfig
from wordlens.methods.registry import get_method
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.reproduce.base import Measured, NotMeasured, Reproduction, Runs
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.reproduce.sense_bias import (
    LIKELIHOOD,
    REPRODUCTION,
    STATIC,
    TABLE4_PAIRS,
    further_from_zero,
)
from wordlens.resources.bias_benchmarks import load_bias_pairs
from wordlens.results import Run

PUBLISHED = load_published("sense-bias")
VERDICTS = {"holds", "does not hold", "not measurable"}
SENSEBERT_FINDINGS = {
    "crows-bert-stereoset-sensebert",
    "sensebert-at-least-bert-on-sssb",
    "direction-flips",
    "sensebert-verb-senses-anti-stereotypical",
    "sensebert-prefers-stereotypes-for-nurse",
}


@pytest.fixture(scope="module")
def mlm_dir(shared: Path) -> Path:
    return shared / "models" / "minilm-l6-mlm"


@pytest.fixture(scope="module")
def smoke(mlm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("sense-bias-smoke")
    return reproduce("sense-bias", ModelOptions(str(mlm_dir)), out, scale="smoke"), out


@pytest.fixture(scope="module")
def glove_smoke(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Reproduction:
    out = tmp_path_factory.mktemp("sense-bias-glove")
    return reproduce("sense-bias", ModelOptions("glove-6b-50d"), out, scale="smoke")


def measured(out: Path) -> pd.Series:
    """Item id → measured value, read back from the written reproduction table."""
    table = pd.read_parquet(out / "reproduction.parquet")
    series: pd.Series = table.set_index("item")["measured"]
    return series


def verdict(reproduction: Reproduction, finding: str) -> str:
    findings = reproduction.findings.set_index("finding")
    return str(findings.loc[finding, "verdict"])


@pytest.mark.slow
def test_every_item_has_one_row_with_its_location(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    table = pd.read_parquet(out / "reproduction.parquet")
    assert not reproduction.failures
    assert sorted(table["item"]) == sorted(item.id for item in PUBLISHED.items)
    locations = dict(zip(table["item"], table["location"], strict=True))
    assert all(locations[item.id] == location_text(item) for item in PUBLISHED.items)
    assert table.loc[table["measured"].isna(), "note"].str.len().gt(0).all()
    # at smoke scale every measured row names what was made smaller
    assert table.loc[table["measured"].notna(), "note"].str.contains("depart from the paper").all()


@pytest.mark.slow
def test_measured_cells_equal_the_methods_tables(smoke: tuple[Reproduction, Path]) -> None:
    _, out = smoke
    values = measured(out)
    static = out / STATIC
    weat = pd.read_parquet(static / "sense_bias_weat.parquet")
    top = weat["layer"].max()
    flowers = weat[(weat["test"] == 1) & (weat["representation"] == "sense")]
    flowers_d = float(flowers.loc[flowers["layer"] == top, "effect_size"].iloc[0])
    assert values["table2-flowers-insects-lmms-sense"] == pytest.approx(flowers_d, abs=1e-12)
    assert values["table2-flowers-insects-ares-sense"] == pytest.approx(flowers_d, abs=1e-12)
    wat = pd.read_parquet(static / "sense_bias_wat.parquet")
    word_r = wat[(wat["representation"] == "word") & (wat["layer"] == top)]["r"].iloc[0]
    assert values["table2-wat-lmms-word"] == pytest.approx(float(word_r), abs=1e-12)
    sssb = pd.read_parquet(static / "sense_bias_sssb.parquet")
    nouns = sssb[(sssb["row"] == "noun") & (sssb["representation"] == "sense")]
    noun_score = float(nouns.loc[nouns["layer"] == top, "score"].abs().mean())
    assert values["table2-noun-lmms-sense"] == pytest.approx(noun_score, abs=1e-12)

    crows = pd.read_parquet(out / LIKELIHOOD["crows"] / "likelihood_table3.parquet")
    assert values["table3-crows-pairs-base-bert"] == pytest.approx(float(crows["aul"].iloc[0]))
    pairs = pd.read_parquet(out / LIKELIHOOD["sssb"] / "likelihood_pair_scores.parquet")
    race = pairs[(pairs["sense_type"] == "race") & (pairs["method"] == "aul")]
    eq6 = 100 * float((race["score_stereo"] > race["score_anti"]).mean()) - 50
    assert values["table3-ethnicity-base-bert"] == pytest.approx(eq6, abs=1e-9)
    colour_category = pairs[(pairs["category"] == "race-vs-colour") & (pairs["method"] == "aul")]
    assert values["table1-ethnicity-test-cases"] == len(colour_category)


@pytest.mark.slow
def test_other_models_columns_say_what_they_need(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, _ = smoke
    table = reproduction.table.set_index("item")
    sensebert = table[table["paper_model"].str.startswith("sensebert")]
    large = table[table["paper_model"] == "bert-large-uncased"]
    assert len(sensebert) == 28 and sensebert["measured"].isna().all()
    assert sensebert["note"].str.contains("SenseBERT is a TensorFlow release").all()
    assert len(large) == 8 and large["measured"].isna().all()
    assert large["note"].str.contains("-m bert-large-uncased").all()
    base = table[
        (table["paper_model"] == "bert-base-uncased") & table.index.str.startswith("table3")
    ]
    assert len(base) == 8 and base["measured"].notna().all()
    assert np.isnan(table.loc["table1-noun-templates", "measured"])
    assert "not measured" in table.loc["table1-noun-templates", "note"]


@pytest.mark.slow
def test_every_finding_has_a_verdict(smoke: tuple[Reproduction, Path]) -> None:
    _, out = smoke
    findings = pd.read_parquet(out / "findings.parquet").set_index("finding")
    assert sorted(findings.index) == sorted(finding.id for finding in PUBLISHED.findings)
    assert set(findings["verdict"]) <= VERDICTS
    assert (findings.loc[sorted(SENSEBERT_FINDINGS), "verdict"] == "not measurable").all()
    measurable = findings.drop(sorted(SENSEBERT_FINDINGS))
    assert (measurable["verdict"] != "not measurable").all(), measurable["evidence"]


@pytest.mark.slow
def test_black_ethnic_above_colour_does_not_hold_on_minilm(
    smoke: tuple[Reproduction, Path],
) -> None:
    """A real run where the paper's claim fails: the ethnic sense of black is nearer 0 than
    its colour sense in the sense vectors built from minilm-l6-mlm."""
    reproduction, out = smoke
    table2 = pd.read_parquet(out / STATIC / "sense_bias_table2.parquet").set_index("row")
    ethnic, colour = table2.loc["black (ethnicity)", "sense"], table2.loc["black (colour)", "sense"]
    assert abs(ethnic) < abs(colour)
    assert verdict(reproduction, "black-ethnic-above-colour") == "does not hold"
    evidence = reproduction.findings.set_index("finding").loc["black-ethnic-above-colour"]
    assert f"{ethnic:+.3f}" in evidence["evidence"] and f"{colour:+.3f}" in evidence["evidence"]


def _copy(runs: Runs) -> dict[str, Run]:
    return {name: copy.deepcopy(run) for name, run in runs.items()}


@pytest.mark.slow
def test_checks_follow_the_tables(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, _ = smoke
    checks = REPRODUCTION.checks()
    runs = _copy(reproduction.runs)

    table2 = runs[STATIC].tables["table2"]
    before = checks["noun-above-verb"](runs).verdict
    noun, verb = (table2["row"] == "noun"), (table2["row"] == "verb")
    table2.loc[noun, "sense"], table2.loc[verb, "sense"] = (
        table2.loc[verb, "sense"].to_numpy(),
        table2.loc[noun, "sense"].to_numpy(),
    )
    after = checks["noun-above-verb"](runs).verdict
    assert {before, after} == {"holds", "does not hold"}

    direction = runs[STATIC].tables["gender_direction"]
    before = checks["nurse-female-biased-in-lmms"](runs).verdict
    direction.loc[direction["occupation"] == "nurse", "noun_sense"] *= -1
    assert {before, checks["nurse-female-biased-in-lmms"](runs).verdict} == {
        "holds",
        "does not hold",
    }

    table3 = runs[LIKELIHOOD["sssb"]].tables["table3"]
    before = checks["contextual-above-static"](runs).verdict
    table3["aul"] = 0.0 if before == "holds" else 50.0
    assert {before, checks["contextual-above-static"](runs).verdict} == {
        "holds",
        "does not hold",
    }

    del runs[STATIC]
    assert checks["weat-sense-above-word"](runs).verdict == "not measurable"
    assert "'static' did not run" in checks["weat-sense-above-word"](runs).evidence


@pytest.mark.slow
def test_table4_cells_are_the_aul_scores_of_the_nurse_pairs(mlm_dir: Path) -> None:
    """The four nurse pairs of Table 4 are found in SSSB (one with the file's typo "mad") and
    their cells are the pairs' AUL scores."""
    sssb = load_bias_pairs("sssb")
    nurse = sssb[sssb["sentence_stereo"].isin(list(TABLE4_PAIRS.values()))]
    assert len(nurse) == 4
    config = LikelihoodBiasConfig(methods=("aul",), bootstrap=0)
    run = run_likelihood_bias(ModelOptions(str(mlm_dir)).scorer(), config, pairs={"sssb": nurse})
    scores = run.tables["pair_scores"].set_index("sentence_stereo")
    runs = {LIKELIHOOD["sssb"]: run}
    for item in PUBLISHED.table(4):
        value = REPRODUCTION.measure(item, runs)
        if item.model == "sensebert-base-uncased":
            assert isinstance(value, NotMeasured)
            continue
        assert isinstance(value, Measured), item.id
        row = scores.loc[TABLE4_PAIRS[str(item.location.row)]]
        expected = {
            "stereo": row["score_stereo"],
            "anti": row["score_anti"],
            "diff": row["score_stereo"] - row["score_anti"],
        }[str(item.setting["column"])]
        assert value.value == pytest.approx(float(expected), abs=1e-12), item.id


def test_glove_runs_the_static_experiment_and_fails_the_likelihood_ones_cleanly(
    glove_smoke: Reproduction,
) -> None:
    """On a static model the sense and eq. 7 word vectors coincide: WAT r is the same up to
    rounding, which is not "word above sense"; the likelihood experiments fail with the reason
    in their items."""
    assert sorted(glove_smoke.failures) == sorted(LIKELIHOOD.values())
    assert "static model" in glove_smoke.failures[LIKELIHOOD["sssb"]]
    table = glove_smoke.table.set_index("item")
    assert table.loc["table3-crows-pairs-base-bert", "note"].startswith("experiment ")
    assert np.isfinite(table.loc["table2-wat-lmms-word", "measured"])
    word = table.loc["table2-wat-lmms-word", "measured"]
    assert word == pytest.approx(table.loc["table2-wat-lmms-sense", "measured"], rel=1e-9)
    assert verdict(glove_smoke, "wat-word-above-sense") == "does not hold"
    assert verdict(glove_smoke, "contextual-above-static") == "not measurable"


def test_further_from_zero_edges() -> None:
    assert further_from_zero(-2.0, 1.0)
    assert not further_from_zero(1.0, -2.0)
    assert not further_from_zero(0.5 * (1 + 1e-12), 0.5)
    assert not further_from_zero(0.0, 0.0)
    assert not further_from_zero(float("nan"), 1.0)


def test_experiments_follow_the_authors_and_name_smoke_departures() -> None:
    paper = {e.name: e for e in REPRODUCTION.experiments("paper")}
    smoke = {e.name: e for e in REPRODUCTION.experiments("smoke")}
    assert list(paper) == list(smoke) == [STATIC, *LIKELIHOOD.values()]
    for experiment in paper.values():
        method = get_method(experiment.method)
        config = config_from_values(method.config_type, experiment.options)
        assert experiment.departure == ""
        assert smoke[experiment.name].departure.startswith("smoke: ")
        if experiment.name == STATIC:  # wat-sense.py:152 reads wat_bi.txt, every word with senses
            assert (config.wat_reference, config.wat_words) == ("wat-zhou2022", None)
        else:  # section 5 and footnote 3: AUL only, on every pair
            assert (config.methods, config.sample) == (("aul",), None)
