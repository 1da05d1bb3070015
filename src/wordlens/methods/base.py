"""The :class:`Method` abstraction: what every paper method is, and how one is run.

A method is a small registered object (:mod:`wordlens.methods.registry`) with

- ``name`` (the ``wordlens <name>`` command and the study key), ``title`` and ``citation``;
- ``config_type``, a frozen dataclass whose fields are declared with
  :func:`wordlens.options.option` (the only place a default lives);
- ``needs``, what it needs from a model, and ``model_options``, which of
  :class:`~wordlens.models.options.ModelOptions` it takes;
- :meth:`Method.read_inputs` (the files and data sets a config names, read before any model
  loads) and :meth:`Method.run` (model options, config, context → :class:`~wordlens.results.Run`),
  :meth:`Method.summary` (the headline numbers and per-layer curves a console and a study show),
  :meth:`Method.report` (its HTML page) and :meth:`Method.console` (tables for the terminal);
  :meth:`Method.headline` and :meth:`Method.figures` show a run in Jupyter (a method is the
  :class:`~wordlens.results.RunView` of its runs).

:func:`run_method` is the one way to run a method — the command line, the study runner and the
Python API call it: it checks the output directory, runs, writes the tables, ``run.json`` and
``report.html``; without an output directory (the Python API's default) it writes nothing.
"""

from __future__ import annotations

import inspect
import json
import shutil
import tempfile
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, closing, contextmanager, nullcontext, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import wraps
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from wordlens._files import (
    atomic_write_text,
    ensure_writable_dir,
    staged_files,
    staging_dir,
    swap_in,
    unsafe_output_dir,
)
from wordlens.errors import OutputError, WordlensError
from wordlens.help_texts import plain_help
from wordlens.models.base import static_layer_notes
from wordlens.models.options import CACHE_OPTIONS, LOADING_OPTIONS, RUN_OPTIONS, ModelOptions
from wordlens.options import config_values, keyword_names, keywords_in_metadata
from wordlens.results import REPORT_PAGE, RUN_MANIFEST, Figure, Result, Run
from wordlens.stages import StageLog, failed_stage, recording, stage_failure

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from wordlens.plan import Plan
    from wordlens.report.html import Report

C = TypeVar("C")
WORK_DIR = "work"
"""The folder of an output directory that holds a method's resumable work
(:attr:`RunContext.work_dir`); each new run of the directory takes it over."""
RESULT_MARKERS = (
    "run.json",
    "failure.json",
    "cell.json",
    "reproduction.json",
    "*/run.json",
    "*/failure.json",
    "*/reproduction.json",
    "revisions/*/cell.json",
    f"{WORK_DIR}/request.json",
)
"""What shows that a folder holds results of wordlens (glob patterns): a run's manifest or the
failure manifest of a failed run, a study cell's record, a reproduction's table, the same one
folder down (a reproduction's experiments, several papers' reproductions), a sweep's
checkpoints, asymmetry's work list."""
Status = Callable[[str], AbstractContextManager[object]]


def no_status(text: str) -> AbstractContextManager[object]:
    """A :data:`Status` that shows nothing."""
    return nullcontext()


#: Inputs read while :func:`sharing_inputs` is active, by method object and config.
_SHARED_INPUTS: ContextVar[dict[tuple[int, str], object] | None] = ContextVar(
    "wordlens_shared_inputs", default=None
)
#: How the runs started now were asked for (:func:`invoked_as`); None: a Python call of
#: :func:`run_method` itself.
_INVOCATION: ContextVar[dict[str, Any] | None] = ContextVar("wordlens_invocation", default=None)
M = TypeVar("M", bound="Method[Any]")
R = TypeVar("R")


@contextmanager
def sharing_inputs() -> Iterator[None]:
    """Within the block, a method reads the inputs of one config once
    (:func:`read_once_when_shared`): a sweep runs one method with one config on each checkpoint
    (:mod:`wordlens.sweep`), and the lexica, word sets and templates are the same for all."""
    token = _SHARED_INPUTS.set({})
    try:
        yield
    finally:
        _SHARED_INPUTS.reset(token)


@contextmanager
def invoked_as(invocation: dict[str, Any]) -> Iterator[None]:
    """Within the block, every run records ``invocation`` in its metadata (``invocation``): the
    command line (``{"argv": [...]}``, set by the ``wordlens`` command) or the Python call
    (``{"python": "wordlens.run(...)"}``, set by :func:`wordlens.run`). A run outside any such
    block records the call of :func:`run_method`."""
    token = _INVOCATION.set(invocation)
    try:
        yield
    finally:
        _INVOCATION.reset(token)


