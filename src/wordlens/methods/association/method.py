"""The shape every association metric shares (:class:`AssociationMethod`): read the query,
embed its words once, compute the metric at every layer with its interval and permutation p,
and show it (console, headline numbers, report).

A metric is one subclass in its own package under :mod:`wordlens.methods`: its name, paper,
formula and :meth:`AssociationMethod.score`, registered with one line.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from wordlens.methods.association.config import AssociationConfig
from wordlens.methods.base import Method, RunContext, Summary, read_once_when_shared
from wordlens.results import Run

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd
    from rich.console import RenderableType

    from wordlens.methods.association.resampling import Tail
    from wordlens.methods.association.vectors import FloatArray, QueryVectors
    from wordlens.models.base import WordEmbedder
    from wordlens.models.options import ModelOptions
    from wordlens.report.html import Report
    from wordlens.resources import Query

C = TypeVar("C", bound=AssociationConfig)

MoreBias = Literal["larger", "smaller", "farther from 0"]
"""Which values of a metric mean more association (more bias): ranks layers, and sets the
tail of the permutation test (:data:`_TAILS`)."""
_TAILS: dict[str, Tail] = {"larger": "greater", "smaller": "less", "farther from 0": "two-sided"}


@dataclass(frozen=True)
class Part:
    """One evaluation of a metric on some of the query's sets (a metric taking one attribute
    set at a time has one part per attribute set).

    Attributes
    ----------
    label
        How tables and figures name it (``"pleasant"``, or ``"all sets"``).
    targets, attributes
        The names of the sets it reads, in the query's order.
    """

    label: str
    targets: tuple[str, ...]
    attributes: tuple[str, ...]


class AssociationMethod(Method[C]):
    """An association metric at every layer of a model (see the module notes)."""

    formula: ClassVar[str]
    """The metric in one line, with the paper's equation number (the report prints it)."""
    label: ClassVar[str]
    """The metric's short name (``"RND"``): axis labels, the combined page's panels."""
    attributes_per_part: ClassVar[int | None] = None
    """1: one evaluation per attribute set (RND, ECT, RIPA); None: all sets at once."""
    compares_targets: ClassVar[bool] = True
    """Whether the metric contrasts the two target sets, so that the permutation test of their
    words applies (its tail follows :attr:`more_bias`); a metric that does not says why in
    :attr:`no_permutation`."""
    no_permutation: ClassVar[str] = ""
    more_bias: ClassVar[MoreBias] = "farther from 0"
    paired_targets: ClassVar[bool] = False
    """Whether the two target sets are pairs by position (RIPA): the bootstrap draws pairs and
    the permutation test swaps words within pairs (:mod:`~.resampling`)."""
    needs = "any model: a language model's word vectors in context, or static vectors"
    query: Query | None = None
    """A query given in Python (:meth:`with_query`), run instead of ``config.query``."""

    @abstractmethod
    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: C
    ) -> FloatArray:
        """The metric at every layer, ``[n_layers]``, from the target and attribute sets of
        one :class:`Part` (each ``[n_words, n_layers, dim]``, in the query's order)."""

    def observed(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: C
    ) -> tuple[FloatArray, dict[str, FloatArray]]:
        """The metric at every layer on one part's sets as given, and the columns of the
        metric's own that the table shows beside it (each ``[n_layers]``); by default
        :meth:`score` and none. RNSB adds the spread of its fits (computed with the value,
        not twice)."""
        return self.score(targets, attributes, config), {}

    def with_query(self, query: Query) -> AssociationMethod[C]:
        """This metric running ``query`` (given in Python) instead of ``config.query``."""
        method = type(self)()
        method.query = query
        return method

    @read_once_when_shared
    def read_inputs(self, config: C) -> Query:
        """The query: the one given in Python, or ``config.query``'s file (:func:`read_query`)."""
        return read_query(self.name, self.query, config)

    def parts(self, query: Query) -> list[Part]:
        """How the metric splits ``query``: one part per attribute set, or one for all."""
        targets = tuple(query.targets)
        if self.attributes_per_part == 1:
            return [Part(name, targets, (name,)) for name in query.attributes]
        return [Part("all sets", targets, tuple(query.attributes))]

    def run(self, model: ModelOptions, config: C, context: RunContext) -> Run:
        query, embedder, vectors = embedded_query(self.read_inputs(config), model, config, context)
        table = self.table(vectors, query, config)
        metadata = {
            "method": f"{self.title} ({self.citation})",
            **query_metadata(embedder, query, config, vectors),
            "formula": self.formula,
            "uncertainty": self.uncertainty(config),
            "notes": self.notes(table),
        }
        return Run(self.name, {"scores": table}, metadata)

    def notes(self, table: pd.DataFrame) -> list[str]:
        """Lines saying why values of ``table`` are what they are where a reader would ask
        (ECT: why a value is NaN); the console and the report print them. Default: none."""
        return []

    def table(self, vectors: QueryVectors, query: Query, config: C) -> pd.DataFrame:
        """One row per part and layer: ``value`` and its interval and permutation p."""
        import numpy as np
        import pandas as pd

        from wordlens.methods.association.resampling import bootstrap_interval, permutation_p

        rows = []
        for part in self.parts(query):
            targets = [vectors.targets[name] for name in part.targets]
            attributes = [vectors.attributes[name] for name in part.attributes]

            def score(t: Sequence[FloatArray], a: Sequence[FloatArray]) -> FloatArray:
                return self.score(t, a, config)

            value, own = self.observed(targets, attributes, config)
            low = high = p = np.full(len(value), np.nan)
            if config.bootstrap:
                low, high = bootstrap_interval(
                    score,
                    targets,
                    attributes,
                    resamples=config.bootstrap,
                    confidence=config.confidence,
                    seed=config.seed,
                    paired_targets=self.paired_targets,
                )
            if config.permutations and self.compares_targets:
                p = permutation_p(
                    score,
                    targets,
                    attributes,
                    permutations=config.permutations,
                    seed=config.seed,
                    paired_targets=self.paired_targets,
                    tail=_TAILS[self.more_bias],
                )
            sizes = {f"n_{name}": len(vectors.words[name]) for name in part.targets}
            for column, layer in enumerate(vectors.layers):
                rows.append(
                    {
                        "metric": self.name,
                        "part": part.label,
                        "layer": layer,
                        "value": float(value[column]),
                        **{name: float(values[column]) for name, values in own.items()},
                        "ci_low": float(low[column]),
                        "ci_high": float(high[column]),
                        "p_value": float(p[column]),
                        "n_targets": sum(sizes.values()),
                        "n_attributes": sum(len(vectors.words[n]) for n in part.attributes),
                    }
                )
        return pd.DataFrame(rows)

    def uncertainty(self, config: C) -> dict[str, Any]:
        """What the interval and the p-value are, in words, or why there is none."""
        drawn = (
            "the target pairs and the attribute words"
            if self.paired_targets
            else ("the words within each set")
        )
        interval = (
            f"{config.confidence:.0%} percentile bootstrap interval over {config.bootstrap:,} "
            f"resamples of {drawn} (seed {config.seed})"
            if config.bootstrap
            else "none (bootstrap 0)"
        )
        if not self.compares_targets:
            test = f"none: {self.no_permutation}"
        elif config.permutations:
            relabelled = (
                "swaps of the words within random target pairs"
                if self.paired_targets
                else "partitions of the two target sets' words"
            )
            sided = {
                "farther from 0": "two-sided (|value| at least the observed)",
                "larger": "one-sided (values at least the observed)",
                "smaller": "one-sided (values at most the observed)",
            }[self.more_bias]
            test = (
                f"{sided} permutation p over {config.permutations:,} random {relabelled}, "
                "(1 + b) / (1 + m)"
            )
        else:
            test = "none (permutations 0)"
        return {"interval": interval, "p_value": test}

    def summary(self, run: Run) -> Summary:
        import pandas as pd

        from wordlens.methods.summaries import curves, n_layers, series

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        rows = []
        for part, part_rows in run.tables["scores"].groupby("part", sort=False):
            key = headline_key(self.name, str(part))
            ordered = part_rows.sort_values("layer")
            headline[f"{key}_top"] = float(ordered["value"].iloc[-1])
            definitions[f"{key}_top"] = f"{self.title} ({part}), top layer"
            definitions[key] = f"{self.title} ({part}) by layer"
            rows.append(series(ordered, "value", key, ("ci_low", "ci_high")))
        layered = curves(pd.concat(rows), n_layers(run.metadata)) if rows else None
        return Summary(headline, layered, definitions)

    def console(self, run: Run) -> list[RenderableType]:
        from rich.table import Table

        table = run.tables["scores"]
        grid = Table(
            title=f"{self.title} on {run.metadata['model']['name']} ({self.more_bias}: more "
            "association)",
            title_justify="left",
        )
        grid.add_column("layer", justify="right")
        parts = list(dict.fromkeys(table["part"]))
        for part in parts:
            grid.add_column(str(part), justify="right")
        for layer, rows in table.groupby("layer", sort=True):
            by_part = rows.set_index("part")
            grid.add_row(str(layer), *(_cell(by_part.loc[part]) for part in parts))
        return [grid, *_left_out_lines(run), *run.metadata.get("notes", [])]

    def report(self, run: Run) -> Report:
        from wordlens.methods.association.figures import scores_figure
        from wordlens.report.html import Report

        metadata = run.metadata
        report = Report(f"{self.title} on {metadata['model']['name']}", metadata=metadata)
        report.paragraph(f"{self.citation}. {sentence(self.formula)}")
        report.definitions(
            {
                "query": metadata["query"]["title"],
                **{
                    f"target set {n}": ", ".join(w) for n, w in metadata["query"]["targets"].items()
                },
                **{
                    f"attribute set {n}": ", ".join(w)
                    for n, w in metadata["query"]["attributes"].items()
                },
                "context": metadata["config"]["context"],
                "interval": metadata["uncertainty"]["interval"],
                "p-value": metadata["uncertainty"]["p_value"],
            }
        )
        table = run.tables["scores"]
        if len(table):
            figure, caption = scores_figure(table, self.label, self.more_bias)
            report.figure(figure, f"{self.title} by layer", caption)
        report.table(table)
        for line in [*_left_out_lines(run), *run.metadata.get("notes", [])]:
            report.paragraph(line, note=True)
        return report


