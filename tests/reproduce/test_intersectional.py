"""The intersectional paper's reproduction.

The findings' checks on the paper's own numbers (Figures 2-4 as published, and as perturbed the
way a wrong or lenient check would miss) and on synthetic differential tables (Table 2's
findings); then, on real models (``slow``), one smoke run on SmolLM2 (causal, as the paper's
GPT-Neo) shared by the module, and one on GloVe (static: the context experiments fail cleanly).
Measured values are read back from the method's own parquet tables, and the findings' verdicts
are shown to follow those tables."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordlens.contexts.intersectional import combination_phrases, load_study, permutation_phrases
from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import Cells, Check, Reproduction, Runs, TableCheck, same_depth
from wordlens.reproduce.intersectional import (
    BALANCE_TOLERANCE,
    DIFFERENTIAL,
    PAPER_LAYERS,
    REPRODUCTION,
    SMOKE_STUDY,
    STRONGEST,
    TABLE2_FINDINGS,
    TABLE2_LOST,
    VALNORM,
    d_half_width,
    figure2_ids,
    p_half_width,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.results import Run

PAPER = load_published("intersectional")
VERDICTS = {"holds", "does not hold", "inconclusive", "not measurable"}


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
    """The verdict of a finding on Table 2 (a function of the runs)."""
    function = REPRODUCTION.checks()[finding]
    assert not isinstance(function, TableCheck)
    return function(runs).verdict


def on_cells(finding: str, cells: Cells) -> Check:
    """A finding on Figures 2-4 checked on ``cells``."""
    table_check = REPRODUCTION.checks()[finding]
    assert isinstance(table_check, TableCheck)
    return table_check.check(cells)


def published_with(changes: dict[str, float] | None = None, uncertainty: float = 0.0) -> Cells:
    """The paper's values with ``changes`` (item id → value), each with ``uncertainty`` (a
    run-like column when it is not 0)."""
    cells = Cells.published(PAPER)
    values = {**cells.values, **(changes or {})}
    return Cells(
        "published" if uncertainty == 0 else "measured",
        PAPER,
        values,
        dict.fromkeys(values, uncertainty),
    )


def differential_runs(rows: list[dict[str, object]], model: str = "gpt2") -> dict[str, Run]:
    """Runs with a synthetic differential table (columns as the method writes them)."""
    defaults = {"n_a": 2048, "n_b": 2048, "p_one_sided": 0.5, "n_permutations": 10_000}
    table = pd.DataFrame(
        [
            {
                **defaults,
                "exact": False,
                "test": f"{row['first']} vs. {row['second']}",
                "mean_a": 0.0,
                "mean_b": 0.0,
                **row,
            }
            for row in rows
        ]
    )
    return {
        DIFFERENTIAL: Run("intersectional", {"differential": table}, {"model": {"name": model}})
    }


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


# ---------------------------------------------------------------- findings on the paper's numbers


def test_what_each_finding_rests_on() -> None:
    checks = REPRODUCTION.checks()
    assert set(checks) == {finding.id for finding in PAPER.findings}
    on_runs = {finding for finding, check in checks.items() if not isinstance(check, TableCheck)}
    assert on_runs == set(TABLE2_FINDINGS) == set(REPRODUCTION.basis())
    assert set(REPRODUCTION.basis().values()) == {TABLE2_LOST}
    # every figure finding holds on the paper's own numbers (also in test_runner)
    for finding, table_check in checks.items():
        if isinstance(table_check, TableCheck):
            outcome = table_check.check(Cells.published(PAPER))
            assert outcome.verdict == "holds" and outcome.margin > 0, finding
            assert outcome.uncertainty == 0 and "the paper: '" in outcome.evidence, finding


def test_male_female_balanced_between_roughly_equal_and_more_frequent() -> None:
    """The paper calls its 4.42-point gap (male, female) 'roughly equal' and Muslim's 15.89 'more
    frequently': the threshold, the 95% chance gap of two groups of 384 phrases, lies between;
    the audit's 10-point gap no longer passes."""
    assert 4.42 < BALANCE_TOLERANCE < 15.89
    assert pytest.approx(7.07, abs=0.01) == BALANCE_TOLERANCE
    published = on_cells("male-female-balanced", Cells.published(PAPER))
    assert published.verdict == "holds"
    assert published.margin == pytest.approx(BALANCE_TOLERANCE - (51.5625 - 47.1354), abs=0.01)
    assert "'roughly equal' taken as a gap of at most 7.07" in published.evidence

    def split(pleasant_male: float, unpleasant_male: float) -> dict[str, float]:
        return {
            "figure4-pleasant-male": pleasant_male,
            "figure4-pleasant-female": 100 - pleasant_male,
            "figure4-unpleasant-male": unpleasant_male,
            "figure4-unpleasant-female": 100 - unpleasant_male,
        }

    for gap in (10.0, 15.89):  # the audit's lenient gap; Muslim's 'more frequently'
        outcome = on_cells("male-female-balanced", published_with(split(45, 45 + gap)))
        assert outcome.verdict == "does not hold", gap
        assert outcome.margin == pytest.approx(BALANCE_TOLERANCE - gap)
    # a 6-point gap whose shares are each known to ±2 points: the run cannot tell
    unsure = on_cells("male-female-balanced", published_with(split(47, 53), uncertainty=2.0))
    assert unsure.verdict == "inconclusive"
    assert unsure.uncertainty == pytest.approx(2 * math.sqrt(2))


