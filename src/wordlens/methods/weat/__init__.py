"""WEAT bias tests (Caliskan, Bryson & Narayanan 2017) at every layer of a model.

The computation is :func:`wordlens.methods.weat.layers.run_weat`; this module registers the
method: its options (:class:`~wordlens.methods.weat.config.WeatConfig`), its headline numbers and
its report.

Headline (study index): per test N, ``weatN_d_top``, the effect size (difference of the mean
associations of X and Y with A vs. B, over their std across X ∪ Y) at the top layer, and
``weatN_d_max``, the effect size at the layer of largest |d| (sign kept). Curve ``weatN_d``: d by
layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens.methods.base import FIRST_WORDS, Method, RunContext, Summary, read_once_when_shared
from wordlens.methods.registry import register
from wordlens.methods.weat.config import WeatConfig
from wordlens.models.options import ModelOptions
from wordlens.report import format_p
from wordlens.results import Run

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.report.html import Report
    from wordlens.resources import Query, WeatTest

__all__ = ["Weat", "WeatConfig"]


@register
class Weat(Method[WeatConfig]):
    """Run the WEAT bias tests of Caliskan et al. (2017) at every layer of a model."""

    name = "weat"
    limits = FIRST_WORDS
    title = "WEAT bias tests by layer"
    citation = "Caliskan, Bryson & Narayanan (2017), Science 356(6334)"
    config_type = WeatConfig
    needs = "any model: a language model's word vectors in context, or static vectors"
    table_prefix = ""
    query: Query | None = None
    """A query given in Python (:meth:`with_query`), run instead of ``config``'s tests."""

    def with_query(self, query: Query) -> Weat:
        """This method running ``query`` (a user's own word sets given in Python, not as a
        file) instead of the tests of its config."""
        method = Weat()
        method.query = query
        return method

    @read_once_when_shared
    def read_inputs(self, config: WeatConfig) -> list[WeatTest]:
        """The tests of ``config``: the query (:attr:`query`, or the file ``config.query``), or
        Caliskan et al.'s packaged tests.

        Raises
        ------
        QueryError, WordSetError
            If the query file is not a query (naming the file).
        WordlensError
            If a query is given with ``config.tests`` or ``config.query``.
        """
        from wordlens.errors import WordlensError
        from wordlens.resources import Query, load_weat_tests

        if self.query is not None:
            if config.tests is not None or config.query is not None:
                raise WordlensError(
                    "query: give the word sets in one way: query=..., or tests=..., not both"
                )
            return [self.query.to_weat_test()]
        if config.query is not None:
            return [Query.from_file(config.query).to_weat_test()]
        return load_weat_tests(config.tests)

    def run(self, model: ModelOptions, config: WeatConfig, context: RunContext) -> Run:
        from wordlens.methods.weat.layers import run_weat

        tests = self.read_inputs(config)
        if model.limit is not None:
            tests = [test.first(model.limit) for test in tests]
        cache = model.cache()
        embedder = model.embedder(status=context.status)
        return run_weat(embedder, tests, config, cache=cache, progress=context.progress)

    def summary(self, run: Run) -> Summary:
        from wordlens.methods.summaries import curves, n_layers, series

        headline: dict[str, float] = {}
        definitions: dict[str, str] = {}
        rows_by_test = []
        for test_id, rows in run.tables["weat"].groupby("test", sort=False):
            title = rows["title"].iloc[0]
            headline[f"weat{test_id}_d_top"], headline[f"weat{test_id}_d_max"] = _top_and_peak(rows)
            definitions[f"weat{test_id}_d_top"] = (
                f"WEAT {test_id} ({title}): effect size, top layer"
            )
            definitions[f"weat{test_id}_d_max"] = (
                f"WEAT {test_id}: effect size at the layer of largest |d| (sign kept)"
            )
            definitions[f"weat{test_id}_d"] = f"WEAT {test_id} ({title}): effect size d"
            rows_by_test.append(series(rows, "effect_size", f"weat{test_id}_d"))
        import pandas as pd

        layered = curves(pd.concat(rows_by_test), n_layers(run.metadata)) if rows_by_test else None
        return Summary(headline, layered, definitions)

    def comparison_scores(self, run: Run) -> pd.DataFrame:
        """The effect size d of every test (a part, named by its title; a query's is its only
        one) at every layer: metric ``weat``, more association farther from 0."""
        table = run.tables["weat"]
        return table.assign(metric="weat", part=table["title"], more_bias="farther from 0")[
            ["metric", "part", "layer", "effect_size", "more_bias"]
        ].rename(columns={"effect_size": "value"})

    def console(self, run: Run) -> list[RenderableType]:
        from rich.table import Table

        from wordlens.report.html import listed_by_reason

        table = run.tables["weat"]
        model_name = run.metadata["model"]["name"]
        grid = Table(
            title=f"WEAT on {model_name}: effect size d (one-sided p)", title_justify="left"
        )
        grid.add_column("L", justify="right")
        test_ids = list(dict.fromkeys(table["test"]))
        for test_id in test_ids:
            grid.add_column(f"T{test_id}", justify="right")
        for layer, rows in table.groupby("layer", sort=True):
            cells = []
            for test_id in test_ids:
                row = rows[rows["test"] == test_id].iloc[0]
                cells.append(
                    f"{row.effect_size:+.2f} ({format_p(row.p_one_sided, row.n_partitions)})"
                )
            grid.add_row(str(layer), *cells)
        titles = dict(zip(table["test"], table["title"], strict=False))
        legend = "  ".join(f"T{test_id}: {titles[test_id]}" for test_id in test_ids)
        why = run.metadata.get("why_dropped", {})
        dropped = [
            f"test {test_id}: dropped ({listed_by_reason(words, why, None)})"
            for test_id, words in run.metadata["dropped_words"].items()
        ]
        shown: list[RenderableType] = [grid, legend] if len(table) else []  # every test skipped
        return [*shown, *_words_grid(run), *dropped, *_notes(run)]

    def report(self, run: Run) -> Report:
        from wordlens.methods.association.method import max_missing_text
        from wordlens.methods.weat.figures import weat_figure
        from wordlens.report.html import Report, listed_by_reason
        from wordlens.stats import P_VALUE_RULE

        metadata = run.metadata
        report = Report(f"WEAT on {metadata['model']['name']}", metadata=metadata)
        report.paragraph(
            f"{self.citation}. Context: {metadata['config']['context']}; "
            f"effect size: {metadata['config']['effect_size']}; most share of a set's words "
            f"lost: {max_missing_text(metadata['config'])}."
        )
        query = metadata.get("query")
        if query is not None:
            report.definitions(_query_words(query))
        if len(run.tables["weat"]):
            figure, alt, caption = weat_figure(run.tables["weat"], metadata["model"]["name"], query)
            report.figure(figure, alt, caption)
        report.table(run.tables["weat"])
        report.paragraph(P_VALUE_RULE, note=True)
        why = metadata.get("why_dropped", {})
        for test_id, words in metadata["dropped_words"].items():
            report.paragraph(
                f"Test {test_id}: {len(words)} word(s) the model lacks or cannot tell apart, "
                f"left out: {listed_by_reason(words, why, None)}",
                note=True,
            )
        for note in _notes(run):
            report.paragraph(note, note=True)
        if "words" in run.tables:  # runs recorded before it have none
            from wordlens.methods.association.words import words_section
            from wordlens.methods.weat.layers import WORD_KEYS

            words_section(report, run.tables["words"], WORD_KEYS, metadata["word_scores"] + ".")
        return report


