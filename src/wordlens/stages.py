"""Named stages of a run: what each cost (wall time, CPU time, peak memory) and which one failed.

Every method times its work in named stages (:meth:`Timings.stage`: contexts, embedding per
setting, each statistic). Within :func:`recording` (which :func:`wordlens.methods.base.run_method`
opens around every run) each stage is also

- *measured*: wall seconds, CPU seconds of the process (every thread), its peak resident set size
  and, on a CUDA device, its peak allocated device memory (:class:`StageRecord`);
- *announced* on stderr as it starts and ends when the run shows progress, one line each,
  flushed at once (a log file shows what is running even when stderr is not a terminal);
- *blamed* when it raises: the error is marked with the stage's name (:func:`failed_stage`, the
  innermost stage that failed) and :func:`stage_failure` words it ``stage <name> failed:
  <reason>``.

A method hands the dict it fills with tables to :func:`keep_tables`; when a later stage fails,
the tables finished before it are in :attr:`StageLog.tables`, and ``run_method`` writes them.

The peak RSS of a stage is exact when the stage raised the process's high-water mark
(``getrusage``'s ``ru_maxrss``); otherwise it is the largest of the samples a background thread
takes every :data:`RSS_SAMPLE_S` seconds while stages are open.
"""

from __future__ import annotations

import resource
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import psutil  # type: ignore[import-untyped]  # no stubs in the dev extra

from wordlens.errors import WordlensError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

RSS_SAMPLE_S = 0.2
"""Seconds between two samples of the resident set size while a stage is open."""

_MIB = 1 << 20


@dataclass
class StageRecord:
    """What one stage cost.

    Attributes
    ----------
    name
        The stage's name (``embed:bleached``, ``nullification``).
    depth
        0 for a stage of the run itself, 1 for a stage inside it, ...
    wall_s, cpu_s
        Wall-clock seconds; CPU seconds of the process (user + system, every thread).
    peak_rss_mib
        Peak resident set size of the process while the stage ran, MiB.
    peak_device_mib
        Peak device memory allocated while it ran, MiB; None off CUDA.
    status
        ``done``, ``failed`` (it raised) or ``interrupted`` (Ctrl-C, a signal).
    work
        What the stage computed, counted where it is done (:func:`add_work`), its inner stages'
        work included: ``forward_passes`` (model calls), ``sequences`` (rows of those calls),
        ``token_positions`` (positions computed, padding included) and, for the scorer's passes
        (:func:`count_pass`), ``padding_positions`` (those of them that
        are padding).
    """

    name: str
    depth: int
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    peak_device_mib: float | None = None
    status: str = "done"
    work: dict[str, int] = field(default_factory=dict)


@dataclass
class StageLog:
    """The stages of one run, in the order they ended (an inner stage before its outer one).

    Attributes
    ----------
    announce
        Print each stage's start and end on stderr.
    records
        The stages that ended.
    tables
        The dict of tables the method fills (:func:`keep_tables`): those finished so far.
    """

    announce: bool = False
    records: list[StageRecord] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def as_metadata(self) -> list[dict[str, Any]]:
        """The records as JSON-ready dicts (``run.json``'s ``stages``)."""
        return [asdict(record) for record in self.records]

    def summary_line(self) -> str:
        """One line for the end of the console output: the top-level stages' wall and CPU
        seconds and the run's peak RSS, e.g. ``stages: layers 4.1 s · nullification 0.8 s;
        CPU 5.2 s; peak RSS 612 MiB``."""
        return summary_line(self.as_metadata())


def summary_line(stages: list[dict[str, Any]]) -> str:
    """:meth:`StageLog.summary_line` of recorded stages (as ``run.json`` keeps them)."""
    top = [stage for stage in stages if stage["depth"] == 0]
    if not top:
        return "stages: none recorded"
    parts = " · ".join(f"{stage['name']} {stage['wall_s']:.1f} s" for stage in top)
    cpu = sum(stage["cpu_s"] for stage in top)
    peak = max(stage["peak_rss_mib"] for stage in stages)
    failed = [stage["name"] for stage in stages if stage["status"] != "done"]
    ended = f"; {failed[0]} {_status_of(stages, failed[0])}" if failed else ""
    return f"stages: {parts}; CPU {cpu:.1f} s; peak RSS {peak:,.0f} MiB{ended}"


