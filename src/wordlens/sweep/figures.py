"""Figures of a sweep across training checkpoints, from its tidy table (columns ``revision``,
``step``, ``layer``, ``depth``, ``quantity``, ``value``, ``low``, ``high``; one row per
revision, quantity and layer, ``layer`` <NA> for a quantity without layers).

A layered quantity is drawn as a heat map (:func:`heat_map`: layer by training step, one cell per
checkpoint's run) and as curves over training (:func:`step_lines`: one line per layer); a scalar
quantity as one curve. Training steps run along the x axis in step order; where a revision's step
is unknown the revisions are placed in the table's order and named.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from wordlens import results
from wordlens.report.figures import ONE_COLUMN, TWO_COLUMN, as_figure, paper_style

MOST_TICKS = 12
"""At most this many tick labels along an axis of revisions or layers: more are thinned to every
k-th (154 Pythia checkpoints would overlap)."""

_NO_VALUE = "0.85"
"""The colour (light grey) of a heat map's cell without a value."""


def heat_map(table: pd.DataFrame, quantity: str, definition: str = "") -> results.Figure:
    """The layered ``quantity`` of the sweep ``table`` as a heat map: layer up (layer 0 at the
    bottom), training step across (one column per revision, in step order), colour the value.

    A signed quantity (an effect size, a correlation: :func:`is_signed`) is coloured on a
    diverging scale centred at 0 (symmetric limits) whatever the signs of its values, an
    unsigned one (an F1, a distance, a layer) on a sequential one; cells without a value are
    light grey.

    Parameters
    ----------
    table
        The sweep's tidy table.
    quantity
        A layered quantity of it.
    definition
        What the quantity measures, for the caption (default: its name only).

    Returns
    -------
    wordlens.results.Figure
        The figure; its drawing's image holds the ``(layers, revisions)`` values.
    """
    rows = table[table["quantity"] == quantity]
    names, labels = _revisions(rows)
    grid = rows.pivot(index="layer", columns="revision", values="value").sort_index()
    grid = grid.reindex(columns=names)
    values = grid.to_numpy(dtype=float)  # (layers, revisions)
    layers = [str(int(layer)) for layer in grid.index]
    signed = is_signed(quantity, values)
    limit = float(np.nanmax(np.abs(values), initial=0.0)) if signed else None
    palette = colormaps["RdBu_r" if signed else "viridis"].with_extremes(bad=_NO_VALUE)
    name = display_name(quantity, definition)
    title = f"{_short(name)} by layer and training step"
    with paper_style():
        figure, axis = _one_panel(len(names), 2.8)
        image = axis.imshow(
            np.ma.masked_invalid(values),
            cmap=palette,
            vmin=None if limit is None else -limit,
            vmax=limit,
            origin="lower",
            aspect="auto",
            interpolation="nearest",
        )
        figure.colorbar(image, ax=axis, label=_axis_name(name))
        _label_ticks(axis, "x", labels)
        _label_ticks(axis, "y", layers)
        axis.grid(visible=False)
        axis.set_xlabel(_step_axis(rows))
        axis.set_ylabel("layer")
        axis.set_title(_wrapped(title, 60))
    blank = "; grey cells: no value" if np.isnan(values).any() else ""
    centred = "; colour centred at 0 (red > 0, blue < 0)" if signed else ""
    caption = (
        f"{name} by layer (layer 0 at the bottom) and training step: each cell is one "
        f"checkpoint's run, the columns in step order (not to scale){centred}{blank}"
        f"{_key(quantity, name)}."
    )
    return as_figure(figure, title, caption)


def step_lines(table: pd.DataFrame, quantity: str, definition: str = "") -> results.Figure:
    """``quantity`` of the sweep ``table`` across training steps: one line per layer, coloured
    along a sequential colour map (a colour bar names the layers), or a single line for a
    quantity without layers; shaded, the run's interval where it has one (over more than
    :data:`_FILLED_BANDS` layers, its edges dotted).

    The x axis is the training step; where a revision's step is unknown, the revisions in the
    table's order, named.

    Parameters
    ----------
    table
        The sweep's tidy table.
    quantity
        A quantity of it, layered or not.
    definition
        What the quantity measures, for the caption (default: its name only).

    Returns
    -------
    wordlens.results.Figure
        The figure; its drawing's lines are labelled ``layer <n>`` (``quantity`` when it has no
        layers), each with ``x`` the steps (or revision positions) and ``y`` the values.
    """
    rows = table[table["quantity"] == quantity]
    names, _ = _revisions(rows)
    name = display_name(quantity, definition)
    title = f"{_short(name)} across training steps"
    with paper_style():
        figure, axis = _one_panel(len(names), 2.6)
        banded = _lines(figure, axis, rows, quantity, name)
        axis.set_title(_wrapped(title, 60))
    several = rows["layer"].dropna().nunique() > 1
    lines = "one line per layer (colour: layer)" if several else "one point per checkpoint"
    dotted = rows["layer"].dropna().nunique() > _FILLED_BANDS
    shaded = f"; {'dotted' if dotted else 'shaded'}: the run's interval" if banded else ""
    caption = f"{name} across training steps, {lines}{shaded}{_key(quantity, name)}."
    return as_figure(figure, title, caption)


