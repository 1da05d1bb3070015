"""Run a method on each checkpoint of a model, and gather the runs into one sweep.

:func:`run_sweep` resolves the checkpoints ``revisions`` names
(:func:`wordlens.models.revisions.checkpoints`), runs the method on each into
``<out>/revisions/<checkpoint>/`` — a normal run directory, with the ``cell.json`` record a study
cell keeps (:mod:`wordlens.study.runner`) — and writes the sweep beside them: the tidy table
(``sweep_table``), the table of checkpoints with each run's time and peak memory
(``sweep_revisions``), the report's figures and ``report.html``, and ``run.json``.

Within a sweep the method reads its inputs once (:func:`~wordlens.methods.base.sharing_inputs`)
and checkpoints with the same tokenizer files share one tokenizer
(:func:`~wordlens.models.loading.sharing_tokenizers`); each checkpoint has its own fingerprint,
so the activation cache keeps its vectors apart. A checkpoint whose record is done (for the same
options) is not run again: a sweep that was stopped resumes with the next checkpoint, and the
one it stopped in finds its finished batches in the activation cache. A checkpoint that fails is
recorded and the sweep goes on. On Ray (``tasks``), each checkpoint is one task in a worker
process of its own.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wordlens._files import StrPath, as_path
from wordlens.distributed import RayBackend, make_backend, use_backend
from wordlens.errors import OutputError
from wordlens.methods.base import (
    Method,
    Status,
    new_output_dir,
    no_status,
    output_dir,
    run_method,
    sharing_inputs,
    written_beside,
)
from wordlens.methods.registry import get_method
from wordlens.models.loading import sharing_tokenizers
from wordlens.models.options import ModelOptions
from wordlens.models.revisions import Checkpoint, LeftOut, checkpoints, left_out
from wordlens.options import config_values
from wordlens.results import RUN_MANIFEST, Figure, Run, register_view
from wordlens.study.records import CellRecord
from wordlens.study.runner import CellProgress, current_record, run_cells
from wordlens.study.spec import Cell, Study, checkpoint_entry, slugify
from wordlens.sweep.table import revisions_table, sweep_definitions, sweep_table

SWEEP = "sweep"
"""The ``method`` of a sweep's :class:`~wordlens.results.Run`."""

PREFIX = "sweep_"
"""File-name prefix of the sweep's tables and figures."""


@dataclass(repr=False)  # Run's one-line repr, not every table's contents
class Sweep(Run):
    """A method run on each checkpoint of a model: a :class:`~wordlens.results.Run` whose
    ``method`` is ``"sweep"``.

    Attributes
    ----------
    tables
        ``table``: the tidy table (:mod:`wordlens.sweep.table`); ``revisions``: one row per
        checkpoint with its status, time and peak memory.
    metadata
        ``method``, ``method_title``, ``model``, ``revisions`` (as asked), ``checkpoints``
        (name, step, model, revision), ``left_out`` (name and reason of each folder ``all``
        does not run: :func:`~wordlens.models.revisions.left_out`), ``definitions`` (what each
        quantity measures), ``options`` (the method's), ``backend``.
    runs
        Checkpoint name → its run (the checkpoints that ran).
    """

    runs: dict[str, Run] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        """One line: the method swept, the model and its checkpoints (ran of all), not the
        tables' contents."""
        checkpoints = len(self.tables["revisions"]) if "revisions" in self.tables else 0
        return (
            f"Sweep(method={self.metadata.get('method')!r}, model={self.metadata.get('model')!r}, "
            f"checkpoints={checkpoints}, runs={list(self.runs)!r})"
        )

    @classmethod
    def read(cls, out_dir: StrPath) -> Sweep:
        """Read a sweep written into ``out_dir`` (:func:`write_sweep`): its tables and metadata
        (``run.json``), and the run of each checkpoint that ran, from its folder
        (``revisions/<checkpoint>/``, as the ``revisions`` table names it).

        Raises
        ------
        OutputError
            If the folder holds no sweep, or a checkpoint's run is missing or unreadable.
        """
        return cls.of(Run.read(out_dir), out_dir)

    @classmethod
    def of(cls, run: Run, out_dir: StrPath) -> Sweep:
        """The sweep ``run``, read from ``out_dir`` already (:meth:`Run.read`), with the run of
        each checkpoint that ran (as :meth:`read`)."""
        out_dir = as_path(out_dir)
        if run.method != SWEEP:
            raise OutputError(f"{out_dir} holds a {run.method} run, not a sweep")
        revisions = run.tables["revisions"]
        done = revisions[revisions["status"] == "done"]
        runs = {
            str(name): Run.read(out_dir / str(folder))
            for name, folder in zip(done["revision"], done["out_dir"], strict=True)
        }
        return cls(run.method, run.tables, run.metadata, runs=runs)

    @property
    def model(self) -> str | None:
        """The model swept (a folder of checkpoint folders or a hub id)."""
        model = self.metadata.get("model")
        return None if model is None else str(model)

    @property
    def failed(self) -> dict[str, str]:
        """Checkpoint name → why its run failed."""
        table = self.tables["revisions"]
        failed = table[table["status"] == "failed"]
        return dict(zip(failed["revision"], failed["error"].astype(str), strict=True))


