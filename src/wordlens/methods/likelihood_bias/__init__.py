"""Likelihood bias score (Zhou, Kaneko & Bollegala 2022, eq. 6) on sentence-pair benchmarks.

The computation is :func:`wordlens.methods.likelihood_bias.compute.run_likelihood_bias`; this
module registers the method: its options
(:class:`~wordlens.methods.likelihood_bias.config.LikelihoodBiasConfig`), its headline numbers,
its console table and its report (:mod:`wordlens.methods.likelihood_bias.report`).

Headline (study index): the Table 3 cells, ``<method>_<benchmark>`` (``aul_crows_pairs``) and,
for SSSB, one per sense (``aul_sssb_race``): the bias score of eq. 6, 100·share(stereotype
scores higher) − 50. No curves (the scores are of whole sentences, not of layers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.methods.base import Method, RunContext, Summary
from wordlens.methods.likelihood_bias.config import NAME, LikelihoodBiasConfig
from wordlens.methods.registry import register
from wordlens.models.options import ModelOptions
from wordlens.results import Run

if TYPE_CHECKING:
    from rich.console import RenderableType

    from wordlens.report.html import Report

__all__ = ["LikelihoodBias", "LikelihoodBiasConfig"]


@register
class LikelihoodBias(Method[LikelihoodBiasConfig]):
    """Likelihood bias score (Zhou, Kaneko & Bollegala 2022, eq. 6) on sentence-pair benchmarks."""

    name = NAME
    title = "Likelihood bias score on sentence pairs"
    citation = "Zhou, Kaneko & Bollegala (2022), ACL 2022, eq. 6 and Table 3"
    config_type = LikelihoodBiasConfig
    needs = "a masked LM (AUL, AULA, PLL) or a causal LM (sum or mean token log-probability)"
    table_prefix = "likelihood_"
    limits = "the first {n} pairs (items) of each benchmark"

    def run(self, model: ModelOptions, config: LikelihoodBiasConfig, context: RunContext) -> Run:
        """Score the benchmarks' pairs; Figure 3 is written into ``context.out_dir`` as PNG, SVG
        and PDF files beside the tables (when the run has SSSB gender pairs)."""
        from wordlens.methods.likelihood_bias.compute import run_likelihood_bias
        from wordlens.methods.likelihood_bias.report import write_paper_figures

        scorer = model.scorer(status=context.status)
        run = run_likelihood_bias(scorer, config, progress=context.progress, limit=model.limit)
        write_paper_figures(run, context.out_dir)
        return run

    def summary(self, run: Run) -> Summary:
        from wordlens.methods.summaries import identifier

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        for row in run.tables["table3"].to_dict("records"):
            group = "" if row["group"] == "all" else f"_{identifier(row['group'])}"
            for method in run.metadata["config"]["methods"]:
                name = f"{method}_{identifier(row['benchmark'])}{group}"
                headline[name] = float(row[method])
                definitions[name] = (
                    f"{method.upper()} bias score (eq. 6), {row['benchmark']} {row['group']}, "
                    f"{row['n']} pairs"
                )
        return Summary(headline, None, definitions)

    def console(self, run: Run) -> list[RenderableType]:
        """The Table 3 layout: bias score per benchmark (SSSB per sense) and method."""
        from rich.table import Table

        methods = run.metadata["config"]["methods"]
        model_name = run.metadata["model"]["name"]
        grid = Table(title=f"Likelihood bias score (eq. 6) on {model_name}", title_justify="left")
        for column in ("benchmark", "group", "pairs", *methods):
            grid.add_column(column)
        for _, row in run.tables["table3"].iterrows():
            scores = [f"{row[method]:+.2f}" for method in methods]
            grid.add_row(str(row["benchmark"]), str(row["group"]), str(row["n"]), *scores)
        return [grid]

    def report(self, run: Run) -> Report:
        from wordlens.methods.likelihood_bias.report import build_likelihood_report

        return build_likelihood_report(run)
