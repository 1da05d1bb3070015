"""VAST, the Valence-Assessing Semantics Test (Wolfe & Caliskan 2022): every experiment per layer.

The computation is :func:`wordlens.methods.vast.experiments.run_vast` (with
:mod:`~wordlens.methods.vast.population`, :mod:`~wordlens.methods.vast.similarity` and
:mod:`~wordlens.methods.vast.top_pcs`); this module registers the method: its options
(:class:`~wordlens.methods.vast.config.VastConfig`), its headline numbers, console tables and
report (:mod:`wordlens.methods.vast.report`).

Headline (study index): the paper's main series, as the run's own ``best_bleached_layer``: the
first lexicon's valence, bleached setting, the single-pooling experiments' pooling (``last`` when
run). ``vast_best_r``: the highest VAST score over layers (Pearson r of SC-WEAT association and
human rating), ``vast_best_layer`` its layer, ``vast_top_r`` the top layer's. Curve ``vast_r``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens.methods.base import Method, RunContext, Summary, read_once_when_shared
from wordlens.methods.registry import register
from wordlens.methods.vast.config import VastConfig
from wordlens.models.options import ModelOptions
from wordlens.results import Run

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.methods.vast.experiments import VastInputs
    from wordlens.plan import Plan
    from wordlens.report.html import Report

__all__ = ["Vast", "VastConfig"]


@register
class Vast(Method[VastConfig]):
    """Run every experiment of the VAST paper (Wolfe & Caliskan 2022) on a model."""

    name = "vast"
    title = "VAST: valence by layer, PC nullification"
    citation = "Wolfe & Caliskan (2022), AAAI 36(10)"
    config_type = VastConfig
    needs = (
        "any model: a language model's word vectors in four contextual settings, or static "
        "vectors (bleached only: ValNorm)"
    )
    table_prefix = "vast_"
    limits = (
        "the first {n} words of each lexicon, WEAT set and PC-population lexicon, the first {n} "
        "pairs of each similarity set, at most {n} sentences per probe"
    )

    @read_once_when_shared
    def read_inputs(self, config: VastConfig) -> VastInputs:
        """The lexica, template file and similarity sets of ``config``, read and checked
        (:func:`~wordlens.methods.vast.experiments.read_vast_inputs`)."""
        from wordlens.methods.vast.experiments import read_vast_inputs

        return read_vast_inputs(config)

    def run(self, model: ModelOptions, config: VastConfig, context: RunContext) -> Run:
        """Read the inputs (:meth:`read_inputs`), then load the model with the BOS policy of
        ``config.conventions`` (:func:`wordlens.conventions.bos_policy`) and run every
        experiment of ``config``."""
        from wordlens.conventions import bos_policy
        from wordlens.methods.vast.experiments import run_vast
        from wordlens.methods.vast.plan import plan_vast

        inputs = self.read_inputs(config)
        bos = bos_policy("vast", config.conventions, model.bos)
        cache = model.cache()
        embedder = model.embedder(bos=bos, status=context.status)
        plan = plan_vast(embedder, config, inputs) if model.with_plan else None
        run = run_vast(
            embedder,
            config,
            inputs=inputs,
            cache=cache,
            progress=context.progress,
            limit=model.limit,
        )
        if plan is not None:
            run.metadata["plan"] = plan.as_metadata()
        return run

    def plan(self, model: ModelOptions, config: VastConfig, context: RunContext) -> Plan:
        """VAST's stages and their estimated time (:func:`~wordlens.methods.vast.plan.
        plan_vast`): the inputs are read and the model loaded, nothing else runs."""
        from wordlens.conventions import bos_policy
        from wordlens.methods.vast.plan import plan_vast

        inputs = self.read_inputs(config)
        bos = bos_policy("vast", config.conventions, model.bos)
        return plan_vast(model.embedder(bos=bos, status=context.status), config, inputs)

    def summary(self, run: Run) -> Summary:
        from wordlens.methods.summaries import best, curves, n_layers, series
        from wordlens.methods.vast.experiments import primary_pooling

        layers = run.tables["layers"]
        lexicon = layers["lexicon"].iloc[0]  # the run's first lexicon, as its best_bleached_layer
        pooling = primary_pooling(run.metadata["poolings_run"])
        rows = layers[
            (layers["lexicon"] == lexicon)
            & (layers["dimension"] == "valence")
            & (layers["setting"] == "bleached")
            & (layers["pooling"] == pooling)
        ].sort_values("layer")
        best_r, best_layer = best(rows, "r")
        static = run.metadata["model"]["kind"] == "static"  # no subtokens: pooling is moot
        setting = f"{lexicon} valence, bleached setting" + (
            "" if static else f", {pooling} pooling"
        )
        return Summary(
            {
                "vast_best_r": best_r,
                "vast_best_layer": best_layer,
                "vast_top_r": float(rows["r"].iloc[-1]),
            },
            curves(series(rows, "r", "vast_r", ("ci_low", "ci_high")), n_layers(run.metadata)),
            {
                "vast_best_r": f"VAST: highest Pearson r over layers ({setting})",
                "vast_best_layer": "VAST: layer of the highest r",
                "vast_top_r": f"VAST: Pearson r at the top layer ({setting})",
                "vast_r": f"VAST Pearson r ({setting})",
            },
        )

    def console(self, run: Run) -> list[RenderableType]:
        """The report's headline lines, the best layer per setting, and VAST by PCs nullified."""
        from rich.text import Text

        from wordlens.methods.vast.report import headline

        lines: list[RenderableType] = [
            Text.assemble((name, "bold"), f": {value}")
            for name, value in headline(run.metadata).items()
        ]
        model_name = run.metadata["model"]["name"]
        return [
            *lines,
            _best_layers(run.tables["layers"], model_name),
            _nullification(run.tables["nullification"], run.metadata["pc_population"]),
        ]

    def report(self, run: Run) -> Report:
        from wordlens.methods.vast.report import build_vast_report

        return build_vast_report(run)


def _best_layers(layers: pd.DataFrame, model_name: str) -> RenderableType:
    """Best layer and its VAST score per lexicon, dimension, setting and pooling."""
    from rich.table import Table

    best = layers.loc[layers.groupby(["lexicon", "dimension", "setting", "pooling"])["r"].idxmax()]
    grid = Table(title=f"VAST on {model_name}: best layer per setting", title_justify="left")
    for column in ("lexicon", "dimension", "setting", "pooling", "best layer", "r", "95% CI"):
        grid.add_column(column)
    for row in best.itertuples():
        grid.add_row(
            str(row.lexicon),
            str(row.dimension),
            str(row.setting),
            str(row.pooling),
            str(row.layer),
            f"{row.r:.3f}",
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
        )
    return grid


def _nullification(table: pd.DataFrame, population: dict[str, Any]) -> RenderableType:
    """Valence VAST by PCs nullified (k = 0..K) at the top layer, per lexicon and setting."""
    from rich.table import Table

    rows = table[
        (table["dimension"] == "valence")
        & (table["representation"] == "nullified")
        & (table["layer_role"] == "top")
    ]
    ks = sorted(rows["k"].unique())
    sizes = population["n_rows"]
    vectors = ", ".join(f"{k}: {v}" for k, v in sizes.items()) if isinstance(sizes, dict) else sizes
    grid = Table(
        title=f"VAST by PCs nullified, top layer (PC population: {population['name']}, "
        f"{vectors} vectors)",
        title_justify="left",
    )
    for column in ("lexicon", "setting", *(f"k={k}" for k in ks)):
        grid.add_column(column)
    for (lexicon, setting), group in rows.groupby(["lexicon", "setting"], sort=False):
        by_k = dict(zip(group["k"], group["r"], strict=True))
        cells = (f"{by_k[k]:.3f}" if k in by_k else "" for k in ks)
        grid.add_row(str(lexicon), str(setting), *cells)
    return grid
