"""The shape every association metric shares (:class:`AssociationMethod`): read the query,
embed its words once, compute the metric at every layer with its interval and permutation p,
and show it (console, headline numbers, report).

A metric is one subclass in its own package under :mod:`wordlens.methods`: its name, paper,
formula, :meth:`AssociationMethod.score` and :meth:`AssociationMethod.contributions` (each word's
term of the value, the run's ``words`` table), registered with one line.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from wordlens.methods.association.config import AssociationConfig
from wordlens.methods.base import FIRST_WORDS, Method, RunContext, Summary, read_once_when_shared
from wordlens.results import Run
from wordlens.stages import Timings

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd
    from rich.console import RenderableType

    from wordlens.methods.association.resampling import PermutationOutcome, Score, Tail
    from wordlens.methods.association.vectors import FloatArray, QueryVectors
    from wordlens.methods.association.words import Contribution
    from wordlens.models.base import WordEmbedder
    from wordlens.models.options import ModelOptions
    from wordlens.report.html import Report
    from wordlens.resources import Query

C = TypeVar("C", bound=AssociationConfig)

Scheme = Literal["target words", "target pairs", "attribute words"]
"""What a metric's permutation test relabels (:meth:`AssociationMethod.scheme`): partitions of
the two target sets' words, swaps of the words within target pairs, or partitions of the part's
attribute words and the other attribute set's words."""
MoreBias = Literal["larger", "smaller", "farther from 0"]
"""Which values of a metric mean more association (more bias): ranks layers, and sets the
tail of the permutation test (:data:`_TAILS`)."""
_TAILS: dict[str, Tail] = {"larger": "greater", "smaller": "less", "farther from 0": "two-sided"}
_SIDED = {
    "farther from 0": "two-sided (|value| at least the observed)",
    "larger": "one-sided (values at least the observed)",
    "smaller": "one-sided (values at most the observed)",
}
_RELABELLED: dict[Scheme, str] = {
    "target words": "partitions of the two target sets' words (null: the target sets are "
    "exchangeable)",
    "target pairs": "swaps of the two words within a subset of the target pairs (null: the "
    "words of each pair are exchangeable)",
    "attribute words": "partitions of the part's attribute words and the other attribute set's "
    "words, statistic the difference of their mean scores (null: the two attribute sets are "
    "exchangeable in their association with the relation)",
}


SCORE_COLUMNS = ("metric", "part", "layer", "value", "ci_low", "ci_high", "p_value")
"""The columns every metric's table has (:meth:`AssociationMethod.scored`): those of the empty
table of a skipped query (:attr:`~wordlens.methods.association.vectors.QueryVectors.skipped`)."""
WORD_KEYS = ("metric", "part")
"""The columns of a ``words`` table before
:data:`~wordlens.methods.association.words.WORD_COLUMNS`."""


