"""Grouped bars with confidence intervals (e.g. a bias score per category and scoring method).

As :mod:`wordlens.report.figures`, figures are drawn without pyplot and come back as PNG bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure


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


def interval_bars(spec: IntervalBars) -> bytes:
    """Bars of `value` per category and series with ``[low, high]`` error bars (PNG)."""
    categories = list(dict.fromkeys(spec.data[spec.category].astype(str)))
    series = list(dict.fromkeys(spec.data[spec.series].astype(str)))
    figure = Figure(figsize=(max(6.0, 0.45 * len(categories) * len(series) + 2.5), 4.4))
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
        axis.bar(x, heights, width, yerr=np.nan_to_num(errors), capsize=3, label=name)
    if spec.reference is not None:
        axis.axhline(spec.reference, color="#444", linewidth=0.8)
    if spec.limits is not None:
        axis.set_ylim(*spec.limits)
    axis.set_xticks(np.arange(len(categories)), categories, rotation=30, ha="right")
    axis.set_ylabel(spec.ylabel)
    axis.set_title(spec.title, fontsize=10)
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
