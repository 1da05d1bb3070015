"""Cell records: what a study knows about one (model, method) cell, kept as ``cell.json``.

The runner writes a record beside each cell's tables (``<study>/cells/<slug>/<method>/cell.json``)
when the cell starts (``running``, with the process id and host so ``wordlens study status`` can
tell a dead run from a live one) and when it ends (``done`` with its headline numbers, or
``failed`` with the error). Records are written atomically, so a reader never sees half a file,
and read back with every field type-checked.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ConfigDict, TypeAdapter, ValidationError

from wordlens._files import atomic_write_text
from wordlens.errors import OutputError, WordlensError

CellStatus = Literal["done", "failed", "running", "pending"]
CELL_STATUSES: tuple[CellStatus, ...] = get_args(CellStatus)
"""The states of a cell, in the order a study report lists them."""


class CellRecordError(WordlensError, ValueError):
    """A ``cell.json`` that cannot be read or does not hold a cell record; names the file."""


@dataclass(frozen=True)
class CellRecord:
    """One (model, method) cell of a study.

    Attributes
    ----------
    model : str
        Display name of the model, as in the study file.
    model_slug : str
        Filesystem-safe model name (the cell's directory).
    method : str
        Method name, as its ``wordlens`` command (``weat``, ``vast``, ``likelihood-bias``, ...).
    status : {"done", "failed", "running", "pending"}
    out_dir : str
        The cell's directory relative to the study directory, posix (``cells/<slug>/<method>``).
    headline : dict of str to float
        Named headline numbers (:func:`wordlens.study.summary.summarize_cell`); empty unless done.
    seconds : float or None
        Wall-clock seconds the cell took.
    error : str or None
        Why a failed cell failed.
    config_digest : str
        sha256 of the cell's resolved options: a changed option re-runs the cell.
    model_files : dict of str to str, or None
        What the files of a local model held when the cell began, by name
        (:func:`~wordlens.models.loading.local_model_files`): a changed file (a checkpoint's
        weights replaced) re-runs the cell. None for an alias or a hub id.
    finished : str or None
        ISO 8601 time the cell ended.
    pid, host : int or None, str or None
        Process and host running the cell (``running`` cells).
    peak_memory_mib : float or None
        Peak resident memory of the process while the cell ran, MiB
        (:func:`wordlens.study.peak_memory.peak_memory`).
    peak_gpu_memory_mib : float or None
        Peak memory torch allocated on the GPU while the cell ran, MiB (None without CUDA).
    query : str or None
        The name of the cell's query when its method lists several (``query: [a.yaml,
        b.yaml]``: the file's stem); None otherwise.
    """

    __pydantic_config__ = ConfigDict(extra="forbid")

    model: str
    model_slug: str
    method: str
    status: CellStatus
    out_dir: str
    headline: dict[str, float] = field(default_factory=dict)
    seconds: float | None = None
    error: str | None = None
    config_digest: str = ""
    model_files: dict[str, str] | None = None
    finished: str | None = None
    pid: int | None = None
    host: str | None = None
    peak_memory_mib: float | None = None
    peak_gpu_memory_mib: float | None = None
    query: str | None = None

    @property
    def column(self) -> str:
        """The cell's column in the study's tables (:func:`cell_column`)."""
        return cell_column(self.method, self.query)


def cell_column(method: str, query: str | None) -> str:
    """A cell's column in a study's tables: its method, and its query when the method lists
    several (``weat (career)``)."""
    return method if query is None else f"{method} ({query})"


_RECORD_ADAPTER: TypeAdapter[CellRecord] = TypeAdapter(CellRecord)


def write_cell_record(path: Path, record: CellRecord) -> Path:
    """Write ``record`` as JSON to ``path`` atomically, headline numbers in their order (NaN stays
    NaN).

    Raises
    ------
    OutputError
        If the file cannot be written.
    """
    try:
        atomic_write_text(path, json.dumps(asdict(record), indent=2) + "\n")
    except OSError as error:
        raise OutputError(f"cannot write cell record {path}: {error}") from error
    return path


def read_cell_record(path: Path) -> CellRecord:
    """Read a record written by :func:`write_cell_record`, checking every field.

    Raises
    ------
    CellRecordError
        If the file is missing or unreadable, is not JSON (with line and column), or a field is
        missing, unknown or of the wrong type (naming the field).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CellRecordError(f"cannot read cell record {path}: {error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CellRecordError(
            f"{path}:{error.lineno}:{error.colno}: not a cell record (invalid JSON: {error.msg})"
        ) from None
    try:
        return _RECORD_ADAPTER.validate_python(data)
    except ValidationError as error:
        problems = "; ".join(_describe(problem) for problem in error.errors())
        raise CellRecordError(f"{path}: not a valid cell record: {problems}") from None


def _describe(problem: Any) -> str:
    where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
    return f"{where}: {problem['msg']}"