@dataclass(frozen=True)
class Scored:
    """A metric's table on a query (:meth:`AssociationMethod.scored`), with what a reader
    must be told beside it.

    Attributes
    ----------
    table
        One row per part and layer (:meth:`AssociationMethod.scored`).
    notes
        Why values are what they are (few relabellings, a set of one word, the metric's own
        notes such as ECT's NaN).
    vectors
        The vectors the metric used: the query's, less what the metric itself had to leave out
        (RIPA: both words of a pair that lost one).
    words
        Each word's score at every layer, one row per part, set, word, quantity and layer
        (:meth:`AssociationMethod.contributions`; columns ``metric``, ``part`` and
        :data:`~wordlens.methods.association.words.WORD_COLUMNS`).
    """

    table: pd.DataFrame
    notes: list[str]
    vectors: QueryVectors
    words: pd.DataFrame


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
    limits = FIRST_WORDS
    """Whether the two target sets are pairs by position (RIPA): the bootstrap draws pairs and
    the permutation test swaps words within pairs (:mod:`~.resampling`)."""
    batched: ClassVar[bool] = True
    """Whether :meth:`score` takes sets with leading axes (the draws of a resampling), so that
    the bootstrap and the permutation test score many draws in one call; a metric that cannot
    (RNSB, which refits its classifiers on every draw) is called one draw at a time
    (:func:`~.resampling.per_draw`)."""
    needs = "any model: a language model's word vectors in context, or static vectors"
    word_totals: ClassVar[str] = ""
    """How the ``words`` table's scores give the value at a layer, in words (the report and
    ``run.json`` print it; :meth:`contributions`)."""
    query: Query | None = None
    """A query given in Python (:meth:`with_query`), run instead of ``config.query``."""

    @abstractmethod
    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: C
    ) -> FloatArray:
        """The metric at every layer, ``[..., n_layers]``, from the target and attribute sets
        of one :class:`Part` (each ``[..., n_words, n_layers, dim]``, in the query's order;
        the leading axes, the draws of a resampling, broadcast between the sets). A metric
        that is not :attr:`batched` takes ``[n_words, n_layers, dim]`` and returns
        ``[n_layers]``."""

    def draws_score(self, config: C) -> Score:
        """:meth:`score` as the resampling calls it, on a block of draws at once
        (:data:`~.resampling.Score`), or one draw at a time where the metric is not
        :attr:`batched`."""
        from wordlens.methods.association.resampling import per_draw

        def score(targets: Sequence[FloatArray], attributes: Sequence[FloatArray]) -> FloatArray:
            return self.score(targets, attributes, config)

        return score if self.batched else per_draw(score)

    def scheme(self, config: C) -> Scheme | None:
        """What the permutation test relabels (:data:`Scheme`), or None where the metric has no
        test (:attr:`no_permutation` says why): by default the target pairs' words
        (:attr:`paired_targets`) or the two target sets' words (:attr:`compares_targets`)."""
        if not self.compares_targets:
            return None
        return "target pairs" if self.paired_targets else "target words"

    def word_scores(
        self, targets: Sequence[FloatArray], words: FloatArray, config: C
    ) -> FloatArray:
        """Each attribute word's own score, ``[n_words, n_layers]``, for a metric whose value is
        their mean and whose test relabels attribute words (``scheme`` ``"attribute words"``).

        Raises
        ------
        NotImplementedError
            For a metric whose test relabels the target words.
        """
        raise NotImplementedError(f"{self.name} has no per-word score")

    def usable(self, vectors: QueryVectors, query: Query) -> QueryVectors:
        """The vectors the metric can use: by default all of the query's (RIPA drops the whole
        pair of a word the model lacks)."""
        return vectors

    @abstractmethod
    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: C,
    ) -> list[Contribution]:
        """Each word's own score on ``part``'s sets (each ``[n_words, n_layers, dim]``, no
        leading axes), ``[n_words, n_layers]`` per set: the exact terms whose sum or mean is the
        value at each layer (:attr:`word_totals` says how), for the ``words`` table."""

    def observed(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: C,
    ) -> tuple[FloatArray, dict[str, FloatArray], list[Contribution]]:
        """The metric at every layer on one part's sets as given, the columns of the metric's
        own that the table shows beside it (each ``[n_layers]``) and the words' scores
        (:meth:`contributions`); by default :meth:`score`, none and :meth:`contributions`.
        RNSB adds the spread of its fits and takes its words' scores from the same fits
        (computed with the value, not twice)."""
        return (
            self.score(targets, attributes, config),
            {},
            self.contributions(part, targets, attributes, config),
        )

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
        import pandas as pd

        from wordlens.methods.association.words import empty_words

        query, embedder, vectors = embedded_query(self.read_inputs(config), model, config, context)
        with Timings().stage("statistics"):
            scored = (
                Scored(
                    pd.DataFrame(columns=list(SCORE_COLUMNS)),
                    [],
                    vectors,
                    empty_words(WORD_KEYS),
                )
                if vectors.skipped
                else self.scored(vectors, query, config)
            )
        metadata = {
            "method": f"{self.title} ({self.citation})",
            **query_metadata(embedder, query, config, scored.vectors),
            "formula": self.formula,
            "word_scores": self.word_totals,
            "uncertainty": self.uncertainty(config),
            "notes": scored.notes,
        }
        return Run(self.name, {"scores": scored.table, "words": scored.words}, metadata)

    def notes(self, table: pd.DataFrame) -> list[str]:
        """Lines saying why values of ``table`` are what they are where a reader would ask
        (ECT: why a value is NaN); the console and the report print them. Default: none."""
        return []

    def scored(self, vectors: QueryVectors, query: Query, config: C) -> Scored:
        """One row per part and layer: ``value``, the metric's own columns, the bootstrap
        interval (NaN where the value is), the permutation p and ``n_relabellings``, the number
        of relabellings it counts over (``exact_p`` when that is all of them); with the notes a
        reader needs and every word's score (:meth:`contributions`) in :class:`Scored`.

        Warns
        -----
        FewPartitionsWarning
            Where a part's test has fewer than
            :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS` relabellings.
        """
        import warnings

        import numpy as np
        import pandas as pd

        from wordlens.methods.association.resampling import bootstrap_interval
        from wordlens.methods.association.words import empty_words, words_table

        vectors = self.usable(vectors, query)
        columns: list[dict[str, Any]] = []  # each part's columns, [n_layers] each
        words: list[pd.DataFrame] = []
        notes = []
        n_layers = len(vectors.layers)
        for part in self.parts(query):
            targets = [vectors.targets[name] for name in part.targets]
            attributes = [vectors.attributes[name] for name in part.attributes]
            value, own, contributions = self.observed(part, targets, attributes, config)
            words.append(
                words_table(
                    {"metric": self.name, "part": part.label},
                    vectors.layers,
                    vectors.words,
                    contributions,
                )
            )
            low = high = np.full(len(value), np.nan)
            single = _single_word_note(self, part, vectors)
            if single:
                notes.append(single)
            if config.bootstrap and not _every_set_single(part, vectors):
                low, high = bootstrap_interval(
                    self.draws_score(config),
                    targets,
                    attributes,
                    resamples=config.bootstrap,
                    confidence=config.confidence,
                    seed=config.seed,
                    paired_targets=self.paired_targets,
                )
                low, high = (np.where(np.isnan(value), np.nan, end) for end in (low, high))
            test = self.tested(part, vectors, query, config)
            if test.warning is not None:
                note = f"{self.label} ({part.label}): {test.warning}"
                warnings.warn(type(test.warning)(note), stacklevel=2)
                notes.append(note)
            columns.append(
                {
                    "metric": [self.name] * n_layers,
                    "part": [part.label] * n_layers,
                    "layer": np.asarray(vectors.layers, dtype=np.int64),
                    "value": value,
                    **own,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": test.p,
                    "n_relabellings": np.full(n_layers, test.n_relabellings),
                    "exact_p": np.full(n_layers, test.exact),
                    "n_targets": np.full(
                        n_layers, sum(len(vectors.words[n]) for n in part.targets)
                    ),
                    "n_attributes": np.full(
                        n_layers, sum(len(vectors.words[n]) for n in part.attributes)
                    ),
                }
            )
        table = pd.DataFrame(
            {name: _joined([part[name] for part in columns]) for name in columns[0]}
            if columns
            else None
        )
        every_word = pd.concat(words, ignore_index=True) if words else empty_words(WORD_KEYS)
        return Scored(table, [*notes, *self.notes(table)], vectors, every_word)

    def tested(
        self, part: Part, vectors: QueryVectors, query: Query, config: C
    ) -> PermutationOutcome:
        """The permutation test of ``part`` at every layer, as :meth:`scheme` says; a p of NaN
        (``n_relabellings`` 0) where the metric has no test or ``permutations`` is 0.

        The ``"attribute words"`` scheme (RIPA's principal component, whose value does not move
        when words are swapped within pairs) tests whether the part's attribute words and the
        other attribute set's words are exchangeable in their :meth:`word_scores`: a two-sided
        test of the difference of their means over partitions of the two sets' words
        (:func:`~wordlens.stats.permutation.permutation_test`, exact when they fit).
        """
        import warnings

        import numpy as np

        from wordlens.errors import WordlensWarning
        from wordlens.methods.association.resampling import PermutationOutcome, permutation_p
        from wordlens.stats.diagnostics import few_partitions_warning
        from wordlens.stats.permutation import permutation_test

        scheme = self.scheme(config)
        targets = [vectors.targets[name] for name in part.targets]
        if scheme is None or not config.permutations:
            return PermutationOutcome(np.full(len(vectors.layers), np.nan), 0, False, None)
        if scheme != "attribute words":
            return permutation_p(
                self.draws_score(config),
                targets,
                [vectors.attributes[name] for name in part.attributes],
                permutations=config.permutations,
                seed=config.seed,
                paired_targets=scheme == "target pairs",
                tail=_TAILS[self.more_bias],
            )
        (name,) = part.attributes
        (other,) = (n for n in query.attributes if n != name)
        inside = self.word_scores(targets, vectors.attributes[name], config)
        outside = self.word_scores(targets, vectors.attributes[other], config)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WordlensWarning)  # given once, with the part's name
            result = permutation_test(
                inside, outside, n_samples=config.permutations, seed=config.seed
            )
        warning = few_partitions_warning(
            len(inside),
            len(outside),
            "attribute words",
            n_samples=config.permutations,
            observed_counts=True,
        )
        return PermutationOutcome(
            np.asarray(result.p_two_sided, dtype=np.float64),
            result.n_partitions,
            result.exact,
            warning,
        )

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
        scheme = self.scheme(config)
        if scheme is None:
            test = f"none: {self.no_permutation}"
        elif config.permutations:
            test = (
                f"{_SIDED[self.more_bias]} permutation p: {_RELABELLED[scheme]}; all of them "
                f"when there are at most {config.permutations:,} (exact), else the observed one "
                f"and {config.permutations - 1:,} random others, p = #{{reaching}} / N with the "
                "observed one counted (never 0; Phipson & Smyth 2010)"
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

    def comparison_scores(self, run: Run) -> pd.DataFrame:
        """The value at every part and layer, more association as :attr:`more_bias` says."""
        scores = run.tables["scores"]
        return scores[["metric", "part", "layer", "value"]].assign(more_bias=self.more_bias)

    def console(self, run: Run) -> list[RenderableType]:
        from rich.table import Table

        if run.metadata.get("skipped"):
            return [run.metadata["skipped"], *left_out_lines(run)]
        table = run.tables["scores"]
        grid = Table(
            title=f"{self.title} on {run.metadata['model']['name']} ({self.more_bias}: more "
            "association): value [interval] p",
            title_justify="left",
        )
        grid.add_column("layer", justify="right")
        parts = list(dict.fromkeys(table["part"]))
        for part in parts:
            grid.add_column(str(part), justify="right")
        for layer, rows in table.groupby("layer", sort=True):
            by_part = rows.set_index("part")
            grid.add_row(str(layer), *(value_cell(by_part.loc[part]) for part in parts))
        words = words_grid(run, self.title)
        return [grid, *words, *left_out_lines(run), *run.metadata.get("notes", [])]

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
                "most share of a set's words lost": max_missing_text(metadata["config"]),
                "interval": metadata["uncertainty"]["interval"],
                "p-value": metadata["uncertainty"]["p_value"],
            }
        )
        if metadata.get("skipped"):
            report.paragraph(metadata["skipped"], note=True)
        table = run.tables["scores"]
        if len(table):
            figure, caption = scores_figure(table, self.label, self.more_bias)
            report.figure(figure, f"{self.title} by layer", caption)
        report.table(table)
        for line in [*left_out_lines(run), *run.metadata.get("notes", [])]:
            report.paragraph(line, note=True)
        words_report(report, run)
        return report


