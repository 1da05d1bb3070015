"""Reproducing Tenney et al. (2019) (``wordlens.reproduce.probing``): the findings' checks on
Table 2's and the text's published numbers and on perturbed ones (fast), and on MiniLM-L6 at
smoke scale: one probe run per offline task (about a minute and a half on two shared cores)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from tests.reproduce.self_contradictions import contradicted
from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import (
    Cells,
    Measured,
    Reproduction,
    Runs,
    TableCheck,
    requiring_intervals,
)
from wordlens.reproduce.probing import (
    NINE_TASKS,
    REPRODUCTION,
    TEN_TASKS,
    _Scores,
    check_distance,
    check_orthonormal,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.results import Run

TASKS = ("rel", "spr", "winograd", "dep", "pos")  # the paper's smallest first, then POS


@pytest.fixture(scope="module")
def smoke(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("probing-minilm")
    return reproduce("probing", ModelOptions("minilm-l6"), out, scale="smoke"), out


def _row(reproduction: Reproduction, item: str) -> pd.Series:
    table = reproduction.table
    return table[table["item"] == item].iloc[0]


def _f1(out: Path, task: str) -> pd.Series:
    """The test micro-F1 x 100 per representation, read from the method's own table."""
    scores = pd.read_parquet(out / task / "probing_scores.parquet")
    return 100 * scores.set_index("representation")["test_micro_f1"]


def _copy(runs: dict[str, Run]) -> dict[str, Run]:
    return {
        name: Run(run.method, {k: v.copy() for k, v in run.tables.items()}, dict(run.metadata))
        for name, run in runs.items()
    }


@pytest.mark.slow
def test_every_item_has_one_row_and_every_finding_a_verdict(
    smoke: tuple[Reproduction, Path],
) -> None:
    reproduction, _ = smoke
    published = load_published("probing")
    table = reproduction.table
    assert [e.name for e in reproduction.experiments] == list(TASKS)
    assert not reproduction.failures
    assert table["item"].tolist() == [item.id for item in published.items]
    assert table["location"].tolist() == [location_text(item) for item in published.items]
    assert table[table["measured"].isna()]["note"].str.len().min() > 0
    findings = reproduction.findings
    assert findings["finding"].tolist() == [f.id for f in published.findings]
    assert set(findings["verdict"]) <= {"holds", "does not hold", "inconclusive", "not measurable"}
    assert set(REPRODUCTION.checks()) == {f.id for f in published.findings}
    tables = {f for f, c in REPRODUCTION.checks().items() if isinstance(c, TableCheck)}
    on_table = findings[findings["finding"].isin(tables)].set_index("finding")
    published_verdicts = on_table["published_verdict"]
    assert set(published_verdicts[published_verdicts != "holds"].index) == contradicted("probing")
    assert set(published_verdicts) == {"holds", "does not hold"}
    assert (
        findings[~findings["finding"].isin(tables)]["published_verdict"] == "not measurable"
    ).all()
    across = findings.set_index("finding").loc[["bert-base-beats-gpt", "elmo-gpt-comparable"]]
    assert (across["verdict"] == "not measurable").all()  # one model cannot compare encoders


