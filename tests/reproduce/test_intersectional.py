"""The intersectional paper's reproduction on real models: one smoke run on SmolLM2 (causal, as
the paper's GPT-Neo) shared by the module, and one on GloVe (static: the context experiments
fail cleanly). Measured values are read back from the method's own parquet tables, and the
findings' verdicts are shown to follow those tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.contexts.intersectional import combination_phrases, load_study, permutation_phrases
from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import Reproduction, Runs, same_depth
from wordlens.reproduce.intersectional import (
    DIFFERENTIAL,
    PAPER_LAYERS,
    REPRODUCTION,
    SMOKE_STUDY,
    STRONGEST,
    VALNORM,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.results import Run

PAPER = load_published("intersectional")
VERDICTS = {"holds", "does not hold", "not measurable"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2_run(
    shared: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("intersectional-smollm2")
    return reproduce("intersectional", ModelOptions("smollm2-135m"), out, scale="smoke"), out


@pytest.fixture(scope="module")
def glove_run(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("intersectional-glove")
    return reproduce("intersectional", ModelOptions("glove-6b-50d"), out, scale="smoke"), out


def table_of(out: Path, experiment: str, name: str) -> pd.DataFrame:
    """The method's own table, as written to disk."""
    return pd.read_parquet(out / experiment / f"intersectional_{name}.parquet")


def measured(reproduction: Reproduction, item: str) -> pd.Series:
    rows = reproduction.table[reproduction.table["item"] == item]
    assert len(rows) == 1
    return rows.iloc[0]


def verdicts(reproduction: Reproduction) -> dict[str, str]:
    return dict(
        zip(reproduction.findings["finding"], reproduction.findings["verdict"], strict=True)
    )


def with_table(runs: Runs, experiment: str, name: str, table: pd.DataFrame) -> dict[str, Run]:
    """A copy of ``runs`` whose ``experiment`` run has ``table`` as its table ``name``."""
    run = runs[experiment]
    return {**runs, experiment: replace(run, tables={**run.tables, name: table})}


def check(finding: str, runs: Runs) -> str:
    return REPRODUCTION.checks()[finding](runs).verdict


# ---------------------------------------------------------------- layer mapping


@pytest.mark.parametrize(
    ("layer", "paper_layers", "top", "expected"),
    [
        (0, 24, 30, 0),  # the input embeddings stay the input embeddings
        (24, 24, 30, 30),  # top to top
        (12, 24, 30, 15),
        (1, 12, 6, 1),  # 0.5 rounds up (Python's round() would give 0)
        (3, 12, 6, 2),  # 1.5 rounds up
        (5, 12, 6, 3),  # 2.5 rounds up (round() would give 2)
        (7, 24, 30, 9),  # 8.75
    ],
)
def test_paper_layer_maps_to_the_same_relative_depth(
    layer: int, paper_layers: int, top: int, expected: int
) -> None:
    assert same_depth(layer, paper_layers, top) == expected


def test_every_figure2_model_has_its_layer_count() -> None:
    figure2 = [item for item in PAPER.items if item.location.number == 2]
    for model, layers in PAPER_LAYERS.items():
        xs = {item.location.x for item in figure2 if item.model == model}
        assert xs == set(range(layers + 1)), model


# ---------------------------------------------------------------- experiments


def test_paper_scale_has_no_departure_and_smoke_names_its_samples() -> None:
    paper = REPRODUCTION.experiments("paper")
    smoke = REPRODUCTION.experiments("smoke")
    assert [e.name for e in paper] == [e.name for e in smoke] == [VALNORM, DIFFERENTIAL, STRONGEST]
    assert all(e.departure == "" and e.options["conventions"] == "paper" for e in paper)
    assert all("study" not in e.options for e in paper)
    assert smoke[0].departure == ""
    study = load_study(Path(smoke[1].options["study"]))
    assert Path(smoke[1].options["study"]) == SMOKE_STUDY
    # the departures state the smoke study's real sizes
    assert len(combination_phrases(study)) == 64 and "64 phrases" in smoke[1].departure
    assert len(permutation_phrases(study)) == 384 and "384" in smoke[2].departure
    assert {"male", "female"}.isdisjoint(
        c for name in study.strongest_biases for c in study.bias(name).categories
    )


# ---------------------------------------------------------------- the SmolLM2 run