def words_grid(run: Run, title: str) -> list[RenderableType]:
    """The console's table of the run's most extreme per-word scores
    (:func:`~wordlens.methods.association.words.words_console`), or nothing (no ``words``
    table: a run recorded before it, or no rows)."""
    from wordlens.methods.association.words import words_console

    words = run.tables.get("words")
    grid = None if words is None else words_console(words, WORD_KEYS, title)
    return [] if grid is None else [grid]


def words_report(report: Report, run: Run) -> None:
    """The report's section of the run's most extreme per-word scores, after how each metric's
    scores give its value (``run.json``'s ``word_scores``), if the run has a ``words`` table."""
    from wordlens.methods.association.words import words_section

    words = run.tables.get("words")
    if words is None:
        return
    totals = run.metadata.get("word_scores", "")
    if isinstance(totals, dict):  # the associations command: one line per metric
        totals = " ".join(f"{name}: {sentence(text)}" for name, text in totals.items() if text)
    words_section(report, words, WORD_KEYS, totals)


def embedded_query(
    query: Query, model: ModelOptions, config: AssociationConfig, context: RunContext
) -> tuple[Query, WordEmbedder, QueryVectors]:
    """``query``, the model ``model`` loads (the activation cache checked first) and the
    query's vectors (:func:`~wordlens.methods.association.vectors.embed_query`)."""
    from wordlens.methods.association.vectors import embed_query

    if model.limit is not None:
        query = query.first(model.limit)
    cache = model.cache()
    embedder = model.embedder(status=context.status)
    with Timings().stage("embed"):
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
            "max_missing": config.max_missing,
        },
        "query": query.as_dict(),
        "left_out": vectors.left_out,
        "why_left_out": {w: vectors.why[w] for ws in vectors.left_out.values() for w in ws},
        "skipped": vectors.skipped,
    }


