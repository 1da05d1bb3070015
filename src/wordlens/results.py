"""Results: tidy tables plus the metadata needed to reproduce them.

Every method returns a :class:`Run` (named tables and the run's metadata); :meth:`Run.write`
stores each table as a :class:`Result` and, last, ``run.json``, the manifest that
:meth:`Run.read` (reports, study summaries) reads instead of guessing file names. A
:class:`Result` (one table) is stored in an output directory as

- ``<name>.parquet`` — the table, exact float64 values;
- ``<name>.csv`` — the same table, floats written with 17 significant digits (round-trip exact);
- ``<name>.json`` — metadata: model fingerprint, configuration, seed, package versions, timings.

Files are written atomically, so an interrupted write never leaves a truncated result.

In Jupyter a :class:`Run` shows itself (:meth:`Run._repr_html_`: its method, model, headline
numbers, what was left out and the head of each table) and :meth:`Run.figures` gives its report's
figures. The method-specific parts come from the method's :class:`RunView`, which
:func:`wordlens.methods.registry.register` registers here (:func:`register_view`), so this module
needs nothing from the methods.
"""

from __future__ import annotations

import html
import importlib.metadata
import io
import json
import platform
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wordlens._files import StrPath, as_path, atomic_write_text, atomic_writer
from wordlens._plural import counted
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

    def write(self, out_dir: StrPath) -> list[Path]:
        """Write ``<name>.parquet``, ``<name>.csv`` and ``<name>.json`` into ``out_dir`` (text
        or a path).

        Raises
        ------
        OutputError
            If the directory cannot be created or written.
        """
        out_dir = as_path(out_dir)
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
    def read(cls, out_dir: StrPath, name: str) -> Result:
        """Read a result written by :meth:`write`."""
        import pandas as pd

        out_dir = as_path(out_dir)
        table = pd.read_parquet(out_dir / f"{name}.parquet")
        metadata = json.loads((out_dir / f"{name}.json").read_text())
        return cls(name, table, metadata)


_VECTOR_FIGURES: ContextVar[bool] = ContextVar("wordlens_vector_figures", default=True)
"""Whether :meth:`Figure.save_all` writes SVG and PDF besides PNG (:func:`png_figures_only`)."""


@contextmanager
def png_figures_only() -> Iterator[None]:
    """Within the block, runs write their figures as PNG only (the report embeds them): a
    comparison's many runs (:mod:`wordlens.comparison`), whose SVG and PDF would take most of
    each run's time on static vectors."""
    token = _VECTOR_FIGURES.set(False)
    try:
        yield
    finally:
        _VECTOR_FIGURES.reset(token)


@dataclass(frozen=True)
class Figure:
    """A figure of a run's report, as PNG; Jupyter shows it inline (:meth:`_repr_png_`).

    Attributes
    ----------
    title
        What it shows, in a few words (the image's alt text; its file name).
    png
        The PNG image.
    caption
        What is plotted, for a paper's caption (the title when none was given).
    drawing
        The :class:`matplotlib.figure.Figure` it was drawn as, to read its axes back; None for a
        figure kept only as PNG.
    render
        Format (``svg``, ``pdf``) → the figure's bytes in it, in the report's style; None for a
        figure kept only as PNG.
    """

    title: str
    png: bytes = field(repr=False)
    caption: str = ""
    drawing: Any = field(default=None, repr=False, compare=False)
    render: Callable[[str], bytes] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.caption:
            object.__setattr__(self, "caption", self.title)

    def save_all(self, stem: StrPath) -> list[Path]:
        """Write the figure as ``<stem>.png``, and as ``<stem>.svg`` and ``<stem>.pdf`` when it
        can be rendered (:attr:`render`) and vector figures are not turned off
        (:func:`png_figures_only`); the paths written.

        Raises
        ------
        OutputError
            If a file cannot be written.
        """
        stem = as_path(stem)
        paths = [self.save(stem.with_name(f"{stem.name}.png"))]
        if self.render is None or not _VECTOR_FIGURES.get():
            return paths
        for fmt in ("svg", "pdf"):
            path = stem.with_name(f"{stem.name}.{fmt}")
            try:
                with atomic_writer(path) as stream:
                    stream.write(self.render(fmt))
            except OSError as error:
                raise OutputError(f"cannot write figure {path}: {error}") from error
            paths.append(path)
        return paths

    def _repr_png_(self) -> bytes:
        return self.png

    def save(self, path: StrPath) -> Path:
        """Write the PNG to ``path`` (text or a path; atomically).

        Raises
        ------
        OutputError
            If it cannot be written.
        """
        path = as_path(path)
        try:
            with atomic_writer(path) as stream:
                stream.write(self.png)
        except OSError as error:
            raise OutputError(f"cannot write figure {path}: {error}") from error
        return path