def test_every_item_has_exactly_one_row_at_its_location(
    smollm2_run: tuple[Reproduction, Path],
) -> None:
    reproduction, _ = smollm2_run
    table = reproduction.table
    assert reproduction.failures == {}
    assert sorted(table["item"]) == sorted(item.id for item in PAPER.items)
    for item in PAPER.items:
        assert measured(reproduction, item.id)["location"] == location_text(item)
    # what is not measured says why: only the smoke study's left-out categories
    unmeasured = table[table["measured"].isna()]
    assert (unmeasured["note"].str.len() > 0).all()
    assert len(unmeasured) == 12 + 4  # six biases of Figure 3, male/female of Figure 4
    assert "has no category 'young'" in measured(reproduction, "figure3-young")["note"]
    assert (
        "not among the permuted biases" in measured(reproduction, "figure4-pleasant-male")["note"]
    )


def test_measured_values_are_the_method_tables(smollm2_run: tuple[Reproduction, Path]) -> None:
    reproduction, out = smollm2_run
    valnorm = table_of(out, VALNORM, "valnorm").set_index("layer")
    top = int(valnorm.index.max())
    assert top == 30  # SmolLM2-135M: 30 layers above the input embeddings
    for item in PAPER.items:
        if item.location.number != 2:
            continue
        paper_layers = PAPER_LAYERS[str(item.model)]
        layer = int(np.floor(int(str(item.setting["layer"])) * top / paper_layers + 0.5))
        column = "projection_r" if item.setting["method"] == "svc projection" else "cosine_r"
        assert measured(reproduction, item.id)["measured"] == valnorm.loc[layer, column], item.id
    assert (
        measured(reproduction, "figure2-gpt-neo-1-3b-svc-layer24")["measured"]
        == (valnorm.loc[30, "projection_r"])
    )

    differential = table_of(out, DIFFERENTIAL, "differential").set_index("first")
    assert (
        measured(reproduction, "figure3-white")["measured"] == differential.loc["white", "mean_a"]
    )
    by_second = differential.reset_index().set_index("second")
    assert measured(reproduction, "figure3-black")["measured"] == by_second.loc["black", "mean_b"]
    # male: exact-token mean, and the authors' all-phrase mean in the note
    male = measured(reproduction, "figure3-male")
    assert male["measured"] == differential.loc["male", "mean_a"]
    overall = table_of(out, DIFFERENTIAL, "combination_projections")["projection"].mean()
    assert f"here {overall:.4f}" in male["note"]

    shares = table_of(out, STRONGEST, "strongest_categories").set_index("category")
    row = measured(reproduction, "figure4-pleasant-heterosexual")
    assert row["measured"] == shares.loc["heterosexual", "pct_top"]
    row = measured(reproduction, "figure4-unpleasant-homosexual")
    assert row["measured"] == shares.loc["homosexual", "pct_bottom"]
    assert "of the 38 most unpleasant of 384 phrases" in row["note"]


def test_every_finding_has_a_verdict_from_a_check(smollm2_run: tuple[Reproduction, Path]) -> None:
    reproduction, out = smollm2_run
    assert set(REPRODUCTION.checks()) == {finding.id for finding in PAPER.findings}
    findings = reproduction.findings
    assert list(findings["finding"]) == [finding.id for finding in PAPER.findings]
    assert set(findings["verdict"]) <= VERDICTS
    assert not findings["evidence"].str.contains("no check").any()
    on_disk = pd.read_parquet(out / "findings.parquet")
    assert list(on_disk["verdict"]) == list(findings["verdict"])


def test_findings_that_do_not_hold_on_smollm2(smollm2_run: tuple[Reproduction, Path]) -> None:
    # In SmolLM2 "white" makes "person" more pleasant than "black" (the paper's GPT-Neo: the
    # reverse), and men are not more pleasant than women: both claims fail on the real tables.
    reproduction, out = smollm2_run
    differential = table_of(out, DIFFERENTIAL, "differential").set_index("first")
    white, male = differential.loc["white"], differential.loc["male"]
    assert white["mean_a"] > white["mean_b"] and male["effect_size"] < 0
    verdict = verdicts(reproduction)
    assert verdict["white-below-black-in-gpt-neo"] == "does not hold"
    assert verdict["men-more-pleasant-in-three"] == "does not hold"
    evidence = reproduction.findings.set_index("finding")["evidence"]
    assert (
        f"white {white['mean_a']:.4f}, black {white['mean_b']:.4f}"
        in evidence["white-below-black-in-gpt-neo"]
    )
    assert f"d = {male['effect_size']:+.3f}" in evidence["men-more-pleasant-in-three"]
    # and the claims this run cannot decide say so
    assert verdict["t5-women-more-pleasant"] == "not measurable"
    assert verdict["gpt-neo-most-significant-tests"] == "not measurable"
    assert verdict["male-female-balanced"] == "not measurable"  # sex is not permuted at smoke