@pytest.mark.slow
def test_measured_values_are_the_probes_scores(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    dep, spr, rel = _f1(out, "dep"), _f1(out, "spr"), _f1(out, "rel")
    expected = {
        "table2-dependencies-bert-base-lex": dep["lex"],
        "table2-dependencies-gpt-cat": dep["cat"],
        "table2-spr2-elmo-full": spr["mix"],  # ELMo's Full is its scalar mix
        "table2-spr2-cove-full": spr["cat"],  # CoVe's Full is its top layer beside GloVe
        "table2-rel-semeval-cove-abs-cove": rel["cat"] - rel["lex"],
        "table2-winograd-coref-bert-large-mix": _f1(out, "winograd")["mix"],
    }
    for item, value in expected.items():
        assert _row(reproduction, item)["measured"] == pytest.approx(value, abs=1e-9)
    counts = _row(reproduction, "table3-rel-semeval-examples-train")
    assert counts["measured"] == 6900 and counts["agrees"]  # the full split at any scale
    assert _row(reproduction, "table3-dependencies-labels")["measured"] == 51


@pytest.mark.slow
def test_items_without_data_say_why(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    pos = _row(reproduction, "table2-part-of-speech-elmo-lex")
    assert pd.isna(pos["measured"]) and "OntoNotes" in pos["note"]
    assert f"lex {_f1(out, 'pos')['lex']:.1f}" in pos["note"]  # the UD EWT substitute's F1
    assert "SPR1" in _row(reproduction, "table2-spr1-elmo-lex")["note"]
    assert "this run's mean" in _row(reproduction, "table2-macro-average-bert-base-mix")["note"]
    assert "compares" in _row(reproduction, "table2-dependencies-bert-base-abs-elmo")["note"]
    smoke_note = "depart from the paper (see Experiments)"
    assert smoke_note in _row(reproduction, "table2-dependencies-bert-base-lex")["note"]
    departures = [experiment.departure for experiment in reproduction.experiments]
    assert all("smoke: 16 training and 8 dev and test sentences" in d for d in departures)


@pytest.mark.slow
def test_mix_beats_cat_follows_the_smoke_runs_f1(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    gains = [_f1(out, task)["mix"] - _f1(out, task)["cat"] for task in TASKS if task != "pos"]
    mean = sum(gains) / len(gains)
    findings = reproduction.findings.set_index("finding")
    # the paper's range is '1-3 F1 points on average', read at its printed precision: the mean
    # must print within it, [0.5, 3.5], the margin its distance to the nearer end; one smoke
    # run each, whose probes' bootstrap intervals over 8 test sentences (in quadrature, over 4
    # tasks) decide whether the run can tell
    margin = min(mean - 0.5, 3.5 - mean)
    uncertainty = float(findings.loc["mix-beats-cat", "uncertainty"])
    assert uncertainty > 0
    verdict = (
        "inconclusive"
        if abs(margin) <= uncertainty
        else ("holds" if margin > 0 else "does not hold")
    )
    assert findings.loc["mix-beats-cat", "verdict"] == verdict
    assert findings.loc["mix-beats-cat", "margin"] == pytest.approx(margin, abs=1e-9)
    assert f"mean {mean:+.1f} over 4" in str(findings.loc["mix-beats-cat", "evidence"])


@pytest.mark.slow
def test_distance_check_follows_the_by_distance_table(smoke: tuple[Reproduction, Path]) -> None:
    runs = _copy(dict(smoke[0].runs))
    assert check_distance(runs).verdict == "not measurable"  # smoke: no CNN or random probes
    bins = pd.DataFrame({"bin": ["1", "8+"], "distance_low": [1.0, 8.0], "n_targets": 10})
    drops = {"mix": (0.9, 0.8), "cnn3": (0.9, 0.5), "cnn5": (0.9, 0.6), "random-mix": (0.7, 0.3)}
    rows = [bins.assign(representation=name, micro_f1=list(f1)) for name, f1 in drops.items()]
    runs["dep"].tables["by_distance"] = pd.concat(rows, ignore_index=True)
    check = check_distance(runs)
    assert check.verdict == "holds" and check.margin == pytest.approx(20.0)  # cnn5 30 - mix 10
    runs["dep"].tables["by_distance"].loc[7, "micro_f1"] = 0.8  # random-mix rises 10, mix drops 10
    check = check_distance(runs)
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-20.0)


# --- the findings' checks on the paper's numbers (no run needed) ---------------------------------

PUBLISHED = load_published("probing")


def _check(finding: str) -> TableCheck:
    check = REPRODUCTION.checks()[finding]
    assert isinstance(check, TableCheck), finding
    return check


def _cells(**changes: float) -> Cells:
    """The published values with some items changed (``_`` for ``-`` in their ids)."""
    values = {item.id: item.value for item in PUBLISHED.items}
    for id, value in changes.items():
        key = id.replace("_", "-")
        assert key in values, key
        values[key] = value
    return Cells("published", PUBLISHED, values, dict.fromkeys(values, 0.0))


def _measured(values: dict[str, float], uncertainty: float = math.nan) -> Cells:
    """A measured column: ``values`` for the items named, NaN elsewhere."""
    ids = [item.id for item in PUBLISHED.items]
    table = pd.DataFrame(
        {
            "item": ids,
            "measured": [values.get(id, math.nan) for id in ids],
            "uncertainty": uncertainty,
        }
    )
    return Cells.measured(PUBLISHED, table)


def _verdict(finding: str, cells: Cells) -> str:
    return _check(finding).check(cells).verdict


def test_the_findings_on_table_2_follow_its_words() -> None:
    """Every finding with printed numbers is a TableCheck of the paper's words: it holds on
    the paper's values except where Table 2 contradicts the words ("most tasks", "all tasks
    except for Winograd"); the three on Figures 2 and 3 are checked on the runs and say so."""
    cells = Cells.published(PUBLISHED)
    checks = REPRODUCTION.checks()
    tables = {f for f, c in checks.items() if isinstance(c, TableCheck)}
    assert set(checks) - tables == set(REPRODUCTION.basis())
    for finding in tables:
        outcome = _check(finding).check(cells)
        expected = "does not hold" if finding in contradicted("probing") else "holds"
        assert outcome.verdict == expected, (finding, outcome.evidence)
        assert "the paper: '" in outcome.evidence, finding


def test_elmo_better_on_most_tasks_is_counted() -> None:
    """'ELMo slightly better on most tasks': Table 2 has ELMo ahead on 4 of 10 (margin -1);
    with two more tasks ahead (dependencies, SPR2) it holds (6 of 10, margin +1)."""
    check = _check("elmo-gpt-comparable").check(Cells.published(PUBLISHED))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-1.0)
    assert check.uncertainty == 0
    ahead = _cells(table2_dependencies_elmo_full=94.5, table2_spr2_elmo_full=83.9)
    check = _check("elmo-gpt-comparable").check(ahead)
    assert check.verdict == "holds" and "on 6 of 10 tasks" in check.evidence


def test_lexical_over_glove_needs_every_task_but_winograd() -> None:
    """'on all tasks except for Winograd coreference': GPT's 71.8 on OntoNotes coreference,
    below GloVe's 72.9, fails it (margin -1.1); Winograd itself is left out."""
    check = _check("lexical-beats-glove-except-winograd").check(Cells.published(PUBLISHED))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-1.1)
    assert "ontonotes-coref GPT Lex. 71.8 vs GloVe (CoVe Lex.) 72.9" in check.evidence
    assert "winograd" not in check.evidence.split(": ", 1)[1].replace("Winograd", "")
    repaired = _cells(table2_ontonotes_coref_gpt_lex=73.0)  # 0.1 above GloVe
    check = _check("lexical-beats-glove-except-winograd").check(repaired)
    assert check.verdict == "holds" and check.margin == pytest.approx(0.1)
    assert "18 of 18 hold" in check.evidence


