"""The reproduction of Zhou, Kaneko & Bollegala (2022) (wordlens.reproduce.sense_bias), run at
smoke scale on the minilm-l6-mlm masked LM (sense vectors built from its encoder, AUL from its
head) and on GloVe (no sentence scorer): every published item has one row, measured cells equal
the methods' own tables, the findings follow the tables, and the SenseBERT/large columns say
which model they need."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.methods.likelihood_bias.compute import run_likelihood_bias
from wordlens.methods.likelihood_bias.config import LikelihoodBiasConfig
from wordlens.methods.registry import get_method
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.reproduce.base import (
    Cells,
    Check,
    Measured,
    NotMeasured,
    Reproduction,
    Runs,
    TableCheck,
    requiring_intervals,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.reproduce.sense_bias import (
    FLIPS,
    LIKELIHOOD,
    REPRODUCTION,
    STATIC,
    TABLE3_SSSB,
    TABLE4_PAIRS,
    check_bias_grows_with_dimensionality,
    check_nurse_female_biased,
    further_from_zero,
)
from wordlens.resources.bias_benchmarks import load_bias_pairs
from wordlens.results import Run

PUBLISHED = load_published("sense-bias")
VERDICTS = {"holds", "does not hold", "inconclusive", "not measurable"}
SENSEBERT_FINDINGS = {
    "crows-bert-stereoset-sensebert",
    "sensebert-at-least-bert-on-sssb",
    "direction-flips",
    "sensebert-verb-senses-anti-stereotypical",
    "sensebert-prefers-stereotypes-for-nurse",
}
LMMS_WITH_ARES = {"sense-gap-larger-in-lmms"}
"""Findings that compare LMMS with ARES: one run's sense vectors fill both columns."""


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


def number(table: pd.DataFrame, row: str, column: str = "measured") -> float:
    """One numeric cell of a table indexed by name."""
    cells = dict(zip(table.index.astype(str), table[column].astype(float), strict=True))
    return float(cells[row])


def uncertainties(out: Path) -> pd.Series:
    """Item id → the half-width of the run's interval, from the written reproduction table."""
    table = pd.read_parquet(out / "reproduction.parquet")
    series: pd.Series = table.set_index("item")["uncertainty"]
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
    # the runs' intervals: r's (WAT), the bootstrap's (AUL), the SSSB draws' standard errors
    spread = uncertainties(out)
    half = (crows["aul_ci_high"].iloc[0] - crows["aul_ci_low"].iloc[0]) / 2
    assert spread["table3-crows-pairs-base-bert"] == pytest.approx(float(half))
    word_wat = wat[(wat["representation"] == "word") & (wat["layer"] == top)]
    half = (word_wat["ci_high"].iloc[0] - word_wat["ci_low"].iloc[0]) / 2
    assert spread["table2-wat-lmms-word"] == pytest.approx(float(half))
    sems = nouns.loc[nouns["layer"] == top, "sem"].to_numpy()
    half = 1.959963984540054 * np.sqrt(np.sum(sems**2)) / len(sems)
    assert spread["table2-noun-lmms-sense"] == pytest.approx(float(half))
    # a WEAT d: its bootstrap interval over the target words
    top_flowers = flowers[flowers["layer"] == top]
    half = (
        top_flowers["effect_size_ci_high"].iloc[0] - top_flowers["effect_size_ci_low"].iloc[0]
    ) / 2
    assert spread["table2-flowers-insects-lmms-sense"] == pytest.approx(float(half))
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
    assert np.isnan(number(table, "table1-noun-templates"))
    assert "not measured" in str(table.loc["table1-noun-templates", "note"])


@pytest.mark.slow
def test_every_finding_has_a_verdict(smoke: tuple[Reproduction, Path]) -> None:
    _, out = smoke
    findings = pd.read_parquet(out / "findings.parquet").set_index("finding")
    assert sorted(findings.index) == sorted(finding.id for finding in PUBLISHED.findings)
    assert set(findings["verdict"]) <= VERDICTS
    across = sorted(SENSEBERT_FINDINGS | LMMS_WITH_ARES)
    assert (findings.loc[across, "verdict"] == "not measurable").all()
    measurable = findings.drop(across)
    assert (measurable["verdict"] != "not measurable").all(), measurable["evidence"]