def current_invocation(default: str) -> dict[str, Any]:
    """How the runs started now were asked for (:func:`invoked_as`), or ``{"python":
    default}`` outside any such block."""
    return _INVOCATION.get() or {"python": default}


def read_once_when_shared(read: Callable[[M, C], R]) -> Callable[[M, C], R]:
    """Decorate a :meth:`Method.read_inputs`: inside :func:`sharing_inputs` it reads each
    config's inputs once and hands the same object to every later run (which must not change
    it); outside, it reads them every time."""

    @wraps(read)
    def read_shared(method: M, config: C) -> R:
        shared = _SHARED_INPUTS.get()
        if shared is None:
            return read(method, config)
        key = (id(method), json.dumps(config_values(config), sort_keys=True, default=str))
        if key not in shared:
            shared[key] = read(method, config)
        return cast(R, shared[key])

    return read_shared


@dataclass
class RunContext:
    """Where and how a method runs.

    Attributes
    ----------
    given_dir
        Where the run's files go (the new folder that replaces the output directory when the
        run is written, :func:`run_method`), or None for a run that writes nothing
        (:attr:`out_dir`).
    progress
        Show progress bars.
    status
        Shows a message while something slow without a progress bar runs (model loading).
    kept_dir
        The output directory itself, whose :data:`WORK_DIR` (resumable work) outlives a run
        that fails and is carried into the next; None: :attr:`out_dir`.
    """

    given_dir: Path | None
    progress: bool = False
    status: Status = no_status
    kept_dir: Path | None = None
    _scratch: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False)

    @property
    def out_dir(self) -> Path:
        """Where the method may write files of the run (figures): :attr:`given_dir`, or
        else a temporary directory, made when first asked for (a run that keeps nothing costs
        no directory) and removed by :meth:`close`."""
        if self.given_dir is not None:
            return self.given_dir
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="wordlens-run-")
        return Path(self._scratch.name)

    @property
    def work_dir(self) -> Path:
        """Where the method keeps resumable work (asymmetry's work list): :data:`WORK_DIR` in
        :attr:`kept_dir`, so a failed or sharded run leaves it for the next run to resume."""
        return (self.kept_dir or self.out_dir) / WORK_DIR

    def close(self) -> None:
        """Remove the temporary directory of :attr:`out_dir`, if one was made."""
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


@dataclass(frozen=True)
class Summary:
    """What a console and a study show of a run.

    Attributes
    ----------
    headline
        Named headline numbers; NaN where a statistic is undefined.
    curves
        Per-layer series, tidy (``layer``, ``depth``, ``metric``, ``value``); None for methods
        without layers.
    definitions
        What each headline number and curve metric measures, for this run's settings.
    """

    headline: dict[str, float]
    curves: pd.DataFrame | None = None
    definitions: dict[str, str] = field(default_factory=dict)


