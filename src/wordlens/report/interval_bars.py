"""Grouped bars with confidence intervals (e.g. a bias score per category and scoring method).

As :mod:`wordlens.report.figures`, figures are drawn without pyplot, in the paper style, and come
back as :class:`matplotlib.figure.Figure` objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from wordlens.report.figures import ONE_COLUMN, TWO_COLUMN, paper_style


@dataclass(frozen=True)
class IntervalBars:
    """What :func:`interval_bars` draws.

    Attributes
    ----------
    data
        Tidy rows: one per category and series.
    category
        Column of the x groups (tick labels), in first-appearance order.
    series
        Column of the bars within a group (legend), in first-appearance order.
    value, low, high
        Columns of the bar height and of its interval (NaN: no error bar).
    title, ylabel
        Figure title and vertical axis label.
    limits
        ``(bottom, top)`` of the vertical axis, or None to fit the data.
    reference
        Height of a horizontal reference line (e.g. 0 = no bias), or None.
    """

    data: pd.DataFrame
    category: str
    series: str
    value: str
    low: str
    high: str
    title: str = ""
    ylabel: str = ""
    limits: tuple[float, float] | None = None
    reference: float | None = 0.0


def interval_bars(spec: IntervalBars) -> Figure:
    """Bars of `value` per category and series with ``[low, high]`` error bars, one column wide
    for up to 12 bars, else two."""
    with paper_style():
        categories = list(dict.fromkeys(spec.data[spec.category].astype(str)))
        series = list(dict.fromkeys(spec.data[spec.series].astype(str)))
        bars = len(categories) * len(series)
        figure = Figure(figsize=(ONE_COLUMN if bars <= 12 else TWO_COLUMN, 2.8))
        axis = figure.subplots()
        position = {name: index for index, name in enumerate(categories)}
        width = 0.8 / max(1, len(series))
        for index, name in enumerate(series):
            rows = spec.data[spec.data[spec.series].astype(str) == name]
            heights = rows[spec.value].to_numpy(dtype=float)
            errors = np.vstack(
                [
                    heights - rows[spec.low].to_numpy(dtype=float),
                    rows[spec.high].to_numpy(dtype=float) - heights,
                ]
            )
            offset = (index - (len(series) - 1) / 2) * width
            x = rows[spec.category].astype(str).map(position).to_numpy(dtype=float) + offset
            axis.bar(x, heights, width, yerr=np.nan_to_num(errors), capsize=1.5, label=name)
        if spec.reference is not None:
            axis.axhline(spec.reference, color="#444", linewidth=0.8)
        if spec.limits is not None:
            axis.set_ylim(*spec.limits)
        axis.set_xticks(np.arange(len(categories)), categories, rotation=30, ha="right")
        axis.set_ylabel(spec.ylabel)
        axis.set_title(spec.title)
        axis.grid(axis="x", visible=False)
        axis.legend()
        figure.tight_layout()
    return figure