@pytest.mark.slow
def test_black_ethnic_above_colour_does_not_hold_on_minilm(
    smoke: tuple[Reproduction, Path],
) -> None:
    """A real run where the paper's claim fails: the ethnic sense of black is nearer 0 than
    its colour sense in the sense vectors built from minilm-l6-mlm."""
    reproduction, out = smoke
    table2 = pd.read_parquet(out / STATIC / "sense_bias_table2.parquet").set_index("row")
    ethnic = number(table2, "black (ethnicity)", "sense")
    colour = number(table2, "black (colour)", "sense")
    assert abs(ethnic) < abs(colour)
    assert verdict(reproduction, "black-ethnic-above-colour") == "does not hold"
    evidence = reproduction.findings.set_index("finding").loc["black-ethnic-above-colour"]
    text = str(evidence["evidence"])
    assert f"{ethnic:+.3f}" in text and f"{colour:+.3f}" in text


def _copy(runs: Runs) -> dict[str, Run]:
    return {name: copy.deepcopy(run) for name, run in runs.items()}


@pytest.mark.slow
def test_checks_follow_the_tables(smoke: tuple[Reproduction, Path]) -> None:
    """The checks on printed numbers read the reproduction table's measured cells (issue 28:
    they were functions of the runs); the figure checks read the runs."""
    reproduction, _ = smoke
    checks = REPRODUCTION.checks()
    table = reproduction.table.set_index("item")

    def on(changed: pd.DataFrame) -> Cells:
        return Cells.measured(PUBLISHED, changed.reset_index())

    noun_verb = checks["noun-above-verb"]
    assert isinstance(noun_verb, TableCheck)
    exact = table.copy()
    noun, verb = "table2-noun-lmms-sense", "table2-verb-lmms-sense"
    exact.loc[[noun, verb], "uncertainty"] = 0.0  # no interval: the sign decides
    before = noun_verb.check(on(exact)).verdict
    swapped = exact.copy()
    swapped.loc[[noun, verb], "measured"] = exact.loc[[verb, noun], "measured"].to_numpy()
    assert {before, noun_verb.check(on(swapped)).verdict} == {"holds", "does not hold"}

    contextual = checks["contextual-above-static"]
    assert isinstance(contextual, TableCheck)
    sssb = [f"table3-{row}-base-bert" for row in TABLE3_SSSB]
    exact.loc[sssb, "uncertainty"] = 0.0
    before = contextual.check(on(exact)).verdict
    extreme = exact.copy()
    extreme.loc[sssb, "measured"] = 0.0 if before == "holds" else 50.0
    assert {before, contextual.check(on(extreme)).verdict} == {"holds", "does not hold"}

    runs = _copy(reproduction.runs)
    direction = (
        runs[STATIC]
        .tables["gender_direction"]
        .drop(
            columns=[
                "noun_sense_ci_low",
                "noun_sense_ci_high",
            ]  # without intervals: the sign decides
        )
    )
    runs[STATIC].tables["gender_direction"] = direction
    nurse = checks["nurse-female-biased-in-lmms"]
    assert not isinstance(nurse, TableCheck)
    before = nurse(runs).verdict
    direction.loc[direction["occupation"] == "nurse", "noun_sense"] *= -1
    assert {before, nurse(runs).verdict} == {"holds", "does not hold"}

    weat = checks["weat-sense-above-word"]
    assert isinstance(weat, TableCheck)
    not_run = table.copy()
    not_run.loc[not_run.index.str.startswith("table2-"), "measured"] = np.nan
    assert weat.check(on(not_run)).verdict == "not measurable"
    del runs[STATIC]
    assert "'static' did not run" in nurse(runs).evidence


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
        stereo_sentence = TABLE4_PAIRS[str(item.location.row)]
        stereo = number(scores, stereo_sentence, "score_stereo")
        anti = number(scores, stereo_sentence, "score_anti")
        expected = {"stereo": stereo, "anti": anti, "diff": stereo - anti}
        assert value.value == pytest.approx(expected[str(item.setting["column"])], abs=1e-12)