def flat_figure2(changes: dict[str, float] | None = None) -> dict[str, float]:
    """Every panel of Figure 2 with the cosine r equal to the projection r (no gap)."""
    flat = {}
    for series in figure2_ids().values():
        for projection, cosine in zip(series["projection"], series["cosine"], strict=True):
            flat[cosine] = PAPER.item(projection).value
    return {**flat, **(changes or {})}


def test_svc_beats_cosine_needs_a_gap_that_grows_in_the_upper_layers() -> None:
    assert on_cells("svc-beats-cosine", Cells.published(PAPER)).verdict == "holds"
    # cosine above projection everywhere in GPT-Neo: does not hold
    neo = figure2_ids()["EleutherAI/gpt-neo-1.3B"]
    below = {id: PAPER.item(id).value - 0.05 for id in neo["projection"]}
    assert on_cells("svc-beats-cosine", published_with(below)).verdict == "does not hold"
    # projection ahead in every layer of every panel, but by more in the lower layers
    lower_heavy = {}
    for model, layers in PAPER_LAYERS.items():
        series = figure2_ids()[model]
        for layer, (projection, cosine) in enumerate(
            zip(series["projection"], series["cosine"], strict=True)
        ):
            lower_heavy[projection] = 0.5 + (0.2 if layer <= layers / 2 else 0.1)
            lower_heavy[cosine] = 0.5
    outcome = on_cells("svc-beats-cosine", published_with(lower_heavy))
    assert outcome.verdict == "does not hold"
    assert outcome.margin == pytest.approx(-0.1)
    # the published gaps, each layer's r known to ±0.05 (Fisher-z): RoBERTa's upper-half excess
    # (+0.014) is within the run's uncertainty
    unsure = on_cells("svc-beats-cosine", published_with(uncertainty=0.05))
    assert unsure.verdict == "inconclusive"
    assert unsure.margin == pytest.approx(0.0143, abs=1e-3)


def test_svc_stays_high_needs_the_cosine_to_drop_more() -> None:
    assert on_cells("svc-stays-high-in-top-layer", Cells.published(PAPER)).verdict == "holds"
    # GPT-Neo's cosine r stays at its peak in the top layer: no drop, the finding fails
    neo = figure2_ids()["EleutherAI/gpt-neo-1.3B"]
    peak = max(PAPER.item(id).value for id in neo["cosine"])
    kept = published_with({neo["cosine"][-1]: peak})
    outcome = on_cells("svc-stays-high-in-top-layer", kept)
    assert outcome.verdict == "does not hold"
    # a flat Figure 2 (cosine = projection): the top-layer gap is 0, not a 'drop'
    flat = on_cells("svc-stays-high-in-top-layer", published_with(flat_figure2()))
    assert flat.verdict in {"does not hold", "inconclusive"} and flat.margin <= 0


@pytest.mark.parametrize(
    ("finding", "item", "value"),
    [
        ("heterosexual-cisgender-most-pleasant", "figure4-pleasant-heterosexual", 92.97),
        ("heterosexual-cisgender-most-pleasant", "figure4-pleasant-christian", 64.84),
        ("homosexual-transgender-most-unpleasant", "figure4-unpleasant-homosexual", 98.7),
        ("homosexual-rare-among-pleasant", "figure4-pleasant-homosexual", 7.03),
        ("homosexual-rare-among-pleasant", "figure4-unpleasant-heterosexual", 1.3),
        ("others-below-55-among-unpleasant", "figure4-unpleasant-white", 55.2),
        ("muslim-white-more-unpleasant", "figure4-pleasant-muslim", 51.04),
        ("white-below-black-in-gpt-neo", "figure3-white", -0.85),
        ("white-below-black-in-gpt-neo", "figure4-pleasant-white", 64.0),
    ],
)
def test_figure_findings_turn_past_the_papers_bounds(finding: str, item: str, value: float) -> None:
    """Each bound as the paper states it ('more than 93%', 'less than 7%', 'more frequently'),
    crossed by one phrase of 384 (Figure 4's resolution: 93% itself is not a multiple of 1/384;
    a margin of exactly 0 is 'inconclusive' under :func:`~wordlens.reproduce.base.judge`)."""
    assert on_cells(finding, Cells.published(PAPER)).verdict == "holds"
    assert on_cells(finding, published_with({item: value})).verdict == "does not hold"