def _query_words(query: dict[str, Any]) -> dict[str, str]:
    """The query's title and word sets, as the report lists them (X, Y, then A, B)."""
    sets = [*query["targets"].items(), *query["attributes"].items()]
    kinds = ("target set X", "target set Y", "attribute set A", "attribute set B")
    pairs = zip(kinds, sets, strict=False)
    listed = {f"{kind}: {name}": ", ".join(words) for kind, (name, words) in pairs}
    return {"query": query["title"], **listed}


def _words_grid(run: Run) -> list[RenderableType]:
    """The console's table of the most extreme ``s(w, A, B)`` of each test, or nothing (a run
    recorded before the ``words`` table, or every test skipped)."""
    from wordlens.methods.association.words import words_console
    from wordlens.methods.weat.layers import WORD_KEYS

    words = run.tables.get("words")
    grid = None if words is None else words_console(words, WORD_KEYS, "WEAT")
    return [] if grid is None else [grid]


def _notes(run: Run) -> list[str]:
    """The tests skipped under ``max_missing``, with why, then the warnings the run gave, test
    by test (none in runs made before they were kept)."""
    skipped: dict[str, str] = run.metadata.get("skipped", {})
    notes: dict[str, list[str]] = run.metadata.get("notes", {})
    return [
        *(f"test {test_id}: {reason}" for test_id, reason in skipped.items()),
        *(note for test_notes in notes.values() for note in test_notes),
    ]


def _top_and_peak(rows: pd.DataFrame) -> tuple[float, float]:
    """Effect size at the top layer and at the layer of largest |d| (sign kept; NaN ignored;
    ties: the lowest layer)."""
    import numpy as np

    ordered = rows.sort_values("layer")
    sizes = ordered["effect_size"].to_numpy(dtype=float)
    if np.isnan(sizes).all():
        return float(sizes[-1]), np.nan
    return float(sizes[-1]), float(sizes[int(np.nanargmax(np.abs(sizes)))])
