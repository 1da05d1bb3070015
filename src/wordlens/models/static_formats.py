"""Readers of static word-vector files and their converted cache.

Formats
-------
``glove``
    Text, one ``word v1 ... vd`` line per word, no header (GloVe). The dimension is taken from the
    first line, whose word must not contain spaces; later words may (GloVe 840B has a few): the
    last ``d`` fields of a line are the values, everything before them is the word.
``word2vec`` / ``fasttext``
    The same text lines after a ``count dim`` header line (word2vec text, fastText ``.vec``).
``word2vec-binary``
    A ``count dim\\n`` header, then per word ``word<space>`` and ``dim`` little-endian float32,
    optionally followed by a newline.
``npy``
    A ``[vocab, dim]`` float array in a ``.npy`` file plus a vocabulary file: ``.txt`` (one word per
    line), ``.tsv`` (one column; a first line beyond the matrix's row count is a header) or
    ``.parquet`` (one string column).

Text and binary files may be gzip-compressed (``.vec.gz``, ``.bin.gz``: recognised by their magic
bytes); a compressed binary file is decompressed into memory while it is read.

Text and binary files are slow to parse, so they are parsed once and converted to
``user_home()/static/<sha256 of the file>/<layout>/`` holding ``vectors.npy`` (float32
``[vocab, dim]``) and ``vocab.parquet`` (column ``word``, row ``i`` = word of matrix row ``i``);
later loads memory-map the ``.npy``. The folder is written under a temporary name and renamed into
place, so an interrupted conversion never leaves a partial cache. Nothing is ever unpickled.
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens._files import user_home
from wordlens.errors import CacheError, ModelFilesError, WordlensError

ParsedFormat = Literal["glove", "word2vec", "fasttext", "word2vec-binary"]
StaticFormat = Literal[ParsedFormat, "npy"]
STATIC_FORMATS: tuple[StaticFormat, ...] = get_args(StaticFormat)

#: Converted-cache sub-folder of each parsed format (word2vec text and fastText .vec share one).
_LAYOUTS: dict[ParsedFormat, str] = {
    "glove": "text",
    "word2vec": "text-header",
    "fasttext": "text-header",
    "word2vec-binary": "word2vec-binary",
}
_TEXT_LABELS = {False: "GloVe text", True: "word2vec/fastText text"}
_GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 1 << 20
_BLOCK_ROWS = 1 << 16
VECTORS_FILE = "vectors.npy"
VOCAB_FILE = "vocab.parquet"


@dataclass(frozen=True)
class ParsedVectors:
    """Words and vectors parsed from a text or binary file.

    Attributes
    ----------
    words
        The words in file order (duplicates kept).
    blocks
        float32 arrays ``[rows_i, dim]`` that, stacked, are the ``[len(words), dim]`` matrix.
    dim
        The vector dimension.
    """

    words: list[str]
    blocks: list[npt.NDArray[np.float32]]
    dim: int


class _BadEntryError(ValueError):
    """One line or entry is malformed; the caller adds the file and line."""


def resolve_format(path: Path, requested: str | None) -> StaticFormat:
    """Validate a requested format name, or detect the format of ``path`` when ``None``."""
    if requested is None:
        return detect_format(path)
    for known in STATIC_FORMATS:
        if requested == known:
            return known
    raise WordlensError(
        f"unknown static vector format {requested!r}; choose one of {', '.join(STATIC_FORMATS)}"
    )


def detect_format(path: Path) -> StaticFormat:
    """Guess the format of a vector file from its extension and first bytes.

    ``.npy`` is a matrix. Otherwise (after gzip decompression) a first line of two integers is a
    ``count dim`` header: if the next line parses as ``word`` + ``dim`` numbers the file is text
    (``fasttext`` for ``.vec``, else ``word2vec``), if not it is ``word2vec-binary``. Without a
    header it is ``glove`` text.
    """
    if path.suffix.lower() == ".npy":
        return "npy"
    with _gzip_errors(path), _open_bytes(path) as stream:
        head = stream.read(_SNIFF_BYTES)
    first, _, rest = head.partition(b"\n")
    counts = _header_counts(first)
    if counts is None:
        return "glove"
    try:
        _parse_entry(rest.partition(b"\n")[0], counts[1])
    except _BadEntryError:
        return "word2vec-binary"
    return "fasttext" if path.name.lower().removesuffix(".gz").endswith(".vec") else "word2vec"


def _is_gzip(path: Path) -> bool:
    """Whether ``path`` starts with the gzip magic bytes."""
    with path.open("rb") as stream:
        return stream.read(2) == _GZIP_MAGIC


def _open_bytes(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """``path`` opened for reading bytes, decompressed on the fly when it is gzip."""
    return gzip.open(path, "rb") if _is_gzip(path) else path.open("rb")


@contextmanager
def _gzip_errors(path: Path) -> Iterator[None]:
    """Report damaged gzip data in ``path`` as a :class:`ModelFilesError`."""
    try:
        yield
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise ModelFilesError(f"{path}: corrupt gzip data ({exc})") from None


@contextmanager
def _file_bytes(path: Path) -> Iterator[bytes | mmap.mmap]:
    """All bytes of ``path``: memory-mapped, or decompressed into memory when it is gzip."""
    if _is_gzip(path):
        with gzip.open(path, "rb") as packed:
            data = packed.read()
        yield data
        return
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as view:
        yield view


def _header_counts(line: bytes) -> tuple[int, int] | None:
    """``(count, dim)`` if ``line`` is a word2vec header (two non-negative integers), else None."""
    fields = line.split()
    if len(fields) != 2 or not all(field.isdigit() for field in fields):
        return None
    return int(fields[0]), int(fields[1])


def _parse_entry(raw: bytes, dim: int) -> tuple[str, npt.NDArray[np.float32]]:
    """Split one text line into its word and ``[dim]`` float32 vector (the word may hold spaces)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadEntryError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    fields = line.rstrip().rsplit(" ", dim)
    if len(fields) != dim + 1:
        raise _BadEntryError(f"expected a word and {dim} values, found {len(fields)} fields")
    if not fields[0]:
        raise _BadEntryError("the word is empty")
    try:
        vector = np.array(fields[1:], dtype=np.float32)
    except ValueError as exc:
        raise _BadEntryError(f"non-numeric value ({exc})") from None
    if not np.isfinite(vector).all():
        raise _BadEntryError("non-finite value (nan or inf)")
    return fields[0], vector


