"""The WEAT report's figure: effect size d by layer per test (static models: one bar per test).

The run has no confidence interval of d; its one-sided permutation p marks each point instead:
filled markers (bars) where p < :data:`ALPHA`, open ones where not (or where p is NaN).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from wordlens.report.figures import ONE_COLUMN, TWO_COLUMN, bar_figure, paper_style

ALPHA = 0.05
"""The one-sided p below which a layer's (or a static model's) effect size is marked."""


def label_of(test: object, title: object) -> str:
    """A test's legend entry or tick label: ``WEAT 6: career vs family`` (the title's part
    before its first comma)."""
    return f"WEAT {test}: {str(title).split(',')[0]}"


def weat_figure(table: pd.DataFrame, model: str) -> tuple[Figure, str, str]:
    """The figure of a WEAT run's table, its short title and its caption: effect size by layer
    with one line per test, or bars of d per test when the model has one layer."""
    marked = table.assign(
        significant=table["p_one_sided"].lt(ALPHA),
        label=[label_of(t, title) for t, title in zip(table["test"], table["title"], strict=True)],
    )
    partitions = _partitions(table)
    if table["layer"].nunique() <= 1:
        figure = bar_figure(marked, "label", "effect_size", significant="significant",
                            ylabel="effect size d")  # fmt: skip
        caption = (
            f"WEAT effect size d (Cohen's d) per test on {model} (static vectors, one layer). "
            f"Filled bars: one-sided permutation p < {ALPHA} ({partitions}); open bars: "
            f"p ≥ {ALPHA}. The run computes no confidence interval of d."
        )
        return figure, "WEAT effect size per test", caption
    caption = (
        f"WEAT effect size d (Cohen's d) by layer on {model}, one line per test. Filled "
        f"markers: one-sided permutation p < {ALPHA} at that layer ({partitions}); open "
        f"markers: p ≥ {ALPHA}. The run computes no confidence interval of d."
    )
    return _by_layer(marked), "WEAT effect size by layer", caption


def _partitions(table: pd.DataFrame) -> str:
    counts = sorted({int(n) for n in table["n_partitions"].dropna()})
    if not counts:
        return "no permutations"
    shown = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,}"
    return f"{shown} partitions"


def _by_layer(marked: pd.DataFrame) -> Figure:
    labels = list(dict.fromkeys(marked["label"]))
    with paper_style():
        wide = len(labels) > 4
        figure = Figure(figsize=(TWO_COLUMN if wide else ONE_COLUMN, 2.8))
        axis = figure.subplots()
        for index, label in enumerate(labels):
            rows = marked[marked["label"] == label].sort_values("layer")
            color = f"C{index % 8}"
            style = "-" if index < 8 else "--"
            axis.plot(rows["layer"], rows["effect_size"], style, color=color, label=label)
            faces = np.where(rows["significant"], color, "white")
            axis.scatter(rows["layer"], rows["effect_size"], s=14, facecolors=faces,
                         edgecolors=color, linewidths=0.8, zorder=3)  # fmt: skip
        axis.axhline(0, color="black", linewidth=0.6)
        axis.set_xlabel("layer")
        axis.set_ylabel("effect size d")
        if wide:
            axis.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        else:  # above the axes, clear of the lines
            axis.legend(loc="lower left", bbox_to_anchor=(0, 1.01), borderaxespad=0)
        figure.tight_layout()
        return figure