def test_the_averages_over_glove_are_the_texts_at_their_printed_precision() -> None:
    """'(by 5.4 and 2.4 points on average, respectively)': Table 2's Macro Average gives +6.3
    and +3.9, the nine tasks but Winograd +6.7 and +4.4; none prints as the text's number
    (margins -0.85 and -1.45, GPT's deciding). Macro Average Lex. cells that give +5.4 and
    +2.4 hold it (margin 0.05); so does either reading alone."""
    check = _check("lexical-over-glove-averages").check(Cells.published(PUBLISHED))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-1.45)
    assert check.uncertainty == 0
    repaired = _cells(table2_macro_average_elmo_lex=74.5, table2_macro_average_gpt_lex=71.5)
    check = _check("lexical-over-glove-averages").check(repaired)
    assert check.verdict == "holds" and check.margin == pytest.approx(0.05)
    nine = {  # GPT's Lex. 2.0 lower on the nine tasks: their mean +2.4
        f"table2_{row.replace('-', '_')}_gpt_lex": PUBLISHED.item(f"table2-{row}-gpt-lex").value
        - 2.0
        for row in NINE_TASKS
    }
    check = _check("lexical-over-glove-averages").check(
        _cells(table2_macro_average_elmo_lex=74.5, **nine)
    )
    assert check.verdict == "holds", check.evidence
    assert "mean +2.4 over 9" in check.evidence
    off = _cells(table2_macro_average_elmo_lex=74.5, table2_macro_average_gpt_lex=71.6)
    assert _verdict("lexical-over-glove-averages", off) == "does not hold"  # +2.5