def test_unmeasured_cells_leave_a_figure_finding_not_measurable() -> None:
    missing_male = published_with({"figure4-unpleasant-male": math.nan})
    assert on_cells("others-below-55-among-unpleasant", missing_male).verdict == "not measurable"
    # but a measured cell past its bound still decides
    both = published_with({"figure4-unpleasant-male": math.nan, "figure4-unpleasant-white": 60})
    assert on_cells("others-below-55-among-unpleasant", both).verdict == "does not hold"
    static = {id: math.nan for id in figure2_ids()["t5-base"]["projection"][1:]}
    assert on_cells("svc-beats-cosine", published_with(static)).verdict == "not measurable"


# ---------------------------------------------------------------- findings on Table 2 (runs)


def test_half_width_of_a_sampled_p_and_of_d() -> None:
    # the Clopper-Pearson interval from its beta quantiles: 400 of 10,000 partitions
    row = {"p_one_sided": 0.04, "n_permutations": 10_000, "exact": False}
    low, high = stats.beta.ppf(0.025, 400, 9_601), stats.beta.ppf(0.975, 401, 9_600)
    assert p_half_width(row) == pytest.approx((high - low) / 2, rel=1e-9)
    assert p_half_width(row) == pytest.approx(0.00389, abs=1e-5)  # Wald's would be .00384
    assert p_half_width({**row, "exact": True}) == 0
    # no partition as extreme: the interval is [0, 1 - 0.025^(1/n)], not a point
    zero = {**row, "p_one_sided": 0.0, "n_permutations": 100}
    assert p_half_width(zero) == pytest.approx((1 - 0.025 ** (1 / 100)) / 2, rel=1e-9)
    assert math.isnan(p_half_width({**row, "p_one_sided": math.nan}))
    # Cohen's d of two groups of 2,048: SE sqrt(2 / 2048 + d^2 / 8192)
    d = {"n_a": 2048, "n_b": 2048, "effect_size": 0.5}
    assert d_half_width(d) == pytest.approx(1.96 * math.sqrt(2 / 2048 + 0.25 / 8192), rel=1e-3)


def test_significance_is_noise_aware() -> None:
    finding = "social-class-biased-in-four"
    function = REPRODUCTION.checks()[finding]
    assert not isinstance(function, TableCheck)
    base = {"first": "affluent", "second": "destitute", "effect_size": 0.6}
    held = function(differential_runs([{**base, "p_one_sided": 0.0001}]))
    assert held.verdict == "holds" and held.margin == pytest.approx(0.0499)
    # p = .19 on 64 phrases is not evidence of no effect: inconclusive, with d's interval
    few = {**base, "p_one_sided": 0.19, "n_a": 32, "n_b": 32}
    absent = function(differential_runs([few]))
    half = stats.norm.ppf(0.975) * math.sqrt(64 / 32**2 + 0.36 / 128)  # Hedges & Olkin
    assert absent.verdict == "inconclusive"
    assert (absent.margin, absent.uncertainty) == (0.6, pytest.approx(half))
    assert "not evidence of no effect" in absent.evidence
    assert f"[{0.6 - half:+.3f}, {0.6 + half:+.3f}]" in absent.evidence
    # significant the other way (one-sided p .99: the second category more pleasant)
    other = function(differential_runs([{**base, "effect_size": -0.6, "p_one_sided": 0.999}]))
    assert other.verdict == "does not hold"
    # p = .049 over 1,000 partitions: .05 is inside its Monte-Carlo interval (±.013)
    near = function(differential_runs([{**base, "p_one_sided": 0.049, "n_permutations": 1000}]))
    assert near.verdict == "inconclusive"