def _status_of(stages: list[dict[str, Any]], name: str) -> str:
    return next(str(stage["status"]) for stage in stages if stage["name"] == name)


def stages_table(stages: list[dict[str, Any]]) -> pd.DataFrame:
    """The recorded stages as a table for a report: stage (indented by depth), depth, wall and
    CPU seconds, peak RSS, peak device memory, status."""
    import pandas as pd

    rows = [
        {
            "stage": "  " * stage["depth"] + stage["name"],
            "depth": stage["depth"],
            "wall_s": stage["wall_s"],
            "cpu_s": stage["cpu_s"],
            "peak_rss_mib": stage["peak_rss_mib"],
            "peak_device_mib": stage.get("peak_device_mib"),
            "status": stage["status"],
        }
        for stage in stages
    ]
    return pd.DataFrame(
        rows,
        columns=["stage", "depth", "wall_s", "cpu_s", "peak_rss_mib", "peak_device_mib", "status"],
    )


_LOG: ContextVar[StageLog | None] = ContextVar("wordlens_stage_log", default=None)
_DEPTH: ContextVar[int] = ContextVar("wordlens_stage_depth", default=0)
_STAGE_ATTRIBUTE = "wordlens_stage"


@contextmanager
def recording(log: StageLog) -> Iterator[StageLog]:
    """Record the stages run within the block into ``log`` (and print them when it
    announces).

    Yields
    ------
    StageLog
        ``log``, filled as the stages end.
    """
    token = _LOG.set(log)
    depth = _DEPTH.set(0)
    try:
        yield log
    finally:
        _DEPTH.reset(depth)
        _LOG.reset(token)


