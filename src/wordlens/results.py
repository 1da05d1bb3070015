"""Results: tidy tables plus the metadata needed to reproduce them.

Every method returns a :class:`Run` (named tables and the run's metadata); :meth:`Run.write`
stores each table as a :class:`Result` and, last, ``run.json``, the manifest that
:meth:`Run.read` (reports, study summaries) reads instead of guessing file names. A
:class:`Result` (one table) is stored in an output directory as

- ``<name>.parquet`` — the table, exact float64 values;
- ``<name>.csv`` — the same table, floats written with 17 significant digits (round-trip exact);
- ``<name>.json`` — metadata: model fingerprint, configuration, seed, package versions, timings.

Files are written atomically, so an interrupted write never leaves a truncated result.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wordlens._files import atomic_write_text, atomic_writer
from wordlens.errors import OutputError

if TYPE_CHECKING:  # imported where tables are read: the command line's methods import Run
    import pandas as pd

_VERSIONED_PACKAGES = (
    "wordlens",
    "numpy",
    "scipy",
    "pandas",
    "torch",
    "transformers",
    "tokenizers",
)


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that shape the numbers."""
    versions = {"python": platform.python_version()}
    for package in _VERSIONED_PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


@dataclass
class Timings:
    """Wall-clock seconds per named stage."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


@dataclass
class Result:
    """A tidy table (one row per observation) and its metadata."""

    name: str
    table: pd.DataFrame
    metadata: dict[str, Any] = field(default_factory=dict)

    def full_metadata(self) -> dict[str, Any]:
        return {
            "result": self.name,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "versions": package_versions(),
            "columns": list(map(str, self.table.columns)),
            "n_rows": len(self.table),
            **self.metadata,
        }

    def write(self, out_dir: Path) -> list[Path]:
        """Write ``<name>.parquet``, ``<name>.csv`` and ``<name>.json`` into ``out_dir``.

        Raises
        ------
        OutputError
            If the directory cannot be created or written.
        """
        paths = [out_dir / f"{self.name}.{suffix}" for suffix in ("parquet", "csv", "json")]
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            self.table.to_parquet(buffer, index=False)
            with atomic_writer(paths[0]) as stream:
                stream.write(buffer.getvalue())
            atomic_write_text(paths[1], self.table.to_csv(index=False, float_format="%.17g"))
            atomic_write_text(
                paths[2], json.dumps(self.full_metadata(), indent=2, default=str) + "\n"
            )
        except OSError as error:
            raise OutputError(f"cannot write results to {out_dir}: {error}") from error
        return paths

    @classmethod
    def read(cls, out_dir: Path, name: str) -> Result:
        """Read a result written by :meth:`write`."""
        import pandas as pd

        table = pd.read_parquet(out_dir / f"{name}.parquet")
        metadata = json.loads((out_dir / f"{name}.json").read_text())
        return cls(name, table, metadata)


RUN_MANIFEST = "run.json"
"""The file that lists a run's tables; written last, so a directory holding it is complete."""


@dataclass
class Run:
    """What a method returns: named tidy tables and the metadata of the run.

    Attributes
    ----------
    method
        The method's registered name (``weat``, ``vast``, ...).
    tables
        Table name → tidy DataFrame (one row per observation).
    metadata
        Model (fingerprint, size), config, conventions, seed, timings, words left out.
    complete
        False when the run stopped half-way on purpose (one shard of a sharded run): nothing is
        measured yet and nothing is written.
    """

    method: str
    tables: dict[str, pd.DataFrame]
    metadata: dict[str, Any] = field(default_factory=dict)
    complete: bool = True

    def write(self, out_dir: Path, prefix: str = "") -> list[Path]:
        """Write every table as ``<prefix><name>`` (:meth:`Result.write`), then ``run.json``.

        Raises
        ------
        OutputError
            If the directory cannot be created or written.
        """
        written: list[Path] = []
        stems = {name: f"{prefix}{name}" for name in self.tables}
        for name, table in self.tables.items():
            written += Result(stems[name], table, self.metadata).write(out_dir)
        manifest = {
            "method": self.method,
            "tables": stems,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "versions": package_versions(),
            "metadata": self.metadata,
        }
        path = out_dir / RUN_MANIFEST
        try:
            atomic_write_text(path, json.dumps(manifest, indent=2, default=str) + "\n")
        except OSError as error:
            raise OutputError(f"cannot write results to {out_dir}: {error}") from error
        return [*written, path]

    @classmethod
    def read(cls, out_dir: Path) -> Run:
        """Read a run written by :meth:`write` (its manifest, then each table).

        Raises
        ------
        OutputError
            If the manifest or a table it lists is missing or unreadable (naming the file).
        """
        import pandas as pd

        path = out_dir / RUN_MANIFEST
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            tables = {
                name: pd.read_parquet(out_dir / f"{stem}.parquet")
                for name, stem in manifest["tables"].items()
            }
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise OutputError(f"cannot read the run in {out_dir} ({path.name}): {error}") from error
        return cls(manifest["method"], tables, manifest["metadata"])
