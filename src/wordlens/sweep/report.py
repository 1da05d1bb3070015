"""The HTML page of a sweep across training checkpoints: per layered quantity its heat map and
its curves over training, the headline (layer-less) numbers over training (a figure when the
method has no per-layer curves, such as AUL or CAM; a table always), the revisions run (each
linked to its own run's report) and what each quantity measures."""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import quote

import pandas as pd

from wordlens._plural import counted
from wordlens.report.html import Report
from wordlens.sweep.figures import display_name, headline_lines, heat_map, step_lines

HEADLINES = "Headline numbers across training"
"""The heading of the quantities without layers."""


def sweep_report(
    table: pd.DataFrame,
    revisions: pd.DataFrame,
    definitions: dict[str, str],
    metadata: dict[str, Any],
) -> Report:
    """The sweep's report page.

    Parameters
    ----------
    table
        The sweep's tidy table: ``revision``, ``step``, ``layer``, ``depth``, ``quantity``,
        ``value``, ``low``, ``high``, one row per revision, quantity and layer
        (:mod:`wordlens.sweep.figures`).
    revisions
        One row per revision: ``revision``, ``step``, ``status``, ``seconds``,
        ``peak_memory_mib``, ``peak_gpu_memory_mib``, ``out_dir`` (its run's directory,
        relative to the sweep's, posix) and ``error`` (None when it ran).
    definitions
        Quantity → what it measures (a quantity may have none).
    metadata
        The sweep's: ``method``, ``method_title``, ``model`` (its name), ``revisions`` and
        ``left_out`` (the folders it did not run, with why).

    Returns
    -------
    wordlens.report.html.Report
        The page, its figures in :attr:`~wordlens.report.html.Report.figures`.
    """
    report = Report(
        f"{metadata['method_title']} across training checkpoints: {metadata['model']}",
        metadata={"method": metadata["method"]},
    )
    report.paragraph(_summary(revisions))
    for line in left_out_lines(metadata):
        report.paragraph(f"{line[:1].upper()}{line[1:]}.")
    quantities = list(dict.fromkeys(table["quantity"]))
    layered = {
        name for name in quantities if table.loc[table["quantity"] == name, "layer"].notna().any()
    }
    for quantity in quantities:
        if quantity in layered:
            report.heading(display_name(quantity, definitions.get(quantity, "")))
            report.figure(heat_map(table, quantity, definitions.get(quantity, "")))
            report.figure(step_lines(table, quantity, definitions.get(quantity, "")))
    headlines = [name for name in quantities if name not in layered]
    if headlines:
        report.heading(HEADLINES)
        if not layered:  # else they are read off the curves above (the top layer, the best)
            report.figure(headline_lines(table, headlines, definitions))
        values = [name for name in headlines if not _is_layer(name)]
        layers = [name for name in headlines if _is_layer(name)]
        if values:
            report.table(_headline_values(table, values, definitions))
        if layers:  # whole layers, not 5.000
            report.paragraph("The layers the headline numbers name, across training:")
            grid = _headline_values(table, layers, definitions)
            report.table(grid.astype(dict.fromkeys(grid.columns[1:], "Int64")))
    report.heading("Checkpoints")
    report.table(_revisions_shown(revisions), float_format="{:,.1f}", links={"revision": "report"})
    known = {name: definitions[name] for name in quantities if name in definitions}
    if known:
        report.heading("Definitions")
        report.definitions(known)
    report.paragraph(
        "The tidy table (one row per revision, quantity and layer) is in sweep_table.csv and "
        "sweep_table.parquet beside this page.",
        note=True,
    )
    return report


def left_out_lines(metadata: dict[str, Any]) -> list[str]:
    """``skipped runs: no config.json, so not a checkpoint folder`` for each folder a sweep (its
    ``metadata``) left out; none for a sweep written before they were recorded."""
    return [
        f"skipped {folder['name']}: {folder['reason']}" for folder in metadata.get("left_out", [])
    ]


def _summary(revisions: pd.DataFrame) -> str:
    """How many checkpoints ran, failed (or ended otherwise), and the training steps spanned."""
    statuses = Counter(str(status) for status in revisions["status"])
    ended = ", ".join(
        f"{count} {'ran' if status == 'done' else status}"
        for status, count in sorted(statuses.items(), key=lambda item: item[0] != "done")
    )
    steps = revisions["step"].dropna()
    span = (
        f"training steps {int(steps.min()):,} to {int(steps.max()):,}"
        if len(steps)
        else "training steps unknown"
    )
    return f"{counted(len(revisions), 'checkpoint')}: {ended or 'none ran'}; {span}."


def _headline_values(
    table: pd.DataFrame, quantities: list[str], definitions: dict[str, str]
) -> pd.DataFrame:
    """The values of the layer-less ``quantities``: one row per quantity (named for a reader,
    :func:`~wordlens.sweep.figures.display_name`), one column per revision in step order."""
    rows = table[table["quantity"].isin(quantities)]
    order = rows.drop_duplicates("revision")
    if order["step"].notna().all():
        order = order.sort_values("step", kind="stable")
    grid = rows.pivot(index="quantity", columns="revision", values="value")
    grid = grid.reindex(index=quantities, columns=list(order["revision"]))
    grid.index = [display_name(name, definitions.get(name, "")) for name in grid.index]
    return grid.rename_axis(index="quantity", columns=None).reset_index()


def _is_layer(quantity: str) -> bool:
    """Whether a headline number is a layer (``vast_best_layer``, ``rnd_career_best_layer``)."""
    return quantity.endswith("_layer")


def _revisions_shown(revisions: pd.DataFrame) -> pd.DataFrame:
    """The revisions table as shown: each revision that ran linked (``report``, hidden) to its
    run's ``report.html``, memory in MiB."""
    shown = pd.DataFrame(
        {
            "revision": revisions["revision"],
            "step": revisions["step"],
            "status": revisions["status"],
            "seconds": revisions["seconds"].astype(float),
            "peak memory MiB": revisions["peak_memory_mib"].astype(float),
            "peak GPU memory MiB": revisions["peak_gpu_memory_mib"].astype(float),
            "error": revisions["error"].fillna(""),
            "report": [
                quote(f"{out_dir}/report.html")
                if status == "done" and not pd.isna(out_dir)
                else None
                for out_dir, status in zip(revisions["out_dir"], revisions["status"], strict=True)
            ],
        }
    )
    return shown.reset_index(drop=True)