def test_bert_large_gaps_are_the_texts_at_their_printed_precision() -> None:
    """'besting BERT-base by 1.1 F1 points and ELMo by 2.7 F1': Table 2's Macro Average prints
    1.0 and 2.9 (margins -0.05 and -0.15). With the ELMo gap repaired the BERT-base part still
    fails; with both it holds (margin 0.05)."""
    check = _check("bert-large-gaps").check(Cells.published(PUBLISHED))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.15)
    elmo = _cells(table2_macro_average_bert_large_abs_elmo=2.7)
    check = _check("bert-large-gaps").check(elmo)
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.05)
    assert "1 of 2 hold (does not hold: over BERT-base stated 1.1" in check.evidence
    both = _cells(
        table2_macro_average_bert_large_abs_elmo=2.7,
        table2_macro_average_bert_large_abs_bert_base=1.1,
    )
    check = _check("bert-large-gaps").check(both)
    assert check.verdict == "holds" and check.margin == pytest.approx(0.05)


def test_syntax_over_semantics_compares_the_mean_gains() -> None:
    """Conclusion: 'in general ... largely on syntactic tasks'. BERT-base gains more on
    OntoNotes coreference (+15.3) than on dependencies (+15.0), which the old every-pair check
    failed; the mean gains (+16.6 vs +6.2) hold. Flat syntactic gains do not."""
    cells = Cells.published(PUBLISHED)
    coref = cells.value("table2-ontonotes-coref-bert-base-mix") - 74.9
    dep = cells.value("table2-dependencies-bert-base-mix") - 80.1
    assert coref > dep
    check = _check("syntax-more-than-semantics").check(cells)
    assert check.verdict == "holds"
    assert check.margin == pytest.approx(16.6 - 8.2, abs=0.05)  # BERT-large, the weakest
    flat = _cells(
        table2_constituents_gpt_mix=65.1, table2_dependencies_gpt_mix=77.7
    )  # GPT's mix = its Lex. on the syntactic rows
    assert _verdict("syntax-more-than-semantics", flat) == "does not hold"


def test_syntax_over_semantics_needs_syntactic_gains() -> None:
    """The issue's case: GPT's syntactic gain -0.7 against a semantic -2.2 is a larger mean but
    no improvement "largely on syntactic tasks": it does not hold (margin -0.7)."""
    syntactic = {f"table2_{row}_gpt_mix": PUBLISHED.item(f"table2-{row}-gpt-lex").value - 0.7
                 for row in ("constituents", "dependencies")}  # fmt: skip
    semantic = {f"table2_{row.replace('-', '_')}_gpt_mix":
                PUBLISHED.item(f"table2-{row}-gpt-lex").value - 2.2
                for row in ("spr1", "spr2", "winograd-coref", "ontonotes-coref")}  # fmt: skip
    check = _check("syntax-more-than-semantics").check(_cells(**syntactic, **semantic))
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.7)
    assert "GPT: a syntactic gain -0.7, no improvement" in check.evidence


def _mix_over_cat(encoder: str, gain: float) -> Cells:
    """The published values with ``encoder``'s mix ``gain`` points above its cat on every task."""
    return _cells(
        **{
            f"table2-{row}-{encoder}-mix": PUBLISHED.item(f"table2-{row}-{encoder}-cat").value
            + gain
            for row in TEN_TASKS
        }
    )