class Method(ABC, Generic[C]):
    """One paper method (see the module notes). Subclass, set the class attributes, implement
    :meth:`run` and :meth:`summary`, and register it with
    :func:`wordlens.methods.registry.register`. The class docstring is the command's help."""

    name: ClassVar[str]
    title: ClassVar[str]
    citation: ClassVar[str]
    config_type: ClassVar[type[Any]]
    needs: ClassVar[str]
    """What the method needs from a model, in words (``wordlens methods`` lists it)."""
    model_options: ClassVar[tuple[str, ...]] = (*LOADING_OPTIONS, *CACHE_OPTIONS, *RUN_OPTIONS)
    """The :class:`ModelOptions` fields the method uses (its command has these options)."""
    model_required: ClassVar[bool] = True
    limits: ClassVar[str | None] = None
    """What ``--limit`` keeps of the method's inputs, in words, ``{n}`` standing for its value
    (``the first {n} words of each word set``); None: the method refuses ``--limit``."""
    table_prefix: ClassVar[str | None] = None
    """File-name prefix of the tables [the name with ``_`` and a trailing ``_``]."""

    @property
    def prefix(self) -> str:
        """The file-name prefix of the method's tables."""
        if self.table_prefix is not None:
            return self.table_prefix
        return self.name.replace("-", "_") + "_"

    @property
    def help(self) -> str:
        """The command's help: the class docstring up to its first numpydoc section (its
        ``References``, kept for the API documentation), as one paragraph of plain text
        (:func:`~wordlens.help_texts.plain_help`: no Sphinx roles)."""
        text = inspect.cleandoc(type(self).__doc__ or self.title)
        lines = text.splitlines()
        for number, (line, under) in enumerate(pairwise(lines)):
            if line.strip() and set(under.strip()) == {"-"}:
                lines = lines[:number]
                break
        return plain_help(" ".join(" ".join(lines).split()))

    def read_inputs(self, config: C) -> object:
        """Read and check the files and data sets ``config`` names (a lexicon, a study of
        biases, evocation data), so that bad input fails in seconds, before any model loads.

        :meth:`run` calls it before it loads the model and goes on with what it returns (each
        file is read once); a study calls it for each of its methods when it reads the study
        file (:func:`wordlens.study.spec.load_study`), before any cell runs. The default reads
        nothing.

        Returns
        -------
        object
            What :meth:`run` goes on with (None: nothing to read).

        Raises
        ------
        WordlensError
            Naming the file (and line) or the data set that cannot be read.
        """
        return None

    @abstractmethod
    def run(self, model: ModelOptions, config: C, context: RunContext) -> Run:
        """Load what the method needs from ``model``, compute, and return the tables."""

    @abstractmethod
    def summary(self, run: Run) -> Summary:
        """Headline numbers and curves of ``run`` (from memory or :meth:`Run.read`)."""

    def report(self, run: Run) -> Report | None:
        """The run's HTML report (None: the method writes none)."""
        return None

    def comparison_scores(self, run: Run) -> pd.DataFrame:
        """The run's values as a comparison of models and queries lists and ranks them
        (:mod:`wordlens.comparison`): ``metric``, ``part``, ``layer`` (<NA> for a value without
        layers), ``value`` and ``more_bias`` (which values mean more association: ``"larger"``,
        ``"smaller"``, ``"farther from 0"``; empty for a quantity that is not a bias, which is
        listed but not ranked). By default the summary's per-layer curves, or its headline
        numbers when it has none, none of them ranked; the bias methods (WEAT and the
        association metrics) give their bias values."""
        import pandas as pd

        summary = self.summary(run)
        if summary.curves is not None:
            rows = summary.curves[["metric", "layer", "value"]]
        else:
            rows = pd.DataFrame(
                {
                    "metric": list(summary.headline),
                    "value": list(summary.headline.values()),
                    "layer": pd.array([pd.NA] * len(summary.headline), dtype="Int64"),
                }
            )
        return rows.assign(part="", more_bias="")[["metric", "part", "layer", "value", "more_bias"]]

    def plan(self, model: ModelOptions, config: C, context: RunContext) -> Plan:
        """The run's plan: its stages, their work and their time estimated on the model's
        device from a short calibration (:mod:`wordlens.plan`), without running them.

        Raises
        ------
        WordlensError
            By default: the method states no plan yet.
        """
        raise no_plan_error(self.name)

    @property
    def can_plan(self) -> bool:
        """Whether the method states its plan (overrides :meth:`plan`)."""
        return type(self).plan is not Method.plan

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "plan" in cls.__dict__:
            _PLANNING.add(str(cls.__dict__.get("name", cls.__name__.lower())))
        if "name" in cls.__dict__ and getattr(cls, "limits", None) is not None:
            _LIMITING.add(str(cls.__dict__["name"]))

    def headline(self, run: Run) -> dict[str, tuple[float, str]]:
        """The headline numbers of :meth:`summary`, each with what it measures."""
        summary = self.summary(run)
        return {
            name: (value, summary.definitions.get(name, ""))
            for name, value in summary.headline.items()
        }

    def figures(self, run: Run) -> list[Figure]:
        """The figures of :meth:`report` (none without a report)."""
        report = self.report(run)
        return [] if report is None else list(report.figures)

    def __repr__(self) -> str:
        return f"<method {self.name}: {self.title}>"

    def console(self, run: Run) -> list[RenderableType]:
        """What the command line prints after a run: by default the headline numbers."""
        from rich.table import Table

        grid = Table(title=f"{self.title}: headline", title_justify="left")
        grid.add_column("number")
        grid.add_column("value", justify="right")
        for name, value in self.summary(run).headline.items():
            grid.add_row(name, f"{value:.4g}")
        return [grid]


