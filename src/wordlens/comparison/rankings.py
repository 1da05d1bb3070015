"""Rank models by bias as WEFE does (Badilla, Bravo-Marquez & Pérez 2020), from a comparison's
tidy scores (pandas: imported when a comparison is gathered).

The scores hold one row per ``model``, ``query``, ``metric``, ``part`` and ``layer`` with its
``value``. A comparison ranks the models at one layer each (:func:`chosen_scores`), then, per
metric:

1. **aggregates** each model's values over every query and part — WEFE's ``run_queries`` with
   ``generate_subqueries`` and ``aggregate_results`` (a part, one attribute set of RND, ECT or
   RIPA, is a WEFE sub-query): the mean absolute value (WEFE's default ``abs_avg``) for a
   metric whose bias is its distance from 0 or its size, the mean value (``avg``) for one where
   a smaller value is more bias (MAC's cosine distance, ECT's rank correlation);
2. **ranks** the models on that score (WEFE's ``create_ranking``: ``DataFrame.rank`` with
   ``method="first"``, ties in the models' order), 1 the least biased: ascending for ``abs_avg``,
   as WEFE; descending for ``avg``. WEFE ranks every score ascending, which puts the model with
   the most association first for MAC and ECT; this is the one departure, named in each row's
   ``order``.

:func:`ranking_correlations` is WEFE's ``calculate_ranking_correlations``: Spearman's rho between
every two metrics' ranks over the models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wordlens.methods.associations.ranking import strength

__all__ = [
    "SCORE_COLUMNS",
    "LayerChoice",
    "chosen_scores",
    "parse_layer_choice",
    "ranking_correlations",
    "rankings",
]

SCORE_COLUMNS = ("model", "query", "metric", "part", "layer", "value")
"""The columns of a comparison's tidy table of scores."""

LayerChoice = str | int
"""Where a comparison ranks a model with layers: ``"last"`` (its top layer), ``"best"`` (per
metric, the layer of the strongest association over the queries) or a layer number."""

_ABS_AVG = "mean |value| (WEFE abs_avg)"
_AVG = "mean value (WEFE avg)"


def parse_layer_choice(text: str | int) -> LayerChoice:
    """``"last"``, ``"best"`` or a layer number (from ``--layer-choice``).

    Raises
    ------
    ValueError
        For anything else.
    """
    if isinstance(text, int) or text in ("last", "best"):
        return text
    try:
        layer = int(text)
    except ValueError:
        raise ValueError(f"'last', 'best' or a layer number, not {text!r}") from None
    if layer < 0:
        raise ValueError(f"a layer number is 0 or more, not {layer}")
    return layer


@dataclass(frozen=True)
class Chosen:
    """The scores at each model's chosen layer, and what the choice left to say.

    Attributes
    ----------
    scores
        The rows of the chosen layers (:data:`SCORE_COLUMNS`).
    notes
        Sentences on choices a reader would ask about (a static model's only layer).
    left_out
        Model → why it has no scores at the chosen layer (a layer it lacks).
    """

    scores: pd.DataFrame
    notes: list[str]
    left_out: dict[str, str]


def chosen_scores(
    scores: pd.DataFrame, choice: LayerChoice, more_bias: Mapping[str, str]
) -> Chosen:
    """The rows of ``scores`` at the layer each model is ranked at.

    Parameters
    ----------
    scores
        The tidy scores (:data:`SCORE_COLUMNS`).
    choice
        ``"last"``: each model's top layer; ``"best"``: per model and metric, the layer whose
        mean association strength over the queries' parts is largest (strength: the value, its
        negative or its absolute value as ``more_bias`` says, as ``wordlens associations``
        ranks layers); a number: that layer. A model with one layer (static vectors: layer 0)
        is ranked at it whatever the choice, with a note.
    more_bias
        Metric → which values mean more association (``"larger"``, ``"smaller"``,
        ``"farther from 0"``).
    """
    notes: list[str] = []
    left_out: dict[str, str] = {}
    kept = []
    for model, rows in scores.groupby("model", sort=False):
        layers = sorted(set(rows["layer"].dropna().astype(int)))
        if not layers:  # values without layers (a method's headline numbers)
            kept.append(rows)
        elif len(layers) == 1:
            if choice not in ("last", layers[0]):
                notes.append(
                    f"{model} has one layer ({layers[0]}: static vectors), used for "
                    f"--layer-choice {choice}"
                )
            kept.append(rows)
        elif choice == "last":
            kept.append(rows[rows["layer"] == layers[-1]])
        elif choice == "best":
            kept.append(_best_layers(rows, more_bias))
        elif choice in layers:
            kept.append(rows[rows["layer"] == choice])
        else:
            left_out[str(model)] = f"has no layer {choice} (layers {layers[0]}-{layers[-1]})"
    chosen = pd.concat(kept) if kept else scores.iloc[:0]
    return Chosen(chosen.reset_index(drop=True), notes, left_out)