def embedded_query(
    query: Query, model: ModelOptions, config: AssociationConfig, context: RunContext
) -> tuple[Query, WordEmbedder, QueryVectors]:
    """``query``, the model ``model`` loads (the activation cache checked first) and the
    query's vectors (:func:`~wordlens.methods.association.vectors.embed_query`)."""
    from wordlens.methods.association.vectors import embed_query

    cache = model.cache()
    embedder = model.embedder(status=context.status)
    vectors = embed_query(embedder, query, config, cache=cache, progress=context.progress)
    return query, embedder, vectors


def query_metadata(
    embedder: WordEmbedder, query: Query, config: AssociationConfig, vectors: QueryVectors
) -> dict[str, Any]:
    """What every association run records of its model, context, query and left-out words."""
    static = embedder.info.kind == "static"
    return {
        "model": embedder.info.as_dict(),
        "config": {
            "context": "none (static model)" if static else config.context,
            "template": config.template,
            "pooling": config.pooling,
            "layers": list(vectors.layers),
        },
        "query": query.as_dict(),
        "left_out": vectors.left_out,
        "why_left_out": {w: vectors.why[w] for ws in vectors.left_out.values() for w in ws},
    }


def sentence(text: str) -> str:
    """``text`` ending with a full stop (a formula line ends without one)."""
    stripped = text.rstrip()
    return stripped if stripped.endswith(".") else f"{stripped}."


