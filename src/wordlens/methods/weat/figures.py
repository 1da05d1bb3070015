"""The WEAT report's figure: effect size d by layer per test (static models: one bar per test).

The run has no confidence interval of d; its one-sided permutation p marks each point instead:
filled markers (bars) where p < :data:`ALPHA`, open ones where not (or where p is NaN).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from wordlens.report.figures import ONE_COLUMN, TWO_COLUMN, bar_figure, paper_style

ALPHA = 0.05
"""The one-sided p below which a layer's (or a static model's) effect size is marked."""


def label_of(test: object, title: object) -> str:
    """A test's short label: ``WEAT 6: Male vs. female names`` (the title's part before its
    first comma). Two tests may share it (WEAT 4 and 5): :func:`test_labels` tells them apart."""
    return f"WEAT {test}: {str(title).split(',')[0]}"


def test_labels(
    titles: Mapping[object, object], query: Mapping[str, Any] | None = None
) -> dict[object, str]:
    """Test → its label in a figure: the short label (:func:`label_of`), or, where two tests
    share it (WEAT 4 and 5: the same names, 5 with Nosek et al.'s pleasant and unpleasant
    words), the whole title; a query's test (``query``, the run's ``metadata["query"]``) is
    named by its sets, ``title: X vs. Y × A vs. B``."""
    short = {test: str(title).split(",")[0] for test, title in titles.items()}
    shared = {label for label in short.values() if list(short.values()).count(label) > 1}
    labels = {
        test: f"WEAT {test}: {titles[test] if label in shared else label}"
        for test, label in short.items()
    }
    if query is not None and query.get("test") in labels:
        (x, y), (a, b) = list(query["targets"]), list(query["attributes"])
        sets = f"{x} vs. {y} × {a} vs. {b}"
        title = str(query["title"])
        labels[query["test"]] = sets if title.lower() in sets.lower() else f"{title}: {sets}"
    return labels


def weat_figure(
    table: pd.DataFrame, model: str, query: Mapping[str, Any] | None = None
) -> tuple[Figure, str, str]:
    """The figure of a WEAT run's table, its short title and its caption: effect size by layer
    with one line per test, or bars of d per test when the model has one layer; ``query`` (the
    run's ``metadata["query"]``) names a query's test by its sets."""
    labels = test_labels(dict(zip(table["test"], table["title"], strict=False)), query)
    marked = table.assign(
        significant=table["p_one_sided"].lt(ALPHA), label=table["test"].map(labels)
    )
    partitions = _partitions(table)
    if table["layer"].nunique() <= 1:
        figure = bar_figure(marked, "label", "effect_size", significant="significant",
                            ylabel=_D_AXIS)  # fmt: skip
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


_D_AXIS = "effect size d\n(> 0: X with A, Y with B)"
"""The effect size axis: which sign means the test's expected association."""


def _partitions(table: pd.DataFrame) -> str:
    counts = sorted({int(n) for n in table["n_partitions"].dropna()})
    if not counts:
        return "no permutations"
    shown = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,}"
    return f"{shown} partitions"


def _by_layer(marked: pd.DataFrame) -> Figure:
    from matplotlib.lines import Line2D

    labels = list(dict.fromkeys(marked["label"]))
    with paper_style():
        wide = len(labels) > 4 or max(map(len, labels), default=0) > 40
        figure = Figure(figsize=(TWO_COLUMN if wide else ONE_COLUMN, 2.8), layout="constrained")
        axis = figure.subplots()
        handles: list[Any] = []
        for index, label in enumerate(labels):
            rows = marked[marked["label"] == label].sort_values("layer")
            color = f"C{index % 8}"
            style = "-" if index < 8 else "--"
            (line,) = axis.plot(rows["layer"], rows["effect_size"], style, color=color,
                                label=label)  # fmt: skip
            handles.append(line)
            faces = np.where(rows["significant"], color, "white")
            axis.scatter(rows["layer"], rows["effect_size"], s=14, facecolors=faces,
                         edgecolors=color, linewidths=0.8, zorder=3)  # fmt: skip
        axis.axhline(0, color="black", linewidth=0.6)
        axis.set_xlabel("layer")
        axis.set_ylabel(_D_AXIS)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        names = [textwrap.fill(label, 44) for label in labels]
        for face, text in (("0.3", f"p < {ALPHA}"), ("white", f"p ≥ {ALPHA}")):
            handles.append(Line2D([], [], linestyle="none", marker="o", markersize=3.5,
                                  markerfacecolor=face, markeredgecolor="0.3"))  # fmt: skip
            names.append(text)
        # outside the axes, clear of the lines: beside them when wide, else below
        if wide:
            figure.legend(handles, names, loc="outside right upper", ncols=1)
        else:
            figure.legend(handles, names, loc="outside lower center", ncols=2)
        return figure
