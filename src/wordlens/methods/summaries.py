"""Helpers the methods' summaries share: tidy per-layer curves and the best layer.

Curves are tidy: ``layer``, ``depth`` (layer / top layer, 0..1, NaN for one-layer models, so
models of different depth can share an axis), ``metric``, ``value``, and the run's interval of
the value, ``low`` and ``high`` (NaN where the method gives none).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

CURVE_COLUMNS = ("layer", "depth", "metric", "value", "low", "high")


def identifier(text: object) -> str:
    """``'CrowS-Pairs'`` → ``'crows_pairs'``: a lower-case identifier for headline names."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def curves(series: pd.DataFrame, n_layers: int | None) -> pd.DataFrame:
    """Add ``depth`` = layer / (n_layers - 1) to tidy ``layer``, ``metric``, ``value`` rows.

    Parameters
    ----------
    series
        Rows with ``layer``, ``metric``, ``value`` (and ``low``, ``high``: NaN when absent).
    n_layers
        Hidden states of the model (embeddings included); depth is NaN when unknown or 1.
    """
    top = (n_layers or 1) - 1
    depth = series["layer"] / top if top > 0 else np.nan
    bounds = {name: series[name].astype(float) if name in series else np.nan for name in BOUNDS}
    frame = series.assign(depth=depth, value=series["value"].astype(float), **bounds)
    return frame[list(CURVE_COLUMNS)].reset_index(drop=True)


BOUNDS = ("low", "high")
"""The curve columns of a value's interval."""


def series(
    rows: pd.DataFrame, value: str, metric: str, interval: tuple[str, str] | None = None
) -> pd.DataFrame:
    """``rows``' ``layer`` and ``value`` columns as tidy curve rows named ``metric``, with the
    ``interval`` columns (low, high) as ``low`` and ``high`` when given."""
    columns = {"layer": rows["layer"].astype(int), "metric": metric, "value": rows[value]}
    if interval is not None:
        columns.update(zip(BOUNDS, (rows[interval[0]], rows[interval[1]]), strict=True))
    return pd.DataFrame(columns).sort_values("layer")


def n_layers(metadata: Mapping[str, Any]) -> int | None:
    """Hidden states of the run's model (``metadata["model"]["n_layers"]``), if known."""
    model = metadata.get("model")
    return int(model["n_layers"]) if isinstance(model, Mapping) else None


def best(rows: pd.DataFrame, value: str) -> tuple[float, float]:
    """(highest ``value``, its layer), NaN ignored (ties: the first row); NaN, NaN when every
    value is NaN."""
    values = rows[value].to_numpy(dtype=float)
    if np.isnan(values).all():
        return np.nan, np.nan
    index = int(np.nanargmax(values))
    return float(values[index]), float(rows["layer"].to_numpy()[index])


def top_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of each representation's top layer (of the top layer when there is no
    ``representation`` column)."""
    if "representation" not in table:
        top = table["layer"] == table["layer"].max()
    else:
        top = table["layer"] == table.groupby("representation")["layer"].transform("max")
    rows: pd.DataFrame = table[top]
    return rows