def headline_key(metric: str, part: str) -> str:
    """The headline key of a metric's part (``"rnd"``, ``"all sets"`` → ``rnd_all_sets``)."""
    import re

    return f"{metric}_{re.sub(r'[^0-9A-Za-z]+', '_', part).strip('_').lower()}"


def read_query(name: str, given: Query | None, config: AssociationConfig) -> Query:
    """The query a run of ``name`` reads: ``given`` (in Python), or ``config.query``'s file.

    Raises
    ------
    QueryError, WordSetError
        If the file is not a query (naming it), or no query is given.
    """
    from wordlens.errors import QueryError
    from wordlens.resources import Query

    if given is not None:
        return given
    if config.query is None:
        raise QueryError(
            f"{name} needs a query: --query FILE (YAML or JSON: targets: two named sets, "
            "attributes: two named sets), or query={...} in Python"
        )
    return Query.from_file(config.query)


def _cell(row: pd.Series) -> str:
    import pandas as pd

    interval = "" if pd.isna(row["ci_low"]) else f" [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
    return f"{row['value']:+.3f}{interval}"


def _left_out_lines(run: Run) -> list[str]:
    from wordlens.report.html import listed_by_reason

    why = run.metadata.get("why_left_out", {})
    return [
        f"set {name}: {len(words)} word(s) left out: {listed_by_reason(words, why, None)}"
        for name, words in run.metadata.get("left_out", {}).items()
    ]