def test_glove_runs_the_static_experiment_and_fails_the_likelihood_ones_cleanly(
    glove_smoke: Reproduction,
) -> None:
    """On a static model the sense and eq. 7 word vectors coincide: WAT r is the same up to
    rounding, which is not "word above sense"; the likelihood experiments fail with the reason
    in their items."""
    assert sorted(glove_smoke.failures) == sorted(LIKELIHOOD.values())
    assert "static model" in glove_smoke.failures[LIKELIHOOD["sssb"]]
    table = glove_smoke.table.set_index("item")
    assert str(table.loc["table3-crows-pairs-base-bert", "note"]).startswith("experiment ")
    word = number(table, "table2-wat-lmms-word")
    assert np.isfinite(word)
    assert word == pytest.approx(number(table, "table2-wat-lmms-sense"), rel=1e-9)
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


# --- the checks on the paper's own numbers, and on numbers changed the way a finding fails -------

CHECKS = REPRODUCTION.checks()
TABLE_CHECKS = {name: check for name, check in CHECKS.items() if isinstance(check, TableCheck)}
FIGURE_FINDINGS = {
    "bias-grows-with-dimensionality": "Figure 1",
    "nurse-female-biased-in-lmms": "Figure 2",
    "sensebert-verb-senses-anti-stereotypical": "Figure 3",
}


def cells(changes: dict[str, float] | None = None, **spread: float) -> Cells:
    """The published cells with ``changes`` (id → value) and half-widths ``spread`` (id with
    ``_`` for ``-`` → half-width; 0 elsewhere)."""
    published = Cells.published(PUBLISHED)
    values = dict(published.values) | (changes or {})
    widths = dict(published.uncertainties) | {
        id.replace("_", "-"): width for id, width in spread.items()
    }
    return Cells("published", PUBLISHED, values, widths)


def measured_cells(values: dict[str, float], spread: dict[str, float]) -> Cells:
    """A measured column: every other item not measured (NaN)."""
    every = {item.id: values.get(item.id, np.nan) for item in PUBLISHED.items}
    widths = {item.id: spread.get(item.id, np.nan) for item in PUBLISHED.items}
    return Cells("measured", PUBLISHED, every, widths)


def outcome(finding: str, on: Cells) -> Check:
    return TABLE_CHECKS[finding].check(on)


def test_findings_on_tables_are_table_checks_and_figures_are_named() -> None:
    """Every finding on Tables 2-4 is checked on the printed cells; the three on Figures 1-3
    are functions of the runs, named in basis()."""
    findings = {finding.id for finding in PUBLISHED.findings}
    assert set(CHECKS) == findings
    assert set(TABLE_CHECKS) == findings - set(FIGURE_FINDINGS)
    assert dict(REPRODUCTION.basis()) == FIGURE_FINDINGS
    rests_on = {name: check.rests_on(PUBLISHED) for name, check in TABLE_CHECKS.items()}
    assert rests_on["weat-sense-above-word"] == "Table 2 (20 cells)"
    assert rests_on["contextual-above-static"] == "Table 3 (24 cells); Table 2 (24 cells)"
    assert rests_on["sensebert-prefers-stereotypes-for-nurse"] == "Table 4 (8 cells)"


