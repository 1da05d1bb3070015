"""Headline numbers and per-layer curves of one study cell, read from the tables its method wrote.

Each method's ``write_*`` stores its tables as ``<prefix>_<table>.parquet`` (plus ``.csv`` and a
``.json`` of the run's metadata, :class:`wordlens.results.Result`) in the cell's directory;
:func:`summarize_cell` reads them back and picks the numbers a study compares across models:

``weat`` (Caliskan, Bryson & Narayanan 2017, ``weat.parquet``)
    Per test N: ``weatN_d_top``, the effect size (difference of the mean associations of X and
    Y with A vs. B, over their std across X ∪ Y) at the top layer, and ``weatN_d_max``, the
    effect size at the layer of largest |d| (sign kept). Curve ``weatN_d``: d by layer.
``vast`` (Wolfe & Caliskan 2022, ``vast_layers``)
    The paper's main series, as the run's own ``best_bleached_layer``: the first lexicon's
    valence, bleached setting, the single-pooling experiments' pooling (``last`` when run).
    ``vast_best_r``: the highest VAST score over layers (Pearson r of SC-WEAT association and
    human rating), ``vast_best_layer`` its layer, ``vast_top_r`` the top layer's. Curve ``vast_r``.
``likelihood-bias`` (Zhou, Kaneko & Bollegala 2022, ``likelihood_table3``)
    The Table 3 cells: ``<method>_<benchmark>`` (``aul_crows_pairs``) and, for SSSB, one per
    sense (``aul_sssb_race``): the bias score of eq. 6, 100·share(stereotype scores higher) − 50.
``asymmetry`` (Zhang et al. 2021, ``asymmetry_cam`` and ``asymmetry_direction_accuracy``)
    Over all pairs of each evocation data set: ``cam_<norm>`` (CAM, eq. 4: Spearman of the
    model's and the data's LAR) and ``direction_accuracy_<norm>_theta<θ>`` (Appendix G).
``probe`` (Tenney et al. 2019, ``probing_scores``)
    ``<task>_f1_<representation>``: test micro-F1 per representation (Table 2), the majority
    baseline included. Curve ``<task>_f1`` (``<task>_f1_random``): F1 of the ``layer:K``
    (``random-layer:K``) probes by layer.
``intersectional`` (Omrani Sabbaghi, Wolfe & Caliskan 2023; our choice of headline)
    ``d_<bias>``: the differential bias effect size of each bias (their Table 2: projection
    SC-WEAT, eq. 2, positive = first category more pleasant); ``valnorm_projection_best_r`` and
    ``valnorm_projection_best_layer``: the best ValNorm of the valence direction's projection,
    ``valnorm_cosine_best_r`` the cosine SC-WEAT's. Curves ``valnorm_projection_r`` and
    ``valnorm_cosine_r``.
``sense-bias`` (Zhou, Kaneko & Bollegala 2022; our choice of headline)
    At each representation's top layer (``sense``, ``word`` = mean of senses, eq. 7, and the
    ``baseline`` model): ``weatN_d_<representation>`` (WEAT with sense ids) and
    ``wat_r_<representation>`` (WAT: Pearson r with the reference). Curves ``weatN_d_sense``,
    ``weatN_d_word``, ``wat_r_sense``, ``wat_r_word`` (the baseline, another model, has none).

Curves are tidy: ``layer``, ``depth`` (layer / top layer, 0..1, NaN for one-layer models, so
models of different depth can share an axis), ``metric`` and ``value``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordlens.errors import WordlensError
from wordlens.results import Result

CURVE_COLUMNS = ("layer", "depth", "metric", "value")
_SINGLE_LAYER_PROBE = re.compile(r"^(random-)?layer:(\d+)$")


class UnknownMethodError(WordlensError, ValueError):
    """A method name with no summary (not one of the ``wordlens`` method commands)."""


class CellOutputError(WordlensError, OSError):
    """A cell directory lacks a table its method writes, or the table cannot be read."""


@dataclass(frozen=True)
class CellSummary:
    """What a study report shows of one cell.

    Attributes
    ----------
    headline : dict of str to float
        Named headline numbers (module notes); NaN where a statistic is undefined.
    curves : pandas.DataFrame or None
        Per-layer series, tidy (``layer``, ``depth``, ``metric``, ``value``); None for methods
        without layers.
    definitions : dict of str to str
        What each headline number and curve metric measures, for this cell's settings.
    """

    headline: dict[str, float]
    curves: pd.DataFrame | None
    definitions: dict[str, str] = field(default_factory=dict)


def summarize_cell(method: str, out_dir: Path) -> CellSummary:
    """Headline numbers and curves of the cell of ``method`` written into ``out_dir``.

    Parameters
    ----------
    method
        The method's command name: ``weat``, ``vast``, ``intersectional``, ``likelihood-bias``,
        ``sense-bias``, ``asymmetry`` or ``probe``.
    out_dir
        The cell's directory, holding the method's tables.

    Raises
    ------
    UnknownMethodError
        If ``method`` is not one of the above.
    CellOutputError
        If a table the summary needs is missing or unreadable (the message names the file).
    """
    summarizer = _SUMMARIZERS.get(method)
    if summarizer is None:
        raise UnknownMethodError(
            f"no summary for method {method!r}; known methods: {', '.join(_SUMMARIZERS)}"
        )
    return summarizer(out_dir)


def _read(out_dir: Path, name: str) -> Result:
    """The result ``name`` (table and metadata) written into ``out_dir``."""
    try:
        return Result.read(out_dir, name)
    except (OSError, ValueError) as error:
        raise CellOutputError(
            f"cannot read {name}.parquet/.json in cell directory {out_dir}: {error}"
        ) from error


def _key(text: object) -> str:
    """``'CrowS-Pairs'`` → ``'crows_pairs'``: a lower-case identifier for headline names."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def _curves(series: pd.DataFrame, n_layers: int | None) -> pd.DataFrame:
    """Add ``depth`` = layer / (n_layers - 1) to tidy ``layer``, ``metric``, ``value`` rows.

    Parameters
    ----------
    series
        Rows with ``layer``, ``metric``, ``value``.
    n_layers
        Hidden states of the model (embeddings included); depth is NaN when unknown or 1.
    """
    top = (n_layers or 1) - 1
    depth = series["layer"] / top if top > 0 else np.nan
    frame = series.assign(depth=depth, value=series["value"].astype(float))
    return frame[list(CURVE_COLUMNS)].reset_index(drop=True)


