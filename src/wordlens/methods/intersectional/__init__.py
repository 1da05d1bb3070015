"""Biased attitude associations in an intersectional context (Omrani Sabbaghi, Wolfe & Caliskan
2023): projection ValNorm by layer, differential bias, strongest biases.

The computation is :func:`wordlens.methods.intersectional.experiments.run_intersectional`; this
module registers the method: its options
(:class:`~wordlens.methods.intersectional.config.IntersectionalConfig`), its headline numbers,
console tables and report (:mod:`wordlens.methods.intersectional.report`).

Headline (study index; our choice): per bias, ``d_<bias>``, the differential bias (projection
SC-WEAT effect size at the context layer, positive: the first category more pleasant);
``valnorm_projection_best_r`` and ``valnorm_projection_best_layer``, the highest Pearson r over
layers of the valence-direction projection with the lexicon's valence, and its layer;
``valnorm_cosine_best_r``, the same for cosine SC-WEAT. Curves ``valnorm_projection_r`` and
``valnorm_cosine_r``: ValNorm r by layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.methods.base import Method, RunContext, Summary, read_once_when_shared
from wordlens.methods.intersectional.config import NAME, IntersectionalConfig
from wordlens.methods.registry import register
from wordlens.models.options import ModelOptions
from wordlens.report import format_p
from wordlens.results import Run

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.methods.intersectional.experiments import IntersectionalInputs
    from wordlens.report.html import Report

__all__ = ["Intersectional", "IntersectionalConfig"]


@register
class Intersectional(Method[IntersectionalConfig]):
    """Run the intersectional valence bias experiments (Omrani Sabbaghi, Wolfe & Caliskan 2023)."""

    name = NAME
    title = "Intersectional valence bias: ValNorm, differential and strongest biases"
    citation = "Omrani Sabbaghi, Wolfe & Caliskan (2023), AIES 2023, 542-553"
    config_type = IntersectionalConfig
    needs = (
        "a language model's vectors of words alone and of a target word in phrases; static "
        "vectors: the projection ValNorm only"
    )
    table_prefix = "intersectional_"
    limits = "the first {n} words of the ValNorm lexicon"

    @read_once_when_shared
    def read_inputs(self, config: IntersectionalConfig) -> IntersectionalInputs:
        """The study and the lexicon of ``config``, read and checked, and its SVC options
        checked (:func:`~wordlens.methods.intersectional.experiments.read_intersectional_inputs`).
        """
        from wordlens.methods.intersectional.experiments import read_intersectional_inputs

        return read_intersectional_inputs(config)

    def run(self, model: ModelOptions, config: IntersectionalConfig, context: RunContext) -> Run:
        """Read the study and the lexicon and check the SVC options (:meth:`read_inputs`), then
        load the model with the BOS policy of ``config.conventions``
        (:func:`wordlens.conventions.bos_policy`) and run the experiments of ``config``."""
        from wordlens.conventions import bos_policy
        from wordlens.methods.intersectional.experiments import run_intersectional

        bos = bos_policy("intersectional", config.conventions, model.bos)
        inputs = self.read_inputs(config)  # a bad study or lexicon fails before the model loads
        cache = model.cache()
        embedder = model.embedder(bos=bos, status=context.status)
        return run_intersectional(
            embedder,
            config,
            study=inputs.study,
            lexicon=(
                inputs.lexicon
                if inputs.lexicon is None or model.limit is None
                else inputs.lexicon.first(model.limit)
            ),
            cache=cache,
            progress=context.progress,
        )

    def summary(self, run: Run) -> Summary:
        """Differential effect sizes and ValNorm's best layers (see the module notes)."""
        from wordlens.methods.summaries import best, curves, identifier, n_layers, series

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        if "differential" in run.tables:
            for row in run.tables["differential"].to_dict("records"):
                name = f"d_{identifier(row['bias'])}"
                headline[name] = float(row["effect_size"])
                definitions[name] = (
                    f"differential bias, {row['test']}: projection SC-WEAT effect size at the "
                    f"context layer (positive: {row['first']} more pleasant)"
                )
        if "valnorm" not in run.tables:
            return Summary(headline, None, definitions)
        valnorm = run.tables["valnorm"]
        headline["valnorm_projection_best_r"], headline["valnorm_projection_best_layer"] = best(
            valnorm, "projection_r"
        )
        headline["valnorm_cosine_best_r"] = best(valnorm, "cosine_r")[0]
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
        import pandas as pd

        layered = pd.concat(
            [
                series(
                    valnorm,
                    f"{kind}_r",
                    f"valnorm_{kind}_r",
                    (f"{kind}_ci_low", f"{kind}_ci_high"),
                )
                for kind in ("projection", "cosine")
            ]
        )
        return Summary(headline, curves(layered, n_layers(run.metadata)), definitions)

    def console(self, run: Run) -> list[RenderableType]:
        """The report's headline lines, then ValNorm at the top and best layers, the
        differential tests and the top/bottom shares (of the experiments run)."""
        from rich.text import Text

        from wordlens.methods.intersectional.report import headline

        lines: list[RenderableType] = [
            Text.assemble((name, "bold"), f": {value}")
            for name, value in headline(run.metadata).items()
        ]
        model_name = run.metadata["model"]["name"]
        tables = run.tables
        if "valnorm" in tables:
            lines.append(_valnorm_grid(tables["valnorm"], model_name))
        if "differential" in tables:
            lines.append(_differential_grid(tables["differential"], model_name))
        if "strongest_categories" in tables:
            lines.append(_shares_grid(tables["strongest_categories"]))
        return lines

    def report(self, run: Run) -> Report:
        from wordlens.methods.intersectional.report import build_intersectional_report

        return build_intersectional_report(run)


