"""Matplotlib figures for reports: curves by layer (or by any x) with confidence bands.

Figures are :class:`matplotlib.figure.Figure` objects rendered straight to PNG bytes (no pyplot,
so no figure manager and no backend switch: a Jupyter session's own plotting backend stays as it
is), so reports work headless and embed them without temporary files.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure


@dataclass(frozen=True)
class Panel:
    """One subplot: a tidy table and how to draw it.

    Attributes
    ----------
    title
        Subplot title.
    data
        Tidy rows; one curve per distinct value of ``series`` (or a single curve).
    x, y
        Column names of the horizontal and vertical values.
    series
        Column naming the curves, or None.
    band
        ``(low, high)`` columns of a confidence band, or None.
    xlabel, ylabel
        Axis labels (default: the column names).
    """

    title: str
    data: pd.DataFrame
    x: str
    y: str
    series: str | None = None
    band: tuple[str, str] | None = None
    xlabel: str | None = None
    ylabel: str | None = None


def line_panels(panels: Sequence[Panel], *, columns: int = 2, title: str = "") -> bytes:
    """Draw panels of curves (markers on each point, shaded bands) and return a PNG."""
    rows = max(1, -(-len(panels) // columns))
    width = min(columns, len(panels))
    figure = Figure(figsize=(6.2 * width, 4.0 * rows))
    axes = figure.subplots(rows, width, squeeze=False)
    for axis, panel in zip(axes.flat, panels, strict=False):
        groups = (
            panel.data.groupby(panel.series, sort=False) if panel.series else [("", panel.data)]
        )
        for label, rows_of in groups:
            ordered = rows_of.sort_values(panel.x)
            axis.plot(ordered[panel.x], ordered[panel.y], marker="o", markersize=3, label=label)
            if panel.band is not None:
                axis.fill_between(
                    ordered[panel.x], ordered[panel.band[0]], ordered[panel.band[1]], alpha=0.15
                )
        axis.set_title(panel.title, fontsize=10)
        axis.set_xlabel(panel.xlabel or panel.x)
        axis.set_ylabel(panel.ylabel or panel.y)
        axis.grid(alpha=0.3)
        if panel.series:
            axis.legend(fontsize=7)
    for axis in list(axes.flat)[len(panels) :]:
        axis.set_visible(False)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
