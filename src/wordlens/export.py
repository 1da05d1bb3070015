"""Write word vectors to ``.npy`` (+ a JSON sidecar) or Parquet (a row per word and layer)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from wordlens._files import atomic_write_text, atomic_writer
from wordlens.contexts import Target
from wordlens.errors import OutputError
from wordlens.models.base import Embeddings

#: The output formats :func:`export_embeddings` writes.
EXPORT_SUFFIXES = (".npy", ".parquet")


def export_embeddings(
    embeddings: Embeddings,
    targets: Sequence[Target],
    path: Path,
    metadata: dict[str, Any],
) -> list[Path]:
    """Save vectors of ``targets`` to ``path`` (``.npy`` or ``.parquet``).

    ``.npy`` holds the float32 array ``[n_targets, n_layers, dim]`` and ``<path>.json`` the words,
    texts, spans, layers, subtoken counts and ``metadata``. ``.parquet`` holds one row per target
    and layer with columns ``word, text, start, end, layer, n_subtokens, vector`` (fixed-size
    float32 list) and ``metadata`` in the file's key-value metadata.
    """
    described = {
        "layers": list(embeddings.layers),
        "pooling": embeddings.pooling,
        **metadata,
    }
    try:
        if path.suffix == ".npy":
            with atomic_writer(path) as stream:
                np.save(stream, np.asarray(embeddings.vectors, dtype=np.float32))
            sidecar = path.with_suffix(".json")
            rows = [
                {
                    "word": t.word,
                    "text": t.text,
                    "start": t.start,
                    "end": t.end,
                    "n_subtokens": int(n),
                }
                for t, n in zip(targets, embeddings.n_subtokens, strict=True)
            ]
            atomic_write_text(
                sidecar, json.dumps({**described, "targets": rows}, indent=2, default=str)
            )
            return [path, sidecar]
        if path.suffix == ".parquet":
            with atomic_writer(path) as stream:
                stream.write(_parquet_bytes(embeddings, targets, described))
            return [path]
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error}") from error
    raise OutputError(f"unsupported output format {path.suffix!r}: use .npy or .parquet")


def _parquet_bytes(
    embeddings: Embeddings, targets: Sequence[Target], described: dict[str, Any]
) -> bytes:
    n_targets, n_layers, dim = embeddings.vectors.shape
    repeat = np.repeat(np.arange(n_targets), n_layers).tolist()
    flat = np.asarray(embeddings.vectors, dtype=np.float32).reshape(-1)
    table = pa.table(
        {
            "word": pa.array([targets[i].word for i in repeat]),
            "text": pa.array([targets[i].text for i in repeat]),
            "start": pa.array([targets[i].start for i in repeat], pa.int32()),
            "end": pa.array([targets[i].end for i in repeat], pa.int32()),
            "layer": pa.array(np.tile(np.array(embeddings.layers), n_targets), pa.int16()),
            "n_subtokens": pa.array(embeddings.n_subtokens[repeat], pa.int32()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim),
        }
    )
    table = table.replace_schema_metadata({"wordlens": json.dumps(described, default=str)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()
