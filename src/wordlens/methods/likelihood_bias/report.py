"""The likelihood-bias report: the bias score of eq. 6 of Zhou, Kaneko & Bollegala (2022) per
benchmark, category and scoring method for one model, with Table 3's layout and Figure 3 (SSSB
gender bias per occupation, noun vs verb senses), in one HTML page; Figure 3 also as PNG, SVG
and PDF files (:func:`write_paper_figures`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure as MplFigure

from wordlens.methods.likelihood_bias.compute import BENCHMARK_TITLES
from wordlens.report.bias_figures import write_figures
from wordlens.report.html import Report
from wordlens.report.interval_bars import IntervalBars, interval_bars
from wordlens.results import Run

_COUNTS = ["n", "n_stereo_higher", "n_anti_higher", "n_ties", "n_missing"]


def build_likelihood_report(run: Run, figures: Mapping[str, MplFigure] | None = None) -> Report:
    """Configuration, Table 3, Figure 3 (when SSSB gender pairs were scored), one section per
    benchmark, timings. ``figures``: those of :func:`paper_figures` (drawn here if None)."""
    figures = paper_figures(run) if figures is None else figures
    meta = run.metadata
    model = meta["model"]
    config = meta["config"]
    bias_scores = run.tables["bias_scores"]
    interval = _interval(run)
    reductions = model.get("scoring", {}).get("reductions", {})
    report = Report(f"Likelihood bias — {model['name']}", metadata=meta)
    report.definitions(
        {
            "model": f"{model['name']} ({model['kind']})",
            "fingerprint": model["fingerprint"],
            "methods": ", ".join(
                f"{method} ({reductions.get(method, '?')} over tokens)"
                for method in config["methods"]
            ),
            "BOS prepended": model.get("bos_token") or "none",
            "benchmarks": "; ".join(
                f"{BENCHMARK_TITLES.get(name, name)}: {info['n_scored']:,} of "
                f"{info['n_pairs']:,} pairs"
                for name, info in meta["benchmarks"].items()
            ),
            "distinct sentences": f"{meta['n_sentences']:,}",
            "interval": meta["interval"],
            "ties": meta["tie_rule"],
        }
    )
    report.paragraph(
        "Bias score (eq. 6): 100/N × #(score(stereotypical) > score(anti-stereotypical)) − 50, "
        "in [−50, 50]; 0 means no preference, positive a preference for the stereotypical "
        "sentences. Scores are sentence log-likelihoods: AUL (all tokens unmasked, mean log "
        "P(w_i | S), eq. 5), AULA (attention-weighted AUL), PLL (one token masked at a time, "
        "mean) for masked LMs; the sum or mean of the token log-probabilities for causal LMs."
    )
    report.heading(f"Table 3 layout — bias score [{interval}]")
    report.table(_table3_with_intervals(run.tables["table3"], config["methods"]))
    if "sssb_occupations" in run.tables:
        _occupation_section(report, run.tables["sssb_occupations"], figures, interval)
    for benchmark, scores in bias_scores.groupby("benchmark", sort=False):
        _benchmark_section(report, str(benchmark), scores, interval)
    report.heading("Timings")
    report.table(_timings(meta))
    return report


def _table3_with_intervals(table3: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """Table 3 with each method's cell as ``score [low, high]``."""
    shown = table3[["benchmark", "group", "n"]].copy()
    for method in methods:
        shown[method] = [
            f"{score:+.2f} [{low:+.2f}, {high:+.2f}]"
            for score, low, high in zip(
                table3[method], table3[f"{method}_ci_low"], table3[f"{method}_ci_high"], strict=True
            )
        ]
    return shown


def _benchmark_section(report: Report, benchmark: str, scores: pd.DataFrame, interval: str) -> None:
    title = BENCHMARK_TITLES.get(benchmark, benchmark)
    report.heading(f"{title} — bias score per group and method")
    labelled = scores.assign(
        label=scores["group"].where(scores["level"] != "sense_type", "sense: " + scores["group"])
    )
    report.figure(
        interval_bars(
            IntervalBars(
                labelled,
                category="label",
                series="method",
                value="bias_score",
                low="ci_low",
                high="ci_high",
                title=f"{title}: bias score (eq. 6) with {interval}s",
                ylabel="bias score",
                limits=(-55.0, 55.0),
            )
        ),
        f"{title} bias scores",
    )
    columns = ["level", "group", "method", "bias_score", "ci_low", "ci_high", *_COUNTS]
    report.table(scores[columns], float_format="{:.2f}")


def _timings(meta: dict[str, Any]) -> pd.DataFrame:
    rate = meta["sentences_per_second"]
    return pd.DataFrame(
        [
            {
                "stage": stage,
                "seconds": seconds,
                "sentences/s": rate.get(stage.removeprefix("score_"), float("nan")),
            }
            for stage, seconds in meta["timings_s"].items()
        ]
    )


def paper_figures(run: Run) -> dict[str, MplFigure]:
    """Figure 3 (``figure_3_occupations``) as a matplotlib figure when the run has SSSB gender
    pairs."""
    if "sssb_occupations" not in run.tables:
        return {}
    figure = _occupation_figure(run.tables["sssb_occupations"], _interval(run))
    return {"figure_3_occupations": figure}


def _interval(run: Run) -> str:
    return f"{run.metadata['config']['confidence']:.0%} bootstrap interval"


def _occupation_figure(table: pd.DataFrame, interval: str) -> MplFigure:
    labelled = table.assign(bars=table["method"] + " " + table["sense_type"])
    return interval_bars(
        IntervalBars(
            labelled,
            category="occupation",
            series="bars",
            value="bias_score",
            low="ci_low",
            high="ci_high",
            title=f"SSSB gender bias per occupation, noun vs verb sense ({interval}s)",
            ylabel="bias score (positive: stereotypical)",
            limits=(-55.0, 55.0),
        )
    )


def _occupation_section(
    report: Report, table: pd.DataFrame, figures: Mapping[str, MplFigure], interval: str
) -> None:
    report.heading("Figure 3 — SSSB gender bias per occupation: noun vs verb senses")
    report.paragraph(
        "Bias score (eq. 6) of each occupation's SSSB pairs that use its noun (occupation) sense "
        "and of those that use its verb (action) sense; positive: the stereotypical sentence "
        f"scores higher. Bars show the {interval}."
    )
    report.figure(figures["figure_3_occupations"], "SSSB bias per occupation and sense")
    columns = ["method", "occupation", "sense_type", "bias_score", "ci_low", "ci_high", *_COUNTS]
    report.table(table[columns], float_format="{:.2f}")


def write_paper_figures(run: Run, out_dir: Path) -> list[Path]:
    """Write Figure 3 as ``figure_3_occupations`` ``.png``, ``.svg`` and ``.pdf`` into
    ``out_dir`` when the run has SSSB gender pairs; the paths written."""
    return write_figures(paper_figures(run), out_dir)
