"""Run a method on several models and queries, and rank the models as WEFE does.

:func:`run_comparison` runs the method once per model and query (a cell), each into
``<out>/cells/<model>/<query>/`` — a normal run directory with the ``cell.json`` record a study
cell keeps (:mod:`wordlens.study.runner`), so a comparison that was stopped resumes with the
next cell and a cell that fails is recorded while the others go on; each model is loaded once
for all its queries (:func:`~wordlens.models.loading.keeping_last_model`); figures are written as
PNG only (:func:`~wordlens.results.png_figures_only`: a run of the method alone writes SVG and
PDF too) — then writes the comparison
beside them: the tidy ``scores`` (model, query, metric, part, layer, value), the ``rankings``
and ``ranking_correlations`` (:mod:`wordlens.comparison.rankings`), the ``cells`` (each one's
status, time and peak memory), the report's figures, ``report.html`` and ``run.json``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from wordlens._plural import counted
from wordlens.comparison.rankings import (
    SCORE_COLUMNS,
    LayerChoice,
    chosen_scores,
    ranking_correlations,
    rankings,
)
from wordlens.errors import OutputError, WordlensError
from wordlens.methods.base import (
    Method,
    Status,
    current_invocation,
    new_output_dir,
    no_status,
    output_dir,
    sharing_inputs,
    written_beside,
)
from wordlens.methods.registry import get_method
from wordlens.models.loading import keeping_last_model
from wordlens.models.options import ModelOptions
from wordlens.options import config_values
from wordlens.results import RUN_MANIFEST, Figure, Run, png_figures_only, register_view
from wordlens.study.records import CellRecord
from wordlens.study.runner import CellProgress, current_record, run_cells
from wordlens.study.spec import Cell, ModelEntry, Study, slugify

COMPARISON = "comparison"
"""The ``method`` of a comparison's :class:`~wordlens.results.Run`."""

DEFAULT_QUERY = "default"
"""The query name of a method's own inputs (WEAT's Caliskan et al. tests, VAST's lexica)."""

CELL_COLUMNS = ("model", "query", "status", "seconds", "peak_memory_mib", "out_dir", "error")


@dataclass
class Comparison(Run):
    """A method run on each of several models and queries: a :class:`~wordlens.results.Run`
    whose ``method`` is ``"comparison"``.

    Attributes
    ----------
    tables
        ``scores``: one row per model, query, metric, part and layer; ``rankings``: per metric,
        each model's aggregated score and rank at its chosen layer; ``ranking_correlations``:
        Spearman's rho between the metrics' ranks; ``cells``: each model and query's status,
        time and peak memory.
    metadata
        ``method``, ``method_title``, ``models``, ``queries`` (name → file, None for the
        method's own inputs), ``layer_choice``, ``layer_notes``, ``left_out`` (models without
        the chosen layer, with why), ``more_bias`` (metric → which values mean more
        association), ``not_ranked`` (why nothing is ranked, when so), ``options``,
        ``invocation``.
    runs
        ``"<model> / <query>"`` → its run (the cells that ran).
    """

    runs: dict[str, Run] = field(default_factory=dict, repr=False)

    @property
    def failed(self) -> dict[str, str]:
        """``"<model> / <query>"`` → why its run failed."""
        cells = self.tables["cells"]
        failed = cells[cells["status"] == "failed"]
        keys = failed["model"] + " / " + failed["query"]
        return dict(zip(keys, failed["error"].astype(str), strict=True))

    def __repr__(self) -> str:
        cells = self.tables["cells"]
        done = int((cells["status"] == "done").sum())
        models = counted(len(self.metadata["models"]), "model")
        queries = counted(len(self.metadata["queries"]), "query", "queries")
        return (
            f"Comparison({self.metadata['method']!r}, {models} × {queries}, {done} of "
            f"{len(cells)} runs done, tables: {', '.join(self.tables)})"
        )


def query_names(queries: Sequence[Path | None]) -> dict[str, Path | None]:
    """Each query by the name its rows carry: the file's stem (``career.yaml`` → ``career``),
    :data:`DEFAULT_QUERY` for None (the method's own inputs).

    Raises
    ------
    WordlensError
        If two queries have the same name.
    """
    named: dict[str, Path | None] = {}
    for query in queries:
        name = DEFAULT_QUERY if query is None else query.stem
        if name in named:
            raise WordlensError(
                f"two queries named {name!r} ({named[name]} and {query}): a comparison names "
                "each query by its file's name, so give them different names"
            )
        named[name] = query
    return named


