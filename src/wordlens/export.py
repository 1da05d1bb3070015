"""Write word vectors to ``.npy`` (+ a JSON sidecar) or Parquet (a row per word and layer).

:class:`EmbedOptions` are the options of ``wordlens embed`` (which words, in which context, which
layers and pooling); :func:`export_embeddings` writes the vectors.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from wordlens import help_texts
from wordlens._files import (
    DEFAULT_ENCODING,
    ENCODING_HINT,
    atomic_write_text,
    atomic_writer,
    check_encoding,
    read_text,
)
from wordlens.contexts import (
    BLEACHED_TEMPLATE,
    Target,
    decontextualized_targets,
    targets_from_template,
)
from wordlens.errors import EmptyInputError, OutputError, WordlensError
from wordlens.models.base import Embeddings, Pooling
from wordlens.options import option

#: The output formats :func:`export_embeddings` writes.
EXPORT_SUFFIXES = (".npy", ".parquet")


@dataclass(frozen=True)
class EmbedOptions:
    """What ``wordlens embed`` exports: the words (arguments and/or a file), their context, the
    layers and the subtoken pooling."""

    words: tuple[str, ...] = option((), "Words to embed.", argument=True)
    words_file: Path | None = option(None, "A file with one word per line.")
    encoding: str = option(
        DEFAULT_ENCODING, "Text encoding of the words file, e.g. latin-1 or cp1252."
    )
    template: str = option(BLEACHED_TEMPLATE, "Context with one {word} placeholder.")
    context: Literal["template", "none"] = option(
        "template", "'template' (use --template) or 'none' (each word alone)."
    )
    layers: tuple[int, ...] | None = option(
        None,
        help_texts.LAYERS,
        none="all",
        parse="layers",
    )
    pooling: Pooling = option("mean", help_texts.POOLING)

    def check(self) -> None:
        """The encoding is one Python knows (raises WordlensError)."""
        check_encoding(self.encoding)

    def targets(self) -> list[Target]:
        """The words (arguments, then the file's lines) in their context.

        Raises
        ------
        EmptyInputError
            If there is no word.
        WordlensError
            If the words file cannot be read.
        """
        words = list(self.words)
        if self.words_file is not None:
            try:
                lines = read_text(self.words_file, self.encoding, hint=ENCODING_HINT).splitlines()
            except OSError as error:
                raise WordlensError(f"cannot read {self.words_file}: {error}") from error
            words += [line.strip() for line in lines if line.strip()]
        if not words:
            raise EmptyInputError("no words given: pass words as arguments or --words-file")
        if self.context == "none":
            return decontextualized_targets(words)
        return targets_from_template(words, self.template)


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
    import numpy as np  # here, not at the top: the command line imports this module

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
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

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
