"""The likelihood-bias report: the bias score of eq. 6 of Zhou, Kaneko & Bollegala (2022) per
benchmark, category and scoring method for one model, with Table 3's layout, in one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from wordlens.evals.likelihood_bias import BENCHMARK_TITLES, LikelihoodBiasRun
from wordlens.report.html import Report
from wordlens.report.interval_bars import IntervalBars, interval_bars

_COUNTS = ["n", "n_stereo_higher", "n_anti_higher", "n_ties", "n_missing"]


def build_likelihood_report(run: LikelihoodBiasRun) -> Report:
    """Configuration, Table 3, one section per benchmark, timings."""
    meta = run.metadata
    model = meta["model"]
    config = meta["config"]
    bias_scores = run.tables["bias_scores"]
    interval = f"{config['confidence']:.0%} bootstrap interval"
    reductions = model.get("scoring", {}).get("reductions", {})
    report = Report(f"Likelihood bias — {model['name']}")
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


def write_likelihood_bias(run: LikelihoodBiasRun, out_dir: Path) -> list[Path]:
    """Write every table as ``likelihood_<name>`` (parquet/csv/json, see
    :class:`wordlens.results.Result`) and ``report.html`` into ``out_dir``."""
    from wordlens.results import Result

    written: list[Path] = []
    for name, table in run.tables.items():
        written += Result(f"likelihood_{name}", table, run.metadata).write(out_dir)
    written.append(build_likelihood_report(run).write(out_dir / "report.html"))
    return written