def run_or_sweep(
    method: Method[Any],
    model: ModelOptions,
    config: Any,
    out_dir: Path | None,
    *,
    progress: bool = False,
    status: Status = no_status,
    on_cell: Callable[[CellProgress], None] | None = None,
    on_done: Callable[[CellRecord], None] | None = None,
) -> tuple[Run, list[Path]]:
    """What a method's command (and :func:`wordlens.run`) does: one run
    (:func:`~wordlens.methods.base.run_method`), or a sweep when ``model.revisions`` is set
    (:func:`run_sweep`), on ``model.backend``; arguments as :func:`run_sweep`'s."""
    with make_backend(model.backend) as backend:
        if model.revisions is None:
            with use_backend(backend):
                return run_method(method, model, config, out_dir, progress=progress, status=status)
        tasks = backend if isinstance(backend, RayBackend) else None
        return run_sweep(
            method, model, config, out_dir, tasks=tasks, progress=progress, status=status,
            on_cell=on_cell, on_done=on_done,
        )  # fmt: skip


def run_sweep(
    method: Method[Any],
    model: ModelOptions,
    config: Any,
    out_dir: Path | None,
    *,
    tasks: RayBackend | None = None,
    progress: bool = False,
    status: Status = no_status,
    on_cell: Callable[[CellProgress], None] | None = None,
    on_done: Callable[[CellRecord], None] | None = None,
) -> tuple[Sweep, list[Path]]:
    """Run ``method`` on each checkpoint ``model.revisions`` names (see the module notes).

    Parameters
    ----------
    method, config
        The method and its config.
    model
        The model (a directory of checkpoint folders or a hub id), its ``revisions`` and the
        loading and cache options every checkpoint is loaded with.
    out_dir
        The sweep's directory; None writes nothing (the runs go to a temporary directory and
        are read back into :attr:`Sweep.runs`).
    tasks
        Run each checkpoint as one task of this Ray backend; here, one after the other, when
        None.
    progress, status
        Show each run's progress bars and loading messages (here only).
    on_cell
        Called with each checkpoint's state before it runs (or is skipped, done already).
    on_done
        Called with each checkpoint's record when its run ends.

    Returns
    -------
    sweep, written
        The sweep, and the files written into ``out_dir``.

    Raises
    ------
    RevisionError
        If ``revisions`` names no checkpoint of the model.
    WordlensError
        If the method's inputs cannot be read (before any checkpoint loads).
    """
    points = checkpoints(model.required_model(), model.revisions or ())
    skipped = left_out(model.required_model(), model.revisions or ())
    with ExitStack() as stack:
        where = (
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="wordlens-sweep-")))
            if out_dir is None
            else stack.enter_context(new_output_dir(out_dir))
        )
        cells = checkpoint_cells(method, model, config, points, where, skipped)
        with sharing_inputs(), sharing_tokenizers():
            method.read_inputs(config)  # a bad input fails before any checkpoint loads
            records = run_cells(
                cells, model.cache_dir, method=method, no_cache=model.no_cache, tasks=tasks,
                on_cell=on_cell, on_done=on_done, progress=progress, status=status,
            )  # fmt: skip
        sweep = gathered(method, config, cells, records, where, model.revisions or (), tasks)
    return sweep, [] if out_dir is None else write_sweep(sweep, out_dir)