def max_missing_text(config: Mapping[str, Any]) -> str:
    """The run's ``--max-missing`` in words, for the reports (runs recorded before it: none)."""
    share = config.get("max_missing")
    return "no threshold" if share is None else f"{share:g} (a set losing more is skipped)"


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


def value_cell(row: pd.Series) -> str:
    """A table row's value, with its interval and p where it has them (the consoles)."""
    import pandas as pd

    from wordlens.report import format_p

    if pd.isna(row["value"]):
        return "nan"
    interval = "" if pd.isna(row["ci_low"]) else f" [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
    p = "" if pd.isna(row["p_value"]) else f" p {format_p(row['p_value'])}"
    return f"{row['value']:+.3f}{interval}{p}"


def _single_word_note(method: AssociationMethod[Any], part: Part, vectors: QueryVectors) -> str:
    """What a set of one word (one pair) does to the part's interval, or ''."""
    single = [name for name in (*part.targets, *part.attributes) if len(vectors.words[name]) == 1]
    if not single:
        return ""
    names = ", ".join(repr(name) for name in single)
    if _every_set_single(part, vectors):
        return (
            f"{method.label} ({part.label}): every set has one word ({names}), so a bootstrap "
            "would resample nothing: no interval"
        )
    return (
        f"{method.label} ({part.label}): {names} has one word, so the bootstrap interval cannot "
        "show its sampling variability: it is narrower than the uncertainty"
    )