def test_mix_beats_cat_by_one_to_three_points_as_printed() -> None:
    """Section 5: 'significantly (1-3 F1 points on average)', read as printed in whole points
    ([0.5, 3.5]). GPT's mean mix - cat +1.16 and BERT-large's +3.14 both print within 1-3 (the
    margin: BERT-large's 3.5 - 3.14); +0.4 and +3.6 do not."""
    check = _check("mix-beats-cat").check(Cells.published(PUBLISHED))
    assert check.verdict == "holds" and check.margin == pytest.approx(0.36, abs=1e-6)
    below = _check("mix-beats-cat").check(_mix_over_cat("gpt", 0.4))
    assert below.verdict == "does not hold" and below.margin == pytest.approx(-0.1)
    above = _check("mix-beats-cat").check(_mix_over_cat("bert-large", 3.6))
    assert above.verdict == "does not hold" and above.margin == pytest.approx(-0.1)


def test_mix_beats_cat_within_the_runs_uncertainty_is_inconclusive() -> None:
    rows = ("dependencies", "spr2", "winograd-coref", "rel-semeval")
    values = {f"table2-{row}-bert-base-cat": 80.0 for row in rows}
    values |= {f"table2-{row}-bert-base-mix": 81.0 for row in rows}  # +1.0: 0.5 past 0.5
    measured = _measured(values, uncertainty=1.0)  # each gain +-1.41, their mean +-0.71
    check = _check("mix-beats-cat").check(measured)
    assert check.verdict == "inconclusive" and check.margin == pytest.approx(0.5)
    assert check.uncertainty == pytest.approx(math.sqrt(2) / 2)
    assert "not measured: part-of-speech" in check.evidence
    assert _check("mix-beats-cat").check(_measured(values)).verdict == "holds"  # no interval


def test_spr_gain_must_be_within_one_to_five_points() -> None:
    """Section 5: '+1-5 F1 for ELMo'. SPR2's +1.0 is at the range's printed edge (margin 0.5,
    to the printed precision); a zero gain and a +7 gain are outside it."""
    check = _check("spr-weakly-captured").check(Cells.published(PUBLISHED))
    assert check.verdict == "holds" and check.margin == pytest.approx(0.5)
    assert _verdict("spr-weakly-captured", _cells(table2_spr2_elmo_full=82.1)) == "does not hold"
    assert _verdict("spr-weakly-captured", _cells(table2_spr2_elmo_full=81.0)) == "does not hold"
    assert _verdict("spr-weakly-captured", _cells(table2_spr1_elmo_full=87.1)) == "does not hold"


def test_across_encoders_the_measured_column_is_not_measurable() -> None:
    everything = _measured({item.id: 50.0 for item in PUBLISHED.items})
    for finding in (
        "elmo-gpt-comparable",
        "lexical-beats-glove-except-winograd",
        "lexical-over-glove-averages",
        "bert-base-beats-gpt",
        "bert-large-best",
        "bert-large-gaps",
        "bert-large-coref-gain",
        "gpt-genre-effect-small",
    ):
        assert _verdict(finding, everything) == "not measurable", finding


@pytest.mark.parametrize(
    ("finding", "changes"),
    [
        # GPT's mix 1.6 above ELMo: not 'comparable' (the paper calls ~1 F1 an underperformance)
        ("elmo-gpt-comparable", {"table2_macro_average_gpt_mix": 86.0}),
        # ELMo ahead of GPT on relation classification: not 'the Transformer scoring higher'
        ("elmo-gpt-comparable", {"table2_rel_semeval_elmo_full": 82.0}),
        # GPT's lexical layer below GloVe on most tasks
        (
            "lexical-beats-glove-except-winograd",
            {f"table2_{row.replace('-', '_')}_gpt_lex": 50.0 for row in TEN_TASKS},
        ),
        ("bert-base-beats-gpt", {"table2_macro_average_bert_base_mix": 84.0}),
        ("bert-large-best", {"table2_macro_average_bert_large_mix": 86.0}),
        # the largest gain over ELMo on relation classification, not coreference
        ("bert-large-coref-gain", {"table2_rel_semeval_bert_large_abs_elmo": 8.0}),
        # the BWB gain larger than the gap that remains to ELMo: not 'only slightly'
        ("gpt-genre-effect-small", {"text_gpt_bwb_over_books": 1.2}),
        # ELMo's non-core roles gain as much as its core roles
        ("srl-gain-from-core-roles", {"table2_non_core_roles_elmo_full": 95.0}),
        # CoVe's relation gain below its mean gain on the other tasks
        ("relation-classification-gains", {"table2_rel_semeval_cove_full": 55.0}),
        # key words capture under half of the headroom
        ("relation-classification-gains", {"text_bow_rel_headroom": 40.0}),
    ],
)
def test_a_changed_table_2_breaks_the_finding(finding: str, changes: dict[str, float]) -> None:
    assert _verdict(finding, _cells(**changes)) == "does not hold"