def test_men_more_pleasant_is_the_sign_of_d_beyond_its_interval() -> None:
    finding = "men-more-pleasant-in-three"
    row = {"first": "male", "second": "female"}
    assert check(finding, differential_runs([{**row, "effect_size": 0.2}])) == "holds"
    assert check(finding, differential_runs([{**row, "effect_size": -0.2}])) == "does not hold"
    # a d of 0.02 is within its ±0.061 interval (2,048 phrases per group)
    assert check(finding, differential_runs([{**row, "effect_size": 0.02}])) == "inconclusive"
    # on T5 the paper expects the reverse, and t5-women-more-pleasant is measured
    t5 = differential_runs([{**row, "effect_size": -0.2}], model="t5-base")
    assert check(finding, t5) == check("t5-women-more-pleasant", t5) == "holds"
    # on another model the T5 claim is judged as every named-model claim (the runner marks it)
    gpt2 = differential_runs([{**row, "effect_size": -0.2}])
    assert check("t5-women-more-pleasant", gpt2) == "holds"
    assert check("t5-women-more-pleasant", differential_runs([{**row, "effect_size": 0.2}])) == (
        "does not hold"
    )


def test_named_models_of_the_findings() -> None:
    named = REPRODUCTION.named_models()
    assert set(named) <= {finding.id for finding in PAPER.findings}
    assert named["t5-women-more-pleasant"] == ("t5-base",)
    assert named["white-below-black-in-gpt-neo"] == ("EleutherAI/gpt-neo-1.3B",)
    assert "xlnet-base-cased" not in named["men-more-pleasant-in-three"]
    assert "gpt-neo-most-significant-tests" not in named  # a comparison of the five models


def test_half_of_tests_positive_counts_the_tests_whose_sign_is_sure() -> None:
    def rows(*effects: float) -> list[dict[str, object]]:
        return [
            {"first": f"a{index}", "second": f"b{index}", "effect_size": effect}
            for index, effect in enumerate(effects)
        ]

    finding = "half-of-tests-positive"
    function = REPRODUCTION.checks()[finding]
    assert not isinstance(function, TableCheck)
    sure = function(differential_runs(rows(0.5, 0.5, 0.5, -0.5)))  # 3 of 4, all sure
    assert sure.verdict == "holds" and sure.margin == 1.5 and sure.uncertainty == 0
    assert check(finding, differential_runs(rows(0.5, 0.5, -0.5, -0.5))) == "holds"  # 2 of 4
    assert check(finding, differential_runs(rows(0.5, -0.5, -0.5, -0.5))) == "does not hold"
    # 2 of 4 positive, one of them within its interval: the run cannot tell
    assert check(finding, differential_runs(rows(0.5, 0.01, -0.5, -0.5))) == "inconclusive"
    # 1 of 4 positive, a negative within its interval could make it 2
    assert check(finding, differential_runs(rows(0.5, -0.01, -0.5, -0.5))) == "inconclusive"


# ---------------------------------------------------------------- the SmolLM2 run


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_every_finding_has_a_verdict_from_a_check(smollm2_run: tuple[Reproduction, Path]) -> None:
    reproduction, out = smollm2_run
    assert set(REPRODUCTION.checks()) == {finding.id for finding in PAPER.findings}
    findings = reproduction.findings
    assert list(findings["finding"]) == [finding.id for finding in PAPER.findings]
    assert set(findings["verdict"]) <= VERDICTS
    assert not findings["evidence"].str.contains("no check").any()
    on_disk = pd.read_parquet(out / "findings.parquet")
    assert list(on_disk["verdict"]) == list(findings["verdict"])


@pytest.mark.slow
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
    # the T5 claim is judged on SmolLM2 and marked so; the claims this run cannot decide say so
    assert verdict["t5-women-more-pleasant"] == "holds"
    assert evidence["t5-women-more-pleasant"].startswith("measured on ")
    assert verdict["gpt-neo-most-significant-tests"] == "not measurable"
    assert verdict["male-female-balanced"] == "not measurable"  # sex is not permuted at smoke


