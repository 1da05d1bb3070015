"""Matplotlib figures of bias tests: paired dots per test and grouped bars per category, and
the files of a report's figures (PNG, SVG and PDF).

As :mod:`wordlens.report.figures`, figures are drawn without pyplot, in the paper style and one
or two columns wide, and come back as :class:`matplotlib.figure.Figure` objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from wordlens._files import atomic_writer
from wordlens.errors import OutputError
from wordlens.report.figures import FORMATS, ONE_COLUMN, TWO_COLUMN, figure_bytes, paper_style

_FIRST_COLOR = "#7b2d8e"
_SECOND_COLOR = "#1f5fbf"


@dataclass(frozen=True)
class PairedDots:
    """Two values per row of a table, drawn as a connected pair of dots above one x position.

    Attributes
    ----------
    data
        One row per pair (e.g. per bias test).
    first_label, second_label
        Columns naming the two members (e.g. the categories ``first`` and ``second``).
    first_value, second_value
        Columns of their values (e.g. mean projections).
    name
        Column of the pair names shown as x tick labels (e.g. the bias), or None.
    title, ylabel
        Figure title and vertical axis label.
    """

    data: pd.DataFrame
    first_label: str
    second_label: str
    first_value: str
    second_value: str
    name: str | None = None
    title: str = ""
    ylabel: str = ""


def paired_dots(spec: PairedDots) -> Figure:
    """Draw each row's two values as dots joined by a line, labelled with their names.

    The member with the higher value is labelled above its dot, the other below, so labels do
    not overlap the connecting line (as Figure 3 of Omrani Sabbaghi et al. 2023).
    """
    data = spec.data
    with paper_style():
        figure = Figure(figsize=(_width(len(data)), 2.8))
        axis = figure.subplots()
        positions = np.arange(len(data))
        firsts = data[spec.first_value].to_numpy(dtype=float)
        seconds = data[spec.second_value].to_numpy(dtype=float)
        low, high = np.minimum(firsts, seconds), np.maximum(firsts, seconds)
        axis.vlines(positions, low, high, color="#6a6")
        axis.scatter(positions, firsts, s=16, color=_FIRST_COLOR, zorder=3, label="first category")
        axis.scatter(
            positions, seconds, s=16, color=_SECOND_COLOR, zorder=3, label="second category"
        )
        for x, (_, row) in zip(positions, data.iterrows(), strict=True):
            for label_column, value_column, other_column in (
                (spec.first_label, spec.first_value, spec.second_value),
                (spec.second_label, spec.second_value, spec.first_value),
            ):
                above = row[value_column] >= row[other_column]
                axis.annotate(
                    str(row[label_column]),
                    (float(x), float(row[value_column])),
                    xytext=(0, 5 if above else -5),
                    textcoords="offset points",
                    ha="center",
                    va="bottom" if above else "top",
                    fontsize=5,
                )
        names = [""] * len(data) if spec.name is None else list(data[spec.name].astype(str))
        axis.set_xticks(positions, names, rotation=30, ha="right")
        axis.margins(y=0.15)
        axis.set_ylabel(spec.ylabel)
        axis.set_title(spec.title)
        axis.grid(axis="x", visible=False)
        axis.legend()
        figure.tight_layout()
    return figure


def grouped_bars(
    data: pd.DataFrame,
    category: str,
    values: Mapping[str, str],
    *,
    title: str = "",
    ylabel: str = "",
) -> Figure:
    """Bars of several value columns side by side for each category.

    Parameters
    ----------
    data
        One row per category, in the order to draw.
    category
        Column of the category names (x tick labels).
    values
        Value column → legend label, one bar per column and category.
    title, ylabel
        Figure title and vertical axis label.
    """
    with paper_style():
        figure = Figure(figsize=(_width(len(data) * len(values)), 2.8))
        axis = figure.subplots()
        positions = np.arange(len(data))
        width = 0.8 / max(1, len(values))
        for index, (column, label) in enumerate(values.items()):
            offset = (index - (len(values) - 1) / 2) * width
            axis.bar(positions + offset, data[column].to_numpy(dtype=float), width, label=label)
        axis.set_xticks(positions, list(data[category].astype(str)), rotation=30, ha="right")
        axis.set_ylabel(ylabel)
        axis.set_title(title)
        axis.grid(axis="x", visible=False)
        axis.legend()
        figure.tight_layout()
    return figure


def _width(n_marks: int) -> float:
    """One column wide for up to 12 bars or dots, else two (as :func:`bar_figure`)."""
    return ONE_COLUMN if n_marks <= 12 else TWO_COLUMN


def write_figures(figures: Mapping[str, Figure], out_dir: Path) -> list[Path]:
    """Write each figure as ``<name>.png``, ``.svg`` and ``.pdf`` into ``out_dir`` (atomically,
    in the paper style); the paths written.

    Raises
    ------
    OutputError
        If a file cannot be written.
    """
    written = []
    for name, figure in figures.items():
        for fmt in FORMATS:
            path = out_dir / f"{name}.{fmt}"
            try:
                out_dir.mkdir(parents=True, exist_ok=True)
                with atomic_writer(path) as stream:
                    stream.write(figure_bytes(figure, fmt))
            except OSError as error:
                raise OutputError(f"cannot write figure {path}: {error}") from error
            written.append(path)
    return written
