"""The HTML page, figures and console tables of a comparison of models
(:mod:`wordlens.comparison.runner`): the rankings as a heat map of ranks (models × metrics), the
rank correlations between metrics as a heat map on a diverging scale, the scores at the chosen
layers, and the cells run (each linked to its own run's report)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd
from matplotlib import colormaps
from rich.table import Table

from wordlens import results
from wordlens._plural import counted
from wordlens.report.figures import ONE_COLUMN, as_figure, paper_style
from wordlens.report.html import Report

__all__ = ["comparison_console", "comparison_figures", "comparison_report"]


def rankings_figure(ranked: pd.DataFrame) -> results.Figure:
    """The ranks as a heat map: one row per model, one column per metric, each cell coloured
    by rank (1, least association, lightest) and labelled with rank and score."""
    metrics = list(dict.fromkeys(ranked["metric"]))
    models = list(dict.fromkeys(ranked["model"]))
    ranks = ranked.pivot(index="model", columns="metric", values="rank").loc[models, metrics]
    scores = ranked.pivot(index="model", columns="metric", values="score").loc[models, metrics]
    title = "Models ranked by each metric (1: least association)"
    with paper_style():
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(
            figsize=(max(ONE_COLUMN, 1.1 * len(metrics) + 2.0), 0.45 * len(models) + 1.4),
            layout="constrained",
        )
        palette = colormaps["Blues"].with_extremes(bad="0.85")
        most = max(len(models), 2)
        axis.imshow(
            np.ma.masked_invalid(ranks.to_numpy(dtype=float, na_value=np.nan)),
            cmap=palette,
            vmin=0,
            vmax=most + 0.5,
            aspect="auto",
        )
        for row, model in enumerate(models):
            for column, metric in enumerate(metrics):
                rank = ranks.loc[model, metric]
                text = "–" if pd.isna(rank) else f"{int(rank)}\n{scores.loc[model, metric]:.3g}"
                dark = not pd.isna(rank) and rank > most / 2 + 0.5
                colour = "white" if dark else "black"
                axis.text(column, row, text, ha="center", va="center", fontsize=7, color=colour)
        axis.set_xticks(range(len(metrics)), metrics)
        axis.set_yticks(range(len(models)), models)
        axis.grid(visible=False)
        axis.set_xlabel("metric")
        axis.set_title(title)
    caption = (
        "Each model's rank by each metric (1, lightest: least association, as WEFE ranks), "
        "from its score aggregated over every query (mean |value|, or the mean value for a "
        "metric where smaller means more association); each cell shows the rank over the score."
    )
    return as_figure(figure, title, caption)


def correlations_figure(correlations: pd.DataFrame) -> results.Figure:
    """Spearman's rho between every two metrics' rankings, on a diverging scale from -1 to 1."""
    metrics = list(dict.fromkeys(correlations["metric_a"]))
    matrix = correlations.pivot(index="metric_a", columns="metric_b", values="spearman_rho")
    matrix = matrix.loc[metrics, metrics]
    title = "Rank correlation between the metrics' rankings"
    with paper_style():
        import matplotlib.pyplot as plt

        size = max(ONE_COLUMN, 0.5 * len(metrics) + 1.6)
        figure, axis = plt.subplots(figsize=(size, size * 0.85), layout="constrained")
        image = axis.imshow(
            np.ma.masked_invalid(matrix.to_numpy(dtype=float)),
            cmap=colormaps["RdBu_r"].with_extremes(bad="0.85"),
            vmin=-1,
            vmax=1,
        )
        for row, first in enumerate(metrics):
            for column, second in enumerate(metrics):
                rho = matrix.loc[first, second]
                text = "–" if pd.isna(rho) else f"{rho:+.2f}"
                colour = "white" if not pd.isna(rho) and abs(rho) > 0.6 else "black"
                axis.text(column, row, text, ha="center", va="center", fontsize=7, color=colour)
        axis.set_xticks(range(len(metrics)), metrics, rotation=45, ha="right")
        axis.set_yticks(range(len(metrics)), metrics)
        axis.grid(visible=False)
        figure.colorbar(image, ax=axis, label="Spearman's rho")
        axis.set_title(title)
    caption = (
        "Spearman's rho between every two metrics' ranks of the models (WEFE's "
        "calculate_ranking_correlations): +1, the metrics rank the models alike; -1, in "
        "reverse; grey: undefined (a metric ranks every model alike)."
    )
    return as_figure(figure, title, caption)


def comparison_figures(run: results.Run) -> list[results.Figure]:
    """The rankings' heat map, and the correlations' when two or more metrics rank."""
    ranked = run.tables["rankings"]
    if ranked.empty:
        return []
    figures = [rankings_figure(ranked)]
    if ranked["metric"].nunique() > 1:
        figures.append(correlations_figure(run.tables["ranking_correlations"]))
    return figures


def _layer_text(metadata: dict[str, Any]) -> str:
    choice = metadata["layer_choice"]
    chosen = {
        "last": "each model's last layer",
        "best": "per model and metric, the layer of strongest association over the queries",
    }.get(choice, f"layer {choice}")
    return f"Layer ranked (--layer-choice {choice}): {chosen}."


def comparison_report(run: results.Run) -> Report:
    """The comparison's page (see the module notes); its figures in ``Report.figures``."""
    metadata = run.metadata
    cells = run.tables["cells"]
    report = Report(
        f"{metadata['method_title']}: {counted(len(metadata['models']), 'model')} × "
        f"{counted(len(metadata['queries']), 'query', 'queries')}",
        metadata={"method": metadata["method"]},
    )
    done = int((cells["status"] == "done").sum())
    report.paragraph(
        f"{done} of {counted(len(cells), 'run')} done (one per model and query). "
        f"{_layer_text(metadata)}"
    )
    for note in metadata["layer_notes"]:
        report.paragraph(note, note=True)
    for model, why in metadata["left_out"].items():
        report.paragraph(f"{model} is not ranked: it {why}.", note=True)
    ranked = run.tables["rankings"]
    if metadata["not_ranked"]:
        report.paragraph(metadata["not_ranked"], note=True)
    else:
        report.heading("Rankings")
        figures = comparison_figures(run)
        report.figure(figures[0])
        report.table(ranked)
        report.heading("Rank correlations between metrics")
        if len(figures) > 1:
            report.figure(figures[1])
            correlations = run.tables["ranking_correlations"]
            metrics = list(dict.fromkeys(correlations["metric_a"]))
            wide = correlations.pivot(index="metric_a", columns="metric_b", values="spearman_rho")
            report.table(wide.loc[metrics, metrics].rename_axis(columns=None).reset_index())
        else:
            report.paragraph("One metric ranks the models: there is no other to correlate with.")
    report.heading("Scores")
    report.table(run.tables["scores"])
    report.heading("Runs")
    report.paragraph("Each run's own report is linked from its model.")
    linked = cells.assign(
        report=[f"{quote(str(where))}/report.html" for where in cells["out_dir"]]
    ).drop(columns=["out_dir"])
    linked.loc[cells["status"] != "done", "report"] = None
    report.table(linked, links={"model": "report"})
    report.heading("Queries")
    report.definitions(
        {name: path or "the method's own inputs" for name, path in metadata["queries"].items()}
    )
    return report