def comparison_cells(
    method: Method[Any],
    model: ModelOptions,
    models: Sequence[str],
    queries: dict[str, Path | None],
    config: Any,
    root: Path,
) -> list[tuple[str, Cell]]:
    """One cell per model and query, in ``root/cells/<model>/<query>``, model by model, each
    with its query's name.

    Raises
    ------
    WordlensError
        If two models share a folder name, or a query is given to a method without queries.
    """
    slugs: dict[str, str] = {}
    for name in models:
        if slugify(name) in slugs:
            raise WordlensError(
                f"models {slugs[slugify(name)]!r} and {name!r} would share the folder "
                f"{slugify(name)!r}: give each model once"
            )
        slugs[slugify(name)] = name
    has_query = "query" in config_values(config)
    if not has_query and any(query is not None for query in queries.values()):
        raise WordlensError(f"wordlens {method.name} takes no --query")
    cells = []
    for name in models:
        entry = ModelEntry(model.replace(model=name), name)
        for query_name, query in queries.items():
            chosen = replace(config, query=query) if has_query else config
            relative = f"cells/{slugify(name)}/{slugify(query_name)}"
            cells.append((query_name, Cell(entry, method.name, chosen, root / relative, relative)))
    return cells


def run_comparison(
    method: Method[Any],
    model: ModelOptions,
    models: Sequence[str],
    queries: Sequence[Path | None],
    config: Any,
    out_dir: Path | None,
    *,
    layer_choice: LayerChoice = "last",
    progress: bool = False,
    status: Status = no_status,
    on_cell: Callable[[CellProgress], None] | None = None,
    on_done: Callable[[CellRecord], None] | None = None,
) -> tuple[Comparison, list[Path]]:
    """Run ``method`` on every model of ``models`` with every query (see the module notes).

    Parameters
    ----------
    method, config
        The method and its config (its ``query`` is replaced by each of ``queries``).
    model
        The loading and cache options every model is loaded with (its ``model`` is replaced by
        each of ``models``).
    models
        Model names (aliases, local paths or hub ids), in the order ties rank in.
    queries
        Query files; ``[None]`` for a method without queries (or its own inputs).
    out_dir
        The comparison's directory; None writes nothing (the runs go to a temporary directory
        and are read back into :attr:`Comparison.runs`).
    layer_choice
        Where each model with layers is ranked
        (:func:`~wordlens.comparison.rankings.chosen_scores`).
    progress, status, on_cell, on_done
        As :func:`wordlens.sweep.runner.run_sweep`'s.

    Returns
    -------
    comparison, written
        The comparison, and the files written into ``out_dir``.

    Raises
    ------
    WordlensError
        If a query cannot be read (before any model loads), two models or queries share a name,
        or a model sweeps ``revisions``.
    """
    if model.revisions is not None:
        raise WordlensError(
            "--revisions sweeps the checkpoints of one model: compare several models, or sweep one"
        )
    named = query_names(queries)
    with ExitStack() as stack:
        root = (
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="wordlens-compare-")))
            if out_dir is None
            else stack.enter_context(new_output_dir(out_dir))
        )
        named_cells = comparison_cells(method, model, models, named, config, root)
        cells = [cell for _, cell in named_cells]
        with sharing_inputs(), png_figures_only(), keeping_last_model():
            for cell in cells[: len(named)]:  # a bad query fails before any model loads
                method.read_inputs(cell.config)
            records = run_cells(
                cells, model.cache_dir, method=method, no_cache=model.no_cache, on_cell=on_cell,
                on_done=on_done, progress=progress, status=status,
            )  # fmt: skip
        comparison = gathered(method, config, named_cells, records, named, layer_choice, root)
    return comparison, [] if out_dir is None else write_comparison(comparison, out_dir)


def gathered(
    method: Method[Any],
    config: Any,
    cells: Sequence[tuple[str, Cell]],
    records: Sequence[CellRecord],
    queries: dict[str, Path | None],
    layer_choice: LayerChoice,
    root: Path,
) -> Comparison:
    """The comparison of ``cells`` (each with its query's name) after they ran (their
    ``records``): their runs read back, the tidy scores, the rankings at the chosen layers and
    the metadata."""
    runs: dict[str, Run] = {}
    frames = []
    for (query, cell), record in zip(cells, records, strict=True):
        if record.status != "done":
            continue
        key = f"{cell.model.display_name} / {query}"
        runs[key] = Run.read(cell.out_dir)
        rows = method.comparison_scores(runs[key])
        frames.append(rows.assign(model=cell.model.display_name, query=query))
    every = pd.concat(frames) if frames else pd.DataFrame(columns=[*SCORE_COLUMNS, "more_bias"])
    more_bias = {
        str(metric): str(direction)
        for metric, direction in zip(every["metric"], every["more_bias"], strict=True)
        if direction
    }
    scores = every[list(SCORE_COLUMNS)].reset_index(drop=True)
    scores["layer"] = scores["layer"].astype("Int64")
    models = list(dict.fromkeys(cell.model.display_name for _, cell in cells))
    chosen = chosen_scores(scores, layer_choice, more_bias)
    ranked = rankings(chosen.scores, more_bias, models, layer_choice)
    correlated = ranking_correlations(ranked)
    cell_rows = [
        {
            "model": cell.model.display_name,
            "query": query,
            "status": record.status,
            "seconds": record.seconds,
            "peak_memory_mib": record.peak_memory_mib,
            "out_dir": Path(os.path.relpath(cell.out_dir, root)).as_posix(),
            "error": record.error,
        }
        for (query, cell), record in zip(cells, records, strict=True)
    ]
    metadata = {
        "method": method.name,
        "method_title": method.title,
        "models": models,
        "queries": {name: None if path is None else str(path) for name, path in queries.items()},
        "layer_choice": str(layer_choice),
        "layer_notes": chosen.notes,
        "left_out": chosen.left_out,
        "more_bias": more_bias,
        "not_ranked": "" if more_bias else _not_ranked(method),
        "options": config_values(config),
        "invocation": current_invocation(f"wordlens.comparison({method.name!r}, ...)"),
    }
    tables = {
        "scores": scores,
        "rankings": ranked,
        "ranking_correlations": correlated,
        "cells": pd.DataFrame(cell_rows, columns=list(CELL_COLUMNS)).astype(
            {"seconds": float, "peak_memory_mib": float}
        ),
    }
    return Comparison(COMPARISON, tables, metadata, runs=runs)