def checkpoint_cells(
    method: Method[Any],
    model: ModelOptions,
    config: Any,
    points: list[Checkpoint],
    out_dir: Path,
    skipped: Sequence[LeftOut] = (),
) -> list[Cell]:
    """One cell per checkpoint, in ``out_dir/revisions/<checkpoint>``; ``skipped``: the folders
    the sweep left out (:func:`~wordlens.models.revisions.left_out`)."""
    swept = model.required_model()
    cells = []
    for point in points:
        relative = f"revisions/{slugify(point.name)}"
        entry = checkpoint_entry(model, point, point.name, swept, tuple(skipped))
        cells.append(Cell(entry, method.name, config, out_dir / relative, relative))
    return cells


def gathered(
    method: Method[Any],
    config: Any,
    cells: Sequence[Cell],
    records: Sequence[CellRecord],
    root: Path,
    revisions: Sequence[str],
    tasks: RayBackend | None = None,
) -> Sweep:
    """The sweep of the checkpoints' ``cells`` after they ran (their ``records``): the runs
    read back, the tables, the metadata (with the folders the sweep left out, which the cells'
    entries carry). ``root``: the sweep's directory (the checkpoints' run directories are given
    relative to it)."""
    points = [_checkpoint(cell) for cell in cells]
    runs = {
        point.name: Run.read(cell.out_dir)
        for point, cell, record in zip(points, cells, records, strict=True)
        if record.status == "done"
    }
    summaries = {name: method.summary(run) for name, run in runs.items()}
    metadata = {
        "method": method.name,
        "method_title": method.title,
        "model": cells[0].model.swept if cells else None,
        "revisions": list(revisions),
        "checkpoints": [asdict(point) for point in points],
        "left_out": [asdict(folder) for folder in (cells[0].model.left_out if cells else ())],
        "definitions": sweep_definitions(summaries),
        "options": config_values(config),
        "backend": "ray" if tasks is not None else "local",
    }
    where = [Path(os.path.relpath(cell.out_dir, root)).as_posix() for cell in cells]
    tables = {
        "table": sweep_table(points, summaries),
        "revisions": revisions_table(points, records, where),
    }
    return Sweep(SWEEP, tables, metadata, runs=runs)


def write_study_sweeps(study: Study) -> list[tuple[str, Path]]:
    """Write a sweep (tables, figures, report) for each model entry of ``study`` that sweeps
    ``revisions`` and each method, from its cells as they stand, into
    ``<study>/sweeps/<model>/<method>/``.

    Returns
    -------
    list of (str, Path)
        ``"<model> / <method>"`` and the sweep's ``report.html``, for each.
    """
    groups: dict[tuple[str, str], list[Cell]] = {}
    for cell in study.cells:
        if cell.model.swept is not None:
            groups.setdefault((cell.model.swept, cell.method), []).append(cell)
    written = []
    for (swept, method_name), cells in groups.items():
        method = get_method(method_name)
        root = study.out_dir / "sweeps" / slugify(swept) / method_name
        records = [current_record(cell) for cell in cells]
        revisions = [str(cell.model.checkpoint.name) for cell in cells if cell.model.checkpoint]
        sweep = gathered(method, cells[0].config, cells, records, root, revisions)
        output_dir(root, f"out: in {study.path}")
        write_sweep(sweep, root)
        written.append((f"{swept} / {method_name}", root / "report.html"))
    return written


def _checkpoint(cell: Cell) -> Checkpoint:
    checkpoint = cell.model.checkpoint
    if checkpoint is None:
        raise ValueError(f"cell {cell.relative_dir} runs no checkpoint of a sweep")
    return checkpoint


