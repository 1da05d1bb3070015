"""Run a study's cells, skip the finished ones, and tell what is done, running or failed.

Each cell runs its method with :func:`wordlens.methods.base.run_method` (the code the command
line runs) into ``<study>/cells/<model>/<method>/`` and leaves a ``cell.json`` record beside its
tables: ``running`` (with the process id and host) while it runs, then ``done`` with its headline
numbers (:meth:`wordlens.methods.base.Method.summary`) or ``failed`` with the error. A cell
whose record is ``done`` for the same options (the record's ``config_digest``) and, for a local
model, the same model files (its ``model_files``: a checkpoint's weights replaced by another's
make it stale) is skipped, and a cell that reruns finds its vectors in the activation cache. A
failed cell does not stop the others.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rich.table import Table
from rich.text import Text

from wordlens._files import process_alive
from wordlens.distributed import Backend, RayBackend, use_backend
from wordlens.errors import WordlensError
from wordlens.methods.base import Method, Status, no_status, run_method
from wordlens.methods.registry import get_method
from wordlens.models.base import static_layer_zero
from wordlens.study.peak_memory import peak_memory
from wordlens.study.records import CellRecord, read_cell_record, write_cell_record
from wordlens.study.spec import Cell, Study

RECORD_NAME = "cell.json"
CellState = Literal["done", "running", "failed", "pending", "interrupted", "stale"]


@dataclass(frozen=True)
class CellProgress:
    """Where one cell stands.

    Attributes
    ----------
    cell : Cell
    state : {"done", "running", "failed", "pending", "interrupted", "stale"}
        ``interrupted``: its record says running but the process is gone (same host);
        ``stale``: done, but with other options than the study's now, or on model files that
        have changed since (it will rerun).
    record : CellRecord or None
        The cell's record, if any.
    reason : str or None
        Why a stale cell will rerun (``model.safetensors changed since it ran``).
    """

    cell: Cell
    state: CellState
    record: CellRecord | None
    reason: str | None = None


def cell_status(cell: Cell) -> CellProgress:
    """The state of ``cell`` from its record (see :class:`CellProgress`)."""
    path = cell.out_dir / RECORD_NAME
    if not path.exists():
        return CellProgress(cell, "pending", None)
    record = read_cell_record(path)
    state: CellState = record.status
    reason = _stale_reason(record, cell) if record.status == "done" else None
    if reason is not None:
        state = "stale"
    elif record.status == "running" and not _alive(record.pid, record.host):
        state = "interrupted"
    return CellProgress(cell, state, record, reason)


def _stale_reason(record: CellRecord, cell: Cell) -> str | None:
    """Why the done ``record`` of ``cell`` no longer holds (its options changed, or the local
    model's files: :meth:`~wordlens.study.spec.ModelEntry.files`); None while it does."""
    if record.config_digest != cell.digest():
        return "its options changed since it ran"
    before, now = record.model_files, cell.model.files()
    if before == now:
        return None
    if before is None:
        return "the model files it ran on are not recorded"
    current = now or {}
    changed = sorted(name for name in {*before, *current} if before.get(name) != current.get(name))
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return f"{shown} changed since it ran"


def study_status(study: Study) -> list[CellProgress]:
    """The state of every cell of ``study``, in study order."""
    return [cell_status(cell) for cell in study.cells]


def study_records(study: Study) -> list[CellRecord]:
    """A record for every cell of ``study`` (``pending`` for cells never run), for the report."""
    return [
        status.record if status.record is not None else pending_record(status.cell)
        for status in study_status(study)
    ]


def run_study(
    study: Study,
    *,
    only: Sequence[str] = (),
    force: bool = False,
    backend: Backend | None = None,
    on_cell: Callable[[CellProgress], None] | None = None,
) -> list[CellRecord]:
    """Run every cell of ``study`` that is not done yet.

    Parameters
    ----------
    study
        From :func:`wordlens.study.spec.load_study`.
    only
        Run only the cells whose ``<model>/<method>`` (model display name or directory name)
        or method or model is in this list; all cells when empty.
    force
        Rerun cells that are done.
    backend
        Where the cells' forward passes run (:mod:`wordlens.distributed`, e.g. a
        ``RayBackend``; the caller opens and closes it); in this process when ``None``.
    on_cell
        Called with each cell's status before it runs (or is skipped).

    Returns
    -------
    list of CellRecord
        The record of every selected cell after the run, in study order.

    Raises
    ------
    KeyboardInterrupt
        Re-raised after the running cell's record is removed (it is pending again; what it
        computed is in the activation cache).
    """
    chosen = [cell for cell in study.cells if _selected(cell, only)]
    if only and not chosen:
        raise WordlensError(f"no cell of study {study.name!r} matches {', '.join(only)}")
    tasks = backend if isinstance(backend, RayBackend) else None
    # on Ray, a sweep's checkpoints run as one task each; other cells here, forward passes on Ray
    as_task = [tasks is not None and cell.model.checkpoint is not None for cell in chosen]
    records: dict[int, CellRecord] = {}
    with use_backend(backend) if backend is not None else nullcontext():
        for in_tasks in (False, True):
            indices = [index for index, flag in enumerate(as_task) if flag == in_tasks]
            ran = run_cells(
                [chosen[index] for index in indices],
                study.cache_dir,
                force=force,
                tasks=tasks if in_tasks else None,
                on_cell=on_cell,
            )
            records.update(zip(indices, ran, strict=True))
    return [records[index] for index in range(len(chosen))]


def run_cells(
    cells: Sequence[Cell],
    cache_dir: Path | None,
    *,
    method: Method[Any] | None = None,
    no_cache: bool = False,
    force: bool = False,
    tasks: RayBackend | None = None,
    on_cell: Callable[[CellProgress], None] | None = None,
    on_done: Callable[[CellRecord], None] | None = None,
    progress: bool = False,
    status: Status = no_status,
) -> list[CellRecord]:
    """Run the cells that are not done (all with ``force``), one after the other here, or each
    as one Ray task (``tasks``: :meth:`RayBackend.tasks`, a sweep's checkpoints on a cluster).

    Parameters
    ----------
    cells
        The cells, in order.
    method
        The method object the cells run [each cell's registered method].
    cache_dir, no_cache
        The activation cache of their runs.
    force
        Rerun cells that are done.
    tasks
        Run each cell as a task of this Ray backend; here when None.
    on_cell
        Called with each cell's status before it runs (or is skipped).
    on_done
        Called with each record of a cell that ran, as it ends (its time and peak memory).
    progress, status
        Show each run's progress (here only).

    Returns
    -------
    list of CellRecord
        Every cell's record after the run, in order.
    """
    records: dict[int, CellRecord] = {}
    waiting: list[int] = []
    for index, cell in enumerate(cells):
        state = cell_status(cell)
        if on_cell is not None:
            on_cell(state)
        if state.state == "done" and state.record is not None and not force:
            records[index] = state.record
        elif tasks is not None:
            waiting.append(index)
        else:
            records[index] = run_cell(
                cell, cache_dir, method=method, no_cache=no_cache, progress=progress, status=status
            )
            if on_done is not None:
                on_done(records[index])
    if tasks is not None and waiting:
        jobs = [CellTask(cells[index], cache_dir, no_cache, method) for index in waiting]
        for position, record in tasks.tasks(run_cell_task, jobs):
            records[waiting[position]] = record
            if on_done is not None:
                on_done(record)
    return [records[index] for index in range(len(cells))]


@dataclass(frozen=True)
class CellTask:
    """What a Ray task needs to run one cell (:func:`run_cell_task`)."""

    cell: Cell
    cache_dir: Path | None
    no_cache: bool
    method: Method[Any] | None = None


def run_cell_task(task: CellTask) -> CellRecord:
    """:func:`run_cell` in a Ray worker: the body of one task of :func:`run_cells`."""
    return run_cell(task.cell, task.cache_dir, method=task.method, no_cache=task.no_cache)


def run_cell(
    cell: Cell,
    cache_dir: Path | None,
    *,
    method: Method[Any] | None = None,
    no_cache: bool = False,
    progress: bool = False,
    status: Status = no_status,
) -> CellRecord:
    """Run one cell's command and leave its record (done or failed, with its time and peak
    memory); see the module notes. ``method``: the method object to run [the registered
    ``cell.method``] (a WEAT given its word sets in Python); ``progress`` and ``status`` show its
    progress (:func:`~wordlens.methods.base.run_method`)."""
    path = cell.out_dir / RECORD_NAME
    cell.out_dir.mkdir(parents=True, exist_ok=True)
    running = replace(
        pending_record(cell),
        status="running",
        model_files=cell.model.files(),
        pid=os.getpid(),
        host=socket.gethostname(),
    )
    write_cell_record(path, running)
    started = time.perf_counter()
    with peak_memory() as memory:
        try:
            chosen = method or get_method(cell.method)
            model = cell.model.options.replace(cache_dir=cache_dir, no_cache=no_cache)
            # one `layers` for every model: a static model runs layer 0, with a note
            with _removed_on_interrupt(path), static_layer_zero():
                run, _ = run_method(
                    chosen, model, cell.config, cell.out_dir, progress=progress, status=status
                )
            record = replace(running, status="done", headline=chosen.summary(run).headline)
        except Exception as error:  # a failed cell is recorded; the study goes on
            record = replace(running, status="failed", error=_error_text(error))
    record = replace(
        record,
        seconds=time.perf_counter() - started,
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        pid=None,
        host=None,
        peak_memory_mib=memory.rss_mib,
        peak_gpu_memory_mib=memory.gpu_mib,
    )
    write_cell_record(path, record)
    return record


def current_record(cell: Cell) -> CellRecord:
    """The cell's record as it stands (``pending`` when it never ran)."""
    state = cell_status(cell)
    return state.record if state.record is not None else pending_record(cell)


def pending_record(cell: Cell) -> CellRecord:
    """The record of a cell that has not run."""
    return CellRecord(
        model=cell.model.display_name,
        model_slug=cell.model.slug,
        method=cell.method,
        status="pending",
        out_dir=cell.relative_dir,
        headline={},
        seconds=None,
        error=None,
        config_digest=cell.digest(),
        finished=None,
        pid=None,
        host=None,
        query=cell.query,
    )


def _selected(cell: Cell, only: Sequence[str]) -> bool:
    if not only:
        return True
    names = {
        cell.method,
        cell.model.display_name,
        cell.model.slug,
        f"{cell.model.display_name}/{cell.method}",
        f"{cell.model.slug}/{cell.method}",
    }
    return bool(names & set(only))


@contextmanager
def _removed_on_interrupt(path: Path) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        path.unlink(missing_ok=True)
        raise


def _error_text(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if isinstance(error, WordlensError) else f"{type(error).__name__}: {text}"


def _alive(pid: int | None, host: str | None) -> bool:
    """Whether the process that wrote a running record may still run (unknown hosts: yes)."""
    if pid is None or host != socket.gethostname():
        return host is not None
    return process_alive(pid)


def status_table(study: Study) -> Table:
    """What is done, running, failed or still to run, with headlines and errors: a table for
    the terminal (``wordlens study status``)."""

    grid = Table(title=f"Study {study.name}: {study.out_dir}", title_justify="left")
    for column in ("model", "method", "state", "seconds", "headline / error"):
        grid.add_column(column)
    colours = {"done": "green", "failed": "red", "running": "yellow", "interrupted": "red"}
    for status in study_status(study):
        record = status.record
        detail = ""
        if status.reason is not None:
            detail = status.reason
        elif record is not None and record.error:
            detail = record.error.splitlines()[0][:100]
        elif record is not None and record.headline:
            detail = ", ".join(f"{k} {v:.3g}" for k, v in list(record.headline.items())[:3])
        seconds = "" if record is None or record.seconds is None else f"{record.seconds:.1f}"
        colour = colours.get(status.state, "white")
        grid.add_row(
            status.cell.model.display_name,
            status.cell.column,
            Text(status.state, style=colour),
            seconds,
            detail,
        )
    return grid
