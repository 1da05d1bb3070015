"""Matplotlib figures for reports: curves by layer (or by any x) with confidence bands.

Figures are :class:`matplotlib.figure.Figure` objects rendered straight to PNG bytes (no pyplot,
so no figure manager and no backend switch: a Jupyter session's own plotting backend stays as it
is), so reports work headless and embed them without temporary files. Every figure is drawn and
saved in one style, the style sheet ``wordlens.mplstyle`` shipped beside this module
(:func:`paper_style`), one column (:data:`ONE_COLUMN` inches) or two columns
(:data:`TWO_COLUMN`) wide.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import matplotlib.style
import pandas as pd
from matplotlib.figure import Figure

STYLE_SHEET = Path(__file__).with_name("wordlens.mplstyle")
"""The matplotlib style sheet every report figure is drawn and saved in."""

ONE_COLUMN = 3.5
"""Width in inches of a figure one column of a two-column paper wide."""

TWO_COLUMN = 7.0
"""Width in inches of a figure the full width of a two-column paper."""

FORMATS = ("png", "svg", "pdf")
"""The file formats a figure is written in (:meth:`wordlens.results.Figure.save_all`)."""


@contextmanager
def paper_style() -> Iterator[None]:
    """Draw and save figures in the package's style sheet (:data:`STYLE_SHEET`)."""
    with matplotlib.style.context(str(STYLE_SHEET)):
        yield


_NO_DATE = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}
"""Metadata that leaves the creation date out, so that a rerun writes the same SVG and PDF."""


def figure_bytes(figure: Figure, fmt: str = "png") -> bytes:
    """``figure`` saved in ``fmt`` (``png``, ``svg``, ``pdf``) in the paper style."""
    buffer = io.BytesIO()
    with paper_style():
        figure.savefig(
            buffer, format=fmt, dpi=200 if fmt == "png" else None, metadata=_NO_DATE.get(fmt)
        )
    return buffer.getvalue()


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


def line_figure(panels: Sequence[Panel], *, columns: int = 2, title: str = "") -> Figure:
    """Draw panels of curves (markers on each point, shaded bands) in the paper style: one
    column wide for a single panel, two columns wide otherwise."""
    with paper_style():
        return _line_figure(panels, columns=columns, title=title)


def _line_figure(panels: Sequence[Panel], *, columns: int, title: str) -> Figure:
    rows = max(1, -(-len(panels) // columns))
    width = min(columns, len(panels))
    inches = ONE_COLUMN if width == 1 else TWO_COLUMN
    figure = Figure(figsize=(inches, (2.4 if width == 1 else 2.2 if width <= 3 else 1.8) * rows))
    axes = figure.subplots(rows, width, squeeze=False)
    for axis, panel in zip(axes.flat, panels, strict=False):
        groups = (
            panel.data.groupby(panel.series, sort=False) if panel.series else [("", panel.data)]
        )
        for label, rows_of in groups:
            ordered = rows_of.sort_values(panel.x)
            axis.plot(ordered[panel.x], ordered[panel.y], marker="o", label=label)
            if panel.band is not None:
                axis.fill_between(
                    ordered[panel.x], ordered[panel.band[0]], ordered[panel.band[1]], alpha=0.15
                )
        axis.set_title(panel.title)
        axis.set_xlabel(panel.xlabel or panel.x)
        axis.set_ylabel(panel.ylabel or panel.y)
        if panel.series:
            axis.legend()
    for axis in list(axes.flat)[len(panels) :]:
        axis.set_visible(False)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def bar_figure(
    data: pd.DataFrame,
    x: str,
    y: str,
    *,
    series: str | None = None,
    band: tuple[str, str] | None = None,
    significant: str | None = None,
    ylabel: str | None = None,
    title: str = "",
) -> Figure:
    """Bars of ``y`` per distinct ``x`` (one row each per series), grouped by ``series``, with
    ``band`` ``(low, high)`` columns as error bars; where ``significant`` names a boolean column,
    its false rows are drawn as open bars. One column wide for up to 12 bars, else two."""
    import numpy as np

    with paper_style():
        groups = list(dict.fromkeys(data[x]))
        names: list[object] = list(dict.fromkeys(data[series])) if series else [None]
        width = 0.8 / len(names)
        inches = ONE_COLUMN if len(groups) * len(names) <= 12 else TWO_COLUMN
        figure = Figure(figsize=(inches, 2.6))
        axis = figure.subplots()
        places = np.arange(len(groups), dtype=float)
        for index, name in enumerate(names):
            rows = data if series is None else data[data[series] == name]
            rows = rows.set_index(x).reindex(groups)
            heights = rows[y].to_numpy(dtype=float)
            color = f"C{index}"
            faces = (
                [color if bool(flag) else "white" for flag in rows[significant].fillna(False)]
                if significant is not None
                else color
            )
            at = places + (index - (len(names) - 1) / 2) * width
            axis.bar(
                at,
                heights,
                width,
                color=faces,
                edgecolor=color,
                linewidth=0.8,
                label=None if name is None else str(name),
            )
            if band is not None:
                low = rows[band[0]].to_numpy(dtype=float)
                high = rows[band[1]].to_numpy(dtype=float)
                axis.errorbar(
                    at,
                    heights,
                    yerr=[heights - low, high - heights],
                    fmt="none",
                    ecolor="black",
                    elinewidth=0.6,
                    capsize=1.5,
                )
        axis.axhline(0, color="black", linewidth=0.6)
        long = max((len(str(group)) for group in groups), default=0) > 8
        axis.set_xticks(
            places,
            [str(group) for group in groups],
            rotation=30 if long else 0,
            ha="right" if long else "center",
        )
        axis.grid(axis="x", visible=False)
        axis.set_ylabel(ylabel or y)
        if title:
            axis.set_title(title)
        if series is not None:
            axis.legend()
        figure.tight_layout()
        return figure