class RunView(Protocol):
    """What shows a method's runs: :class:`wordlens.methods.base.Method` is one."""

    @property
    def title(self) -> str: ...

    @property
    def citation(self) -> str: ...

    def headline(self, run: Run) -> dict[str, tuple[float, str]]:
        """Headline number name → (value, what it measures)."""
        ...

    def figures(self, run: Run) -> list[Figure]:
        """The figures of the run's report."""
        ...


_VIEWS: dict[str, RunView] = {}

LEFT_OUT_KEYS = ("dropped", "missing", "left_out", "skipped")
"""Metadata keys (prefixes) under which methods list what they left out."""

TABLE_HEAD_ROWS = 5
"""Rows of each table a run's HTML summary shows."""


def register_view(name: str, view: RunView | None) -> None:
    """Show runs of the method ``name`` with ``view`` (None: forget it)."""
    if view is None:
        _VIEWS.pop(name, None)
    else:
        _VIEWS[name] = view


def left_out(metadata: dict[str, Any]) -> dict[str, list[Any]]:
    """Every list of items a run left out, by its path in ``metadata`` (``dropped_words › 1``):
    the lists under keys starting with one of :data:`LEFT_OUT_KEYS`, at any depth."""
    found: dict[str, list[Any]] = {}

    def visit(value: Any, path: tuple[str, ...], inside: bool) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                visit(item, (*path, str(key)), inside or str(key).startswith(LEFT_OUT_KEYS))
        elif inside and isinstance(value, list):
            found[" › ".join(path)] = value

    visit(metadata, (), False)
    return found