def _best_layers(rows: pd.DataFrame, more_bias: Mapping[str, str]) -> pd.DataFrame:
    """One model's rows at each metric's strongest layer (mean strength over query and part;
    the first of equal layers; a metric NaN at every layer keeps its top layer)."""
    best = []
    for metric, metric_rows in rows.groupby("metric", sort=False):
        oriented = strength(metric_rows["value"], more_bias.get(str(metric), ""))
        by_layer = oriented.groupby(metric_rows["layer"]).mean()
        layer = by_layer.idxmax() if by_layer.notna().any() else by_layer.index.max()
        best.append(metric_rows[metric_rows["layer"] == layer])
    return pd.concat(best)


def rankings(
    chosen: pd.DataFrame, more_bias: Mapping[str, str], models: list[str], choice: LayerChoice
) -> pd.DataFrame:
    """Per metric, each model's aggregated score and rank (see the module notes).

    Parameters
    ----------
    chosen
        The scores at the chosen layers (:func:`chosen_scores`).
    more_bias
        Metric → which values mean more association; a metric not named (a method's quantity
        that is not a bias, such as VAST's valence correlation) is not ranked.
    models
        The models in the order they were given: ties rank in this order (WEFE's ``first``).
    choice
        The layer choice, written in each row.

    Returns
    -------
    pandas.DataFrame
        ``metric``, ``model``, ``layer`` (the model's chosen layer for the metric),
        ``layer_choice``, ``n_values`` (query parts aggregated), ``aggregation``, ``order``,
        ``score`` and ``rank`` (1: least association; NaN where the model has no value).
    """
    rows = []
    for metric in dict.fromkeys(chosen["metric"]):
        if str(metric) not in more_bias:
            continue
        smaller = more_bias[str(metric)] == "smaller"
        of_metric = chosen[chosen["metric"] == metric]
        aggregated = of_metric["value"] if smaller else of_metric["value"].abs()
        by_model = aggregated.groupby(of_metric["model"], sort=False)
        score = by_model.mean().reindex(models)
        rank = score.rank(method="first", ascending=not smaller)
        layer = of_metric.groupby("model", sort=False)["layer"].max().reindex(models)
        count = by_model.count().reindex(models, fill_value=0)
        for model in models:
            rows.append(
                {
                    "metric": metric,
                    "model": model,
                    "layer": layer[model],
                    "layer_choice": str(choice),
                    "n_values": int(count[model]),
                    "aggregation": _AVG if smaller else _ABS_AVG,
                    "order": "descending (larger: less association)"
                    if smaller
                    else "ascending (WEFE)",
                    "score": float(score[model]),
                    "rank": rank[model],
                }
            )
    table = pd.DataFrame(
        rows,
        columns=[
            "metric", "model", "layer", "layer_choice", "n_values", "aggregation", "order",
            "score", "rank",
        ],
    )  # fmt: skip
    return table.astype({"layer": "Int64", "rank": "Int64"})


def ranking_correlations(ranked: pd.DataFrame) -> pd.DataFrame:
    """Spearman's rho between every two metrics' ranks of the models (WEFE's
    ``calculate_ranking_correlations``: ``DataFrame.corr(method="spearman")`` of the ranks, one
    column per metric), tidy: ``metric_a``, ``metric_b``, ``spearman_rho`` (the diagonal
    included; NaN where a metric ranks every model alike or has fewer than two ranks).
    """
    wide = ranked.pivot(index="model", columns="metric", values="rank")
    wide = wide[list(dict.fromkeys(ranked["metric"]))]
    matrix = wide.corr(method="spearman")
    metrics = list(matrix.columns)
    return pd.DataFrame(
        {
            "metric_a": np.repeat(metrics, len(metrics)),
            "metric_b": np.tile(metrics, len(metrics)),
            "spearman_rho": matrix.to_numpy(dtype=np.float64).ravel(),
        }
    )