def _valnorm_grid(valnorm: pd.DataFrame, model_name: str) -> RenderableType:
    """ValNorm r (projection and cosine) at the top layer and at the best projection layer
    (none when the projection r is NaN at every layer)."""
    import numpy as np
    from rich.table import Table

    from wordlens.methods.summaries import best

    grid = Table(title=f"ValNorm on {model_name}", title_justify="left")
    for column in ("layer", "", "projection r", "cosine r", "n"):
        grid.add_column(column)
    rows = [(valnorm.iloc[-1], "top")]
    best_layer = best(valnorm, "projection_r")[1]
    if not np.isnan(best_layer):
        rows.append((valnorm[valnorm["layer"] == best_layer].iloc[0], "best projection"))
    for row, which in rows:
        grid.add_row(
            str(row["layer"]),
            which,
            f"{row['projection_r']:.3f}",
            f"{row['cosine_r']:.3f}",
            str(row["n"]),
        )
    return grid


def _differential_grid(differential: pd.DataFrame, model_name: str) -> RenderableType:
    """Effect size and p-values of each differential test."""
    from rich.table import Table

    grid = Table(title=f"Differential bias on {model_name}", title_justify="left")
    for column in ("test", "effect size", "p one-sided", "p two-sided"):
        grid.add_column(column)
    for row in differential.itertuples():
        grid.add_row(
            str(row.test),
            f"{row.effect_size:.3f}",
            format_p(row.p_one_sided, getattr(row, "n_partitions", None), digits=4),
            format_p(row.p_two_sided, getattr(row, "n_partitions", None), digits=4),
        )
    return grid


def _shares_grid(categories: pd.DataFrame) -> RenderableType:
    """Per category, the percentage of the top and bottom phrases containing it."""
    from rich.table import Table

    grid = Table(title="% of top / bottom phrases containing", title_justify="left")
    for column in ("category", "% top", "% bottom"):
        grid.add_column(column)
    for row in categories.sort_values("pct_top", ascending=False).itertuples():
        grid.add_row(str(row.category), f"{row.pct_top:.2f}", f"{row.pct_bottom:.2f}")
    return grid