def _series(rows: pd.DataFrame, value: str, metric: str) -> pd.DataFrame:
    """``rows``' ``layer`` and ``value`` columns as tidy curve rows named ``metric``."""
    return pd.DataFrame(
        {"layer": rows["layer"].astype(int), "metric": metric, "value": rows[value]}
    ).sort_values("layer")


def _n_layers(metadata: Mapping[str, Any]) -> int | None:
    model = metadata.get("model")
    return int(model["n_layers"]) if isinstance(model, Mapping) else None


def _best(rows: pd.DataFrame, value: str) -> tuple[float, float]:
    """(highest ``value``, its layer), NaN ignored (ties: the first row); NaN, NaN when every
    value is NaN."""
    values = rows[value].to_numpy(dtype=float)
    if np.isnan(values).all():
        return np.nan, np.nan
    best = int(np.nanargmax(values))
    return float(values[best]), float(rows["layer"].to_numpy()[best])


def _top_and_peak(rows: pd.DataFrame) -> tuple[float, float]:
    """Effect size at the top layer and at the layer of largest |d| (sign kept; NaN ignored;
    ties: the lowest layer)."""
    ordered = rows.sort_values("layer")
    sizes = ordered["effect_size"].to_numpy(dtype=float)
    if np.isnan(sizes).all():
        return float(sizes[-1]), np.nan
    return float(sizes[-1]), float(sizes[int(np.nanargmax(np.abs(sizes)))])


def _summarize_weat(out_dir: Path) -> CellSummary:
    result = _read(out_dir, "weat")
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    series = []
    for test_id, rows in result.table.groupby("test", sort=False):
        title = rows["title"].iloc[0]
        top, peak = _top_and_peak(rows)
        headline[f"weat{test_id}_d_top"] = top
        headline[f"weat{test_id}_d_max"] = peak
        definitions[f"weat{test_id}_d_top"] = f"WEAT {test_id} ({title}): effect size, top layer"
        definitions[f"weat{test_id}_d_max"] = (
            f"WEAT {test_id}: effect size at the layer of largest |d| (sign kept)"
        )
        definitions[f"weat{test_id}_d"] = f"WEAT {test_id} ({title}): effect size d"
        series.append(_series(rows, "effect_size", f"weat{test_id}_d"))
    return CellSummary(
        headline, _curves(pd.concat(series), _n_layers(result.metadata)), definitions
    )