@pytest.mark.parametrize(
    ("finding", "margin"),
    [
        ("weat-sense-above-word", 0.22),  # LMMS Physical vs. Mental 0.42/0.64
        ("wat-word-above-sense", 0.12),  # LMMS 0.53/0.41
        ("black-ethnic-above-colour", 0.84),  # ARES 5.67 vs 4.83
        ("language-above-nationality-at-sense-level", 1.22),  # LMMS 8.23 vs 7.01
        ("nationality-word-level-language-sense-level", 0.44),  # ARES language 7.38/6.94
        ("noun-above-verb", 0.10),  # ARES 0.16 vs 0.06
        ("crows-bert-stereoset-sensebert", 0.67),  # CrowS-Pairs base |-1.66| vs 0.99
        ("sensebert-at-least-bert-on-sssb", 0.5),  # 8 of 12, past 7.5
        ("direction-flips", 0.22),  # large verb 0.22/-15.44
        ("contextual-above-static", 7.0975 - 4.0767),  # mean |Table 3| vs mean |Table 2|
        ("sensebert-prefers-stereotypes-for-nurse", 0.16),  # professional nurse 0.27 vs 0.11
    ],
)
def test_each_check_holds_on_the_papers_numbers(finding: str, margin: float) -> None:
    check = outcome(finding, Cells.published(PUBLISHED))
    assert check.verdict == "holds", check.evidence
    assert check.margin == pytest.approx(margin, abs=5e-4)
    assert check.uncertainty == 0
    assert check.evidence.startswith("the paper: '")


@pytest.mark.parametrize(
    ("finding", "changes"),
    [
        # ARES's Physical vs. Mental sense d nearer 0 than its word d (-0.12)
        ("weat-sense-above-word", {"table2-physical-mental-ares-sense": -0.10}),
        # a sense r as large as the word r: equal is not "higher"
        ("wat-word-above-sense", {"table2-wat-lmms-sense": 0.53}),
        ("wat-word-above-sense", {"table2-wat-ares-sense": -0.50}),
        # colour above ethnicity in ARES only: "in both LMMS and ARES"
        ("black-ethnic-above-colour", {"table2-black-colour-ares-sense": -5.70}),
        ("language-above-nationality-at-sense-level", {"table2-nationality-lmms-sense": 8.30}),
        # ARES's language sense below its word level
        ("nationality-word-level-language-sense-level", {"table2-language-ares-sense": 6.90}),
        # LMMS's nationality sense above its word level
        ("nationality-word-level-language-sense-level", {"table2-nationality-lmms-sense": 7.80}),
        ("noun-above-verb", {"table2-verb-ares-sense": 0.16}),
        # SenseBERT less biased than BERT on StereoSet large
        ("crows-bert-stereoset-sensebert", {"table3-stereoset-large-sensebert": -1.40}),
        # BERT less biased than SenseBERT on CrowS-Pairs base
        ("crows-bert-stereoset-sensebert", {"table3-crows-pairs-base-sensebert": 1.70}),
        # 7 of 12: base ethnicity now |SenseBERT| < |BERT|
        ("sensebert-at-least-bert-on-sssb", {"table3-ethnicity-base-sensebert": 9.0}),
        # the large verb scores agree in sign
        ("direction-flips", {"table3-verb-large-bert": -0.22}),
        # a named flip to 0 has no sign
        ("direction-flips", {"table3-language-large-sensebert": 0.0}),
        # contextual scores as small as the static ones
        (
            "contextual-above-static",
            {
                f"table3-{r}-{s}-{m}": 1.0
                for r in TABLE3_SSSB
                for s in ("base", "large")
                for m in ("bert", "sensebert")
            },
        ),
        (
            "sensebert-prefers-stereotypes-for-nurse",
            {"table4-mother-of-five-sensebert-diff": -0.05},
        ),
    ],
)
def test_each_check_fails_where_the_numbers_contradict_it(
    finding: str, changes: dict[str, float]
) -> None:
    check = outcome(finding, cells(changes))
    assert check.verdict == "does not hold", check.evidence
    assert check.margin <= 0


def test_the_sense_gap_is_larger_in_lmms_for_black_only() -> None:
    """Section 6.1: the difference between the two senses' scores is "more in LMMS compared to
    that in ARES" for black (3.00 vs 0.84) but not for nationality vs. language (1.22 vs 1.63:
    margin -0.41). With LMMS's language sense at 8.70 (1.69) it holds (margin 0.06); within the
    cells' half-widths it is inconclusive."""
    check = outcome("sense-gap-larger-in-lmms", Cells.published(PUBLISHED))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.41)
    repaired = cells({"table2-language-lmms-sense": 8.70})
    check = outcome("sense-gap-larger-in-lmms", repaired)
    assert check.verdict == "holds" and check.margin == pytest.approx(0.06)
    assert "2 of 2 hold" in check.evidence
    wide = cells({"table2-language-lmms-sense": 8.70}, table2_language_lmms_sense=0.1)
    assert outcome("sense-gap-larger-in-lmms", wide).verdict == "inconclusive"


