"""Every association metric on one query, at every layer, on one page (``wordlens
associations``): the query's words are embedded once, each registered
:class:`~wordlens.methods.association.AssociationMethod` (RND, RNSB, MAC, ECT, RIPA, SemAxis)
scores them with the shared options (:func:`metric_config`), and the report ranks the layers by
each metric and shows where the metrics disagree.

Layers are ranked by each metric's association strength: its value where larger means more
association, minus it where smaller does (MAC's cosine distance), and its absolute value where
the sign only gives the direction. Two metrics disagree on a part of the query where their
strengths rank the layers differently: the report gives Spearman's rho between every two
metrics' strengths over the layers, and the best layer of each.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from wordlens.errors import WordlensError
from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.association.method import (
    SCORE_COLUMNS,
    WORD_KEYS,
    embedded_query,
    headline_key,
    left_out_lines,
    max_missing_text,
    query_metadata,
    read_query,
    sentence,
    value_cell,
    words_grid,
    words_report,
)
from wordlens.methods.associations.config import AssociationsConfig
from wordlens.methods.base import FIRST_WORDS, Method, RunContext, Summary, read_once_when_shared
from wordlens.methods.registry import register
from wordlens.results import Run
from wordlens.stages import Timings

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.models.options import ModelOptions
    from wordlens.report.figures import Panel
    from wordlens.report.html import Report
    from wordlens.resources import Query

__all__ = ["Associations", "AssociationsConfig", "association_metrics", "metric_config"]


def association_metrics() -> list[AssociationMethod[Any]]:
    """The registered association metrics, in the order of the commands."""
    from wordlens.methods.registry import registered_methods

    return [m for m in registered_methods().values() if isinstance(m, AssociationMethod)]


def metric_config(metric: AssociationMethod[Any], config: AssociationConfig) -> Any:
    """``metric``'s config on the combined page: the options of ``config`` the metric takes,
    as given (RNSB's ``holdout`` among them), except those the metric gives a default of its
    own (RNSB's ``bootstrap`` 0: each resample refits every classifier), which keep it; the
    metric's other options at their defaults."""
    own = {field.name: field.default for field in dataclasses.fields(metric.config_type)}
    shared = {
        field.name: getattr(config, field.name)
        for field in dataclasses.fields(config)
        if field.name in own and own[field.name] == field.default
    }
    return metric.config_type(**shared)


@register
class Associations(Method[AssociationsConfig]):
    """Run every association metric (RND, RNSB, MAC, ECT, RIPA, SemAxis) on one query at every
    layer of a model, on one page: layers ranked by each, and where the metrics disagree."""

    name = "associations"
    limits = FIRST_WORDS
    title = "Association metrics by layer"
    citation = "the papers of each metric (see each row's metric)"
    config_type = AssociationsConfig
    needs = "any model: a language model's word vectors in context, or static vectors"
    query: Query | None = None

    def with_query(self, query: Query) -> Associations:
        """This method running ``query`` (given in Python) instead of ``config.query``."""
        method = Associations()
        method.query = query
        return method

    @read_once_when_shared
    def read_inputs(self, config: AssociationsConfig) -> Query:
        """The query: the one given in Python, or ``config.query``'s file."""
        return read_query(self.name, self.query, config)

    def run(self, model: ModelOptions, config: AssociationsConfig, context: RunContext) -> Run:
        import pandas as pd

        from wordlens.methods.association.words import empty_words
        from wordlens.methods.associations.ranking import disagreements, layer_ranks, strength

        query, embedder, vectors = embedded_query(self.read_inputs(config), model, config, context)
        tables, words, uncertainty, notes = [], [], {}, []
        left_out_by_metric: dict[str, dict[str, list[str]]] = {}
        not_computed: dict[str, str] = {}
        why = dict(vectors.why)
        metrics = association_metrics()
        if not metrics:
            raise WordlensError("no association metric is registered (wordlens methods)")
        for metric in metrics:
            own = metric_config(metric, config)
            uncertainty[metric.name] = metric.uncertainty(own)
            if vectors.skipped:
                not_computed[metric.name] = vectors.skipped
                continue
            try:
                with Timings().stage(metric.name):
                    scored = metric.scored(vectors, query, own)
            except WordlensError as error:  # this metric cannot run on the query; the others can
                not_computed[metric.name] = str(error)
                continue
            table = scored.table
            tables.append(table.assign(strength=strength(table["value"], metric.more_bias)))
            words.append(scored.words)
            notes.extend(scored.notes)
            if scored.vectors.left_out != vectors.left_out:
                left_out_by_metric[metric.name] = scored.vectors.left_out
                why |= scored.vectors.why
        scores = (
            pd.concat(tables, ignore_index=True)
            if tables
            else pd.DataFrame(columns=[*SCORE_COLUMNS, "strength"])
        )
        shared = query_metadata(embedder, query, config, vectors)
        metadata = {
            "method": self.title,
            **shared,
            "left_out_by_metric": left_out_by_metric,
            "why_left_out": {
                word: why[word]
                for sets in (vectors.left_out, *left_out_by_metric.values())
                for words in sets.values()
                for word in words
            },
            "not_computed": not_computed,
            "notes": notes,
            "metrics": {
                m.name: {
                    "title": m.title,
                    "label": m.label,
                    "citation": m.citation,
                    "formula": m.formula,
                    "more_bias": m.more_bias,
                }
                for m in metrics
            },
            "uncertainty": uncertainty,
            "word_scores": {m.name: m.word_totals for m in metrics},
        }
        tables_out = {
            "scores": scores,
            "words": pd.concat(words, ignore_index=True) if words else empty_words(WORD_KEYS),
            "ranks": layer_ranks(scores),
            "disagreements": disagreements(scores),
        }
        return Run(self.name, tables_out, metadata)

    def summary(self, run: Run) -> Summary:
        import pandas as pd

        from wordlens.methods.summaries import curves, n_layers, series

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        rows = []
        for record in run.tables["ranks"].to_dict("records"):
            key = headline_key(str(record["metric"]), str(record["part"]))
            headline[f"{key}_best_layer"] = float(record["best_layer"])
            definitions[f"{key}_best_layer"] = (
                f"{record['metric']} ({record['part']}): strongest layer"
            )
        for (metric, part), group in run.tables["scores"].groupby(["metric", "part"], sort=False):
            key = headline_key(str(metric), str(part))
            definitions[key] = f"{metric} ({part}) by layer"
            rows.append(series(group, "value", key, ("ci_low", "ci_high")))
        layered = curves(pd.concat(rows), n_layers(run.metadata)) if rows else None
        return Summary(headline, layered, definitions)

    def comparison_scores(self, run: Run) -> pd.DataFrame:
        """Every metric's value at every part and layer, more association as each metric's
        ``more_bias`` says."""
        scores = run.tables["scores"]
        more_bias = {metric.name: metric.more_bias for metric in association_metrics()}
        return scores[["metric", "part", "layer", "value"]].assign(
            more_bias=scores["metric"].map(more_bias)
        )

    def console(self, run: Run) -> list[RenderableType]:
        from rich.table import Table

        metadata = run.metadata
        notes = [*left_out_lines(run), *metadata.get("notes", [])]
        if metadata.get("skipped"):
            return [metadata["skipped"], *notes]
        not_computed = metadata.get("not_computed", {})
        model = metadata["model"]["name"]
        if len(metadata["config"]["layers"]) == 1:  # nothing to rank: each metric's value
            values = Table(
                title=f"Association metrics on {model}: value [interval] p",
                title_justify="left",
            )
            for column in ("metric", "part", "value"):
                values.add_column(column)
            for _, row in run.tables["scores"].iterrows():
                values.add_row(str(row["metric"]), str(row["part"]), value_cell(row))
            for metric, reason in not_computed.items():
                values.add_row(metric, "–", f"not computed: {reason}")
            return [values, *words_grid(run, "Association metrics"), *notes]
        ranks = Table(
            title=f"Association metrics on {model}: strongest layer", title_justify="left"
        )
        for column in ("metric", "part", "best layer", "value there", "layers, strongest first"):
            ranks.add_column(column, justify="left" if column in ("metric", "part") else "right")
        for record in run.tables["ranks"].to_dict("records"):
            best = float(record["best_layer"])
            ranks.add_row(
                str(record["metric"]),
                str(record["part"]),
                "–" if math.isnan(best) else str(int(best)),
                f"{record['value_at_best']:+.3f}",
                str(record["layers_strongest_first"]),
            )
        for metric, reason in not_computed.items():
            ranks.add_row(metric, "–", "–", "–", f"not computed: {reason}")
        return [
            ranks,
            *_disagreement_lines(run.tables["disagreements"]),
            *words_grid(run, "Association metrics"),
            *notes,
        ]

    def report(self, run: Run) -> Report:
        from wordlens.report.figures import ALPHA, line_figure
        from wordlens.report.html import Report

        metadata = run.metadata
        report = Report(f"Association metrics on {metadata['model']['name']}", metadata=metadata)
        query = metadata["query"]
        report.definitions(
            {
                "query": query["title"],
                **{f"target set {n}": ", ".join(w) for n, w in query["targets"].items()},
                **{f"attribute set {n}": ", ".join(w) for n, w in query["attributes"].items()},
                "context": metadata["config"]["context"],
                "most share of a set's words lost": max_missing_text(metadata["config"]),
            }
        )
        if metadata.get("skipped"):
            report.paragraph(metadata["skipped"], note=True)
        scores = run.tables["scores"]
        report.heading("Each metric by layer")
        for name, about in metadata["metrics"].items():
            report.paragraph(
                f"{about['title']} ({about['citation']}): {sentence(about['formula'])} "
                f"More association: {about['more_bias']}. "
                f"Interval: {metadata['uncertainty'][name]['interval']}; "
                f"p: {metadata['uncertainty'][name]['p_value']}."
            )
        if scores["layer"].nunique() > 1:
            report.figure(
                line_figure(_panels(scores, metadata["metrics"]), columns=3),
                "association metrics by layer",
                "Each metric's value by layer, one line per part of the query; shaded: its "
                f"bootstrap interval; filled markers: permutation p < {ALPHA}, open: p ≥ "
                f"{ALPHA} (or no p).",
            )
        report.table(scores)
        if not metadata.get("skipped"):
            for metric, reason in metadata.get("not_computed", {}).items():
                report.paragraph(f"{metric}: not computed: {reason}", note=True)
        if len(metadata["config"]["layers"]) > 1:
            _ranks_sections(report, run)
        for line in [*left_out_lines(run), *run.metadata.get("notes", [])]:
            report.paragraph(line, note=True)
        words_report(report, run)
        return report


def _panels(scores: pd.DataFrame, metrics: dict[str, dict[str, str]]) -> list[Panel]:
    """One panel per metric: its value by layer, one line per part, the axis naming the metric
    and which way means more association, points with p < 0.05 filled."""
    from wordlens.methods.association.figures import marked
    from wordlens.report.figures import Panel, more_association_label

    panels = []
    for metric, group in scores.groupby("metric", sort=False):
        about = metrics[str(metric)]
        shown, significant = marked(group)
        panels.append(
            Panel(
                about["label"],
                shown,
                "layer",
                "value",
                series="part",
                band=("ci_low", "ci_high") if group["ci_low"].notna().any() else None,
                ylabel=more_association_label(about["label"], about["more_bias"]),
                significant=significant,
            )
        )
    return panels


def _ranks_sections(report: Report, run: Run) -> None:
    """The layers ranked by each metric and where the metrics disagree (a model with layers to
    rank)."""
    from wordlens.methods.associations.ranking import DISAGREEMENT_ALPHA

    report.heading("Layers ranked by each metric")
    report.paragraph(
        "Layers from the strongest association to the weakest, by each metric's own "
        "direction (larger, smaller or farther from 0 means more association)."
    )
    ranks = run.tables["ranks"]
    report.table(ranks.astype({"best_layer": "Int64"}) if len(ranks) else ranks)
    report.heading("Where the metrics disagree")
    report.paragraph(
        "Spearman's rho between two metrics' association strengths over the layers, on the "
        "same part of the query, with its two-sided p: the pair disagrees (marked) where "
        f"rho < 0 with p < {DISAGREEMENT_ALPHA}, ranking the layers in opposite order. NaN "
        "with fewer than three layers or a constant strength."
    )
    report.table(run.tables["disagreements"])


def _disagreement_lines(pairs: pd.DataFrame) -> list[str]:
    """How many pairs of metrics rank the layers in opposite order, then each such pair; none
    where no pair has a correlation (fewer than three layers, constant strengths)."""
    from wordlens.methods.associations.ranking import DISAGREEMENT_ALPHA
    from wordlens.report import format_p

    if not len(pairs) or pairs["spearman_rho"].isna().all():
        return []
    lines = [
        f"{r.metric_a} ({r.part_a}) and {r.metric_b} ({r.part_b}) rank the layers in "
        f"opposite order (Spearman rho {r.spearman_rho:+.2f}, p {format_p(r.p_value)}, over "
        f"{r.n_layers} layers)"
        for r in pairs[pairs["disagree"]].itertuples(index=False)
    ]
    negative = int((pairs["spearman_rho"] < 0).sum())
    summary = (
        f"{len(lines)} of {int(pairs['spearman_rho'].notna().sum())} pairs of metrics with a "
        f"correlation rank the layers in opposite order (rho < 0, p < {DISAGREEMENT_ALPHA}); "
        f"{negative - len(lines)} more have rho < 0 without that evidence"
    )
    return [summary, *lines]