def headline_lines(
    table: pd.DataFrame, quantities: Sequence[str], definitions: Mapping[str, str] | None = None
) -> results.Figure:
    """The layer-less ``quantities`` of the sweep ``table`` across training steps, one panel
    each (three to a row), shaded where a run gives an interval.

    Returns
    -------
    wordlens.results.Figure
        The figure; panel ``i`` (its drawing's ``axes[i]``) holds one line labelled
        ``quantities[i]`` (as :func:`step_lines`).
    """
    columns = min(3, len(quantities))
    rows_of_panels = math.ceil(len(quantities) / columns)
    title = "Headline numbers across training steps"
    banded = False
    with paper_style():
        figure = Figure(
            figsize=(ONE_COLUMN if columns == 1 else TWO_COLUMN, 2.2 * rows_of_panels),
            layout="constrained",
        )
        axes = figure.subplots(rows_of_panels, columns, squeeze=False).flat
        for axis, quantity in zip(axes, quantities, strict=False):
            name = display_name(quantity, (definitions or {}).get(quantity, ""))
            rows = table[table["quantity"] == quantity]
            banded |= _lines(figure, axis, rows, quantity, name)
            axis.set_title(_wrapped(name, 40 if columns > 1 else 60))
        for axis in list(axes)[len(quantities) :]:
            axis.set_visible(False)
    shaded = "; shaded: the run's interval" if banded else ""
    caption = (
        f"{', '.join(quantities)} across training steps, one point per checkpoint{shaded} "
        "(what each measures: the definitions below)."
    )
    return as_figure(figure, title, caption)


def _lines(figure: Figure, axis: Axes, rows: pd.DataFrame, quantity: str, name: str) -> bool:
    """Draw ``quantity``'s ``rows`` on ``axis`` (see :func:`step_lines`); whether an interval
    was shaded."""
    names, labels = _revisions(rows)
    known = bool(rows["step"].notna().all())
    place = (
        dict(zip(rows["revision"], rows["step"].astype(float), strict=False))
        if known
        else {name: float(index) for index, name in enumerate(names)}
    )
    numbered = sorted(int(layer) for layer in rows["layer"].dropna().unique())
    layers: list[int | None] = [*numbered] or [None]
    palette = colormaps["viridis"]
    scale = Normalize(min(numbered, default=0), max(numbered, default=0))
    banded = False
    for layer in layers:
        line = rows if layer is None else rows[rows["layer"] == layer]
        line = line.assign(x=line["revision"].map(place)).sort_values("x")
        x = line["x"].to_numpy(dtype=float)
        colour = "C0" if layer is None else palette(scale(layer))
        axis.plot(
            x,
            line["value"].to_numpy(dtype=float),
            color=colour,
            marker="o" if len(names) <= MOST_TICKS else None,
            markersize=2.5,
            linewidth=0.9,
            label=quantity if layer is None else f"layer {layer}",
        )
        low = line["low"].to_numpy(dtype=float)
        high = line["high"].to_numpy(dtype=float)
        present = ~(np.isnan(low) | np.isnan(high))
        if present.any():
            banded = True
            if len(layers) <= _FILLED_BANDS:
                axis.fill_between(x, low, high, where=present, color=colour, alpha=0.15, lw=0)
            else:  # many bands filled one another into one area: each one's edges, dotted
                for edge in (low, high):
                    axis.plot(x, np.where(present, edge, np.nan), color=colour, linestyle=":",
                              linewidth=0.6, label="_band")  # fmt: skip
    values = rows["value"].to_numpy(dtype=float)
    if np.nanmin(values, initial=0.0) < 0 < np.nanmax(values, initial=0.0):
        axis.axhline(0, color="black", linewidth=0.6)
    if known:
        axis.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        axis.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    else:
        _label_ticks(axis, "x", labels)
    if len(layers) > 1:
        bar = figure.colorbar(ScalarMappable(scale, palette), ax=axis, label="layer")
        bar.locator = MaxNLocator(integer=True)
        bar.update_ticks()
    elif numbered:
        axis.legend()
    axis.set_xlabel(_step_axis(rows))
    axis.set_ylabel(_axis_name(name))
    return banded