_PLANNING: set[str] = set()
"""The names of the method classes that state a plan (:meth:`Method.plan`)."""
FIRST_WORDS = "the first {n} words of each word set"
"""What ``--limit`` keeps of a method that reads word sets (:attr:`Method.limits`)."""
_LIMITING: set[str] = set()
"""The names of the method classes that take ``--limit`` (:attr:`Method.limits`)."""


def no_plan_error(name: str) -> WordlensError:
    """The error of ``--plan`` or ``--with-plan`` on a method that cannot plan, naming those
    that can."""
    return WordlensError(
        f"wordlens {name} cannot plan its run yet; --plan and --with-plan work on: "
        f"{', '.join(sorted(_PLANNING))}"
    )


def check_output_dir(path: Path, option: str = "--out", *, force: bool = False) -> Path:
    """``path`` if it is safe to write a run into: not a filesystem root, not the home folder,
    and either missing, empty or holding results of wordlens (:data:`RESULT_MARKERS`).

    Parameters
    ----------
    path
        The output directory.
    option
        How the user gave it (``--out``), for the message.
    force
        Write there anyway.

    Raises
    ------
    OutputError
        Naming the folder, what it is, ``option`` and ``--force``.
    """
    unsafe = None if force else unsafe_output_dir(path, RESULT_MARKERS)
    if unsafe is not None:
        raise OutputError(
            f"{option} {path} is {unsafe}; choose another {option}, or pass --force to write "
            "the results there anyway"
        )
    return path


def output_dir(path: Path, option: str = "--out") -> Path:
    """``path`` created and checked writable before any model is loaded, so a bad ``--out``
    fails at once instead of after the computation.

    Raises
    ------
    OutputError
        Naming ``option``.
    """
    try:
        return ensure_writable_dir(path)
    except OSError as error:
        raise OutputError(
            f"cannot write results to {path} ({error}); choose another {option}"
        ) from error


@contextmanager
def new_output_dir(path: Path, option: str = "--out") -> Iterator[Path]:
    """:func:`output_dir` for the block, removed again if the block fails before writing into it.

    The directories this call creates (``path`` and any missing parents) are removed when the
    block raises (a bad input file, a missing word, Ctrl-C) and they are still empty, so a run
    that fails on its input leaves no empty folder behind; a directory that existed before, or
    one that holds anything (e.g. asymmetry's resumable work list), is left as it is.

    Yields
    ------
    Path
        ``path``, created and writable.

    Raises
    ------
    OutputError
        Naming ``option``, if ``path`` cannot be created or written.
    """
    created = [folder for folder in (path, *path.parents) if not folder.exists()]
    output_dir(path, option)
    try:
        yield path
    except BaseException:
        for folder in created:  # deepest first
            try:
                folder.rmdir()
            except OSError:  # not empty (or gone): keep it and the folders above it
                break
        raise


