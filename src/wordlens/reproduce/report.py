"""The reproduction report: the paper's findings with their verdicts first, then every published
number beside ours, the figures to compare by eye, what the text extraction lost and the
experiments that ran (with their departures from the paper)."""

from __future__ import annotations

import pandas as pd
from rich.table import Table

from wordlens.report.html import Report
from wordlens.reproduce.base import Reproduction

_SCALES = {
    "paper": "paper: the paper's sample sizes",
    "smoke": "smoke: small samples, a quick check rather than a reproduction",
}
_SHOWN = ["location", "quantity", "printed", "paper_model", "measured", "difference", "agrees"]


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
    verdicts = reproduction.findings["verdict"].value_counts()
    report.paragraph(", ".join(f"{count} {verdict}" for verdict, count in verdicts.items()))
    report.table(reproduction.findings[["finding", "verdict", "claim", "evidence", "location"]])
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
    for column in ("finding", "verdict", "evidence"):
        grid.add_column(column)
    for row in reproduction.findings.itertuples():
        grid.add_row(str(row.finding), str(row.verdict), str(row.evidence))
    return grid
