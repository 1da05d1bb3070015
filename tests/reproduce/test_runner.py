"""The reproduction framework: how a measured value is compared with a published one, how a
location reads, and which papers `wordlens reproduce` accepts."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from html import escape
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO
from tests.models.test_cache import worker_env
from tests.reproduce.self_contradictions import (
    SELF_CONTRADICTIONS,
    SelfContradiction,
    contradicted,
)
from tests.test_cli_faults import wordlens_in_process
from wordlens.errors import WordlensError
from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import (
    VERDICTS,
    Cells,
    NotMeasured,
    Reproduction,
    TableCheck,
    all_hold,
    combined_uncertainty,
    every_part,
    interval_half_width,
    judge,
    printed_range_margin,
)
from wordlens.reproduce.published import PAPERS, load_published
from wordlens.reproduce.report import (
    UNSUPPORTED,
    console_summary,
    reproduction_report,
    unsupported_findings,
)
from wordlens.reproduce.runner import (
    ReproduceOptions,
    _agrees,
    _findings,
    _row,
    location_text,
    reproduce,
    reproduction_of,
)


def test_agreement_follows_the_printed_precision_and_the_relation() -> None:
    vast = load_published("vast")
    cell = vast.item("table1-before-bleached")  # printed ".32": agrees within ±.005
    assert cell.printed == ".32" and cell.relation == "eq"
    assert _agrees(cell, 0.324) and _agrees(cell, 0.3150)
    assert not _agrees(cell, 0.326) and not _agrees(cell, math.nan)
    bounded = [item for paper in PAPERS for item in load_published(paper).items
               if item.relation in ("gt", "ge", "lt", "le")]  # fmt: skip
    assert bounded, "the papers state some numbers as bounds"
    for item in bounded:
        above, below = (
            item.value + 10 * max(item.resolution, 1e-6),
            item.value - 10 * max(item.resolution, 1e-6),
        )
        assert _agrees(item, above) is (item.relation in ("gt", "ge")), item.id
        assert _agrees(item, below) is (item.relation in ("lt", "le")), item.id


def test_locations_read_as_the_paper_names_them() -> None:
    vast = load_published("vast")
    assert location_text(vast.item("table1-before-random")) == "Table 1, row Before, column Random"
    texts = [item for item in vast.items if item.location.kind == "text"]
    assert location_text(texts[0]).startswith("text, section ")


def test_papers_to_reproduce() -> None:
    assert ReproduceOptions(("all",)).chosen() == PAPERS
    assert ReproduceOptions(("probing", "vast", "probing")).chosen() == ("probing", "vast")
    with pytest.raises(WordlensError, match="name a paper to reproduce"):
        ReproduceOptions().check()
    with pytest.raises(WordlensError, match="unknown paper 'glue'"):
        ReproduceOptions(("glue",)).check()


def test_a_corrected_value_agrees_to_its_own_precision() -> None:
    item = load_published("asymmetry").item("table4-simlex-cxt")  # printed "34", read as .34
    assert item.correction is not None and item.value == 0.34
    assert _agrees(item, 0.343) and not _agrees(item, 0.26)


def test_set_passes_user_data_to_the_experiments_that_take_it() -> None:
    """The run that passes the file on is the failed one of
    :func:`test_reproduce_exits_1_when_an_experiment_failed_and_0_when_one_was_skipped`."""
    options = ReproduceOptions(("asymmetry",), set=("swow_file = my swow.csv",))
    assert options.overrides() == {"swow_file": "my swow.csv"}
    with pytest.raises(WordlensError, match="OPTION=VALUE"):
        ReproduceOptions(("vast",), set=("swow_file",)).check()


def test_a_margin_within_the_runs_uncertainty_is_inconclusive() -> None:
    assert judge(0.05, 0.02, "").verdict == "holds"
    assert judge(-0.05, 0.02, "").verdict == "does not hold"
    assert judge(0.01, 0.02, "").verdict == "inconclusive"
    assert judge(-0.02, 0.02, "").verdict == "inconclusive"  # the interval's edge counts
    assert judge(0.0, math.nan, "").verdict == "does not hold"  # no interval: the sign decides
    assert judge(0.0, 0.0, "").verdict == "does not hold"  # known exactly: on the threshold
    assert judge(math.nan, 0.1, "").verdict == "not measurable"
    check = judge(0.3, 0.1, "r .40 > .10")
    assert (check.margin, check.uncertainty, check.evidence) == (0.3, 0.1, "r .40 > .10")


def test_parts_combine_on_the_weakest_deciding_part() -> None:
    holds, weak, fails = judge(0.5, 0.1, "a"), judge(0.2, 0.1, "b"), judge(-0.3, 0.1, "c")
    vague, absent = judge(0.05, 0.1, "d"), judge(math.nan, math.nan, "e")
    assert all_hold([holds, weak]).verdict == "holds"
    assert all_hold([holds, weak]).margin == 0.2  # the weakest part that holds
    assert all_hold([holds, vague, fails]).verdict == "does not hold"
    assert all_hold([holds, vague, fails]).margin == -0.3
    assert all_hold([holds, vague, absent]).verdict == "inconclusive"
    assert all_hold([holds, absent]).verdict == "not measurable"
    assert all_hold([]).verdict == "not measurable"
    assert all_hold([holds, weak], "both").evidence == "both: a; b"


def test_a_claim_about_every_part_names_the_parts_against_it_first() -> None:
    holds, weak, fails = judge(0.5, 0.1, "a"), judge(0.2, 0.1, "b"), judge(-0.3, 0.1, "c")
    check = every_part([holds, fails, weak], "all tasks")
    assert (check.verdict, check.margin) == ("does not hold", -0.3)
    assert check.evidence == "all tasks: 2 of 3 hold (does not hold: c | holds: a; b)"
    assert every_part([holds, weak], "both").evidence == "both: 2 of 2 hold (holds: a; b)"


def test_combined_uncertainty_adds_in_quadrature() -> None:
    assert combined_uncertainty(0.3, 0.4) == pytest.approx(0.5)
    assert math.isnan(combined_uncertainty(0.3, math.nan))
    assert interval_half_width(0.2, 0.6) == pytest.approx(0.2)


def _table_checks(paper: str) -> dict[str, TableCheck]:
    checks = reproduction_of(paper).checks()
    return {finding: check for finding, check in checks.items() if isinstance(check, TableCheck)}


@pytest.mark.parametrize("paper", PAPERS)
def test_published_verdicts_are_pinned(paper: str) -> None:
    """A check on printed numbers tests the paper's words; on the paper's own values it holds,
    except on the findings whose words those values contradict (issue 38), which do not hold
    (each pinned below with its words and cells)."""
    published = load_published(paper)
    cells = Cells.published(published)
    findings = {finding.id for finding in published.findings}
    assert set(reproduction_of(paper).checks()) <= findings
    outcomes = {finding: check.check(cells) for finding, check in _table_checks(paper).items()}
    assert contradicted(paper) <= set(outcomes)
    for finding, outcome in outcomes.items():
        expected = "does not hold" if finding in contradicted(paper) else "holds"
        assert outcome.verdict == expected, f"{paper} {finding}: {outcome.evidence}"
        assert outcome.uncertainty == 0, finding
        assert (outcome.margin > 0) is (expected == "holds"), finding


@pytest.mark.parametrize(
    "entry", SELF_CONTRADICTIONS, ids=[entry.finding for entry in SELF_CONTRADICTIONS]
)
def test_a_self_contradiction_quotes_the_words_and_names_the_cells(
    entry: SelfContradiction,
) -> None:
    """The published evidence of a finding the paper's numbers contradict quotes the paper's
    words (from the finding's quote) and names the cells, with their values, against them."""
    published = load_published(entry.paper)
    finding = next(f for f in published.findings if f.id == entry.finding)
    assert entry.words in finding.quote
    outcome = _table_checks(entry.paper)[entry.finding].check(Cells.published(published))
    assert outcome.verdict == "does not hold" and outcome.margin <= 0, outcome.evidence
    assert f"'{entry.words}" in outcome.evidence or entry.words in outcome.evidence
    for cells in entry.cells:
        assert cells in outcome.evidence, (cells, outcome.evidence)


def test_a_printed_range_holds_what_prints_within_it() -> None:
    """One rounding rule for "1-3 F1 points": in it when it would print as 1, 2 or 3."""
    assert printed_range_margin(1.16, 1, 3, 1) == pytest.approx(0.66)
    assert printed_range_margin(3.14, 1, 3, 1) == pytest.approx(0.36)
    assert printed_range_margin(0.4, 1, 3, 1) == pytest.approx(-0.1)
    assert printed_range_margin(3.6, 1, 3, 1) == pytest.approx(-0.1)
    assert printed_range_margin(0.26, 0.2, 0.5, 0.01) == pytest.approx(0.065)
    assert math.isnan(printed_range_margin(math.nan, 1, 3, 1))
    ranged = [item for paper in PAPERS for item in load_published(paper).items
              if item.relation == "range" and item.upper is not None]  # fmt: skip
    assert ranged, "the papers print some ranges"
    for item in ranged:  # a measured value agrees with a printed range by the same rule
        low, high, step = item.value, float(item.upper or math.nan), item.resolution
        assert _agrees(item, low - 0.4 * step) and _agrees(item, high + 0.4 * step), item.id
        assert not _agrees(item, low - 0.6 * step), item.id
        assert not _agrees(item, high + 0.6 * step), item.id


def _unmeasured(paper: str) -> Reproduction:
    """``paper``'s reproduction with nothing measured: the findings as the runner builds them."""
    published = load_published(paper)
    rows = [_row(paper, item, NotMeasured("not run"), "m", {}, "") for item in published.items]
    table = pd.DataFrame(rows)
    definition = reproduction_of(paper)
    findings = _findings(published, definition, {}, table)
    return Reproduction(published, "m", "paper", [], {}, {}, table, findings)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_report_lists_where_the_papers_numbers_do_not_support_its_words(paper: str) -> None:
    reproduction = _unmeasured(paper)
    findings = reproduction.findings.set_index("finding")
    flagged = set(findings.index[findings["self_contradiction"]])
    assert flagged == contradicted(paper)
    unsupported = unsupported_findings(reproduction.findings)
    assert set(unsupported["finding"]) == contradicted(paper)
    html = reproduction_report(reproduction).render()
    assert escape(UNSUPPORTED) in html
    section = html.split(escape(UNSUPPORTED), 1)[1]
    for entry in SELF_CONTRADICTIONS:
        if entry.paper == paper:
            assert escape(str(findings.loc[entry.finding, "quote"])) in section
            assert entry.finding in section
    if not contradicted(paper):
        assert "None: every finding that rests on printed numbers holds" in section
    summary = console_summary(reproduction, Path("report.html"))
    named = "not supported by the paper's own numbers: "
    assert (named in summary) is bool(contradicted(paper))
    assert all(finding in summary for finding in contradicted(paper))


@pytest.mark.parametrize("paper", PAPERS)
def test_a_check_on_printed_numbers_reads_only_its_own_cells(paper: str) -> None:
    """Every other item set to NaN leaves the verdict and margin unchanged: the check is over
    the cells it names (so the report can say what it rests on)."""
    published = load_published(paper)
    for finding, check in _table_checks(paper).items():
        own = set(check.items)
        assert own, finding
        values = {item.id: item.value if item.id in own else math.nan for item in published.items}
        only = Cells("published", published, values, dict.fromkeys(values, 0.0))
        full, alone = check.check(Cells.published(published)), check.check(only)
        assert (alone.verdict, alone.margin) == (full.verdict, full.margin), finding
        assert check.rests_on(published), finding


def test_measured_cells_cannot_compare_the_papers_models() -> None:
    published = load_published("probing")
    table = pd.DataFrame(
        {"item": [item.id for item in published.items], "measured": math.nan, "uncertainty": 0.1}
    )
    measured = Cells.measured(published, table)
    assert measured.one_model and math.isnan(measured.value(published.items[0].id))
    assert measured.uncertainty(published.items[0].id) == 0.1
    assert measured.across_models("BERT with GPT") is not None
    assert Cells.published(published).across_models("BERT with GPT") is None
    with pytest.raises(KeyError, match="no item"):
        measured.value("no-such-item")


def test_an_option_no_experiment_takes_is_refused_before_any_model_loads(tmp_path: Path) -> None:
    """``--set swow_fle=...`` (a typo) used to run for minutes without the user's data and exit
    0; it is now exit code 2 at once, naming what each experiment takes."""
    out = tmp_path / "out"
    finished = wordlens_in_process("reproduce", "asymmetry", "-m", "no-such-model",
                            "--set", "swow_fle=strength.csv", "--out", str(out))  # fmt: skip
    assert finished.returncode == 2, finished.stderr
    message = " ".join((finished.stderr + finished.stdout).split())
    assert "--set swow_fle: no experiment takes it" in message
    assert "swow_file" in message and "evocation, swow (asymmetry):" in message
    assert "no-such-model" not in message  # refused before the model is looked up
    assert not out.exists()
    with pytest.raises(WordlensError, match="no experiment takes them"):
        reproduce("vast", ModelOptions("glove-6b-50d"), out, overrides={"a": 1, "b": 2})
    assert not out.exists()


def test_reproduce_exits_1_when_an_experiment_failed_and_0_when_one_was_skipped(
    tmp_path: Path,
) -> None:
    """Issue 41, item 3: an experiment that failed (here the SWOW experiment, given a file that
    is not there) left exit code 0 and only report.html said why. Now the report is written
    and the command exits 1, naming the count; a skipped experiment (swow without
    ``--set swow_file=``) is not a failure: exit 0."""
    missing = tmp_path / "strength.SWOW-EN.csv"
    common = ("reproduce", "asymmetry", "-m", "glove-6b-50d", "--scale", "smoke")
    failed = wordlens_in_process(
        *common, "--set", f"swow_file={missing}", "--out", str(tmp_path / "a")
    )
    assert failed.returncode == 1, failed.stderr
    assert "Traceback" not in failed.stderr
    assert [line for line in failed.stderr.splitlines() if line.startswith("error:")] == [
        "error: 1 experiment failed (see above)"
    ]
    printed = " ".join(failed.stdout.split())
    assert "experiment swow failed: " in printed and str(missing) in printed
    assert (tmp_path / "a" / "report.html").is_file()
    # --set passes the user's data to the experiments that take it (the reproduction's record)
    experiments = {
        e["name"]: e
        for e in json.loads((tmp_path / "a" / "reproduction.json").read_text())["experiments"]
    }
    assert experiments["swow"]["status"] == "failed"
    assert str(missing) in experiments["swow"]["error"]  # the file reached the SWOW experiment
    assert experiments["evocation"]["status"] == "done"  # the other one ran without it
    findings = pd.read_csv(tmp_path / "a" / "findings.csv")
    assert set(findings["verdict"]) | set(findings["published_verdict"]) <= set(VERDICTS)
    assert {"margin", "uncertainty", "rests_on", "published_evidence"} <= set(findings.columns)
    assert {"quote", "self_contradiction"} <= set(findings.columns)
    assert findings["self_contradiction"].dtype == bool
    assert "uncertainty" in pd.read_csv(tmp_path / "a" / "reproduction.csv").columns
    skipped = wordlens_in_process(*common, "--out", str(tmp_path / "b"))
    assert skipped.returncode == 0, skipped.stderr
    assert "experiment swow skipped: needs --set swow_file=..." in skipped.stdout
    assert (tmp_path / "b" / "report.html").is_file()


@pytest.mark.parametrize(
    ("device", "message"),
    [
        ("cuda:99", "error: device 'cuda:99' is not available: torch "),
        ("gpu", "error: unknown device"),
    ],
)
def test_a_device_torch_does_not_see_stops_reproduce_with_one_line(
    shared: Path, tmp_path: Path, device: str, message: str
) -> None:
    """``wordlens reproduce`` on a device torch cannot use (no GPU, or an index past the last one;
    an unknown name) is a one-line error and exit 2 before any model loads, not a report of every
    experiment 'did not run' and exit 0."""
    model = str(shared / "models" / "minilm-l6-mlm")
    out = tmp_path / "out"
    command = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]
    options = ["--scale", "smoke", "--device", device, "--cache-dir", str(tmp_path / "cache")]
    process = subprocess.run(
        [*command, "reproduce", "vast", "-m", model, "--out", str(out), *options],
        cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert process.returncode == 2, process.stdout + process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message)
    assert "Traceback" not in process.stderr and not (out / "report.html").exists()
