"""Asymmetry judgment with evocation data (Zhang et al. 2021): LAR, ALAR and CAM of one model.

The computation is :func:`wordlens.methods.asymmetry.experiment.run_asymmetry`; this module
registers the method: its options (:class:`~wordlens.methods.asymmetry.config.AsymmetryConfig`),
its headline numbers, console table and report (:mod:`wordlens.methods.asymmetry.report`).

Headline (study index): per evocation data set N, ``cam_N``, the CAM (eq. 4: Spearman of the
model's and the data's LAR) over all distinct pairs, and ``direction_accuracy_N_thetaT``, the
share of pairs with ``|LAR_data| > T`` whose direction the model gets right (Appendix G), per
threshold T. No curves (one number per model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.methods.asymmetry.config import AsymmetryConfig
from wordlens.methods.base import Method, RunContext, Summary, read_once_when_shared
from wordlens.methods.registry import register
from wordlens.models.options import ModelOptions
from wordlens.results import Run

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.report.html import Report
    from wordlens.resources.association_norms import AssociationNorms

__all__ = ["Asymmetry", "AsymmetryConfig"]


@register
class Asymmetry(Method[AsymmetryConfig]):
    """Asymmetry judgment with evocation data (Zhang et al. 2021): LAR, ALAR and CAM of a static
    embedding or a masked/causal language model against EAT, USF or SWOW."""

    name = "asymmetry"
    title = "Asymmetry judgment with evocation data"
    citation = "Zhang, Campbell, Yu & Kumaravel (2021), AAAI 2021"
    config_type = AsymmetryConfig
    needs = (
        "static vectors, or a masked or causal language model with its head (eq. 6 over "
        "corpus paragraphs)"
    )
    table_prefix = "asymmetry_"
    limits = "the first {n} cue/target pairs of each data set"

    @read_once_when_shared
    def read_inputs(self, config: AsymmetryConfig) -> dict[str, AssociationNorms]:
        """The evocation data sets of ``config``, read, and its similarity sets checked
        (:func:`~wordlens.methods.asymmetry.experiment.read_asymmetry_inputs`)."""
        from wordlens.methods.asymmetry.experiment import read_asymmetry_inputs

        return read_asymmetry_inputs(config)

    def run(self, model: ModelOptions, config: AsymmetryConfig, context: RunContext) -> Run:
        """Check the work directory (``config.workdir``, else ``OUT/work``), read the inputs
        (:meth:`read_inputs`), load the model
        (:func:`~wordlens.methods.asymmetry.experiment.load_asymmetry_model`) and run; with
        ``config.shard`` the run stops after that shard (not ``complete``)."""
        from wordlens.methods.asymmetry.experiment import load_asymmetry_model, run_asymmetry
        from wordlens.methods.base import output_dir

        work = (
            output_dir(config.workdir, "--workdir")
            if config.workdir is not None
            else context.work_dir
        )
        norms = self.read_inputs(config)
        with context.status(f"loading {model.required_model()}"):
            opened = load_asymmetry_model(model)
        return run_asymmetry(
            config,
            opened,
            workdir=work,
            norms=norms,
            progress=context.progress,
            limit=model.limit,
        )

    def summary(self, run: Run) -> Summary:
        from wordlens.methods.asymmetry.experiment import ALL_PAIRS

        cam, accuracy = run.tables["cam"], run.tables["direction_accuracy"]
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
        return Summary(headline, None, definitions)

    def console(self, run: Run) -> list[RenderableType]:
        """Per data set: pairs, CAM over all pairs and direction accuracy at each threshold;
        after one shard of a sharded run, what to do next."""
        if not run.complete:
            done = run.metadata["contextual"]["shards"][0]
            return [
                f"shard {done['shard']} of {done['n_shards']} finished ({done['path']}); when "
                "every shard is done, run again without --shard to merge and measure"
            ]
        return [_cam_and_accuracy(run.tables, run.metadata["model"]["name"])]

    def report(self, run: Run) -> Report:
        from wordlens.methods.asymmetry.report import build_asymmetry_report

        return build_asymmetry_report(run)


def _cam_and_accuracy(tables: dict[str, pd.DataFrame], model_name: str) -> RenderableType:
    """The console table: per data set, pairs, CAM [95% CI] and direction accuracy (theta)."""
    from rich.table import Table

    from wordlens.methods.asymmetry.experiment import ALL_PAIRS

    grid = Table(title=f"Asymmetry (Zhang et al. 2021) of {model_name}", title_justify="left")
    for column in ("data", "pairs", "CAM [95% CI]", "direction accuracy (theta)"):
        grid.add_column(column)
    cam = tables["cam"][tables["cam"]["relation"] == ALL_PAIRS]
    accuracy = tables["direction_accuracy"]
    accuracy = accuracy[accuracy["relation"] == ALL_PAIRS]
    for row in cam.itertuples():
        shares = accuracy[accuracy["norm"] == row.norm]
        text = ", ".join(f"{a.accuracy:.3f} ({a.threshold:g})" for a in shares.itertuples())
        grid.add_row(
            str(row.norm), str(row.n), f"{row.cam:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]", text
        )
    return grid
