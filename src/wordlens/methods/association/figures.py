"""The figure of an association metric's run: its value by layer, one line per part, with the
bootstrap interval as a band; a one-layer (static) model gets bars."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from wordlens.report.figures import Panel, bar_figure, line_figure


def scores_figure(table: pd.DataFrame, title: str, more_bias: str) -> tuple[Figure, str]:
    """The figure of ``table`` (:meth:`AssociationMethod.table` rows) and its caption."""
    banded = table["ci_low"].notna().any()
    band = ("ci_low", "ci_high") if banded else None
    what = f"{title} ({more_bias}: more association)"
    interval = "; shaded: bootstrap interval" if banded else ""
    if table["layer"].nunique() <= 1:
        figure = bar_figure(table, "part", "value", band=band, ylabel=title)
        return figure, f"{what} per part of the query{interval.replace('shaded', 'bars')}."
    panel = Panel(
        title, table, "layer", "value", series="part", band=band, xlabel="layer", ylabel=title
    )
    return line_figure([panel], columns=1), f"{what} by layer, one line per part{interval}."