def _scores_run(f1: dict[str, float]) -> Run:
    scores = pd.DataFrame({"representation": list(f1), "test_micro_f1": list(f1.values())})
    return Run("probe", {"scores": scores}, {})


def test_orthonormal_needs_over_seventy_percent_learned() -> None:
    """Section 5: 'the learned weights account for over 70% of the improvements from full
    ELMo'. A learned share of 60% (random-mix closes 40% of the gap) passed the old > 50%
    check; it does not hold now; 80% holds."""
    sixty = {"dep": _scores_run({"lex": 0.70, "random-mix": 0.78, "mix": 0.90})}
    check = check_orthonormal(sixty)
    assert check.verdict == "does not hold" and check.margin == pytest.approx(-0.10)
    assert "60%" in check.evidence
    eighty = {"dep": _scores_run({"lex": 0.70, "random-mix": 0.74, "mix": 0.90})}
    check = check_orthonormal(eighty)
    assert check.verdict == "holds" and check.margin == pytest.approx(0.10)
    no_help = {"dep": _scores_run({"lex": 0.70, "random-mix": 0.70, "mix": 0.90})}
    assert check_orthonormal(no_help).verdict == "does not hold"  # not above the baseline
    assert check_orthonormal({}).verdict == "not measurable"


def _scores_with_intervals(f1: dict[str, float], half: float) -> Run:
    """A run's ``scores`` whose probes' bootstrap intervals are ± ``half``."""
    run = _scores_run(f1)
    scores = run.tables["scores"]
    run.tables["scores"] = scores.assign(
        test_micro_f1_ci_low=scores["test_micro_f1"] - half,
        test_micro_f1_ci_high=scores["test_micro_f1"] + half,
    )
    return run


def test_orthonormal_share_is_judged_within_the_probes_intervals() -> None:
    """The learned share is past 70% exactly when L = 0.3 mix - random-mix + 0.7 lex > 0 (the
    gain being positive): its half-width, the probes' in quadrature with those weights, over
    the gain. lex 70, random-mix 74, mix 90 (share 80%, L = 2 points, gain 20)."""
    f1 = {"lex": 0.70, "random-mix": 0.74, "mix": 0.90}
    for half, verdict in ((0.01, "holds"), (0.02, "inconclusive")):
        check = check_orthonormal({"dep": _scores_with_intervals(f1, half)})
        linear = 100 * half * math.sqrt(0.3**2 + 1 + 0.7**2)  # L's half-width, points
        assert check.margin == pytest.approx(0.10)  # L / gain = 2 / 20
        assert check.uncertainty == pytest.approx(linear / 20)
        assert check.verdict == verdict  # .063 and .126 around a margin of .10
    # two tasks: each probe's half-width over 2, so the mean's half-width is 1 / sqrt(2)
    two = {"dep": _scores_with_intervals(f1, 0.02), "rel": _scores_with_intervals(f1, 0.02)}
    check = check_orthonormal(two)
    assert check.uncertainty == pytest.approx(2 * math.sqrt(1.58) / 20 / math.sqrt(2))
    assert check.verdict == "holds"
    below = {"lex": 0.70, "random-mix": 0.705, "mix": 0.90}  # random-mix + .5 ± 1.41 points
    assert check_orthonormal({"dep": _scores_with_intervals(below, 0.01)}).verdict == (
        "inconclusive"
    )
    with requiring_intervals():  # no interval columns: inconclusive at smoke scale
        assert check_orthonormal({"dep": _scores_run(f1)}).verdict == "inconclusive"