def test_within_the_runs_uncertainty_a_finding_is_inconclusive() -> None:
    """The published margins, with half-widths as a run would give them: where they cover the
    margin the check cannot tell."""
    noun = cells(table2_noun_ares_sense=0.08, table2_verb_ares_sense=0.07)
    check = outcome("noun-above-verb", noun)  # ARES 0.16 vs 0.06, +-0.106
    assert check.verdict == "inconclusive" and check.margin == pytest.approx(0.10)
    assert check.uncertainty == pytest.approx(np.hypot(0.08, 0.07))
    wide = cells(table2_noun_ares_sense=0.01, table2_verb_ares_sense=0.01)
    assert outcome("noun-above-verb", wide).verdict == "holds"
    flips = cells(table3_verb_large_bert=0.5)  # 0.22 +- 0.5 may be on either side of 0
    assert outcome("direction-flips", flips).verdict == "inconclusive"
    nurse = cells(
        table4_professional_nurse_sensebert_diff=0.2, table4_professional_nurse_bert_diff=0.2
    )
    assert outcome("sensebert-prefers-stereotypes-for-nurse", nurse).verdict == "inconclusive"


def test_the_sign_flips_in_base_noun_too_and_the_check_reads_the_named_cells() -> None:
    """Table 3's SSSB cells: BERT and SenseBERT differ in sign in base noun (-0.12/14.06) as
    well as in the four cells the text names "e.g."; large ethnicity's SenseBERT 0.00 has no
    sign. The check reads only the named cells, so the base noun flip neither helps nor hurts."""
    values = Cells.published(PUBLISHED)
    flipped = {
        (row, size)
        for row in TABLE3_SSSB
        for size in ("base", "large")
        if values.value(f"table3-{row}-{size}-bert")
        * values.value(f"table3-{row}-{size}-sensebert")
        < 0
    }
    assert flipped == {("noun", "base"), *FLIPS}
    assert values.value("table3-ethnicity-large-sensebert") == 0.0
    items = TABLE_CHECKS["direction-flips"].items
    assert "table3-noun-base-bert" not in items
    same_sign = outcome("direction-flips", cells({"table3-noun-base-bert": 0.12}))
    assert same_sign.verdict == "holds"


def test_measured_cells_of_one_model_compare_within_it_only() -> None:
    """A measured column holds one model's values: the comparisons of BERT with SenseBERT are
    not measurable; the Table 2 checks read the LMMS column once (its ARES column repeats it);
    the contextual-vs-static check reads the cells this run filled."""
    values = {item.id: item.value for item in PUBLISHED.items}
    spread = {id: 0.01 for id in values}
    on = measured_cells(values, spread)
    for finding in (
        "crows-bert-stereoset-sensebert",
        "sensebert-at-least-bert-on-sssb",
        "direction-flips",
        "sensebert-prefers-stereotypes-for-nurse",
        *LMMS_WITH_ARES,
    ):
        assert outcome(finding, on).verdict == "not measurable", finding
    black = outcome("black-ethnic-above-colour", on)
    assert black.margin == pytest.approx(4.64 - 1.64)  # LMMS only
    assert "ARES sense" not in black.evidence
    base_bert = {
        id: value
        for id, value in values.items()
        if id.startswith("table2-") or id.endswith("-base-bert")
    }
    contextual = outcome("contextual-above-static", measured_cells(base_bert, spread))
    table3 = np.mean([10.19, 6.64, 5.79, 0.17, 0.12, 12.89])
    table2 = np.mean([5.36, 4.64, 5.36, 1.64, 7.78, 7.01, 7.78, 8.23, 0.34, 0.39, 0.34, 0.26])
    assert contextual.margin == pytest.approx(table3 - table2)
    assert contextual.uncertainty == pytest.approx(np.hypot(0.01 / np.sqrt(6), 0.01 / np.sqrt(12)))
    assert "6 Table 3 SSSB cells" in contextual.evidence
    not_run = measured_cells({}, {})
    assert outcome("weat-sense-above-word", not_run).verdict == "not measurable"


