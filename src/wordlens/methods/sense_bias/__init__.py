"""Social bias in sense embeddings (Zhou, Kaneko & Bollegala 2022).

The computation is :func:`wordlens.methods.sense_bias.compute.run_sense_bias` (the SSSB rows in
:mod:`wordlens.methods.sense_bias.static_sssb`); this module registers the method: its options
(:class:`~wordlens.methods.sense_bias.config.SenseBiasConfig`), its headline numbers, its console
tables and its report (:mod:`wordlens.methods.sense_bias.report`). Sense vectors are built from
``--model`` or read from ``--senses`` (exactly one), so the model is optional.

Headline (study index; our choice): at each representation's top layer (``sense``, ``word`` =
mean of senses, eq. 7, and the ``baseline`` model), ``weatN_d_<representation>`` (WEAT with sense
ids) and ``wat_r_<representation>`` (WAT: Pearson r with the reference). Curves
``weatN_d_sense``, ``weatN_d_word``, ``wat_r_sense``, ``wat_r_word`` (the baseline, another
model, has none). A run without the ``weat`` and ``wat`` experiments has no headline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens.methods.base import Method, RunContext, Summary
from wordlens.methods.registry import register
from wordlens.methods.sense_bias.config import NAME, SenseBiasConfig, check_source
from wordlens.models.options import ModelOptions
from wordlens.report import format_p
from wordlens.results import Run

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType
    from rich.table import Table

    from wordlens.report.html import Report

__all__ = ["SenseBias", "SenseBiasConfig"]


@register
class SenseBias(Method[SenseBiasConfig]):
    """Social bias in sense embeddings (Zhou, Kaneko & Bollegala 2022): WEAT with sense ids, WAT,
    SSSB and the gender direction at the sense and the word level (Table 2, Figure 2), and WEAT by
    dimension (Figure 1)."""

    name = NAME
    title = "Social bias in sense embeddings"
    citation = "Zhou, Kaneko & Bollegala (2022), ACL 2022, Table 2 and Figures 1-2"
    config_type = SenseBiasConfig
    needs = (
        "any model to build WordNet sense vectors from, or a sense-vector file (--senses); "
        "a word-level baseline model"
    )
    model_required = False
    table_prefix = "sense_bias_"
    limits = "the first {n} words of the WAT reference, gender pairs and occupations"

    def run(self, model: ModelOptions, config: SenseBiasConfig, context: RunContext) -> Run:
        """Build or read the sense vectors and run the experiments; the paper's figures are
        written into ``context.out_dir`` as PNG, SVG and PDF files beside the tables."""
        from wordlens.methods.sense_bias.compute import run_sense_bias
        from wordlens.methods.sense_bias.report import write_paper_figures

        check_source(model.model is not None, config.senses)
        cache = model.cache()
        built = None if model.model is None else model.embedder(status=context.status)
        baseline = (
            None
            if config.baseline is None
            else model.replace(model=config.baseline).embedder(status=context.status)
        )
        run = run_sense_bias(
            config,
            model=built,
            baseline=baseline,
            cache=cache,
            progress=context.progress,
            limit=model.limit,
        )
        write_paper_figures(run, context.out_dir)
        return run

    def summary(self, run: Run) -> Summary:
        import pandas as pd

        from wordlens.methods.summaries import curves, n_layers, series, top_rows

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        layered = []
        if "weat" in run.tables:
            weat = run.tables["weat"]
            for row in top_rows(weat).to_dict("records"):
                name = f"weat{row['test']}_d_{row['representation']}"
                headline[name] = float(row["effect_size"])
                definitions[name] = (
                    f"WEAT {row['test']} with sense ids ({row['title']}), "
                    f"{row['representation']} vectors: effect size at the top layer"
                )
            for (test_id, representation), rows in weat.groupby(["test", "representation"]):
                if representation != "baseline":
                    metric = f"weat{test_id}_d_{representation}"
                    layered.append(series(rows, "effect_size", metric))
        if "wat" in run.tables:
            wat = run.tables["wat"]
            for row in top_rows(wat).to_dict("records"):
                name = f"wat_r_{row['representation']}"
                headline[name] = float(row["r"])
                definitions[name] = (
                    f"WAT: Pearson r with the reference, {row['representation']} vectors, top layer"
                )
            for representation, rows in wat.groupby("representation"):
                if representation != "baseline":
                    layered.append(
                        series(rows, "r", f"wat_r_{representation!s}", ("ci_low", "ci_high"))
                    )
        lines = curves(pd.concat(layered), n_layers(run.metadata)) if layered else None
        return Summary(headline, lines, definitions)

    def console(self, run: Run) -> list[RenderableType]:
        """Table 2, then the top-layer WEAT effect sizes, WAT correlations and occupation cosines
        per representation (the baseline's rows are at its own single layer)."""
        from wordlens.methods.summaries import top_rows

        tables = run.tables
        top = {name: top_rows(table) for name, table in tables.items() if "layer" in table}
        shown: list[RenderableType] = []
        if "table2" in tables:
            shown.append(_table2_grid(tables["table2"]))
        if "weat" in top:
            shown.append(_weat_grid(top["weat"]))
        if "wat" in top:
            shown.append(_wat_grid(top["wat"]))
        if "gender_direction" in top:
            shown.append(_direction_grid(top["gender_direction"]))
        return shown

    def report(self, run: Run) -> Report:
        from wordlens.methods.sense_bias.report import build_sense_report

        return build_sense_report(run)


def _grid(title: str, columns: tuple[str, ...]) -> Table:
    from rich.table import Table

    grid = Table(title=title, title_justify="left")
    for column in columns:
        grid.add_column(column)
    return grid


def _table2_grid(table: pd.DataFrame) -> Table:
    grid = _grid(
        "Table 2 (word / sense / baseline), top layer",
        ("section", "row", "word", "sense", "baseline", "note"),
    )
    for row in table.itertuples():
        values: tuple[Any, ...] = (row.word, row.sense, row.baseline)
        cells = ["–" if value != value else f"{value:+.3f}" for value in values]  # NaN: –
        grid.add_row(str(row.section), str(row.row), *cells, str(row.note))
    return grid


def _weat_grid(top: pd.DataFrame) -> Table:
    grid = _grid(
        "WEAT with sense ids, top layer",
        ("test", "representation", "effect size", "p one-sided", "n x/y/a/b"),
    )
    for row in top.itertuples():
        sizes = f"{row.n_x}/{row.n_y}/{row.n_a}/{row.n_b}"
        grid.add_row(
            str(row.test),
            str(row.representation),
            f"{row.effect_size:+.3f}",
            format_p(row.p_one_sided, row.n_partitions, digits=4),
            sizes,
        )
    return grid


def _wat_grid(top: pd.DataFrame) -> Table:
    grid = _grid(
        "WAT (Pearson with the reference), top layer", ("representation", "r", "95% CI", "n")
    )
    for row in top.itertuples():
        interval = f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
        grid.add_row(str(row.representation), f"{row.r:.3f}", interval, str(row.n))
    return grid


def _direction_grid(top: pd.DataFrame) -> Table:
    grid = _grid(
        "Cosine with the gender direction (eq. 8), top layer; + male",
        ("occupation", "noun sense", "verb sense", "word", "baseline"),
    )
    for row in top.itertuples():
        grid.add_row(
            str(row.occupation),
            f"{row.noun_sense:+.3f}",
            f"{row.verb_sense:+.3f}",
            f"{row.word:+.3f}",
            f"{row.baseline:+.3f}",
        )
    return grid
