"""Edge probing (Tenney et al. 2019): a span probe per representation of a frozen model.

The computation is :func:`wordlens.methods.probing.experiment.run_probing` (on the building
blocks of :mod:`wordlens.probing`); this module registers the method ``probe``: its options
(:class:`~wordlens.methods.probing.config.ProbeConfig`), its headline numbers, console table and
report (:mod:`wordlens.methods.probing.report`).

Headline (study index): ``<task>_f1_<representation>``, the test micro-F1 of each probe and of
the majority baseline (Table 2). Curves ``<task>_f1`` and ``<task>_f1_random``: the test
micro-F1 of the single-layer probes (``layer:K``, ``random-layer:K``) by layer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from wordlens.methods.base import Method, RunContext, Summary
from wordlens.methods.probing.config import ProbeConfig
from wordlens.methods.registry import register
from wordlens.models.options import ModelOptions
from wordlens.results import Run

if TYPE_CHECKING:
    from rich.console import RenderableType

    from wordlens.models.base import WordEmbedder
    from wordlens.models.hf import HFEmbedder
    from wordlens.plan import Plan
    from wordlens.report.html import Report

__all__ = ["Probe", "ProbeConfig"]

SINGLE_LAYER_PROBE = re.compile(r"^(random-)?layer:(\d+)$")
"""A probe of one layer (``layer:K``), of the trained or the randomized encoder."""


@register
class Probe(Method[ProbeConfig]):
    """Edge probing (Tenney et al. 2019): a span probe per representation of a frozen model,
    trained on the task's train split and scored on its test split (micro-F1, Table 2)."""

    name = "probe"
    title = "Edge probing"
    citation = "Tenney et al. (2019), What do you learn from context? ICLR 2019"
    config_type = ProbeConfig
    needs = "a transformer's subtoken vectors in context (not static vectors)"
    table_prefix = "probing_"
    limits = "the first {n} examples of each split"

    def run(self, model: ModelOptions, config: ProbeConfig, context: RunContext) -> Run:
        """Open the cache, load the model (with ``--with-plan``, plan the run on it first), and
        pass a loader of fresh copies for the randomized encoder (``random-*`` representations
        change a model in place, so a model given already loaded is copied, never randomized
        itself)."""
        from wordlens.methods.probing.experiment import run_probing
        from wordlens.methods.probing.plan import plan_probing

        cache = model.cache()

        def fresh() -> HFEmbedder:
            return _transformer(model.fresh_embedder(status=context.status), model)

        trained = _transformer(model.embedder(status=context.status), model)
        plan = plan_probing(trained, config, model.limit) if model.with_plan else None
        run = run_probing(
            config,
            trained,
            cache=cache,
            load_randomized=fresh,
            progress=context.progress,
            limit=model.limit,
        )
        if plan is not None:
            run.metadata["plan"] = plan.as_metadata()
        return run

    def plan(self, model: ModelOptions, config: ProbeConfig, context: RunContext) -> Plan:
        """The probe's stages and their estimated time (:func:`~wordlens.methods.probing.plan.
        plan_probing`): the model and the task's data are loaded, a few sentences encoded and a
        few steps trained; nothing is cached or written."""
        from wordlens.methods.probing.plan import plan_probing

        embedder = _transformer(model.embedder(status=context.status), model)
        return plan_probing(embedder, config, model.limit)

    def summary(self, run: Run) -> Summary:
        import numpy as np
        import pandas as pd

        from wordlens.methods.summaries import curves, n_layers

        task = run.metadata["task"]["name"]
        scores = run.tables["scores"]
        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        for row in scores.to_dict("records"):
            name = f"{task}_f1_{row['representation']}"
            headline[name] = float(row["test_micro_f1"])
            definitions[name] = (
                f"edge probing, {task}: test micro-F1, {row['representation']} probe"
            )
        single = scores["representation"].str.extract(SINGLE_LAYER_PROBE)  # [random-, layer]
        layered = single[1].notna()
        if not layered.any():
            return Summary(headline, None, definitions)
        series = pd.DataFrame(
            {
                "layer": single.loc[layered, 1].astype(int),
                "metric": np.where(
                    single.loc[layered, 0].notna(), f"{task}_f1_random", f"{task}_f1"
                ),
                "value": scores.loc[layered, "test_micro_f1"],
            }
        ).sort_values(["metric", "layer"])
        definitions[f"{task}_f1"] = f"edge probing, {task}: test micro-F1 of a probe on one layer"
        definitions[f"{task}_f1_random"] = f"the same on the randomized encoder ({task})"
        return Summary(headline, curves(series, n_layers(run.metadata)), definitions)

    def console(self, run: Run) -> list[RenderableType]:
        """Per representation: test micro-F1, best dev micro-F1 and training steps."""
        from rich.table import Table

        task, model_name = run.metadata["task"]["name"], run.metadata["model"]["name"]
        grid = Table(title=f"Edge probing: {task}, {model_name}", title_justify="left")
        for column in ("representation", "test micro-F1", "best dev micro-F1", "steps"):
            grid.add_column(column)
        for row in run.tables["scores"].to_dict("records"):
            dev, steps = row.get("best_dev_micro_f1"), row.get("steps")
            grid.add_row(
                str(row["representation"]),
                f"{row['test_micro_f1']:.4f}",
                f"{dev:.4f}" if isinstance(dev, float) and dev == dev else "",
                str(int(steps)) if isinstance(steps, int | float) and steps == steps else "",
            )
        return [grid]

    def report(self, run: Run) -> Report:
        from wordlens.methods.probing.report import build_probing_report

        return build_probing_report(run)


def _transformer(embedder: WordEmbedder, model: ModelOptions) -> HFEmbedder:
    """``embedder`` (loaded from ``model``) if it has subtoken vectors in context.

    Raises
    ------
    WordlensError
        If the model is static vectors.
    """
    from wordlens.errors import WordlensError
    from wordlens.models.hf import HFEmbedder

    if not isinstance(embedder, HFEmbedder):
        raise WordlensError(
            f"{model.required_model()} is a {embedder.info.kind} model: edge probing needs a "
            "transformer's subtoken vectors in context"
        )
    return embedder