REPORT_PAGE = "report.html"
"""The file of a run's report page (:meth:`Run.report`)."""

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

    def write(
        self,
        out_dir: StrPath,
        prefix: str = "",
        *,
        figures: Sequence[Figure] | None = None,
        others: Sequence[Path] = (),
    ) -> list[Path]:
        """Write every table as ``<prefix><name>`` (:meth:`Result.write`), each figure as
        ``<prefix>figure_<n>_<title>`` ``.png``, ``.svg`` and ``.pdf`` (:meth:`Figure.save_all`),
        then ``run.json``, into ``out_dir`` (text, e.g. ``"out/"``, or a path). ``figures``: the
        report's figures when the caller has built (and written) the report already; None
        builds the report (:meth:`report`) and writes it as ``report.html`` too, so a run
        written here holds the same files as one written by its command's ``--out``.
        ``others``: the run's files written before (its report, a method's own figures). The
        manifest lists the names of all the run's files (``files``), so the next run that
        replaces the folder knows which entries are not the run's.

        Raises
        ------
        OutputError
            If the directory cannot be created or written.
        """
        out_dir = as_path(out_dir)
        written: list[Path] = []
        stems = {name: f"{prefix}{name}" for name in self.tables}
        for name, table in self.tables.items():
            written += Result(stems[name], table, self.metadata).write(out_dir)
        shown = figures
        if shown is None:
            report = self.report()
            shown = [] if report is None else list(report.figures)
            if report is not None:
                written.append(report.write(out_dir / REPORT_PAGE))
        for number, figure in enumerate(shown, start=1):
            written += figure.save_all(out_dir / f"{prefix}figure_{number}_{_slug(figure.title)}")
        path = out_dir / RUN_MANIFEST
        manifest = {
            "method": self.method,
            "tables": stems,
            "files": sorted({item.name for item in (*others, *written, path)}),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "versions": package_versions(),
            "metadata": self.metadata,
        }
        try:
            atomic_write_text(path, json.dumps(manifest, indent=2, default=str) + "\n")
        except OSError as error:
            raise OutputError(f"cannot write results to {out_dir}: {error}") from error
        return [*written, path]

    @classmethod
    def read(cls, out_dir: StrPath) -> Run:
        """Read a run written by :meth:`write` (its manifest, then each table).

        Raises
        ------
        OutputError
            If the manifest or a table it lists is missing or unreadable (naming the file).
        """
        import pandas as pd

        out_dir = as_path(out_dir)
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

    def __repr__(self) -> str:
        """One line: method, model and the tables' shapes (not their contents)."""
        model = self.metadata.get("model")  # a sweep's is the swept model's name
        name = model.get("name") if isinstance(model, dict) else model
        shapes = ", ".join(f"{key!r}: {len(t)}×{len(t.columns)}" for key, t in self.tables.items())
        state = "" if self.complete else ", complete=False"
        return f"Run(method={self.method!r}, model={name!r}, tables={{{shapes}}}{state})"

    def figures(self) -> list[Figure]:
        """The figures of the run's report, each shown inline in Jupyter; none when the method
        is not registered (see :func:`register_view`) or its report has none."""
        view = _VIEWS.get(self.method)
        return [] if view is None or not self.complete else view.figures(self)

    def report(self) -> Any:
        """The run's report page (a :class:`~wordlens.report.html.Report`, written as
        ``report.html``); None when the method is not registered (see :func:`register_view`),
        builds no page, or the run is not complete."""
        view = _VIEWS.get(self.method)
        build = getattr(view, "report", None)
        return None if build is None or not self.complete else build(self)

    def _repr_html_(self) -> str:
        """An HTML summary: method, model, headline numbers, what was left out, and the first
        :data:`TABLE_HEAD_ROWS` rows of each table."""
        view = _VIEWS.get(self.method)
        model = self.metadata.get("model")
        name = model.get("name") if isinstance(model, dict) else None
        title = view.title if view is not None else self.method
        parts = [f"<h3>{_text(title)}{f' — {_text(name)}' if name else ''}</h3>"]
        about = [view.citation] if view is not None else []
        if isinstance(model, dict):
            about.append(
                f"model {model.get('name')} ({model.get('kind')}, "
                f"{counted(model.get('n_layers', 0), 'layer')}, {model.get('hidden_size')} d), "
                f"fingerprint {model.get('fingerprint')}"
            )
        parts.append(f"<p>{_text('. '.join(map(str, about)))}</p>" if about else "")
        if not self.complete:
            parts.append("<p>Incomplete run (one shard): nothing is measured yet.</p>")
            return "".join(parts)
        if view is not None:
            parts.append(_headline_html(view.headline(self)))
        parts.append(_left_out_html(left_out(self.metadata)))
        for index, (table_name, table) in enumerate(self.tables.items()):
            shape = f"{table_name}: {len(table):,} rows × {len(table.columns)} columns"
            head = table.head(TABLE_HEAD_ROWS).to_html(index=False, border=0, na_rep="–")
            state = " open" if index == 0 else ""
            parts.append(f"<details{state}><summary>{_text(shape)}</summary>{head}</details>")
        return f'<div class="wordlens-run">{"".join(parts)}</div>'


def _slug(title: str) -> str:
    """A file name part for a figure's title: lower-case words joined by ``_``."""
    return "_".join(re.findall(r"[a-z0-9]+", title.lower()))[:60] or "figure"


def _text(value: object) -> str:
    return html.escape(str(value))


def _headline_html(headline: dict[str, tuple[float, str]]) -> str:
    rows = "".join(
        f"<tr><td>{_text(name)}</td><td>{value:.4g}</td><td>{_text(meaning)}</td></tr>"
        for name, (value, meaning) in headline.items()
    )
    header = "<tr><th>headline</th><th>value</th><th>what it measures</th></tr>"
    return f"<table>{header}{rows}</table>" if rows else ""


def _left_out_html(lists: dict[str, list[Any]]) -> str:
    """How many items each left-out list holds, with the first few."""
    shown = {path: items for path, items in lists.items() if items}
    if not shown:
        return "<p>Left out: nothing (as recorded in the metadata).</p>"
    lines = "".join(
        f"<li>{_text(path)}: {len(items):,} ({_text(_preview(items))})</li>"
        for path, items in shown.items()
    )
    total = sum(map(len, shown.values()))
    return f"<p>Left out: {total:,} item(s).</p><ul>{lines}</ul>"


def _preview(items: list[Any], limit: int = 8) -> str:
    words = ", ".join(map(str, items[:limit]))
    return words if len(items) <= limit else f"{words} and {len(items) - limit:,} more"