def _static_run(tables: dict[str, pd.DataFrame]) -> Runs:
    return {STATIC: Run("sense-bias", tables, {"sense_vectors": {"layers": [0, 6]}})}


def _dimensions(series: dict[tuple[int, str], list[float]], sizes: list[int]) -> pd.DataFrame:
    """A ``dimensions`` table: (test, representation) → effect size per size."""
    rows = [
        {"dimension": size, "test": test, "representation": rep, "effect_size": d}
        for (test, rep), ds in series.items()
        for size, d in zip(sizes, ds, strict=True)
    ]
    return pd.DataFrame(rows)


def test_bias_must_increase_with_the_dimensionality_at_every_step() -> None:
    """Figure 1: "all types of social biases increase with the dimensionality". A rising series
    holds; a flat step (a size that keeps every direction of the smaller one) or a fall does
    not; and at the largest size the sense |d| must exceed the word |d|."""
    sizes = [48, 96, 192]
    rising = {
        (1, "sense"): [1.0, 1.2, 1.5],
        (1, "word"): [0.8, 0.9, 1.1],
        (9, "sense"): [-0.3, -0.5, -0.6],  # |d| rises
        (9, "word"): [0.1, 0.2, 0.4],
    }
    check = check_bias_grows_with_dimensionality(
        _static_run({"dimensions": _dimensions(rising, sizes)})
    )
    assert check.verdict == "holds", check.evidence
    assert check.margin == pytest.approx(0.1) and np.isnan(check.uncertainty)
    assert "the paper: 'all types of social biases increase" in check.evidence

    flat = rising | {(9, "word"): [0.1, 0.4, 0.4]}  # the audit's case: ">= 0" accepted this
    check = check_bias_grows_with_dimensionality(
        _static_run({"dimensions": _dimensions(flat, sizes)})
    )
    assert check.verdict == "does not hold" and check.margin == 0.0
    assert "in 3 of 4" in check.evidence
    rounding = rising | {(9, "word"): [0.1, 0.4, 0.4 * (1 + 1e-12)]}  # flat up to rounding
    runs = _static_run({"dimensions": _dimensions(rounding, sizes)})
    assert check_bias_grows_with_dimensionality(runs).verdict == "does not hold"
    falling = rising | {(1, "sense"): [1.0, 1.6, 1.5]}
    runs = _static_run({"dimensions": _dimensions(falling, sizes)})
    assert check_bias_grows_with_dimensionality(runs).margin == pytest.approx(-0.1)
    word_above = rising | {(1, "word"): [0.8, 1.2, 1.6]}
    check = check_bias_grows_with_dimensionality(
        _static_run({"dimensions": _dimensions(word_above, sizes)})
    )
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.1)
    one_size = _dimensions({key: values[:1] for key, values in rising.items()}, sizes[:1])
    runs = _static_run({"dimensions": one_size})
    assert check_bias_grows_with_dimensionality(runs).verdict == "not measurable"