def _one_panel(revisions: int, height: float) -> tuple[Figure, Axes]:
    """A figure of one axis ``height`` inches high: one column wide for at most
    :data:`MOST_TICKS` revisions, two columns for more (call it inside :func:`paper_style`)."""
    figure = Figure(
        figsize=(ONE_COLUMN if revisions <= MOST_TICKS else TWO_COLUMN, height),
        layout="constrained",
    )
    return figure, figure.subplots()


_FILLED_BANDS = 3
"""Up to this many lines' intervals are shaded; more (the 7 layers of a small model) filled one
another into a single area, so each interval's edges are drawn instead, dotted in its line's
colour."""


def _revisions(rows: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The revisions of ``rows`` in step order (in the table's order where a step is unknown)
    and the label of each: its step, or its name where the step is unknown."""
    first = rows.drop_duplicates("revision")
    if first["step"].notna().all():
        first = first.sort_values("step", kind="stable")
    names = [str(name) for name in first["revision"]]
    labels = [
        str(name) if pd.isna(step) else f"{int(step):,}"
        for name, step in zip(first["revision"], first["step"], strict=True)
    ]
    return names, labels


def _label_ticks(axis: Axes, which: str, labels: list[str]) -> None:
    """Ticks at positions ``0 … len(labels) - 1`` of ``axis``'s ``which`` axis (``"x"`` or
    ``"y"``), labelled, thinned to every k-th so that at most :data:`MOST_TICKS` show."""
    every = max(1, math.ceil(len(labels) / MOST_TICKS))
    places = list(range(0, len(labels), every))
    shown = [labels[place] for place in places]
    if which == "y":
        axis.set_yticks(places, shown)
        return
    tilted = len(shown) > 4 and max(map(len, shown), default=0) > 5
    axis.set_xticks(places, shown, rotation=30 if tilted else 0, ha="right" if tilted else "center")


def _step_axis(rows: pd.DataFrame) -> str:
    """The label of the training axis: steps, or checkpoints where a step is unknown."""
    return "training step" if rows["step"].notna().all() else "checkpoint"


def display_name(quantity: str, definition: str = "") -> str:
    """A quantity's name for a reader: what it measures (its definition, less a closing ``by
    layer``: the figures say so), or the quantity itself where it has no definition."""
    meaning = definition.strip().rstrip(".")
    meaning = re.sub(r",? by layer$", "", meaning)
    return meaning or quantity


_UNSIGNED = re.compile(
    r"(^|_)(f1|f1_random|accuracy|best_layer|mac|rnsb|cam|aul|cpss|loss|seconds)(_|$)"
)
"""Quantities that are never negative by construction (scores, accuracies, distances, layers):
the only ones coloured on a sequential scale."""


def is_signed(quantity: str, values: npt.ArrayLike = ()) -> bool:
    """Whether ``quantity`` is signed (an effect size, a correlation, a projection, a
    difference): coloured on a diverging scale centred at 0 even where every value has one sign,
    so that a colour means the same in every figure. Unsigned: the quantities of
    :data:`_UNSIGNED`, unless a value is negative."""
    shown = np.asarray(values, dtype=float)
    if shown.size and np.nanmin(shown, initial=0.0) < 0:
        return True
    return not _UNSIGNED.search(quantity)


def _short(name: str) -> str:
    """``name`` without a long parenthesis (a WEAT test's title: ``WEAT 1: effect size d``), for
    a figure's title and axes (and so its file's name); the caption and heading keep it."""
    return re.sub(r" \((?:[^()]|\([^()]*\))*\)", _dropped_if_long, name)


def _axis_name(name: str) -> str:
    """``name`` short (:func:`_short`) and wrapped for an axis."""
    return _wrapped(_short(name), 30)


def _dropped_if_long(match: re.Match[str]) -> str:
    return "" if len(match.group(0)) > 24 else match.group(0)


def _wrapped(text: str, width: int) -> str:
    return textwrap.fill(text, width)


def _key(quantity: str, name: str) -> str:
    """The quantity's column value in sweep_table.csv, where the caption names it otherwise."""
    return "" if name == quantity else f" (quantity {quantity} of the sweep's table)"
