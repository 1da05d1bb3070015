"""The figure of an association metric's run: its value by layer, one line per part, with the
bootstrap interval as a band; a one-layer (static) model gets bars. The value axis names the
metric and which way means more association; points (bars) with permutation p < 0.05 are filled,
the others open."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from wordlens.report.figures import ALPHA, Panel, bar_figure, line_figure, more_association_label


def marked(table: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """``table`` with a ``significant`` column (p < :data:`ALPHA`) and that column's name, or
    ``table`` and None where no row has a p-value (nothing to mark)."""
    if "p_value" not in table or not table["p_value"].notna().any():
        return table, None
    return table.assign(significant=table["p_value"].lt(ALPHA)), "significant"


def scores_figure(table: pd.DataFrame, title: str, more_bias: str) -> tuple[Figure, str]:
    """The figure of ``table`` (:meth:`AssociationMethod.table` rows) and its caption."""
    banded = table["ci_low"].notna().any()
    band = ("ci_low", "ci_high") if banded else None
    what = f"{title} ({more_bias}: more association)"
    interval = "; shaded: bootstrap interval" if banded else ""
    shown, significant = marked(table)
    ylabel = more_association_label(title, more_bias)
    if table["layer"].nunique() <= 1:
        figure = bar_figure(
            shown, "part", "value", band=band, significant=significant, ylabel=ylabel
        )
        fills = f"; filled bars: permutation p < {ALPHA}, open: p ≥ {ALPHA}" if significant else ""
        return figure, f"{what} per part of the query{interval.replace('shaded', 'bars')}{fills}."
    panel = Panel(
        title,
        shown,
        "layer",
        "value",
        series="part",
        band=band,
        xlabel="layer",
        ylabel=ylabel,
        significant=significant,
    )
    fills = f"; filled markers: permutation p < {ALPHA}, open: p ≥ {ALPHA}" if significant else ""
    return line_figure([panel], columns=1), f"{what} by layer, one line per part{interval}{fills}."
