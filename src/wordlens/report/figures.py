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
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib.style
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from wordlens import results

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


def as_figure(image: bytes | Figure, title: str, caption: str = "") -> results.Figure:
    """A report's figure: a PNG, or a matplotlib figure kept as its drawing (so that it is also
    written as SVG and PDF) and saved as PNG once; ``title`` is its alt text, ``caption`` says
    what is plotted (default: the title)."""
    if isinstance(image, bytes):
        return results.Figure(title, image, caption)
    return results.Figure(title, figure_bytes(image), caption, image, partial(figure_bytes, image))


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
    significant
        Column of booleans marking each point: filled markers where true, open ones where not
        (NaN: not tested), with legend entries saying so (:data:`ALPHA`); None: every marker
        filled.
    """

    title: str
    data: pd.DataFrame
    x: str
    y: str
    series: str | None = None
    band: tuple[str, str] | None = None
    xlabel: str | None = None
    ylabel: str | None = None
    significant: str | None = None


ALPHA = 0.05
"""The p below which a point of a panel with a ``significant`` column is drawn filled (the
legend says so)."""


def more_association_label(name: str, more_bias: str) -> str:
    """An association metric's axis label: its name, and which way means more association
    (``more_bias``: ``larger``, ``smaller`` or ``farther from 0``)."""
    way = {"larger": "↑ higher", "smaller": "↓ lower"}.get(more_bias, "farther from 0")
    return f"{name}\n({way}: more association)"


def line_figure(panels: Sequence[Panel], *, columns: int = 2, title: str = "") -> Figure:
    """Draw panels of curves (markers on each point, shaded bands) in the paper style: one
    column wide for a single panel, two columns wide otherwise."""
    with paper_style():
        return _line_figure(panels, columns=columns, title=title)


def _line_figure(panels: Sequence[Panel], *, columns: int, title: str) -> Figure:
    rows = max(1, -(-len(panels) // columns))
    width = min(columns, len(panels))
    inches = ONE_COLUMN if width == 1 else TWO_COLUMN
    height = (2.4 if width == 1 else 2.2 if width <= 3 else 1.8) * rows
    figure = Figure(figsize=(inches, height), layout="constrained")
    axes = figure.subplots(rows, width, squeeze=False)
    title_width = max(14, int(inches / width * _TITLE_CHARS_PER_INCH))
    colours = _series_colours(panels)
    marked = False
    for axis, panel in zip(axes.flat, panels, strict=False):
        groups = (
            panel.data.groupby(panel.series, sort=False) if panel.series else [("", panel.data)]
        )
        for label, rows_of in groups:
            ordered = rows_of.sort_values(panel.x)
            colour = colours.get(str(label), "C0")
            axis.plot(ordered[panel.x], ordered[panel.y], color=colour, label=str(label))
            filled: Any = colour
            if panel.significant is not None:
                marked = True
                flags = ordered[panel.significant].astype("boolean").fillna(False)
                filled = [colour if bool(flag) else "white" for flag in flags]
            axis.scatter(ordered[panel.x], ordered[panel.y], s=12, facecolors=filled,
                         edgecolors=colour, linewidths=0.8, zorder=3)  # fmt: skip
            if panel.band is not None:
                axis.fill_between(
                    ordered[panel.x],
                    ordered[panel.band[0]],
                    ordered[panel.band[1]],
                    color=colour,
                    alpha=0.15,
                    linewidth=0,
                )
        axis.set_title(textwrap.fill(panel.title, title_width))
        axis.set_xlabel(panel.xlabel or panel.x)
        axis.set_ylabel(panel.ylabel or panel.y)
        if _whole_numbers(panel.data[panel.x]):  # layers, k: no tick at 2.5
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    for axis in list(axes.flat)[len(panels) :]:
        axis.set_visible(False)
    _legend(figure, colours if any(panel.series for panel in panels) else {}, marked)
    if title:
        figure.suptitle(title)
    return figure


def _series_colours(panels: Sequence[Panel]) -> dict[str, str]:
    """One colour per series name across all the panels (first appearance order), so that one
    legend names them all."""
    names: dict[str, None] = {}
    for panel in panels:
        if panel.series:
            names.update(dict.fromkeys(str(name) for name in panel.data[panel.series]))
    return {name: f"C{index % 8}" for index, name in enumerate(names)}


_TITLE_CHARS_PER_INCH = 17
"""About how many characters of the style's title font fit in an inch: panel titles wrap there."""


def _whole_numbers(values: pd.Series) -> bool:
    numbers = pd.to_numeric(values, errors="coerce")
    return bool(numbers.notna().all() and (numbers % 1 == 0).all())


