"""The reproduction report: the paper's findings with their verdicts first, then every published
number beside ours, the figures to compare by eye, what the text extraction lost and the
experiments that ran (with their departures from the paper)."""

from __future__ import annotations

import math

import pandas as pd
from rich.table import Table

from wordlens.report.html import Report
from wordlens.reproduce.base import Reproduction

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


def _counts(verdicts: pd.Series) -> str:
    return ", ".join(f"{count} {verdict}" for verdict, count in verdicts.value_counts().items())


def reproduction_report(reproduction: Reproduction) -> Report:
    """The HTML report of ``reproduction`` (see the module notes)."""
    paper = reproduction.paper
    table = reproduction.table
    report = Report(
        f"Reproducing {paper.title}",
        metadata={"model": {"name": reproduction.model}, "method": f"reproduce {paper.paper}"},
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
            "agree to the printed precision": f"{int((table['agrees'] == True).sum()):,}",  # noqa: E712
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
        "its 95% interval; blank where the run gives none)."
    )
    report.table(findings[_FINDINGS])
    for kind, title in (("table", "Table"), ("figure", "Figure"), ("text", "Numbers in the text")):
        rows = table[table["location"].str.startswith(title if kind != "text" else "text")]
        if rows.empty:
            continue
        report.heading(title + ("s" if kind != "text" else ""))
        report.table(rows[[*_SHOWN, "note"]])
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
                    "status": reproduction.failures.get(e.name, "done"),
                }
                for e in reproduction.experiments
            ]
        )
    )
    return report


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