def write_study_comparisons(study: Study) -> list[tuple[str, Path]]:
    """Write a comparison (tables, figures, report; each model ranked at its last layer) for
    each method of ``study`` run on two or more models or queries, from its cells as they stand,
    into ``<study>/comparisons/<method>/``; a sweep's checkpoints are left out (the sweep
    compares them).

    Returns
    -------
    list of (str, Path)
        The method and the comparison's ``report.html``, for each.
    """
    groups: dict[str, list[Cell]] = {}
    for cell in study.cells:
        if cell.model.swept is None:
            groups.setdefault(cell.method, []).append(cell)
    written = []
    for method_name, cells in groups.items():
        if len(cells) < 2:
            continue
        method = get_method(method_name)
        root = study.out_dir / "comparisons" / method_name
        records = [current_record(cell) for cell in cells]
        named = [(cell.query or DEFAULT_QUERY, cell) for cell in cells]
        queries = {name: cell.config.query if cell.query else None for name, cell in named}
        comparison = gathered(method, cells[0].config, named, records, queries, "last", root)
        output_dir(root, f"out: in {study.path}")
        write_comparison(comparison, root)
        written.append((method.title, root / "report.html"))
    return written


def _not_ranked(method: Method[Any]) -> str:
    return (
        f"{method.name}'s values are not bias scores, so the models are listed, not ranked "
        "(rankings: weat and the association metrics)"
    )


def write_comparison(comparison: Comparison, out_dir: Path) -> list[Path]:
    """Write the comparison's tables, figures, ``run.json`` and ``report.html`` into ``out_dir``
    (all written beside it first: the cells' runs in it stay)."""
    from wordlens.comparison.report import comparison_report

    report = comparison_report(comparison)
    with written_beside(out_dir, RUN_MANIFEST) as staged:
        written = comparison.write(staged, figures=report.figures)
        written.append(report.write(staged / "report.html"))
    return [out_dir / path.name for path in written]


def read_comparison(out_dir: Path) -> Comparison:
    """A comparison written by :func:`write_comparison`, with its cells' runs.

    Raises
    ------
    OutputError
        If the folder holds no comparison, or a finished cell's run cannot be read.
    """
    run = Run.read(out_dir)
    if run.method != COMPARISON:
        raise OutputError(f"{out_dir} holds a {run.method} run, not a comparison")
    cells = run.tables["cells"]
    done = cells[cells["status"] == "done"]
    runs = {
        f"{model} / {query}": Run.read(out_dir / str(where))
        for model, query, where in zip(done["model"], done["query"], done["out_dir"], strict=True)
    }
    return Comparison(run.method, run.tables, run.metadata, runs=runs)


def cell_started(state: CellProgress) -> str:
    """The line a command prints as a cell starts (or is found done)."""
    if state.state == "done":
        return f"{state.cell.relative_dir}: done already"
    return f"{state.cell.relative_dir}: running"


def cell_finished(record: CellRecord) -> str:
    """The line a command prints as a cell ends."""
    took = "" if record.seconds is None else f" in {record.seconds:.1f} s"
    if record.status == "done":
        return f"{record.out_dir}: done{took}"
    return f"{record.out_dir}: failed{took}: {record.error}"


class ComparisonView:
    """Shows a comparison's :class:`~wordlens.results.Run` (Jupyter, ``Run.figures()``)."""

    title = "Comparison of models"
    citation = "Badilla, Bravo-Marquez & Pérez (2020), WEFE's rankings"

    def headline(self, run: Run) -> dict[str, tuple[float, str]]:
        ranked = run.tables["rankings"]
        first = ranked[ranked["rank"].eq(1).fillna(False).astype(bool)]
        return {
            f"{metric}: least association": (float(score), f"{model} ranks first")
            for metric, score, model in zip(
                first["metric"], first["score"], first["model"], strict=True
            )
        }

    def figures(self, run: Run) -> list[Figure]:
        from wordlens.comparison.report import comparison_figures

        return comparison_figures(run)


register_view(COMPARISON, ComparisonView())
