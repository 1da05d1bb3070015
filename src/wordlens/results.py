"""Results: a tidy table plus the metadata needed to reproduce it.

Every evaluation returns a :class:`Result`; :meth:`Result.write` stores it in an output directory as

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
from typing import Any

import pandas as pd

from wordlens._files import atomic_write_text, atomic_writer
from wordlens.errors import OutputError

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
        table = pd.read_parquet(out_dir / f"{name}.parquet")
        metadata = json.loads((out_dir / f"{name}.json").read_text())
        return cls(name, table, metadata)