def keep_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Hand the dict a method fills with its tables to the stage log, so that the tables
    finished before a failing stage are kept (:attr:`StageLog.tables`); returns ``tables``."""
    log = _LOG.get()
    if log is not None:
        log.tables = tables
    return tables


def failed_stage(error: BaseException) -> str | None:
    """The innermost stage ``error`` was raised in, None if it was raised outside any."""
    name = getattr(error, _STAGE_ATTRIBUTE, None)
    return name if isinstance(name, str) else None


def stage_failure(error: BaseException) -> str:
    """``stage <name> failed: <reason>`` (the reason alone outside any stage); the reason of an
    error that is not wordlens' own (:class:`~wordlens.errors.WordlensError`) starts with its
    type (``ValueError: ...``)."""
    reason = str(error)
    if not isinstance(error, WordlensError):
        reason = f"{type(error).__name__}: {reason}" if reason else type(error).__name__
    name = failed_stage(error)
    return reason if name is None else f"stage {name} failed: {reason}"


@dataclass
class Timings:
    """Wall-clock seconds per named stage (``timings_s`` in a run's metadata); within
    :func:`recording` each stage is also measured, announced and blamed (module docstring)."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        log = _LOG.get()
        depth = _DEPTH.get()
        if log is not None and log.announce:
            _say(f"{'  ' * depth}stage {name} …")
        meter = _Meter()
        _OPEN.append(meter)
        token = _DEPTH.set(depth + 1)
        status = "done"
        try:
            yield
        except Exception as error:
            status = "failed"
            if failed_stage(error) is None:
                _mark(error, name)
            raise
        except BaseException:
            status = "interrupted"
            raise
        finally:
            _DEPTH.reset(token)
            _OPEN.remove(meter)
            if _OPEN:  # the outer stage's work includes its inner stages'
                add_work(**meter.work)
            record = meter.stop(name, depth, status)
            self.seconds[name] = self.seconds.get(name, 0.0) + record.wall_s
            if log is not None:
                log.records.append(record)
                if log.announce:
                    _say(f"{'  ' * depth}stage {name} {_ended(record)}")


_OPEN: list[_Meter] = []
"""The stages open now, innermost last: one list for the process, so that work counted in a
worker thread (the extraction pipeline's) goes to the stage that started it."""


def add_work(**counts: int) -> None:
    """Count work done in the innermost open stage (``forward_passes=1, sequences=32,
    token_positions=1024``); nothing outside any stage."""
    if _OPEN:
        work = _OPEN[-1].work
        for name, count in counts.items():
            work[name] = work.get(name, 0) + int(count)


def count_pass(lengths: Sequence[int] | npt.NDArray[np.int64], width: int) -> None:
    """Count one forward pass over right-padded rows in the open stage's work
    (:func:`add_work`): ``forward_passes``, ``sequences`` (rows),
    ``token_positions`` (``rows * width``, padding included) and ``padding_positions`` (those
    past a row's length).

    Parameters
    ----------
    lengths
        Real tokens per row ``[rows]``, each ``<= width``.
    width
        Positions per row of the pass (its longest row).
    """
    rows = len(lengths)
    positions = rows * width
    add_work(
        forward_passes=1,
        sequences=rows,
        token_positions=positions,
        padding_positions=positions - int(sum(lengths)),
    )


def _mark(error: BaseException, name: str) -> None:
    with suppress(AttributeError):  # an exception type without a __dict__ goes unnamed
        setattr(error, _STAGE_ATTRIBUTE, name)


def _ended(record: StageRecord) -> str:
    """``done in 3.2 s (CPU 3.0 s, peak RSS 612 MiB)`` or ``failed after ...``."""
    verb = "done in" if record.status == "done" else f"{record.status} after"
    device = "" if record.peak_device_mib is None else f", device {record.peak_device_mib:,.0f} MiB"
    return (
        f"{verb} {record.wall_s:.1f} s (CPU {record.cpu_s:.1f} s, "
        f"peak RSS {record.peak_rss_mib:,.0f} MiB{device})"
    )


def _say(line: str) -> None:
    """``line`` on stderr, flushed (line-buffered when stderr is a file or a pipe)."""
    print(line, file=sys.stderr, flush=True)


class _Meter:
    """Measures one open stage: clocks at its start, its peak RSS (:class:`_RssSampler`) and
    device memory."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()
        self.high_water = _max_rss_bytes()
        self.peak_rss = _SAMPLER.open(self)
        self.peak_device = _device_peak_reset()
        self.work: dict[str, int] = {}

    def stop(self, name: str, depth: int, status: str) -> StageRecord:
        _SAMPLER.close(self)
        high_water = _max_rss_bytes()
        peak = max(self.peak_rss, _rss_bytes())
        if high_water > self.high_water:  # the stage set the process's high-water mark
            peak = max(peak, high_water)
        device = _device_peak()
        if device is not None:
            _SAMPLER.note_device(device)
            device = max(device, self.peak_device or 0)
        return StageRecord(
            name,
            depth,
            wall_s=time.perf_counter() - self.wall,
            cpu_s=time.process_time() - self.cpu,
            peak_rss_mib=peak / _MIB,
            peak_device_mib=None if device is None else device / _MIB,
            status=status,
            work=dict(self.work),
        )


class _RssSampler:
    """One daemon thread that samples the resident set size while any stage is open and raises
    each open meter's ``peak_rss``."""

    def __init__(self) -> None:
        self._open: list[_Meter] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def open(self, meter: _Meter) -> int:
        """Start sampling for ``meter``; its first sample (bytes)."""
        rss = _rss_bytes()
        with self._lock:
            self._open.append(meter)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True, name="wordlens-rss")
                self._thread.start()
            self._wake.notify()
        return rss

    def close(self, meter: _Meter) -> None:
        with self._lock:
            if meter in self._open:
                self._open.remove(meter)

    def note_device(self, peak: int) -> None:
        """A stage read the device's peak and reset it: keep it in the stages still open."""
        with self._lock:
            for meter in self._open:
                meter.peak_device = max(meter.peak_device or 0, peak)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._open:
                    self._wake.wait()
            rss = _rss_bytes()
            with self._lock:
                for meter in self._open:
                    meter.peak_rss = max(meter.peak_rss, rss)
            time.sleep(RSS_SAMPLE_S)


_SAMPLER = _RssSampler()


def _rss_bytes() -> int:
    return int(psutil.Process().memory_info().rss)


def _max_rss_bytes() -> int:
    """The process's high-water mark of resident memory (``ru_maxrss`` is in KiB on Linux,
    bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def _cuda() -> Any:
    """``torch.cuda`` when torch is loaded and has initialised CUDA, else None (no import)."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    return torch.cuda


def _device_peak() -> int | None:
    cuda = _cuda()
    return None if cuda is None else int(cuda.max_memory_allocated())


def _device_peak_reset() -> int | None:
    """The device's peak so far (given to the stages open), then reset it for this stage."""
    cuda = _cuda()
    if cuda is None:
        return None
    _SAMPLER.note_device(int(cuda.max_memory_allocated()))
    cuda.reset_peak_memory_stats()
    return 0