def parse_vectors(path: Path, fmt: ParsedFormat) -> ParsedVectors:
    """Parse a text or binary vector file (slow for text: about 3 s per 100k 50-d lines)."""
    with _gzip_errors(path):
        if fmt == "word2vec-binary":
            return read_word2vec_binary(path)
        return read_text_vectors(path, header=fmt != "glove")


def read_text_vectors(path: Path, *, header: bool) -> ParsedVectors:
    """Read GloVe text (``header=False``) or word2vec/fastText text (a ``count dim`` first line).

    Blank lines are skipped. Raises :class:`ModelFilesError` naming the file and line of the
    first malformed line, or when the header's count disagrees with the lines that follow.
    """
    label = _TEXT_LABELS[header]
    words: list[str] = []
    blocks: list[npt.NDArray[np.float32]] = []
    rows: list[npt.NDArray[np.float32]] = []
    expected: int | None = None
    dim = 0
    with _open_bytes(path) as stream:
        for number, raw in enumerate(stream, start=1):
            if header and number == 1:
                expected, dim = _require_header(raw, path, label)
                continue
            if not raw.strip():
                continue
            dim = dim or _first_line_dim(raw, path, number)
            try:
                word, vector = _parse_entry(raw, dim)
            except _BadEntryError as exc:
                raise ModelFilesError(f"{path}, line {number} ({label}): {exc}") from None
            words.append(word)
            rows.append(vector)
            if len(rows) == _BLOCK_ROWS:
                blocks.append(np.stack(rows))
                rows = []
    if rows:
        blocks.append(np.stack(rows))
    if not words:
        raise ModelFilesError(f"{path}: no word vectors found ({label})")
    if expected is not None and expected != len(words):
        raise ModelFilesError(
            f"{path}, line 1 ({label}): the header announces {expected} vectors but the file "
            f"holds {len(words)}"
        )
    return ParsedVectors(words, blocks, dim)