def run_method(
    method: Method[C],
    model: ModelOptions,
    config: C,
    out_dir: Path | None,
    *,
    progress: bool = False,
    status: Status = no_status,
    stage_log: StageLog | None = None,
) -> tuple[Run, list[Path]]:
    """Run ``method`` and write its tables, ``run.json`` and ``report.html`` into ``out_dir``.

    ``out_dir`` is created first; if the run fails before writing into it, a folder this call
    created is removed again (:func:`new_output_dir`). The run's files are written into a new
    folder beside ``out_dir`` (``.<name>.wordlens-new-<pid>-<random>``) that replaces it once
    they are all written (:func:`replace_run`), so ``out_dir`` holds the previous run or the
    new one, never a mix: a run that fails (a full disk, Ctrl-C) leaves it as it was. Only a
    folder that is not only wordlens' (a filesystem root, the home folder, other files:
    allowed with ``--force``, :func:`check_output_dir`) is written into in place.

    With ``out_dir`` None nothing is written: what the method keeps in its
    :attr:`RunContext.out_dir` (asymmetry's resumable work list, the paper figures' PNG files)
    goes to a temporary directory, made when the method first
    asks for it and removed after the run.

    With ``model.plan`` nothing runs and nothing is written: the run (not complete) holds the
    method's plan (:meth:`Method.plan`) as its table ``plan`` and metadata ``plan``.

    The run's stages are recorded (:func:`wordlens.stages.recording`, announced on stderr with
    ``progress``) into ``stage_log`` (a new log when None) and kept in the metadata as
    ``stages``. When a stage fails, the tables the method finished before it
    (:func:`wordlens.stages.keep_tables`) are written into ``out_dir`` with
    :data:`FAILURE_MANIFEST` (never ``run.json``: the run is not complete) unless it holds a
    complete run, which is kept as it was, and the error is
    raised on, marked with its stage (:func:`wordlens.stages.stage_failure`).

    Returns
    -------
    run, written
        The run, and the files written (none when the run is not complete, e.g. one shard, or
        without ``out_dir``).
    """
    log = stage_log or StageLog(progress)
    if model.limit is not None and method.limits is None:
        works = ", ".join(sorted(_LIMITING))
        raise WordlensError(f"wordlens {method.name} takes no --limit yet; it works on: {works}")
    if model.plan:  # nothing runs, nothing is written
        context = RunContext(out_dir or Path(tempfile.gettempdir()), progress, status)
        plan = method.plan(model, config, context)
        return Run(method.name, {"plan": plan.table()}, {"plan": plan.as_metadata()}, False), []
    if model.with_plan and not method.can_plan:
        raise no_plan_error(method.name)
    if out_dir is None:
        with closing(RunContext(None, progress, status)) as context:
            return _run(method, model, config, context, log), []
    with new_output_dir(out_dir):
        if unsafe_output_dir(out_dir, RESULT_MARKERS) is not None:  # --force: written in place
            return _run_into(method, model, config, out_dir, out_dir, progress, status, log)
        real = out_dir.resolve()  # a link to a folder: the folder is replaced, beside itself
        try:
            staged = staging_dir(real)
        except OSError as error:
            raise OutputError(
                f"cannot write results to {out_dir}: a run is built beside it, in its parent "
                f"folder ({error}); choose another --out"
            ) from error
        try:
            run, written = _run_into(method, model, config, real, staged, progress, status, log)
        finally:
            shutil.rmtree(staged, ignore_errors=True)
    return run, [out_dir / path.name for path in written]


def _run_into(
    method: Method[C],
    model: ModelOptions,
    config: C,
    out_dir: Path,
    staged: Path,
    progress: bool,
    status: Status,
    log: StageLog,
) -> tuple[Run, list[Path]]:
    """:func:`run_method` into ``out_dir``, its files written into ``staged``: a new folder
    beside ``out_dir``, swapped in for it (:func:`replace_run`) once they are all written, or
    ``out_dir`` itself (a folder that is not only wordlens', written into with ``--force``)."""
    before = {entry.name for entry in staged.iterdir()}  # none, but in a folder written in place
    context = RunContext(staged, progress, status, kept_dir=out_dir)
    try:
        run = _run(method, model, config, context, log)
    except Exception as error:
        if not (out_dir / RUN_MANIFEST).exists():  # a complete run there stays as it was
            with suppress(OSError):  # a full disk must not hide the stage's own error
                if write_unfinished(method, log, error, staged).tables and staged != out_dir:
                    replace_run(staged, out_dir)
        raise
    if not run.complete:
        return run, []
    (staged / FAILURE_MANIFEST).unlink(missing_ok=True)
    report = method.report(run)  # built once: its figures are written beside the tables
    try:
        pages = [] if report is None else [report.write(staged / REPORT_PAGE)]
        own = [item for item in staged.iterdir() if item.name not in before and item not in pages]
        figures = [] if report is None else report.figures
        written = run.write(staged, method.prefix, figures=figures, others=[*own, *pages]) + pages
        if staged != out_dir:
            replace_run(staged, out_dir)
    except OSError as error:
        if staged == out_dir:
            raise
        cause = error.__cause__ if isinstance(error.__cause__, OSError) else error
        raise OutputError(
            f"cannot write results to {out_dir}: {cause.strerror or cause}; it is left as it was"
        ) from error
    return run, [out_dir / path.name for path in written]


@contextmanager
def written_beside(out_dir: Path, last: str) -> Iterator[Path]:
    """:func:`wordlens._files.staged_files`: a folder beside ``out_dir`` to write the final files
    of a resumable workspace into, moved into ``out_dir`` (``last`` last) when the block ends
    without error.

    Raises
    ------
    OutputError
        If the folder cannot be created or a file cannot be moved.
    """
    try:
        with staged_files(out_dir, last) as staged:
            yield staged
    except OutputError:
        raise
    except OSError as error:
        raise OutputError(f"cannot write results to {out_dir} ({error})") from error