def test_dimensionality_steps_are_judged_against_the_bootstrap_intervals_of_d() -> None:
    """Each step of |d| and the gap at the largest size against the two effect sizes'
    bootstrap half-widths over the target words, in quadrature; a step within them is
    inconclusive, and without intervals a smoke run cannot tell."""
    sizes = [48, 96, 192]
    series = {
        (1, "sense"): [1.0, 1.2, 1.5],
        (1, "word"): [0.8, 0.9, 1.1],
        (9, "sense"): [-0.3, -0.5, -0.6],
        (9, "word"): [0.1, 0.2, 0.4],
    }
    table = _dimensions(series, sizes)

    def with_half(width: float) -> pd.DataFrame:
        return table.assign(
            effect_size_ci_low=table["effect_size"] - width,
            effect_size_ci_high=table["effect_size"] + width,
        )

    narrow = check_bias_grows_with_dimensionality(_static_run({"dimensions": with_half(0.01)}))
    assert narrow.verdict == "holds"
    # the deciding step: the smallest, 0.1 (e.g. test 9 sense 0.5 -> 0.6), ± sqrt(2) x 0.01
    assert (narrow.margin, narrow.uncertainty) == (
        pytest.approx(0.1),
        pytest.approx(math.hypot(0.01, 0.01)),
    )
    assert "8 of 8 rise" in narrow.evidence
    wide = check_bias_grows_with_dimensionality(_static_run({"dimensions": with_half(0.1)}))
    assert wide.verdict == "inconclusive"  # 0.1 steps within ±0.141
    assert "0.800 ± 0.10, 0.900 ± 0.10" in wide.evidence
    assert "5 of 8 rise and 0 do not beyond their interval, 3 within it" in wide.evidence
    with requiring_intervals():
        bare = check_bias_grows_with_dimensionality(_static_run({"dimensions": table}))
        assert bare.verdict == "inconclusive"
        assert (
            check_bias_grows_with_dimensionality(
                _static_run({"dimensions": with_half(0.01)})
            ).verdict
            == "holds"
        )


def test_nurse_alone_is_female_biased_among_the_noun_senses() -> None:
    """Figure 2: "For all noun senses, we see positive (male) biases, except for nurse"."""
    table = pd.DataFrame(
        {
            "occupation": ["engineer", "nurse", "judge"],
            "layer": 6,
            "noun_sense": [0.20, -0.30, 0.05],
        }
    )
    check = check_nurse_female_biased(_static_run({"gender_direction": table}))
    assert check.verdict == "holds" and check.margin == pytest.approx(0.05)
    table.loc[table["occupation"] == "judge", "noun_sense"] = -0.01
    check = check_nurse_female_biased(_static_run({"gender_direction": table}))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.01)
    assert check_nurse_female_biased({}).verdict == "not measurable"


def _with_intervals(table: pd.DataFrame, half: float) -> pd.DataFrame:
    """``table`` with each noun-sense cosine's interval ± ``half``."""
    return table.assign(
        noun_sense_ci_low=table["noun_sense"] - half, noun_sense_ci_high=table["noun_sense"] + half
    )


def test_nurse_check_is_judged_within_the_bootstrap_over_the_gender_pairs() -> None:
    """Each cosine within its bootstrap half-width over the pairs that define g cannot tell:
    judge(..) inconclusive inside the interval, decided outside; no columns, no interval."""
    table = pd.DataFrame(
        {
            "occupation": ["engineer", "nurse", "judge"],
            "layer": 6,
            "noun_sense": [0.20, -0.30, 0.05],
        }
    )
    runs = _static_run({"gender_direction": _with_intervals(table, 0.03)})
    runs[STATIC].metadata["experiments"] = {"gender_direction": {"n_pairs": 222}}
    held = check_nurse_female_biased(runs)
    assert held.verdict == "holds" and held.margin == pytest.approx(0.05)
    assert held.uncertainty == pytest.approx(0.03)
    assert "over the 222 pairs" in held.evidence and "judge +0.050 ± 0.030" in held.evidence
    wide = check_nurse_female_biased(
        _static_run({"gender_direction": _with_intervals(table, 0.06)})
    )
    assert wide.verdict == "inconclusive" and wide.margin == pytest.approx(0.05)
    against = table.assign(noun_sense=[0.20, -0.30, -0.08])
    failed = check_nurse_female_biased(
        _static_run({"gender_direction": _with_intervals(against, 0.06)})
    )
    assert failed.verdict == "does not hold" and failed.margin == pytest.approx(-0.08)
    bare = check_nurse_female_biased(_static_run({"gender_direction": table}))
    assert math.isnan(bare.uncertainty) and bare.verdict == "holds"
    with requiring_intervals():
        assert check_nurse_female_biased(_static_run({"gender_direction": table})).verdict == (
            "inconclusive"
        )
