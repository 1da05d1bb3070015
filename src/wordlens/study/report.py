"""The study report: one self-contained ``index.html`` for a whole study (models × methods).

The page holds a model × method grid of each cell's headline numbers
(:func:`wordlens.study.summary.summarize_cell`), linking every finished cell to its own report;
failed cells show their error, running and pending cells say so. Below it, one figure per method
and per-layer metric overlays the models' curves. Figures are embedded as PNG and also saved
under ``<study>/figures/`` as PNG, SVG and PDF; the numbers go to ``study_headlines.csv`` (one row
per cell and headline number) and ``study_curves.csv`` (one row per cell, metric and layer), each
beside its ``.parquet`` and ``.json`` (:class:`wordlens.results.Result`).

Models differ in depth (GloVe: one layer; MiniLM: 7 hidden states; SmolLM2: 31), so by default
(``x_axis="auto"``) a figure whose models have different top layers is drawn against relative
depth, layer / top layer in 0..1 (embeddings at 0, last block at 1), and against the layer
index otherwise. A one-layer (static) model has no depth: its value is drawn as a dashed
horizontal line across the figure, a baseline for the contextual models.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.base import Summary
from wordlens.report.bias_figures import write_figures
from wordlens.report.figures import ONE_COLUMN, paper_style
from wordlens.report.html import Report
from wordlens.results import Result
from wordlens.study.records import CELL_STATUSES, CellRecord, CellRecordError
from wordlens.study.summary import summarize_cell

XAxis = Literal["auto", "layer", "depth"]
X_AXES: tuple[XAxis, ...] = ("auto", "layer", "depth")

_GRID_STYLE = """
table.study td, table.study th { text-align: left; vertical-align: top; min-width: 11em; }
table.study .status { font-weight: 600; } .failed { color: #b00020; }
table.study .pending, table.study .running { color: #777; }
table.study ul { list-style: none; padding: 0; margin: 0.3em 0 0; font-size: 0.95em; }
table.study li span { float: right; margin-left: 1em; font-variant-numeric: tabular-nums; }
table.study pre { white-space: pre-wrap; max-width: 30em; font-size: 0.85em; }
div.curves { display: flex; flex-wrap: wrap; gap: 1em; }
div.curves figure { margin: 0; width: 560px; max-width: 100%; }
div.curves figcaption { font-size: 0.85em; color: #444; }
"""


def write_study_report(
    study_dir: Path,
    records: Sequence[CellRecord],
    *,
    title: str | None = None,
    x_axis: XAxis = "auto",
    sweeps: Sequence[tuple[str, Path]] = (),
    comparisons: Sequence[tuple[str, Path]] = (),
) -> list[Path]:
    """Write ``index.html``, the figures and the CSV files of a study into ``study_dir``.

    Parameters
    ----------
    study_dir
        The study directory; each record's ``out_dir`` is relative to it.
    records
        One record per cell (any status), in study order: models and methods are listed in the
        order they first appear.
    title
        Page title [``Study <directory name>``].
    x_axis
        ``"auto"`` (relative depth when the models of a figure differ in depth, module notes),
        ``"layer"`` or ``"depth"``.
    sweeps
        The study's sweeps across training checkpoints (:mod:`wordlens.sweep`): a label
        (``"<model> / <method>"``) and the sweep's ``report.html``, linked from the page.
    comparisons
        The study's comparisons of its models (:mod:`wordlens.comparison`): a label (the
        method) and the comparison's ``report.html``, linked from the page.

    Returns
    -------
    list of pathlib.Path
        Every file written: ``index.html``, ``study_headlines`` and ``study_curves`` as
        ``.parquet`` / ``.csv`` / ``.json``, and each figure's ``.png``, ``.svg`` and ``.pdf``.

    Raises
    ------
    EmptyInputError
        If there is no record.
    CellRecordError
        If two records name the same (model, method) cell.
    CellOutputError
        If a finished cell's tables cannot be read.
    OutputError
        If a file cannot be written.
    """
    if not records:
        raise EmptyInputError(f"no cell records for the study report of {study_dir}")
    if x_axis not in X_AXES:
        raise WordlensError(f"x_axis must be one of {', '.join(X_AXES)}; got {x_axis!r}")
    cells = _index(records)
    summaries = {
        key: summarize_cell(record.method, study_dir / record.out_dir)
        for key, record in cells.items()
        if record.status == "done"
    }
    curves = _curves_table(cells, summaries)
    report = Report(title or f"Study {study_dir.name}")
    report.parts.append(f"<style>{_GRID_STYLE}</style>")
    written = [
        *Result("study_headlines", _headlines_table(cells, summaries)).write(study_dir),
        *Result("study_curves", curves).write(study_dir),
    ]
    _overview(report, cells, [path for path in written if path.suffix == ".csv"])
    _pages(report, study_dir, "Models compared and ranked by bias", comparisons)
    _pages(report, study_dir, "Across training checkpoints", sweeps)
    _grid(report, study_dir, cells, summaries)
    written += _curve_figures(report, study_dir, curves, summaries, x_axis)
    _definitions(report, cells, summaries)
    return [report.write(study_dir / "index.html"), *written]


def _pages(
    report: Report, study_dir: Path, heading: str, pages: Sequence[tuple[str, Path]]
) -> None:
    """A section linking each labelled page (a sweep's, a comparison's), when there are any."""
    if not pages:
        return
    links = "".join(
        f'<li><a href="{html.escape(Path(os.path.relpath(page, study_dir)).as_posix())}">'
        f"{html.escape(label)}</a></li>"
        for label, page in pages
    )
    report.heading(heading)
    report.parts.append(f"<ul>{links}</ul>")


def _index(records: Sequence[CellRecord]) -> dict[tuple[str, str], CellRecord]:
    """Records keyed by (model, column: the method, with its query when it lists several),
    refusing duplicates."""
    cells: dict[tuple[str, str], CellRecord] = {}
    for record in records:
        key = (record.model, record.column)
        if key in cells:
            raise CellRecordError(
                f"two records for the cell ({record.model}, {record.column}): "
                f"{cells[key].out_dir} and {record.out_dir}"
            )
        cells[key] = record
    return cells


def _headlines_table(
    cells: dict[tuple[str, str], CellRecord], summaries: dict[tuple[str, str], Summary]
) -> pd.DataFrame:
    """One row per done cell and headline number; one row (no headline) per other cell."""
    rows = []
    for key, record in cells.items():
        base = {
            "model": record.model,
            "model_slug": record.model_slug,
            "method": record.method,
            "query": record.query,
            "status": record.status,
            "seconds": record.seconds,
        }
        definitions = summaries[key].definitions if key in summaries else {}
        numbers = record.headline.items() if record.headline else [(None, np.nan)]
        rows += [
            {**base, "headline": name, "value": value, "definition": definitions.get(name or "")}
            for name, value in numbers
        ]
    return pd.DataFrame(rows)


def _curves_table(
    cells: dict[tuple[str, str], CellRecord], summaries: dict[tuple[str, str], Summary]
) -> pd.DataFrame:
    """Every done cell's curves, tidy: model, model_slug, method (with the cell's query when its
    method lists several: ``weat (career)``), metric, layer, depth, value."""
    frames = [
        summary.curves.assign(
            model=cells[key].model, model_slug=cells[key].model_slug, method=cells[key].column
        )
        for key, summary in summaries.items()
        if summary.curves is not None
    ]
    columns = ["model", "model_slug", "method", "metric", "layer", "depth", "value"]
    if not frames:
        return pd.DataFrame(columns=columns)
    combined: pd.DataFrame = pd.concat(frames, ignore_index=True)[columns]
    return combined


def _overview(
    report: Report, cells: dict[tuple[str, str], CellRecord], written: list[Path]
) -> None:
    counts = Counter(record.status for record in cells.values())
    report.definitions(
        {
            "cells": ", ".join(
                f"{counts[status]} {status}" for status in CELL_STATUSES if status in counts
            ),
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )
    links = " · ".join(
        f'<a href="{html.escape(path.name)}">{html.escape(path.name)}</a>' for path in written
    )
    report.parts.append(f'<p class="note">The numbers as CSV: {links}</p>')


def _grid(
    report: Report,
    study_dir: Path,
    cells: dict[tuple[str, str], CellRecord],
    summaries: dict[tuple[str, str], Summary],
) -> None:
    """The model × method table: per cell its status, link and headline numbers."""
    models = list(dict.fromkeys(model for model, _ in cells))
    methods = list(dict.fromkeys(method for _, method in cells))
    report.heading("Headline numbers (model × method)")
    report.paragraph(
        "Each finished cell links to its own report; hover a number for what it measures "
        "(listed at the end of the page).",
        note=True,
    )
    header = "".join(f"<th>{html.escape(method)}</th>" for method in methods)
    body = []
    for model in models:
        row = [f"<td>{html.escape(model)}</td>"]
        for method in methods:
            summary = summaries.get((model, method))
            definitions = summary.definitions if summary else {}
            css, content = _cell_content(study_dir, cells.get((model, method)), definitions)
            row.append(
                f'<td class="{css}" data-model="{html.escape(model)}" '
                f'data-method="{html.escape(method)}">{content}</td>'
            )
        body.append(f"<tr>{''.join(row)}</tr>")
    report.parts.append(
        f'<table class="study"><thead><tr><th>model</th>{header}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _cell_content(
    study_dir: Path, record: CellRecord | None, definitions: dict[str, str]
) -> tuple[str, str]:
    """One grid cell's CSS class and content: the record's status, link, numbers or error."""
    if record is None:
        return "pending", "no record"
    status = f'<span class="status {record.status}">{record.status}</span>'
    if record.status == "failed":
        return "failed", f"{status}<pre>{html.escape(record.error or 'no error recorded')}</pre>"
    if record.status == "running":
        where = f" (pid {record.pid} on {html.escape(record.host or '?')})" if record.pid else ""
        return "running", f"{status}{where}"
    if record.status == "pending":
        return "pending", status
    seconds = f" in {record.seconds:.1f} s" if record.seconds is not None else ""
    numbers = "".join(
        f'<li title="{html.escape(definitions.get(name, name))}">{html.escape(name)}'
        f"<span>{_number(name, value)}</span></li>"
        for name, value in record.headline.items()
    )
    return "done", f"{_cell_link(study_dir, record)} {status}{seconds}<ul>{numbers}</ul>"


def _cell_link(study_dir: Path, record: CellRecord) -> str:
    """A relative link to the cell's ``report.html`` (its directory when it wrote none)."""
    cell = f"{record.out_dir.rstrip('/')}/"
    target = f"{cell}report.html" if (study_dir / cell / "report.html").is_file() else cell
    label = "report" if target.endswith(".html") else "tables"
    return f'<a href="{html.escape(target)}">{label}</a>'


def _number(name: str, value: float) -> str:
    """``0.123`` as ``0.123``; layers as integers; NaN as an en dash."""
    if np.isnan(value):
        return "–"
    return f"{value:.0f}" if name.endswith("_layer") else f"{value:.3f}"


def _definitions(
    report: Report,
    cells: dict[tuple[str, str], CellRecord],
    summaries: dict[tuple[str, str], Summary],
) -> None:
    """Per method, what each headline number measures (per model where settings differ)."""
    methods = list(dict.fromkeys(method for _, method in cells))
    for method in methods:
        meanings: dict[str, dict[str, list[str]]] = {}
        for (model, cell_method), summary in summaries.items():
            if cell_method != method:
                continue
            for name in cells[(model, method)].headline:
                text = summary.definitions.get(name, name)
                meanings.setdefault(name, {}).setdefault(text, []).append(model)
        if not meanings:
            continue
        report.heading(f"What the {method} numbers are")
        report.definitions(
            {
                name: " | ".join(
                    text if len(by_text) == 1 else f"{', '.join(models)}: {text}"
                    for text, models in by_text.items()
                )
                for name, by_text in meanings.items()
            }
        )


def _curve_figures(
    report: Report,
    study_dir: Path,
    curves: pd.DataFrame,
    summaries: dict[tuple[str, str], Summary],
    x_axis: XAxis,
) -> list[Path]:
    """One figure per (method, metric), models overlaid; embedded and saved as PNG, SVG and PDF."""
    if curves.empty:
        return []
    models = list(dict.fromkeys(curves["model"]))
    colors = {model: f"C{index % 10}" for index, model in enumerate(models)}
    meanings = {
        (key[1], metric): text
        for key, summary in summaries.items()
        for metric, text in summary.definitions.items()
    }
    report.heading("Per-layer curves")
    report.paragraph(
        "One line per model. Models of different depth are drawn against relative depth "
        "(layer / top layer: 0 = embeddings, 1 = last layer); a one-layer (static) model is a "
        "dashed horizontal line.",
        note=True,
    )
    report.parts.append('<div class="curves">')
    written: list[Path] = []
    for (method, metric), rows in curves.groupby(["method", "metric"], sort=False):
        x_column = _x_column(rows, x_axis)
        figure = _overlay(rows, x_column, colors, str(method))
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{method}-{metric}")
        paths = write_figures({stem: figure}, study_dir / "figures")
        written += paths
        caption = html.escape(meanings.get((str(method), str(metric)), str(metric)))
        links = " · ".join(
            f'<a href="figures/{html.escape(path.name)}">{path.suffix[1:].upper()}</a>'
            for path in paths
        )
        report.parts.append("<figure>")
        report.figure(figure, f"{method} {metric} by {x_column}")
        report.parts.append(f"<figcaption>{caption} ({links})</figcaption></figure>")
    report.parts.append("</div>")
    return written


def _x_column(rows: pd.DataFrame, x_axis: XAxis) -> str:
    """``layer`` or ``depth`` for one figure's rows (``auto``: depth when top layers differ)."""
    if x_axis != "auto":
        return x_axis
    layered = rows[rows["depth"].notna()]
    return "depth" if layered.groupby("model")["layer"].max().nunique() > 1 else "layer"


def _overlay(rows: pd.DataFrame, x_column: str, colors: dict[str, str], method: str) -> Figure:
    """Each model's curve of one metric against ``x_column``; one-layer models as dashed
    horizontal lines (NaN values leave gaps)."""
    metric = str(rows["metric"].iloc[0])
    with paper_style():
        figure = Figure(figsize=(ONE_COLUMN, 2.6))
        axis = figure.subplots()
        for model, series in rows.groupby("model", sort=False):
            label = str(model)
            if series["depth"].isna().all():  # one layer: a baseline across the figure
                if series["value"].notna().any():
                    axis.axhline(
                        float(series["value"].iloc[0]),
                        color=colors[label],
                        linestyle="--",
                        label=f"{label} (one layer)",
                    )
                continue
            ordered = series.sort_values("layer")
            axis.plot(
                ordered[x_column],
                ordered["value"],
                marker="o",
                color=colors[label],
                label=label,
            )
        axis.set_title(f"{method}: {metric}")
        axis.set_xlabel("relative depth (layer / top layer)" if x_column == "depth" else "layer")
        axis.set_ylabel(metric)
        if axis.get_legend_handles_labels()[0]:
            axis.legend()
        figure.tight_layout()
    return figure