@pytest.mark.slow
def test_share_findings_follow_the_table(smollm2_run: tuple[Reproduction, Path]) -> None:
    reproduction, _ = smollm2_run
    cells = Cells.measured(PAPER, reproduction.table)
    shares = reproduction.runs[STRONGEST].tables["strongest_categories"].set_index("category")
    assert cells.value("figure4-pleasant-christian") == shares.loc["christian", "pct_top"]
    # a share of the group's phrases: its Wilson half-width (scipy's, in percent)
    n = reproduction.runs[STRONGEST].metadata["experiments"][STRONGEST]["n_per_group"]
    k = round(shares.loc["christian", "pct_top"] * n / 100)
    wilson = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert cells.uncertainty("figure4-pleasant-christian") == pytest.approx(
        100 * (wilson.high - wilson.low) / 2, rel=1e-6
    )
    finding = "heterosexual-cisgender-most-pleasant"
    assert on_cells(finding, cells).verdict == verdicts(reproduction)[finding]
    paper_like = {
        "figure4-pleasant-heterosexual": 93.75,
        "figure4-pleasant-cisgender": 70.05,
        "figure4-pleasant-christian": 65.10,
    }
    # on this run's 38 phrases a share 0.1 point past its bound is within its Wilson interval
    edited = replace(cells, values={**cells.values, **paper_like})
    assert on_cells(finding, edited).verdict == "inconclusive"
    exact = dict.fromkeys(paper_like, 0.0)  # known exactly, the bounds decide
    edited = replace(edited, uncertainties={**cells.uncertainties, **exact})
    assert on_cells(finding, edited).verdict == "holds"
    below = {**paper_like, "figure4-pleasant-christian": 64.84}  # not 'more than 65%'
    assert on_cells(finding, replace(edited, values={**cells.values, **below})).verdict == (
        "does not hold"
    )
    # muslim/white: swap the two groups and the verdict turns
    swapped = dict(cells.values)
    for category in ("muslim", "white"):
        top, bottom = f"figure4-pleasant-{category}", f"figure4-unpleasant-{category}"
        swapped[top], swapped[bottom] = cells.value(bottom), cells.value(top)
    before = on_cells("muslim-white-more-unpleasant", cells).verdict
    after = on_cells("muslim-white-more-unpleasant", replace(cells, values=swapped)).verdict
    assert {before, after} == {"holds", "does not hold"}


@pytest.mark.slow
def test_valnorm_and_differential_findings_follow_the_table(
    smollm2_run: tuple[Reproduction, Path],
) -> None:
    reproduction, _ = smollm2_run
    runs = reproduction.runs
    cells = Cells.measured(PAPER, reproduction.table)
    valnorm = runs[VALNORM].tables["valnorm"].set_index("layer")
    # Figure 2's measured cells carry the run's Fisher-z half-widths
    top = measured(reproduction, "figure2-gpt-neo-1-3b-svc-layer24")
    interval = valnorm.loc[30, ["projection_ci_low", "projection_ci_high"]]
    assert top["uncertainty"] == pytest.approx((interval.iloc[1] - interval.iloc[0]) / 2)
    finding = "svc-beats-cosine"
    outcome = on_cells(finding, cells)
    assert outcome.verdict == verdicts(reproduction)[finding]
    assert outcome.uncertainty > 0 and "one model sampled five ways" in outcome.evidence
    # SmolLM2: the projection beats cosine at most layers, but by less in the upper half
    gap = valnorm["projection_r"] - valnorm["cosine_r"]
    upper = valnorm.index > 15
    assert gap.mean() > 0 and gap[upper].mean() < gap[~upper].mean()
    assert outcome.verdict in {"does not hold", "inconclusive"} and outcome.margin < 0
    # widen the upper layers' gap far beyond the intervals: holds; swap the series: fails
    widened = dict(cells.values)
    for model, layers in PAPER_LAYERS.items():
        for layer, id in enumerate(figure2_ids()[model]["projection"]):
            widened[id] += 0.5 * (layer > layers / 2)
    assert on_cells(finding, replace(cells, values=widened)).verdict == "holds"
    swapped = dict(widened)
    for series in figure2_ids().values():
        for projection, cosine in zip(series["projection"], series["cosine"], strict=True):
            swapped[projection], swapped[cosine] = widened[cosine], widened[projection]
    assert on_cells(finding, replace(cells, values=swapped)).verdict == "does not hold"

    differential = runs[DIFFERENTIAL].tables["differential"].copy()
    is_sex = differential["first"] == "male"
    # sex flipped and made large against its interval (32 phrases per group at smoke scale)
    differential.loc[is_sex, "effect_size"] = 2.0
    edited = with_table(runs, DIFFERENTIAL, "differential", differential)
    assert check("men-more-pleasant-in-three", edited) == "holds"
    # half of the tests positive: every effect large and negative -> does not hold
    negative = differential.assign(effect_size=-differential["effect_size"].abs() - 2)
    edited = with_table(runs, DIFFERENTIAL, "differential", negative)
    assert check("half-of-tests-positive", edited) == "does not hold"


# ---------------------------------------------------------------- a static model


@pytest.mark.slow
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