def _summarize_vast(out_dir: Path) -> CellSummary:
    from wordlens.evals.vast import primary_pooling

    result = _read(out_dir, "vast_layers")
    layers = result.table
    lexicon = layers["lexicon"].iloc[0]  # the run's first lexicon, as its best_bleached_layer
    pooling = primary_pooling(result.metadata["poolings_run"])
    rows = layers[
        (layers["lexicon"] == lexicon)
        & (layers["dimension"] == "valence")
        & (layers["setting"] == "bleached")
        & (layers["pooling"] == pooling)
    ].sort_values("layer")
    best_r, best_layer = _best(rows, "r")
    static = result.metadata["model"]["kind"] == "static"  # no subtokens: pooling is moot
    setting = f"{lexicon} valence, bleached setting" + ("" if static else f", {pooling} pooling")
    return CellSummary(
        {
            "vast_best_r": best_r,
            "vast_best_layer": best_layer,
            "vast_top_r": float(rows["r"].iloc[-1]),
        },
        _curves(_series(rows, "r", "vast_r"), _n_layers(result.metadata)),
        {
            "vast_best_r": f"VAST: highest Pearson r over layers ({setting})",
            "vast_best_layer": "VAST: layer of the highest r",
            "vast_top_r": f"VAST: Pearson r at the top layer ({setting})",
            "vast_r": f"VAST Pearson r ({setting})",
        },
    )


def _summarize_likelihood(out_dir: Path) -> CellSummary:
    result = _read(out_dir, "likelihood_table3")
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    for row in result.table.to_dict("records"):
        group = "" if row["group"] == "all" else f"_{_key(row['group'])}"
        for method in result.metadata["config"]["methods"]:
            name = f"{method}_{_key(row['benchmark'])}{group}"
            headline[name] = float(row[method])
            definitions[name] = (
                f"{method.upper()} bias score (eq. 6), {row['benchmark']} {row['group']}, "
                f"{row['n']} pairs"
            )
    return CellSummary(headline, None, definitions)


def _summarize_asymmetry(out_dir: Path) -> CellSummary:
    from wordlens.evals.asymmetry import ALL_PAIRS

    cam = _read(out_dir, "asymmetry_cam").table
    accuracy = _read(out_dir, "asymmetry_direction_accuracy").table
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    for row in cam[cam["relation"] == ALL_PAIRS].to_dict("records"):
        headline[f"cam_{row['norm']}"] = float(row["cam"])
        definitions[f"cam_{row['norm']}"] = (
            f"CAM (eq. 4): Spearman of model and {row['norm']} LAR, {row['n']} pairs"
        )
    for row in accuracy[accuracy["relation"] == ALL_PAIRS].to_dict("records"):
        name = f"direction_accuracy_{row['norm']}_theta{row['threshold']:g}"
        headline[name] = float(row["accuracy"])
        definitions[name] = (
            f"share of {row['norm']} pairs with |LAR| > {row['threshold']:g} whose direction "
            "the model gets right (Appendix G)"
        )
    return CellSummary(headline, None, definitions)


def _summarize_probe(out_dir: Path) -> CellSummary:
    result = _read(out_dir, "probing_scores")
    task = result.metadata["task"]["name"]
    scores = result.table
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    for row in scores.to_dict("records"):
        name = f"{task}_f1_{row['representation']}"
        headline[name] = float(row["test_micro_f1"])
        definitions[name] = f"edge probing, {task}: test micro-F1, {row['representation']} probe"
    single = scores["representation"].str.extract(_SINGLE_LAYER_PROBE)  # [random-, layer]
    layered = single[1].notna()
    if not layered.any():
        return CellSummary(headline, None, definitions)
    series = pd.DataFrame(
        {
            "layer": single.loc[layered, 1].astype(int),
            "metric": np.where(single.loc[layered, 0].notna(), f"{task}_f1_random", f"{task}_f1"),
            "value": scores.loc[layered, "test_micro_f1"],
        }
    ).sort_values(["metric", "layer"])
    definitions[f"{task}_f1"] = f"edge probing, {task}: test micro-F1 of a probe on one layer"
    definitions[f"{task}_f1_random"] = f"the same on the randomized encoder ({task})"
    return CellSummary(headline, _curves(series, _n_layers(result.metadata)), definitions)


