"""The reproduction report: the paper's findings with their verdicts first, and those its own
printed numbers do not support (:data:`UNSUPPORTED`), then every published number beside ours,
the figures to compare by eye, what the text extraction lost and the experiments that ran (with
their departures from the paper)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from rich.table import Table

from wordlens.methods.registry import get_method
from wordlens.plan import console_table, duration
from wordlens.report.html import Report
from wordlens.reproduce.base import NAMED_MODEL_RULE, SMOKE_RULE, Experiment, Reproduction
from wordlens.stages import stages_table

_SCALES = {
    "paper": "paper: the paper's sample sizes",
    "smoke": "smoke: small samples, a quick check rather than a reproduction",
}
_SHOWN = ["location", "quantity", "printed", "paper_model", "measured", "difference", "agrees"]
_FINDINGS = [
    "finding",
    "verdict",
    "margin",
    "uncertainty",
    "published_verdict",
    "rests_on",
    "claim",
    "evidence",
    "published_evidence",
    "location",
]


UNSUPPORTED = "Where the paper's numbers do not support its words"
"""The report's section on the findings whose check does not hold on the paper's own printed
values (``self_contradiction`` in the findings table)."""
_BOUNDS = ("lt", "le", "gt", "ge")
#: What a published item is, in the words the headline counts use.
ITEM_KINDS = {
    "result": "result numbers that agree to the printed precision",
    "data": "numbers about the data alone (data-set sizes, counts) that match",
    "bound": "bounds (less than, more than) that hold",
}


def item_kinds(table: pd.DataFrame) -> pd.Series:
    """What each row of a reproduction table is: ``bound`` (a value the paper states as a bound:
    ``lt``, ``le``, ``gt``, ``ge``), ``data`` (a number about the data alone, such as a data
    set's size: the paper names no model) or ``result`` (a result number of a model: exact,
    approximate or a range)."""
    no_model = table["paper_model"].fillna("").astype(str) == ""
    bound = table["relation"].isin(_BOUNDS)
    kinds = pd.Series("result", index=table.index)
    kinds[no_model] = "data"
    kinds[bound] = "bound"
    return kinds


def agreement_counts(table: pd.DataFrame) -> dict[str, str]:
    """The headline counts of a reproduction table, result numbers, numbers about the data and
    bounds apart: ``{"result numbers that agree ...": "4 of 6 measured (10 published)"}``;
    kinds the paper does not print are left out."""
    kinds = item_kinds(table)
    measured = table["measured"].notna()
    agrees = table["agrees"] == True  # noqa: E712 (None where not measured)
    counts = {}
    for kind, words in ITEM_KINDS.items():
        mine = kinds == kind
        if mine.any():
            counts[words] = (
                f"{int((agrees & mine).sum()):,} of {int((measured & mine).sum()):,} measured "
                f"({int(mine.sum()):,} published)"
            )
    return counts


def agreement_text(agrees: object) -> str:
    """``yes``, ``no``, or ``not measured`` (an item this run has no value for)."""
    if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)):
        return "not measured"
    return "yes" if bool(agrees) else "no"


def experiment_words(experiment: Experiment, number: int) -> str:
    """How the console announces an experiment: ``experiment 2 (tokenization): VAST ...``
    (the method's title; the experiment's name unless it is the method's)."""
    title = get_method(experiment.method).title
    named = "" if experiment.name == experiment.method else f" ({experiment.name})"
    return f"experiment {number}{named}: {title}"


def experiment_announcer(say: Callable[[str], object]) -> Callable[[Experiment], None]:
    """An ``on_experiment`` callback that ``say``s each experiment in words, numbered."""
    seen: list[Experiment] = []

    def announce(experiment: Experiment) -> None:
        seen.append(experiment)
        say(experiment_words(experiment, len(seen)))

    return announce


def console_summary(reproduction: Reproduction, report: Path) -> str:
    """The lines the console prints after the findings: what was measured, the headline counts
    (result numbers, numbers about the data and bounds apart), the findings the paper's own
    numbers do not support (if any) and where the report is."""
    table = reproduction.table
    measured = int(table["measured"].notna().sum())
    lines = [f"{measured} of {len(table)} published numbers measured"]
    if reproduction.quick_mode is not None:
        lines.append(reproduction.quick_mode)
    lines += [f"  {words}: {count}" for words, count in agreement_counts(table).items()]
    unsupported = unsupported_findings(reproduction.findings)["finding"].tolist()
    if unsupported:
        lines.append(f"not supported by the paper's own numbers: {', '.join(unsupported)}")
    for name, failure in reproduction.failures.items():
        lines.append(f"experiment {name} failed: {failure}")
    for name, reason in reproduction.skipped.items():
        lines.append(f"experiment {name} {reason}")
    stages = experiment_stages(reproduction)
    top = stages[stages["depth"] == 0]
    for experiment, rows in top.groupby("experiment", sort=False):
        lines.append(
            f"{experiment}: {rows['wall_s'].sum():.1f} s (CPU {rows['cpu_s'].sum():.1f} s, "
            f"peak RSS {rows['peak_rss_mib'].max():,.0f} MiB)"
        )
    return "\n".join([*lines, f"report: {report}"])


def plan_console(paper: str, plans: dict[str, dict[str, Any] | str]) -> list[Table | str]:
    """What ``reproduce --plan`` prints of ``paper``: each experiment's plan
    (:func:`wordlens.plan.console_table`) or why it has none, then the estimated total."""
    shown: list[Table | str] = []
    for experiment, plan in plans.items():
        if isinstance(plan, str):
            shown.append(f"{paper} / {experiment}: no plan ({plan})")
        else:
            shown.append(console_table(plan, f"{paper} / {experiment}: plan"))
    total = sum(plan["total_s"] for plan in plans.values() if not isinstance(plan, str))
    shown.append(f"{paper}: estimated {duration(total)} for the experiments planned")
    return shown


def _counts(verdicts: pd.Series) -> str:
    return ", ".join(f"{count} {verdict}" for verdict, count in verdicts.value_counts().items())


def reproduction_report(reproduction: Reproduction) -> Report:
    """The HTML report of ``reproduction`` (see the module notes)."""
    paper = reproduction.paper
    table = reproduction.table
    report = Report(
        f"Reproducing {paper.title}",
        metadata={
            "model": {"name": reproduction.model},
            "method": f"reproduce {paper.paper}",
            **({"quick_mode": reproduction.quick_mode} if reproduction.quick_mode else {}),
        },
    )
    measured = table["measured"].notna()
    same = table["same_model"] & measured
    report.definitions(
        {
            "paper": paper.citation,
            "model": reproduction.model,
            "scale": reproduction.scale
            + (
                " (small samples: a quick check, not a reproduction)"
                if reproduction.scale == "smoke"
                else ""
            ),
            "published numbers": f"{len(table):,}",
            "measured here": f"{int(measured.sum()):,}",
            "on the paper's own model": f"{int(same.sum()):,} (exact reproductions)",
            **agreement_counts(table),
        }
    )
    report.heading("Findings")
    findings = reproduction.findings
    printed = findings["published_verdict"] != "not measurable"
    report.paragraph(
        f"This run: {_counts(findings['verdict'])}. On the paper's own numbers (the same check "
        f"on the published values): {_counts(findings['published_verdict'])}. "
        f"{int(printed.sum())} of {len(findings)} findings rest on numbers the paper prints "
        "and are checked on both; the others rest on a figure or on prose (column rests_on). "
        "A verdict is inconclusive when its margin (how far past the paper's threshold, "
        "positive where the finding holds) is within the run's uncertainty (the half-width of "
        "its 95% interval; blank where the run gives none)"
        + (f"; {SMOKE_RULE}." if reproduction.scale == "smoke" else ".")
        + f" A finding about a named model: {NAMED_MODEL_RULE}."
    )
    report.table(findings[_FINDINGS])
    _unsupported(report, findings)
    for kind, title in (("table", "Table"), ("figure", "Figure"), ("text", "Numbers in the text")):
        rows = table[table["location"].str.startswith(title if kind != "text" else "text")]
        if rows.empty:
            continue
        report.heading(title + ("s" if kind != "text" else ""))
        shown = rows[[*_SHOWN, "note"]].copy()
        shown["agrees"] = [
            "not comparable (--limit)" if reproduction.limit is not None else agreement_text(agrees)
            for agrees in shown["agrees"]
        ]
        report.table(shown)
    if paper.figures:
        report.heading("Figures to compare by eye")
        report.table(
            pd.DataFrame(
                [{"figure": f.id, "caption": f.caption, "shows": f.shows} for f in paper.figures]
            )
        )
    if paper.lost:
        report.heading("Lost in the text extraction")
        report.table(
            pd.DataFrame(
                [
                    {
                        "where": f"{lost.location.kind} {lost.location.number or ''}",
                        "note": lost.note,
                    }
                    for lost in paper.lost
                ]
            )
        )
    report.heading("Experiments")
    report.table(
        pd.DataFrame(
            [
                {
                    "experiment": e.name,
                    "method": e.method,
                    "options": ", ".join(f"{k}={v}" for k, v in e.options.items()),
                    "departure from the paper": e.departure,
                    "status": reproduction.failures.get(e.name)
                    or reproduction.skipped.get(e.name, "done"),
                }
                for e in reproduction.experiments
            ]
        )
    )
    _unfinished(report, reproduction)
    report.heading("Where the time went")
    report.paragraph(
        "Each experiment's stages: wall and CPU seconds (the process, every thread), peak "
        "resident memory and, on a GPU, peak device memory. An indented stage runs inside the "
        "one above it."
    )
    report.table(experiment_stages(reproduction).drop(columns="depth"), float_format="{:,.2f}")
    return report


def experiment_stages(reproduction: Reproduction) -> pd.DataFrame:
    """Every stage of every experiment that ran or failed part-way (:mod:`wordlens.stages`),
    with the experiment's name first."""
    runs = {**reproduction.runs, **reproduction.unfinished}
    frames = [
        stages_table(runs[e.name].metadata.get("stages", [])).assign(experiment=e.name)
        for e in reproduction.experiments
        if e.name in runs
    ]
    if not frames:
        return stages_table([]).assign(experiment=[])
    table = pd.concat(frames, ignore_index=True)
    return table[["experiment", *table.columns[:-1]]]


def _unfinished(report: Report, reproduction: Reproduction) -> None:
    """The failed experiments: the failure, and the tables each finished before it (written
    into its folder)."""
    if not reproduction.failures:
        return
    report.heading("Failed experiments and what they kept")
    rows = []
    for name, failure in reproduction.failures.items():
        unfinished = reproduction.unfinished.get(name)
        kept = {} if unfinished is None else unfinished.tables
        rows.append(
            {
                "experiment": name,
                "failure": failure,
                "tables kept": ", ".join(f"{t} ({len(frame):,} rows)" for t, frame in kept.items())
                or "none",
            }
        )
    report.table(pd.DataFrame(rows))
    for name, unfinished in reproduction.unfinished.items():
        for table_name, frame in unfinished.tables.items():
            report.paragraph(f"{name}: {table_name} (kept; the first rows)")
            report.table(frame.head(10))


def unsupported_findings(findings: pd.DataFrame) -> pd.DataFrame:
    """The findings whose words the paper's own printed numbers do not support: ``finding``,
    ``quote`` (the words) and ``cells`` (the published check's evidence, naming the cells and
    their values)."""
    rows = findings[findings["self_contradiction"].astype(bool)]
    return pd.DataFrame(
        {
            "finding": rows["finding"],
            "quote": rows["quote"],
            "cells": rows["published_evidence"],
        }
    ).reset_index(drop=True)


def _unsupported(report: Report, findings: pd.DataFrame) -> None:
    """The section :data:`UNSUPPORTED`: each such finding with the paper's words and cells."""
    report.heading(UNSUPPORTED)
    unsupported = unsupported_findings(findings)
    if unsupported.empty:
        report.paragraph(
            "None: every finding that rests on printed numbers holds on the paper's own values."
        )
        return
    report.paragraph(
        f"{len(unsupported)} of the paper's findings do not hold on its own printed numbers: "
        "the check tests the paper's words, and the cells named below, as printed, contradict "
        "them. Their published verdict is 'does not hold'; a reproduction that agrees with "
        "the paper's numbers does not hold either."
    )
    report.table(unsupported)


def findings_table(reproduction: Reproduction) -> Table:
    """The findings and their verdicts, for the terminal."""
    grid = Table(
        title=f"{reproduction.paper.citation} on {reproduction.model}", title_justify="left"
    )
    for column in ("finding", "verdict", "margin ± uncertainty", "published", "evidence"):
        grid.add_column(column)
    findings = reproduction.findings
    for row, margin, uncertainty in zip(
        findings.itertuples(),
        findings["margin"].astype(float),
        findings["uncertainty"].astype(float),
        strict=True,
    ):
        grid.add_row(
            str(row.finding),
            str(row.verdict),
            _margin(margin, uncertainty),
            str(row.published_verdict),
            str(row.evidence),
        )
    return grid


def _margin(margin: float, uncertainty: float) -> str:
    """``+0.12 ± 0.03``; the uncertainty left out where the run gives none."""
    if math.isnan(margin):
        return ""
    return f"{margin:+.3g}" + ("" if math.isnan(uncertainty) else f" ± {uncertainty:.2g}")