def comparison_console(run: results.Run) -> list[Any]:
    """The console's view of a comparison: the ranks (and scores) per metric, the rank
    correlations, and the runs that failed."""
    metadata = run.metadata
    shown: list[Any] = [_layer_text(metadata), *metadata["layer_notes"]]
    shown += [f"{model} is not ranked: it {why}" for model, why in metadata["left_out"].items()]
    ranked = run.tables["rankings"]
    if metadata["not_ranked"]:
        shown.append(metadata["not_ranked"])
    elif not ranked.empty:
        metrics = list(dict.fromkeys(ranked["metric"]))
        grid = Table(
            title=f"{metadata['method_title']}: rank (score), 1 = least association",
            title_justify="left",
        )
        grid.add_column("model")
        for metric in metrics:
            grid.add_column(str(metric), justify="right")
        for model, rows in ranked.groupby("model", sort=False):
            by_metric = rows.set_index("metric")
            grid.add_row(
                str(model),
                *(_rank_cell(by_metric.loc[metric]) for metric in metrics),
            )
        shown.append(grid)
        if len(metrics) > 1:
            shown.append(_correlations_table(run.tables["ranking_correlations"]))
    failed = run.tables["cells"][run.tables["cells"]["status"] == "failed"]
    shown += [f"{row.model} / {row.query}: failed: {row.error}" for row in failed.itertuples()]
    return shown


def _rank_cell(row: pd.Series) -> str:
    if pd.isna(row["rank"]):
        return "–"
    return f"{int(row['rank'])} ({row['score']:.3f})"


def _correlations_table(correlations: pd.DataFrame) -> Table:
    metrics = list(dict.fromkeys(correlations["metric_a"]))
    matrix = correlations.pivot(index="metric_a", columns="metric_b", values="spearman_rho")
    grid = Table(title="Spearman's rho between the metrics' rankings", title_justify="left")
    grid.add_column("")
    for metric in metrics:
        grid.add_column(str(metric), justify="right")
    for first in metrics:
        cells = [matrix.loc[first, second] for second in metrics]
        grid.add_row(str(first), *("–" if pd.isna(rho) else f"{rho:+.2f}" for rho in cells))
    return grid