def _require_header(raw: bytes, path: Path, label: str) -> tuple[int, int]:
    """The ``(count, dim)`` of a header line, or a file-and-line error."""
    counts = _header_counts(raw)
    if counts is None or counts[1] == 0:
        shown = raw[:80].decode("utf-8", "replace").rstrip()
        raise ModelFilesError(
            f"{path}, line 1 ({label}): expected a 'count dim' header, got {shown!r}"
        )
    return counts


def _first_line_dim(raw: bytes, path: Path, number: int) -> int:
    """The dimension of a headerless file: fields on its first line, less the word."""
    if _header_counts(raw) is not None:
        raise ModelFilesError(
            f"{path}, line {number}: this looks like a word2vec 'count dim' header; read the file "
            "with format='word2vec' (or leave format unset to detect it)"
        )
    dim = len(raw.rstrip().split(b" ")) - 1
    if dim < 1:
        raise ModelFilesError(f"{path}, line {number} (GloVe text): expected a word and its values")
    return dim


def read_word2vec_binary(path: Path) -> ParsedVectors:
    """Read the binary word2vec format (``count dim\\n`` then ``word<space>`` + float32 per entry).

    The file is memory-mapped while reading (a gzip file is decompressed into memory). Raises
    :class:`ModelFilesError` naming the file, entry and byte offset when an entry is truncated or
    its word is not UTF-8, and when the data does not end after the announced number of entries.
    """
    with _file_bytes(path) as data:
        header_end = data.find(b"\n")
        counts = _header_counts(data[:header_end]) if header_end > 0 else None
        if counts is None or counts[1] == 0:
            raise ModelFilesError(
                f"{path}, line 1 (word2vec binary): expected a 'count dim' header"
            )
        count, dim = counts
        if count * 4 * dim > len(data):  # checked before allocating the matrix
            raise ModelFilesError(
                f"{path}, line 1 (word2vec binary): the header announces {count} vectors of dim "
                f"{dim}, more than the file's {len(data)} bytes hold"
            )
        matrix = np.empty((count, dim), dtype=np.float32)  # [count, dim]
        words: list[str] = []
        position = header_end + 1
        for entry in range(count):
            word, position = _binary_word(data, position, path, entry, count)
            end = position + 4 * dim
            if end > len(data):
                raise ModelFilesError(
                    f"{path}, entry {entry + 1} (byte {position}): the file ends inside the "
                    f"vector of {word!r}; the header announces {count} entries of dim {dim}"
                )
            matrix[entry] = np.frombuffer(data, dtype="<f4", count=dim, offset=position)
            words.append(word)
            position = end
        if data[position:].strip():
            raise ModelFilesError(
                f"{path}, byte {position}: data continues after the {count} entries the header "
                "announces"
            )
    if not words:
        raise ModelFilesError(f"{path}: no word vectors found (word2vec binary)")
    return ParsedVectors(words, [matrix], dim)


def _binary_word(
    data: bytes | mmap.mmap, position: int, path: Path, entry: int, count: int
) -> tuple[str, int]:
    """The word of a binary entry starting at ``position`` and the offset of its vector."""
    if data[position : position + 1] == b"\n":
        position += 1
    space = data.find(b" ", position)
    where = f"{path}, entry {entry + 1} (byte {position})"
    if space < 0:
        raise ModelFilesError(
            f"{where}: the file ends before the word; the header announces {count} entries"
        )
    try:
        word = data[position:space].decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFilesError(f"{where}: the word is not valid UTF-8") from None
    if not word:
        raise ModelFilesError(f"{where}: the word is empty")
    return word, space + 1