def _by_distance(drops: dict[str, tuple[float, float]], half: float | None) -> Runs:
    """A ``dep`` run whose ``by_distance`` table has two bins per probe, each ± ``half``."""
    bins = pd.DataFrame({"bin": ["1", "8+"], "distance_low": [1.0, 8.0], "n_targets": 10})
    rows = [bins.assign(representation=name, micro_f1=list(f1)) for name, f1 in drops.items()]
    table = pd.concat(rows, ignore_index=True)
    if half is not None:
        table = table.assign(
            micro_f1_ci_low=table["micro_f1"] - half, micro_f1_ci_high=table["micro_f1"] + half
        )
    return {"dep": Run("probe", {"by_distance": table}, {})}


def test_distance_check_is_judged_within_the_bins_intervals() -> None:
    """Figure 3: a baseline's drop minus mix's, four bins' bootstrap half-widths in
    quadrature (2 x the bin's): mix drops 10, cnn5 30 (margin 20 points)."""
    drops = {"mix": (0.9, 0.8), "cnn3": (0.9, 0.5), "cnn5": (0.9, 0.6), "random-mix": (0.7, 0.3)}
    narrow = check_distance(_by_distance(drops, 0.05))
    assert narrow.verdict == "holds" and narrow.margin == pytest.approx(20.0)
    assert narrow.uncertainty == pytest.approx(2 * 5.0)
    assert "drop 10.0 ± 7.1" in narrow.evidence
    wide = check_distance(_by_distance(drops, 0.12))
    assert wide.verdict == "inconclusive" and wide.uncertainty == pytest.approx(24.0)
    rising = {**drops, "random-mix": (0.7, 0.8)}  # random-mix rises 10: margin -20
    assert check_distance(_by_distance(rising, 0.05)).verdict == "does not hold"
    bare = check_distance(_by_distance(drops, None))
    assert bare.verdict == "holds" and math.isnan(bare.uncertainty)
    with requiring_intervals():
        assert check_distance(_by_distance(drops, None)).verdict == "inconclusive"


def test_winograd_seeds_give_a_t_interval() -> None:
    """Five Winograd seeds: the cells' uncertainty is the 95% t-interval on their mean (of
    the F1, or of the per-seed gain over lex)."""
    mix, lex = [55.0, 60.0, 52.0, 66.0, 58.0], [50.0, 51.0, 53.0, 52.0, 54.0]
    scores = _Scores("winograd", {"mix": 58.2, "lex": 52.0}, 5, {"mix": mix, "lex": lex})
    expected = stats.t.ppf(0.975, 4) * stats.sem(mix)
    assert scores.half_width("mix") == pytest.approx(expected)
    gains = [a - b for a, b in zip(mix, lex, strict=True)]
    assert scores.half_width("mix", "lex") == pytest.approx(
        stats.t.ppf(0.975, 4) * stats.sem(gains)
    )
    assert math.isnan(_Scores("dep", {"mix": 1.0}, 1, {"mix": [1.0]}).half_width("mix"))


def test_one_run_gives_the_probes_bootstrap_intervals() -> None:
    """One run: the cells' uncertainty is the probe's bootstrap interval over test sentences
    (x 100); a gain over lex the two half-widths in quadrature."""
    scores = pd.DataFrame(
        {
            "representation": ["lex", "mix"],
            "test_micro_f1": [0.50, 0.62],
            "test_micro_f1_ci_low": [0.44, 0.52],
            "test_micro_f1_ci_high": [0.58, 0.70],
        }
    )
    runs = {"dep": Run("probe", {"scores": scores}, {})}

    def uncertainty(item: str, runs: dict[str, Run]) -> float:
        measured = REPRODUCTION.measure(PUBLISHED.item(item), runs)
        assert isinstance(measured, Measured)
        return measured.uncertainty

    assert uncertainty("table2-dependencies-bert-base-mix", runs) == pytest.approx(9.0)
    gain = uncertainty("table2-dependencies-elmo-abs-elmo", runs)  # ELMo's Full (mix) - lex
    assert gain == pytest.approx(math.hypot(9.0, 7.0))
    old = {"dep": _scores_run({"lex": 0.50, "mix": 0.62})}  # a run without the columns
    assert math.isnan(uncertainty("table2-dependencies-bert-base-mix", old))
