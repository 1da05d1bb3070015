"""Write word vectors to ``.npy`` (+ a JSON sidecar) or Parquet (a row per word and layer).

:class:`EmbedOptions` are the options of ``wordlens embed`` (which words, in which context, which
layers and pooling); :func:`export_embeddings` writes the vectors.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from wordlens import help_texts
from wordlens._files import (
    DEFAULT_ENCODING,
    ENCODING_HINT,
    StrPath,
    as_path,
    atomic_write_text,
    atomic_writer,
    check_encoding,
    read_text,
)
from wordlens.contexts import (
    BLEACHED_TEMPLATE,
    Target,
    WordContext,
    word_targets,
)
from wordlens.errors import EmptyInputError, OutputError, WordlensError, shown_word
from wordlens.models.base import Embeddings, Pooling, WordEmbedder
from wordlens.options import option

#: The output formats :func:`export_embeddings` writes.
EXPORT_SUFFIXES = (".npy", ".parquet")
_SHOWN = 10
"""The most repeated words :func:`repeated_note` names."""


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
    context: WordContext = option(
        "template", "'template' (each word in --template) or 'none' (each word alone)."
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

    def targets(self) -> tuple[list[Target], dict[str, int]]:
        """The words (arguments, then the file's lines), each once (where it is first listed),
        in their context; and the words listed more than once, with how many times.

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
        counts = Counter(words)
        repeated = {word: count for word, count in counts.items() if count > 1}
        return word_targets(list(counts), self.context, self.template), repeated

    def metadata(
        self, model: WordEmbedder, targets: Sequence[Target], repeated: dict[str, int]
    ) -> dict[str, Any]:
        """What the export records beside the vectors: the model, the context, the words
        the model cannot read or tell apart (``indistinct_words``: word → reason) and the
        words listed more than once, exported once (``repeated_words``: word → times listed)."""
        return {
            "model": model.info.as_dict(),
            "context": self.context,
            "template": self.template,
            "indistinct_words": model.missing_reasons([target.word for target in targets]),
            "repeated_words": repeated,
        }


def export_embeddings(
    embeddings: Embeddings,
    targets: Sequence[Target],
    path: StrPath,
    metadata: dict[str, Any],
) -> list[Path]:
    """Save vectors of ``targets`` to ``path`` (``.npy`` or ``.parquet``).

    ``.npy`` holds the float32 array ``[n_targets, n_layers, dim]`` and ``<path>.json`` the words,
    texts, spans, layers, subtoken counts and ``metadata``. ``.parquet`` holds one row per target
    and layer with columns ``word, text, start, end, layer, n_subtokens, vector`` (fixed-size
    float32 list), a row group per block of targets, and ``metadata`` in the file's key-value
    metadata. Either is written a block of rows at a time
    (:func:`~wordlens.models.output.row_blocks`), so a result spilled to disk is not read into
    memory whole.
    """
    path = as_path(path)
    described = {
        "layers": list(embeddings.layers),
        "pooling": embeddings.pooling,
        **metadata,
    }
    try:
        if path.suffix == ".npy":
            with atomic_writer(path) as stream:
                _write_npy(embeddings, stream)
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
                _write_parquet(embeddings, targets, described, stream)
            return [path]
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error}") from error
    raise OutputError(f"unsupported output format {path.suffix!r}: use .npy or .parquet")


def _write_npy(embeddings: Embeddings, stream: IO[bytes]) -> None:
    """The vectors as a float32 ``.npy`` file, a block of rows at a time."""
    import numpy as np  # here, not at the top: the command line imports this module

    from wordlens.models.output import row_blocks

    header = {"descr": "<f4", "fortran_order": False, "shape": embeddings.vectors.shape}
    np.lib.format.write_array_header_1_0(stream, header)
    for _, block in row_blocks(embeddings.vectors):
        stream.write(np.ascontiguousarray(block, dtype="<f4").data)


def _write_parquet(
    embeddings: Embeddings,
    targets: Sequence[Target],
    described: dict[str, Any],
    stream: IO[bytes],
) -> None:
    """The vectors as Parquet, a row group per block of targets."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from wordlens.models.output import row_blocks

    n_layers, dim = embeddings.vectors.shape[1:]
    schema = pa.schema(
        [
            ("word", pa.string()),
            ("text", pa.string()),
            ("start", pa.int32()),
            ("end", pa.int32()),
            ("layer", pa.int16()),
            ("n_subtokens", pa.int32()),
            ("vector", pa.list_(pa.float32(), dim)),
        ],
        metadata={"wordlens": json.dumps(described, default=str)},
    )
    layers = np.array(embeddings.layers)
    with pq.ParquetWriter(stream, schema) as writer:
        for first, block in row_blocks(embeddings.vectors):
            chosen = targets[first : first + len(block)]
            flat = np.ascontiguousarray(block, dtype=np.float32).reshape(-1)
            counts = embeddings.n_subtokens[first : first + len(block)]
            columns = [
                pa.array([t.word for t in chosen for _ in layers]),
                pa.array([t.text for t in chosen for _ in layers]),
                pa.array([t.start for t in chosen for _ in layers], pa.int32()),
                pa.array([t.end for t in chosen for _ in layers], pa.int32()),
                pa.array(np.tile(layers, len(block)), pa.int16()),
                pa.array(np.repeat(counts, n_layers), pa.int32()),
                pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim),
            ]
            writer.write_table(pa.Table.from_arrays(columns, schema=schema))


def export_notes(metadata: dict[str, Any]) -> list[str]:
    """The lines ``wordlens embed`` prints under what it wrote, from the export's
    :meth:`EmbedOptions.metadata`: the words listed more than once (:func:`repeated_note`) and
    those the model cannot read or tell apart (:func:`indistinct_warning`), when there are any."""
    notes = []
    if metadata["repeated_words"]:
        notes.append(repeated_note(metadata["repeated_words"]))
    if metadata["indistinct_words"]:
        notes.append(indistinct_warning(metadata["indistinct_words"]))
    return notes


def repeated_note(repeated: dict[str, int]) -> str:
    """The line ``wordlens embed`` prints for words listed more than once (word → times
    listed), exported once each."""
    first = list(repeated.items())[:_SHOWN]
    listed = ", ".join(f"{shown_word(word)} ({count} times)" for word, count in first)
    more = f" and {len(repeated) - _SHOWN} more" if len(repeated) > _SHOWN else ""
    return (
        f"note: {len(repeated)} word(s) listed more than once, exported once each "
        f"(repeated_words in the metadata): {listed}{more}"
    )


def indistinct_warning(indistinct: dict[str, str]) -> str:
    """The line ``wordlens embed`` prints for words the model cannot read or tell apart (word →
    reason: :meth:`~wordlens.models.base.WordEmbedder.missing_reasons`), exported all the same."""
    from wordlens.report.html import listed_by_reason

    return (
        f"warning: {len(indistinct)} word(s) the model cannot read or tell apart, exported all "
        f"the same (indistinct_words in the metadata): "
        f"{listed_by_reason(list(indistinct), indistinct)}"
    )