def write_sweep(sweep: Sweep, out_dir: Path) -> list[Path]:
    """Write the sweep's tables, figures, ``run.json`` and ``report.html`` into ``out_dir``
    (all written beside it first, :func:`~wordlens.methods.base.written_beside`: the
    checkpoints' runs in it stay)."""
    report = sweep_page(sweep)
    with written_beside(out_dir, RUN_MANIFEST) as staged:
        written = sweep.write(staged, PREFIX, figures=report.figures)
        written.append(report.write(staged / "report.html"))
    return [out_dir / path.name for path in written]


def sweep_page(sweep: Run) -> Any:
    """The sweep's report (:func:`wordlens.sweep.report.sweep_report`)."""
    from wordlens.sweep.report import sweep_report

    metadata = sweep.metadata
    return sweep_report(
        sweep.tables["table"], sweep.tables["revisions"], metadata["definitions"], metadata
    )


class SweepView:
    """Shows a sweep's :class:`~wordlens.results.Run` (Jupyter, ``Run.figures()``): its title
    and its report's figures."""

    title = "Method across training checkpoints"
    citation = ""

    def headline(self, run: Run) -> dict[str, tuple[float, str]]:
        """No headline numbers: a sweep's numbers are per checkpoint (its table)."""
        return {}

    def figures(self, run: Run) -> list[Figure]:
        """The figures of the sweep's report."""
        return list(sweep_page(run).figures)

    def report(self, run: Run) -> Any:
        """The sweep's report page (:func:`sweep_page`)."""
        return sweep_page(run)


register_view(SWEEP, SweepView())


def checkpoint_started(state: CellProgress) -> str:
    """``run step-1000``, ``skip step-1000 (done)`` or ``rerun step-1000 (model.safetensors
    changed since it ran)``: what a sweep does with a checkpoint."""
    name = state.cell.model.display_name
    if state.state == "done":
        return f"skip {name} (done)"
    return f"run {name}" if state.reason is None else f"rerun {name} ({state.reason})"


def checkpoint_finished(record: CellRecord) -> str:
    """``step-1000: done in 12.3 s, peak memory 812 MiB`` (and the GPU's, or the error)."""
    seconds = f" in {record.seconds:.1f} s" if record.seconds is not None else ""
    memory = ""
    if record.peak_memory_mib is not None:
        memory = f", peak memory {record.peak_memory_mib:,.0f} MiB"
    if record.peak_gpu_memory_mib is not None:
        memory += f" (GPU {record.peak_gpu_memory_mib:,.0f} MiB)"
    failed = f": {record.error}" if record.error else ""
    return f"{record.model}: {record.status}{seconds}{memory}{failed}"


def sweep_console(sweep: Sweep) -> list[Any]:
    """What the command line prints after a sweep: each checkpoint's status, time and memory,
    and the folders it left out, with why."""
    import pandas as pd
    from rich.table import Table

    from wordlens.sweep.report import left_out_lines

    grid = Table(
        title=f"{sweep.metadata['method_title']} across {len(sweep.tables['revisions'])} "
        f"checkpoints of {sweep.metadata['model']}",
        title_justify="left",
    )
    for column in ("checkpoint", "step", "status", "seconds", "peak MiB", "GPU MiB"):
        grid.add_column(column, justify="left" if column in ("checkpoint", "status") else "right")
    for row in sweep.tables["revisions"].to_dict("records"):
        grid.add_row(
            str(row["revision"]),
            "" if pd.isna(row["step"]) else str(row["step"]),
            str(row["status"]),
            *(_number(row[name]) for name in ("seconds", "peak_memory_mib", "peak_gpu_memory_mib")),
        )
    return [grid, *left_out_lines(sweep.metadata)]


def _number(value: float | None) -> str:
    """A table cell: ``value`` rounded, or empty when missing (None or NaN)."""
    return "" if value is None or math.isnan(value) else f"{value:,.1f}"