def replace_run(staged: Path, out_dir: Path) -> None:
    """Replace the folder ``out_dir`` with ``staged``, a run's files written beside it
    (:func:`wordlens._files.swap_in`), carrying over the entries of ``out_dir`` that are not its
    run's files: those its manifest (``run.json`` or :data:`FAILURE_MANIFEST`) does not list
    (resumable work, a study cell's record, files of the user's), or, without a list,
    :data:`WORK_DIR` and ``cell.json`` from a folder of results and everything from any other.

    Raises
    ------
    OSError
        If a rename fails (``out_dir`` is then as it was).
    """
    swap_in(staged, out_dir, _not_the_runs(out_dir))


def _not_the_runs(out_dir: Path) -> list[str]:
    """The names of the entries of ``out_dir`` that are not files of the run it holds."""
    if not out_dir.is_dir():
        return []
    names = [entry.name for entry in out_dir.iterdir()]
    for manifest in (RUN_MANIFEST, FAILURE_MANIFEST):
        try:
            listed = set(json.loads((out_dir / manifest).read_text(encoding="utf-8"))["files"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        return [name for name in names if name not in listed]
    if unsafe_output_dir(out_dir, RESULT_MARKERS) is None:  # results listed nowhere: older runs
        return [name for name in names if name in (WORK_DIR, "cell.json")]
    return names


class QuickModeWarning(UserWarning):
    """A run made with ``--limit`` (quick mode): its numbers are not comparable with the paper."""


FAILURE_MANIFEST = "failure.json"
"""What a failed run leaves beside the tables it finished: the failing stage, the error, the
stages' costs and the tables kept (removed by the next run that completes)."""


def write_unfinished(
    method: Method[Any], log: StageLog, error: BaseException, out_dir: Path
) -> Run:
    """The tables finished before ``error`` as a run (method, tables, metadata: ``status``
    ``failed``, ``failed_stage``, ``error``, ``stages``), written into ``out_dir`` with
    :data:`FAILURE_MANIFEST` when it holds any table."""
    metadata = {
        "method": method.name,
        "status": "failed",
        "failed_stage": failed_stage(error),
        "error": stage_failure(error),
        "stages": log.as_metadata(),
    }
    unfinished = Run(method.name, dict(log.tables), metadata, complete=False)
    if not unfinished.tables:
        return unfinished
    stems = {name: f"{method.prefix}{name}" for name in unfinished.tables}
    written = [FAILURE_MANIFEST]
    for name, table in unfinished.tables.items():
        written += [path.name for path in Result(stems[name], table, metadata).write(out_dir)]
    manifest = {**metadata, "tables": stems, "files": sorted(written)}
    atomic_write_text(
        out_dir / FAILURE_MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n"
    )
    return unfinished


def _run(
    method: Method[C], model: ModelOptions, config: C, context: RunContext, log: StageLog
) -> Run:
    """``method.run`` with its stages recorded into ``log``; its name, options and stages
    recorded in the metadata, with how it was asked for (``invocation``, :func:`invoked_as`) and
    the device and token budget asked for (None: the default) and used (the loaded model's)."""
    with recording(log):
        run = method.run(model, config, context)
    run.metadata.setdefault("method", method.name)
    run.metadata.setdefault("options", config_values(config))
    run.metadata["stages"] = log.as_metadata()
    invocation = _INVOCATION.get()
    run.metadata["invocation"] = current_invocation(
        f"wordlens.methods.base.run_method({method.name!r}, ...)"
    )
    run.metadata["limit"] = model.limit
    layer_notes = static_layer_notes()
    if layer_notes:  # a study's layers a static model does not have: it ran layer 0
        run.metadata["layer_notes"] = layer_notes
    if model.limit is not None and method.limits is not None:  # run_method refused the others
        kept = method.limits.format(n=model.limit)
        said = f"quick mode (--limit {model.limit}: {kept}): not comparable with the paper"
        run.metadata["quick_mode"] = said
    if invocation is not None and "python" in invocation:  # reasons name keywords, not flags
        names = keyword_names(method.config_type, ModelOptions)
        run.metadata = keywords_in_metadata(run.metadata, names)
    if "quick_mode" in run.metadata:
        warnings.warn(run.metadata["quick_mode"], QuickModeWarning, stacklevel=2)
    loaded = run.metadata.get("model")
    used = loaded if isinstance(loaded, dict) else {}
    for name in ("device", "token_budget"):
        run.metadata[name] = {"asked": getattr(model, name), "used": used.get(name)}
    return run