def _legend(figure: Figure, colours: dict[str, str], marked: bool) -> None:
    """One legend below the panels, outside them (it never covers a band): each series'
    colour, then, where points are marked (``marked``), what filled and open markers mean."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color=colour, marker="o", markersize=3) for colour in colours.values()
    ]
    labels = list(colours)
    if marked:
        for face, text in (("0.3", f"p < {ALPHA}"), ("white", f"p ≥ {ALPHA} (or none)")):
            handles.append(Line2D([], [], linestyle="none", marker="o", markersize=3.5,
                                  markerfacecolor=face, markeredgecolor="0.3"))  # fmt: skip
            labels.append(text)
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4))


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
    its false rows are drawn as open bars. One column wide for up to 12 bars, else two.

    Categories named in more than :data:`_LONGEST_TICK` characters (WEAT's test titles) are
    drawn as horizontal bars, the first at the top, their names written out beside them; the
    value axis is then horizontal (``ylabel`` labels it)."""
    import numpy as np

    groups = list(dict.fromkeys(data[x]))
    names: list[object] = list(dict.fromkeys(data[series])) if series else [None]
    longest = max((len(str(group)) for group in groups), default=0)
    across = longest > _LONGEST_TICK
    with paper_style():
        width = 0.8 / len(names)
        inches = ONE_COLUMN if len(groups) * len(names) <= 12 else TWO_COLUMN
        if across and longest > _WRAP_TICK:  # long names wrap, beside bars as wide as a page
            inches = TWO_COLUMN
        lines = max((_wrapped(str(group)).count("\n") + 1 for group in groups), default=1)
        slot = max(0.2 * len(names), 0.11 * lines + 0.06)  # each category's height, inches
        height = 0.9 + slot * len(groups) if across else 2.6
        figure = Figure(figsize=(inches, height), layout="constrained")
        axis = figure.subplots()
        places = np.arange(len(groups), dtype=float)
        for index, name in enumerate(names):
            rows = data if series is None else data[data[series] == name]
            rows = rows.set_index(x).reindex(groups)
            values = rows[y].to_numpy(dtype=float)
            color = f"C{index}"
            faces = (
                [color if bool(flag) else "white" for flag in rows[significant].fillna(False)]
                if significant is not None
                else color
            )
            at = places + (index - (len(names) - 1) / 2) * width
            draw = axis.barh if across else axis.bar
            draw(
                at,
                values,
                width,
                color=faces,
                edgecolor=color,
                linewidth=0.8,
                label=None if name is None else str(name),
            )
            if band is not None:
                low = rows[band[0]].to_numpy(dtype=float)
                high = rows[band[1]].to_numpy(dtype=float)
                spread = [values - low, high - values]
                axis.errorbar(
                    values if across else at,
                    at if across else values,
                    xerr=spread if across else None,
                    yerr=None if across else spread,
                    fmt="none",
                    ecolor="black",
                    elinewidth=0.6,
                    capsize=1.5,
                )
        labels = [_wrapped(str(group)) if across else str(group) for group in groups]
        if across:
            axis.axvline(0, color="black", linewidth=0.6)
            axis.set_yticks(places, labels)
            axis.invert_yaxis()  # the first category at the top, as in the table
            axis.grid(axis="y", visible=False)
            axis.set_xlabel(ylabel or y)
        else:
            axis.axhline(0, color="black", linewidth=0.6)
            tilted = max(map(len, labels), default=0) > 8
            axis.set_xticks(
                places, labels, rotation=30 if tilted else 0, ha="right" if tilted else "center"
            )
            axis.grid(axis="x", visible=False)
            axis.set_ylabel(ylabel or y)
        if title:
            axis.set_title(title)
        _bar_legend(figure, names, significant is not None)
    return figure


def _bar_legend(figure: Figure, names: Sequence[object], marked: bool) -> None:
    """The bars' legend below the axes (never over a bar or an error bar): the series, then,
    where bars are marked, what filled and open bars mean."""
    from matplotlib.patches import Patch

    handles: list[Any] = []
    labels: list[str] = []
    if names != [None]:
        handles += [Patch(facecolor=f"C{index}") for index in range(len(names))]
        labels += [str(name) for name in names]
    if marked:
        handles += [
            Patch(facecolor="0.3", edgecolor="0.3"),
            Patch(facecolor="white", edgecolor="0.3"),
        ]
        labels += [f"p < {ALPHA}", f"p ≥ {ALPHA} (or none)"]
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4))


def _wrapped(name: str) -> str:
    """A category's name wrapped at :data:`_WRAP_TICK` characters."""
    return textwrap.fill(name, _WRAP_TICK)


_WRAP_TICK = 60
"""Longer category names of horizontal bars are wrapped onto lines this long."""


_LONGEST_TICK = 12
"""Longer category names turn :func:`bar_figure` horizontal: rotated, they took more room than
the bars (WEAT's ten test titles left a plot a fifth of the figure's height)."""