def test_share_findings_follow_the_table(smollm2_run: tuple[Reproduction, Path]) -> None:
    reproduction, _ = smollm2_run
    runs = reproduction.runs
    shares = runs[STRONGEST].tables["strongest_categories"].set_index("category")
    finding = "heterosexual-cisgender-most-pleasant"
    assert check(finding, runs) == verdicts(reproduction)[finding]
    paper_like = shares.copy()
    paper_like.loc[["heterosexual", "cisgender", "christian"], "pct_top"] = [93.75, 70.05, 65.10]
    edited = with_table(runs, STRONGEST, "strongest_categories", paper_like.reset_index())
    assert check(finding, edited) == "holds"
    paper_like.loc["christian", "pct_top"] = 65.0  # "more than 65%" is strict
    edited = with_table(runs, STRONGEST, "strongest_categories", paper_like.reset_index())
    assert check(finding, edited) == "does not hold"
    # muslim/white: swap the two groups and the verdict turns
    swapped = shares.rename(columns={"pct_top": "pct_bottom", "pct_bottom": "pct_top"})
    before = check("muslim-white-more-unpleasant", runs)
    after = check(
        "muslim-white-more-unpleasant",
        with_table(runs, STRONGEST, "strongest_categories", swapped.reset_index()),
    )
    assert {before, after} == {"holds", "does not hold"}


def test_valnorm_and_differential_findings_follow_the_table(
    smollm2_run: tuple[Reproduction, Path],
) -> None:
    reproduction, _ = smollm2_run
    runs = reproduction.runs
    valnorm = runs[VALNORM].tables["valnorm"]
    # SmolLM2: the projection beats cosine at most layers, but by less in the upper half
    gap = valnorm["projection_r"] - valnorm["cosine_r"]
    upper = valnorm["layer"] > 15
    assert gap.mean() > 0 and gap[upper].mean() < gap[~upper].mean()
    assert check("svc-beats-cosine", runs) == verdicts(reproduction)["svc-beats-cosine"]
    assert verdicts(reproduction)["svc-beats-cosine"] == "does not hold"
    widened = valnorm.assign(projection_r=valnorm["projection_r"] + 0.1 * upper)
    assert check("svc-beats-cosine", with_table(runs, VALNORM, "valnorm", widened)) == "holds"
    swapped = widened.rename(columns={"projection_r": "cosine_r", "cosine_r": "projection_r"})
    assert check("svc-beats-cosine", with_table(runs, VALNORM, "valnorm", swapped)) == (
        "does not hold"
    )
    differential = runs[DIFFERENTIAL].tables["differential"].copy()
    is_sex = differential["first"] == "male"
    differential.loc[is_sex, "effect_size"] = -differential.loc[is_sex, "effect_size"]
    edited = with_table(runs, DIFFERENTIAL, "differential", differential)
    assert check("men-more-pleasant-in-three", edited) == "holds"
    # half of the tests positive: every effect negative -> does not hold
    negative = differential.assign(effect_size=-differential["effect_size"].abs())
    edited = with_table(runs, DIFFERENTIAL, "differential", negative)
    assert check("half-of-tests-positive", edited) == "does not hold"


# ---------------------------------------------------------------- a static model


def test_static_model_measures_layer_zero_and_fails_the_contexts_cleanly(
    glove_run: tuple[Reproduction, Path],
) -> None:
    reproduction, out = glove_run
    assert set(reproduction.failures) == {DIFFERENTIAL, STRONGEST}
    assert all("static embedding" in error for error in reproduction.failures.values())
    valnorm = table_of(out, VALNORM, "valnorm")
    assert list(valnorm["layer"]) == [0]
    table = reproduction.table
    layer0 = table[table["item"].str.endswith("-layer0")]
    assert len(layer0) == 10  # five panels, two series
    for item, value in zip(layer0["item"], layer0["measured"], strict=True):
        column = "projection_r" if "-svc-" in str(item) else "cosine_r"
        assert value == valnorm.loc[0, column]
    assert table["measured"].notna().sum() == 10
    assert measured(reproduction, "figure2-t5-base-svc-layer3")["note"].startswith(
        "this model has one layer"
    )
    assert "did not run" in measured(reproduction, "figure3-white")["note"]
    assert set(reproduction.findings["verdict"]) == {"not measurable"}