def load_matrix(path: Path) -> npt.NDArray[np.float32]:
    """Memory-map a ``[vocab, dim]`` float32 ``.npy`` (other float dtypes are copied to float32)."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ModelFilesError(f"{path}: not a readable .npy array ({exc})") from None
    if not isinstance(array, np.ndarray) or array.ndim != 2 or len(array) == 0:
        shape = getattr(array, "shape", None)
        raise ModelFilesError(
            f"{path}: expected a non-empty [vocab, dim] matrix, got shape {shape}"
        )
    if not np.issubdtype(array.dtype, np.floating):
        raise ModelFilesError(f"{path}: expected float vectors, got dtype {array.dtype}")
    if array.dtype != np.float32:
        return np.array(array, dtype=np.float32)
    return array


def read_vocabulary(path: Path, n_rows: int) -> list[str]:
    """The words of a vocabulary file, row ``i`` naming matrix row ``i``.

    Parameters
    ----------
    path
        ``.txt`` (one word per line), ``.tsv`` (one column, optional header line) or ``.parquet``
        (one string column).
    n_rows
        Rows of the matrix the words label; a ``.tsv`` with one line more has a header.
    """
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        words = _parquet_words(path)
    elif suffix in (".txt", ".tsv"):
        words = _line_words(path, n_rows, tsv=suffix == ".tsv")
    else:
        raise ModelFilesError(f"{path}: a vocabulary must be a .txt, .tsv or .parquet file")
    if len(words) != n_rows:
        raise ModelFilesError(f"{path}: lists {len(words)} words for a matrix of {n_rows} rows")
    return words


def _line_words(path: Path, n_rows: int, *, tsv: bool) -> list[str]:
    """Words of a one-word-per-line file (split on ``\\n`` only; a trailing ``\\r`` dropped)."""
    lines = path.read_bytes().split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    first = 2 if tsv and len(lines) == n_rows + 1 else 1
    return [
        _vocab_word(raw, path, number, tsv=tsv)
        for number, raw in enumerate(lines[first - 1 :], first)
    ]


def _vocab_word(raw: bytes, path: Path, number: int, *, tsv: bool) -> str:
    """One vocabulary line as a word, or a file-and-line error."""
    try:
        word = raw.removesuffix(b"\r").decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFilesError(f"{path}, line {number}: not valid UTF-8") from None
    if not word:
        raise ModelFilesError(f"{path}, line {number}: empty word")
    if tsv and "\t" in word:
        raise ModelFilesError(f"{path}, line {number}: expected one column, found a tab")
    return word


def _parquet_words(path: Path) -> list[str]:
    """Words of a parquet file with exactly one string column."""
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise ModelFilesError(f"{path}: not a readable parquet file ({exc})") from None
    if len(frame.columns) != 1:
        raise ModelFilesError(
            f"{path}: a vocabulary needs exactly one column, found {list(frame.columns)}"
        )
    column = frame[frame.columns[0]]
    if column.isna().any():
        raise ModelFilesError(f"{path}: {int(column.isna().sum())} vocabulary entries are missing")
    if not pd.api.types.is_string_dtype(column):
        raise ModelFilesError(f"{path}: the vocabulary column holds {column.dtype}, not strings")
    return [str(word) for word in column.tolist()]


def converted(path: Path, fmt: ParsedFormat, digest: str) -> Path:
    """The converted-cache folder of a text or binary file, converting it on first use.

    Parameters
    ----------
    path
        The source vector file.
    fmt
        Its format.
    digest
        Its sha256 (the cache key).

    Returns
    -------
    Path
        ``user_home()/static/<digest>/<layout>/`` holding ``vectors.npy`` and ``vocab.parquet``.
    """
    target = user_home() / "static" / digest / _LAYOUTS[fmt]
    if not target.is_dir():
        _convert(path, fmt, target)
    return target


def _convert(path: Path, fmt: ParsedFormat, target: Path) -> None:
    """Parse ``path`` into a temporary folder beside ``target``, then rename it into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(
            tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        )
    except OSError as exc:
        raise CacheError(
            f"cannot write converted vectors under {target.parent} ({exc}); set WORDLENS_HOME to "
            "a writable folder"
        ) from None
    try:
        _write_converted(staging, parse_vectors(path, fmt))
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # another process may have finished the same conversion first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _write_converted(folder: Path, parsed: ParsedVectors) -> None:
    """Write ``vectors.npy`` and ``vocab.parquet`` into ``folder``, synced to disk."""
    shape = (len(parsed.words), parsed.dim)
    matrix = np.lib.format.open_memmap(
        folder / VECTORS_FILE, mode="w+", dtype=np.float32, shape=shape
    )
    start = 0
    for block in parsed.blocks:
        matrix[start : start + len(block)] = block
        start += len(block)
    matrix.flush()
    del matrix
    with (folder / VOCAB_FILE).open("wb") as stream:
        pd.DataFrame({"word": parsed.words}).to_parquet(stream, index=False)
        stream.flush()
        os.fsync(stream.fileno())