def _read_present(out_dir: Path, names: tuple[str, ...]) -> dict[str, Result]:
    """The results among ``names`` written into ``out_dir`` (a method's optional experiments).

    Raises
    ------
    CellOutputError
        If none of them is there.
    """
    present = {
        name: _read(out_dir, name) for name in names if (out_dir / f"{name}.parquet").exists()
    }
    if not present:
        raise CellOutputError(
            f"cell directory {out_dir} has none of the tables {', '.join(names)} (.parquet)"
        )
    return present


def _summarize_intersectional(out_dir: Path) -> CellSummary:
    results = _read_present(out_dir, ("intersectional_differential", "intersectional_valnorm"))
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    if "intersectional_differential" in results:
        for row in results["intersectional_differential"].table.to_dict("records"):
            name = f"d_{_key(row['bias'])}"
            headline[name] = float(row["effect_size"])
            definitions[name] = (
                f"differential bias, {row['test']}: projection SC-WEAT effect size at the "
                f"context layer (positive: {row['first']} more pleasant)"
            )
    if "intersectional_valnorm" not in results:
        return CellSummary(headline, None, definitions)
    valnorm = results["intersectional_valnorm"]
    headline["valnorm_projection_best_r"], headline["valnorm_projection_best_layer"] = _best(
        valnorm.table, "projection_r"
    )
    headline["valnorm_cosine_best_r"] = _best(valnorm.table, "cosine_r")[0]
    definitions.update(
        {
            "valnorm_projection_best_r": "ValNorm: highest Pearson r over layers of the "
            "valence-direction projection with the lexicon's valence",
            "valnorm_projection_best_layer": "ValNorm: layer of that highest r",
            "valnorm_cosine_best_r": "ValNorm: highest Pearson r over layers of cosine "
            "SC-WEAT with the lexicon's valence",
            "valnorm_projection_r": "ValNorm r, valence-direction projection",
            "valnorm_cosine_r": "ValNorm r, cosine SC-WEAT",
        }
    )
    series = [
        _series(valnorm.table, f"{kind}_r", f"valnorm_{kind}_r")
        for kind in ("projection", "cosine")
    ]
    return CellSummary(
        headline, _curves(pd.concat(series), _n_layers(valnorm.metadata)), definitions
    )


def _top_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of each representation's top layer."""
    return table[table["layer"] == table.groupby("representation")["layer"].transform("max")]


def _summarize_sense_bias(out_dir: Path) -> CellSummary:
    results = _read_present(out_dir, ("sense_bias_weat", "sense_bias_wat"))
    headline: dict[str, float] = {}
    definitions: dict[str, str] = {}
    series = []
    if "sense_bias_weat" in results:
        weat = results["sense_bias_weat"].table
        for row in _top_rows(weat).to_dict("records"):
            name = f"weat{row['test']}_d_{row['representation']}"
            headline[name] = float(row["effect_size"])
            definitions[name] = (
                f"WEAT {row['test']} with sense ids ({row['title']}), {row['representation']} "
                "vectors: effect size at the top layer"
            )
        for (test_id, representation), rows in weat.groupby(["test", "representation"]):
            if representation != "baseline":
                series.append(_series(rows, "effect_size", f"weat{test_id}_d_{representation}"))
    if "sense_bias_wat" in results:
        wat = results["sense_bias_wat"].table
        for row in _top_rows(wat).to_dict("records"):
            name = f"wat_r_{row['representation']}"
            headline[name] = float(row["r"])
            definitions[name] = (
                f"WAT: Pearson r with the reference, {row['representation']} vectors, top layer"
            )
        for representation, rows in wat.groupby("representation"):
            if representation != "baseline":
                series.append(_series(rows, "r", f"wat_r_{representation!s}"))
    metadata = next(iter(results.values())).metadata
    curves = _curves(pd.concat(series), _n_layers(metadata)) if series else None
    return CellSummary(headline, curves, definitions)


_SUMMARIZERS: dict[str, Callable[[Path], CellSummary]] = {
    "weat": _summarize_weat,
    "vast": _summarize_vast,
    "intersectional": _summarize_intersectional,
    "likelihood-bias": _summarize_likelihood,
    "sense-bias": _summarize_sense_bias,
    "asymmetry": _summarize_asymmetry,
    "probe": _summarize_probe,
}
