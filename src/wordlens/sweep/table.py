"""The sweep's tables: every checkpoint's headline numbers and per-layer curves in one tidy table,
and one row per checkpoint with how its run went.

The tidy table has a row per (checkpoint, quantity, layer): ``revision``, ``step``, ``layer``
(<NA> for a headline number without a layer), ``depth``, ``quantity`` (a curve metric of the
method's :class:`~wordlens.methods.base.Summary`, such as ``vast_r`` or ``weat1_d``, or a headline
number such as ``vast_best_r`` or ``aul_crows_pairs``), ``value`` and the run's interval of it,
``low`` and ``high`` (NaN where the method gives none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wordlens.methods.base import Summary
from wordlens.models.revisions import Checkpoint
from wordlens.study.records import CellRecord

TABLE_COLUMNS = ("revision", "step", "layer", "depth", "quantity", "value", "low", "high")
"""The tidy table's columns."""

REVISION_COLUMNS = (
    "revision",
    "step",
    "status",
    "seconds",
    "peak_memory_mib",
    "peak_gpu_memory_mib",
    "out_dir",
    "error",
)
"""The columns of the table of checkpoints."""


def sweep_table(points: Sequence[Checkpoint], summaries: Mapping[str, Summary]) -> pd.DataFrame:
    """The tidy table of the checkpoints that ran (see the module notes).

    Parameters
    ----------
    points
        The sweep's checkpoints, in training order.
    summaries
        Checkpoint name → its run's summary (checkpoints that failed are absent).

    Returns
    -------
    pandas.DataFrame
        :data:`TABLE_COLUMNS`, ordered by checkpoint (training order), quantity (in the order
        the method's summary gives them: its curves, then its headline numbers) and layer.
    """
    frames = [_rows(point, summaries[point.name]) for point in points if point.name in summaries]
    if not frames:
        return _typed(pd.DataFrame({column: [] for column in TABLE_COLUMNS}))
    table = pd.concat(frames, ignore_index=True)
    order = {point.name: index for index, point in enumerate(points)}
    quantities = {name: index for index, name in enumerate(dict.fromkeys(table["quantity"]))}
    table = table.assign(
        _order=table["revision"].map(order), _quantity=table["quantity"].map(quantities)
    ).sort_values(["_order", "_quantity", "layer"], kind="stable")
    return _typed(table.drop(columns=["_order", "_quantity"]).reset_index(drop=True))


def sweep_definitions(summaries: Mapping[str, Summary]) -> dict[str, str]:
    """What each quantity of the table measures (the runs' definitions, the last run's wording
    where they differ)."""
    definitions: dict[str, str] = {}
    for summary in summaries.values():
        definitions.update(summary.definitions)
    return definitions


def revisions_table(
    points: Sequence[Checkpoint], records: Sequence[CellRecord], out_dirs: Sequence[str]
) -> pd.DataFrame:
    """One row per checkpoint: its step, whether it ran, its time and peak memory, and its run
    directory (``out_dirs``, relative to the sweep's directory) (:data:`REVISION_COLUMNS`)."""
    rows = [
        {
            "revision": point.name,
            "step": point.step,
            "status": record.status,
            "seconds": record.seconds,
            "peak_memory_mib": record.peak_memory_mib,
            "peak_gpu_memory_mib": record.peak_gpu_memory_mib,
            "out_dir": out_dir,
            "error": record.error,
        }
        for point, record, out_dir in zip(points, records, out_dirs, strict=True)
    ]
    table = pd.DataFrame(rows, columns=list(REVISION_COLUMNS))
    floats = ["seconds", "peak_memory_mib", "peak_gpu_memory_mib"]
    return table.astype({"step": "Int64", **dict.fromkeys(floats, float)})


def _rows(point: Checkpoint, summary: Summary) -> pd.DataFrame:
    """One checkpoint's curves and headline numbers as tidy rows."""
    headline = pd.DataFrame(
        {
            "quantity": list(summary.headline),
            "value": [float(value) for value in summary.headline.values()],
            "layer": pd.array([pd.NA] * len(summary.headline), dtype="Int64"),
            "depth": np.nan,
            "low": np.nan,
            "high": np.nan,
        }
    )
    parts = [headline]
    if summary.curves is not None:
        parts.insert(0, summary.curves.rename(columns={"metric": "quantity"}))
    rows = pd.concat([part for part in parts if len(part)], ignore_index=True)
    return rows.assign(revision=point.name, step=point.step)


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    """The table's columns in order, with their types (``step`` and ``layer`` nullable ints)."""
    floats = dict.fromkeys(("depth", "value", "low", "high"), float)
    typed = table[list(TABLE_COLUMNS)].astype(
        {"revision": str, "quantity": str, "step": "Int64", "layer": "Int64", **floats}
    )
    return typed.reset_index(drop=True)