def _joined(chunks: list[Any]) -> Any:
    """One table column from the parts' pieces: lists of labels chained, arrays concatenated
    (a DataFrame built from arrays, not row by row)."""
    import itertools

    import numpy as np

    if isinstance(chunks[0], list):
        return list(itertools.chain.from_iterable(chunks))
    return np.concatenate(chunks)


def _every_set_single(part: Part, vectors: QueryVectors) -> bool:
    """Whether every set of ``part`` has one word: each resample would be the observed sets."""
    return all(len(vectors.words[name]) == 1 for name in (*part.targets, *part.attributes))


def left_out_lines(run: Run) -> list[str]:
    """A line per set that lost words, each word with why (the console and the report), then
    a line per metric that left out more for itself (RIPA: the partners of words a pair lost,
    ``left_out_by_metric`` of the combined page)."""
    from wordlens.report.html import listed_by_reason

    why = run.metadata.get("why_left_out", {})
    lines = [
        f"set {name}: {len(words)} word(s) left out: {listed_by_reason(words, why, None)}"
        for name, words in run.metadata.get("left_out", {}).items()
    ]
    for metric, sets in run.metadata.get("left_out_by_metric", {}).items():
        lines.extend(
            f"{metric}, set {name}: {len(words)} word(s) left out: "
            f"{listed_by_reason(words, why, None)}"
            for name, words in sets.items()
        )
    return lines
