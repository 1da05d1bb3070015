"""Natural contexts from a corpus: VAST's *random* setting.

Wolfe & Caliskan (2022, section "Contextual Settings") give every word "a context chosen at
random" from a corpus (they used Reddit; wordlens uses the registered English corpora, see
:mod:`wordlens.resources.corpora`). This module

1. splits the corpus paragraphs into sentences (:func:`split_sentences`);
2. indexes which sentences contain each word (:class:`SentenceIndex`), cached on disk;
3. draws one sentence per word (:func:`random_targets`) and returns it as a
   :class:`~wordlens.contexts.Target` whose span is the word's first whole-word occurrence.

Matching
    A word matches as a whole word, as everywhere in wordlens: ``"male"`` is not found in
    ``"female"`` (the authors' code used a substring test, ``term in context``). Matching is
    case-sensitive first; only a word with no case-sensitive match falls back to a
    case-insensitive one (``str.lower`` on both sides), so ``"Monday"`` is found as spelled and
    ``"chapter"`` may be found as ``"CHAPTER"``. The target then spans the text as the corpus
    spells it, and the ``match`` column says which rule applied.

Draws
    Word ``w`` gets sentence ``candidates[k]`` with ``k`` drawn by
    ``numpy.random.default_rng([seed, h(w)])``, where ``h`` is the first 8 bytes of the sha256 of
    the UTF-8 word and ``candidates`` are the ids of the sentences that contain ``w``, in corpus
    order. A word's context depends on the seed, the word and the corpus only: adding or removing
    other words never changes it.

Context window
    The context keeps at most ``words_each_side`` whitespace-separated tokens (10 by default)
    before the word and as many after it, as the authors' code does (``embedding_collection.py``
    in wolferobert3/vast_aaai_2022 keeps NLTK tokens ``pos - 10 .. pos + 9``: ten before, nine
    after); the window may start or end mid-sentence. Short contexts are also what the paper
    drew (Reddit comments), and they keep the random setting's cost near the templates'.

Missing words
    Words in no sentence follow the ``missing`` policy: ``"bleached"`` (default) gives them the
    bleached context ``"This is {word}"`` and flags them in the ``source`` column; ``"drop"``
    leaves them out; ``"error"`` raises :class:`~wordlens.errors.TargetError`.

References
----------
Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from wordlens._files import atomic_writer, sha256_file, user_home
from wordlens.contexts import BLEACHED_TEMPLATE, Target, _word_pattern, targets_from_template
from wordlens.errors import EmptyInputError, TargetError, WordlensError, shown_word
from wordlens.resources.corpora import Corpus, load_corpus
from wordlens.resources.registry import get_resource

#: The English corpora the random setting samples from, in index order.
DEFAULT_CORPORA = ("corpus-gutenberg", "corpus-inaugural", "corpus-state-union", "corpus-ud-ewt")
#: Whitespace-separated tokens of context kept on each side of the word (the authors kept ten).
WORDS_EACH_SIDE = 10

MissingPolicy = Literal["bleached", "drop", "error"]
Match = Literal["exact", "casefold", "none"]

# Bump when splitting or indexing changes: the cache key includes it.
_INDEX_VERSION = 1
_TOKEN = re.compile(r"\w+")
_RULES: tuple[tuple[Match, re.RegexFlag], ...] = (
    ("exact", re.NOFLAG),
    ("casefold", re.IGNORECASE),
)

# --- sentence splitting --------------------------------------------------------------------------

#: Words whose trailing period does not end a sentence (titles, months, Latin abbreviations).
ABBREVIATIONS = frozenset(
    {
        "Mr",
        "Mrs",
        "Ms",
        "Messrs",
        "Mme",
        "Dr",
        "St",
        "Jr",
        "Sr",
        "Prof",
        "Rev",
        "Hon",
        "Gen",
        "Col",
        "Capt",
        "Lt",
        "Sgt",
        "Maj",
        "Gov",
        "Sen",
        "Rep",
        "Pres",
        "Esq",
        "Vol",
        "vs",
        "viz",
        "cf",
        "Inc",
        "Corp",
        "Ltd",
        "Bros",
        "Mt",
        "Ft",
        "Jan",
        "Feb",
        "Mar",
        "Apr",
        "Jun",
        "Jul",
        "Aug",
        "Sep",
        "Sept",
        "Oct",
        "Nov",
        "Dec",
    }
)
# End punctuation, optional closing quotes or brackets, whitespace, then an optional opening quote
# or bracket and an upper-case letter or digit: a sentence boundary unless an abbreviation ends
# before the period.
_BOUNDARY = re.compile(r"[.!?]+[\"')\]’”]*(\s+)(?=[\"'(\[‘“]*[A-Z0-9])")
_INITIALS = re.compile(r"[A-Za-z](?:\.[A-Za-z])*")
_NOT_IN_TOKEN = re.compile(r"[^\w.]")  # what separates "Mr" from "--" in "--Mr."


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences with a small rule-based splitter.

    A boundary is a run of ``.``, ``!`` or ``?``, optionally followed by closing quotes or
    brackets, then whitespace, then (after optional opening quotes or brackets) an upper-case
    letter or a digit. A single period does not end a sentence after an abbreviation in
    :data:`ABBREVIATIONS` (``"Mr. Smith"``) or after initials (``"Harry S. Truman"``,
    ``"the U.S. Congress"``). Lower-case continuations are never split (``'"Why?" said he.'``).

    Parameters
    ----------
    paragraph
        Text with its whitespace collapsed to single spaces.

    Returns
    -------
    list of str
        The sentences, stripped, none empty.
    """
    sentences: list[str] = []
    start = 0
    for boundary in _BOUNDARY.finditer(paragraph):
        if _after_abbreviation(paragraph, boundary):
            continue
        sentences.append(paragraph[start : boundary.start(1)])
        start = boundary.end(1)
    sentences.append(paragraph[start:])
    return [text for text in (sentence.strip() for sentence in sentences) if text]


def _after_abbreviation(text: str, boundary: re.Match[str]) -> bool:
    """Whether the boundary's single period closes an abbreviation or initials."""
    end = boundary.start()
    if text[end] != "." or boundary.group().startswith(".."):
        return False
    token = _NOT_IN_TOKEN.split(text[text.rfind(" ", 0, end) + 1 : end])[-1]
    return token in ABBREVIATIONS or _INITIALS.fullmatch(token) is not None


# --- the index -----------------------------------------------------------------------------------


class SentenceIndex:
    """The sentences of a set of corpora and, for every token, the sentences containing it.

    Tokens are maximal runs of word characters (``\\w+``), case-sensitive, so a lookup of a
    one-token word is exactly a whole-word match; other words are checked against the sentence
    text (see :meth:`find`).

    Parameters
    ----------
    sentences
        The sentence texts; a sentence's id is its position.
    documents
        ``[n_sentences]`` int32 codes into ``document_names``: the file each sentence comes from.
    document_names
        Data-root relative paths of the corpus files.
    tokens
        The distinct tokens, sorted.
    offsets, postings
        Sentence ids of token ``tokens[i]`` are ``postings[offsets[i]:offsets[i + 1]]``,
        increasing (CSR layout; ``offsets`` has ``len(tokens) + 1`` entries).
    """

    def __init__(
        self,
        sentences: Sequence[str],
        documents: npt.NDArray[np.int32],
        document_names: Sequence[str],
        tokens: Sequence[str],
        offsets: npt.NDArray[np.int64],
        postings: npt.NDArray[np.int32],
    ) -> None:
        self.sentences = list(sentences)
        self.documents = documents
        self.document_names = tuple(document_names)
        self.tokens = list(tokens)
        self.offsets = offsets
        self.postings = postings
        self._rows = {token: row for row, token in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.sentences)

    @functools.cached_property
    def _folded_rows(self) -> dict[str, list[int]]:
        rows: dict[str, list[int]] = defaultdict(list)
        for row, token in enumerate(self.tokens):
            rows[token.lower()].append(row)
        return dict(rows)

    def document(self, sentence: int) -> str:
        """The corpus file (data-root relative path) of sentence ``sentence``."""
        return self.document_names[int(self.documents[sentence])]

    def find(self, word: str) -> tuple[npt.NDArray[np.int32], Match]:
        """Ids of the sentences containing ``word`` as a whole word, and the rule that matched.

        Case-sensitive matches are returned when there are any (``"exact"``), else the
        case-insensitive ones (``"casefold"``), else none (``"none"``). A word of several tokens
        (``"short-term"``, ``"ice cream"``) or with non-word characters is looked up by its
        tokens and confirmed with a whole-word search of each candidate sentence; a word without
        any word character is never found.

        Raises
        ------
        TargetError
            If ``word`` is empty or has surrounding whitespace.
        """
        parts = _TOKEN.findall(word)
        one_token = parts == [word]  # then the exact lookup is already a whole-word match
        if not one_token:
            _word_pattern(word)  # raises TargetError for an empty word or surrounding whitespace
        for match, flags in _RULES:
            candidates = self._candidates(parts, casefold=match == "casefold")
            if candidates.size and not (one_token and match == "exact"):
                confirm = re.compile(_word_pattern(word).pattern, flags)
                keep = [confirm.search(self.sentences[i]) is not None for i in candidates]
                candidates = candidates[np.array(keep, dtype=bool)]
            if candidates.size:
                return candidates, match
        return np.empty(0, dtype=np.int32), "none"

    def _candidates(self, parts: Sequence[str], *, casefold: bool) -> npt.NDArray[np.int32]:
        """Sentences holding every token of ``parts`` (any casing of them if ``casefold``)."""
        per_part: list[npt.NDArray[np.int32]] = []
        for part in dict.fromkeys(parts):
            rows = self._folded_rows.get(part.lower(), []) if casefold else self._token_rows(part)
            if not rows:
                return np.empty(0, dtype=np.int32)
            slices = [self.postings[self.offsets[row] : self.offsets[row + 1]] for row in rows]
            per_part.append(np.unique(np.concatenate(slices)))
        if not per_part:
            return np.empty(0, dtype=np.int32)
        return functools.reduce(np.intersect1d, per_part).astype(np.int32)

    def _token_rows(self, token: str) -> list[int]:
        row = self._rows.get(token)
        return [] if row is None else [row]


def build_index(corpora: Sequence[Corpus]) -> SentenceIndex:
    """Split the corpora into sentences and index them (in corpus, file, paragraph order).

    Paragraphs of a ``segmented`` corpus are sentences already and are not split.
    """
    sentences: list[str] = []
    documents: list[int] = []
    names: list[str] = []
    for corpus in corpora:
        for document in corpus.documents:
            split = [
                [text] if corpus.segmented else split_sentences(text)
                for text in document.paragraphs
            ]
            found = [sentence for block in split for sentence in block]
            sentences.extend(found)
            documents.extend([len(names)] * len(found))
            names.append(document.source)
    postings: dict[str, list[int]] = defaultdict(list)
    for sentence_id, sentence in enumerate(sentences):
        for token in set(_TOKEN.findall(sentence)):
            postings[token].append(sentence_id)
    tokens = sorted(postings)
    lengths = np.array([len(postings[token]) for token in tokens], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = np.fromiter(
        (i for token in tokens for i in postings[token]), dtype=np.int32, count=int(offsets[-1])
    )
    return SentenceIndex(
        sentences, np.array(documents, dtype=np.int32), names, tokens, offsets, flat
    )


# --- the on-disk cache ---------------------------------------------------------------------------

_SENTENCES_FILE = "sentences.parquet"
_POSTINGS_FILE = "postings.parquet"


def load_sentence_index(
    corpora: Sequence[str] = DEFAULT_CORPORA, *, path: Path | None = None
) -> SentenceIndex:
    """The sentence index of registered corpora, built once and cached on disk.

    The cache lives in ``user_home()/corpus-index/<key>/`` as two Parquet files (sentences with
    their file; token postings). ``key`` hashes the index version and the sha256 of every corpus
    file, so a changed file or splitter builds a new index; an unreadable cache is rebuilt, and
    an unwritable one only costs rebuilding next time.

    Parameters
    ----------
    corpora
        Names of ``corpus`` resources (see ``list_resources("corpus")``), in index order.
    path
        A data root holding the corpus files, instead of the usual resolution.

    Raises
    ------
    EmptyInputError
        If ``corpora`` is empty.
    ResourceNotFoundError
        For an unknown corpus name or a missing file.
    """
    names = list(dict.fromkeys(corpora))
    if not names:
        raise EmptyInputError("no corpora to index")
    directory = user_home() / "corpus-index" / _cache_key(names, path)
    try:
        return _read_index(directory)
    except (OSError, pa.ArrowException):
        index = build_index([load_corpus(name, path=path) for name in names])
        with contextlib.suppress(
            OSError
        ):  # the cache is an optimisation: tolerate a read-only home
            _write_index(index, directory)
        return index


def _cache_key(names: Sequence[str], path: Path | None) -> str:
    files = []
    for name in names:
        resource = get_resource(name, kind="corpus")
        for file, located in zip(resource.files, resource.paths(path), strict=True):
            files.append([name, file.relpath, sha256_file(located)])
    manifest = json.dumps({"version": _INDEX_VERSION, "files": files}, sort_keys=True)
    return hashlib.sha256(manifest.encode("utf-8")).hexdigest()[:32]


def _write_index(index: SentenceIndex, directory: Path) -> None:
    sentences = pa.table(
        {
            "text": pa.array(index.sentences, pa.string()),
            "document": pa.DictionaryArray.from_arrays(
                pa.array(index.documents, pa.int32()),
                pa.array(index.document_names, pa.string()),
            ),
        }
    )
    postings = pa.table(
        {
            "token": pa.array(index.tokens, pa.string()),
            "sentences": pa.ListArray.from_arrays(
                pa.array(index.offsets.astype(np.int32)), pa.array(index.postings, pa.int32())
            ),
        }
    )
    for table, name in ((sentences, _SENTENCES_FILE), (postings, _POSTINGS_FILE)):
        with atomic_writer(directory / name) as out:
            pq.write_table(table, out)


def _read_index(directory: Path) -> SentenceIndex:
    sentences = pq.read_table(directory / _SENTENCES_FILE)
    postings = pq.read_table(directory / _POSTINGS_FILE)
    document = sentences.column("document").combine_chunks()
    lists = postings.column("sentences").combine_chunks()
    return SentenceIndex(
        sentences.column("text").to_pylist(),
        document.indices.to_numpy().astype(np.int32),
        document.dictionary.to_pylist(),
        postings.column("token").to_pylist(),
        lists.offsets.to_numpy().astype(np.int64),
        lists.values.to_numpy().astype(np.int32),
    )


# --- drawing contexts ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RandomContexts:
    """One corpus context per word, and where each came from.

    Attributes
    ----------
    targets
        The contexts, aligned with the rows of ``table``.
    table
        One row per target: ``word`` (as requested), ``source`` (``"corpus"`` or ``"bleached"``),
        ``match`` (``"exact"``, ``"casefold"`` or ``"none"``), ``n_sentences`` (how many
        sentences contain the word), ``sentence`` (the drawn sentence id, -1 for bleached
        contexts) and ``document`` (its corpus file, empty for bleached contexts).
    missing
        The distinct requested words found in no sentence, in request order (bleached, dropped,
        or none under ``missing="error"``).
    n_words
        The number of distinct requested words.
    """

    targets: tuple[Target, ...]
    table: pd.DataFrame
    missing: tuple[str, ...]
    n_words: int

    @property
    def coverage(self) -> float:
        """Share of the distinct requested words that got a corpus context."""
        return 1.0 - len(self.missing) / self.n_words


def random_targets(
    words: Sequence[str],
    seed: int,
    *,
    index: SentenceIndex | None = None,
    words_each_side: int = WORDS_EACH_SIDE,
    missing: MissingPolicy = "bleached",
    template: str = BLEACHED_TEMPLATE,
) -> RandomContexts:
    """Give each word one context drawn at random from a corpus (VAST's random setting).

    Parameters
    ----------
    words
        The words (e.g. a lexicon's ``word`` column).
    seed
        Non-negative integer seed; each word's draw depends only on it and the word (see the
        module documentation).
    index
        The sentence index; by default that of :data:`DEFAULT_CORPORA`.
    words_each_side
        Whitespace tokens of the sentence kept before and after the word (the window).
    missing
        What words found in no sentence get: ``"bleached"`` (the ``template`` context, flagged
        in ``table.source``), ``"drop"`` (no target) or ``"error"``.
    template
        The context of ``"bleached"`` words.

    Raises
    ------
    EmptyInputError
        If ``words`` is empty.
    TargetError
        Under ``missing="error"``, naming the words found nowhere; for a malformed word.
    WordlensError
        For a negative or non-integer seed, ``words_each_side < 0`` or an unknown policy.
    """
    _check_arguments(seed, words_each_side, missing)
    if not words:
        raise EmptyInputError("no words to find contexts for")
    corpus = index if index is not None else load_sentence_index()
    found = {word: corpus.find(word) for word in dict.fromkeys(words)}
    absent = tuple(word for word, (ids, _) in found.items() if ids.size == 0)
    if absent and missing == "error":
        shown = ", ".join(shown_word(word) for word in absent[:10])
        more = f" and {len(absent) - 10} more" if len(absent) > 10 else ""
        raise TargetError(f"{len(absent)} word(s) occur in no corpus sentence: {shown}{more}")
    rows: list[dict[str, object]] = []
    targets: list[Target] = []
    for word in words:
        ids, match = found[word]
        if ids.size:
            sentence = int(ids[_draw(seed, word, ids.size)])
            targets.append(_corpus_target(corpus.sentences[sentence], word, match, words_each_side))
            rows.append(_row(word, "corpus", match, ids.size, sentence, corpus.document(sentence)))
        elif missing == "bleached":
            targets.append(targets_from_template([word], template)[0])
            rows.append(_row(word, "bleached", match, 0, -1, ""))
    return RandomContexts(tuple(targets), pd.DataFrame(rows, columns=_COLUMNS), absent, len(found))


_COLUMNS = ["word", "source", "match", "n_sentences", "sentence", "document"]


def _row(
    word: str, source: str, match: Match, n_sentences: int, sentence: int, document: str
) -> dict[str, object]:
    values = (word, source, match, n_sentences, sentence, document)
    return dict(zip(_COLUMNS, values, strict=True))


def check_seed(seed: int) -> None:
    """Raise :class:`~wordlens.errors.WordlensError` unless ``seed`` is an integer >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise WordlensError(f"seed must be a non-negative integer, not {seed!r}")


def _check_arguments(seed: int, words_each_side: int, missing: str) -> None:
    check_seed(seed)
    if words_each_side < 0:
        raise WordlensError(f"words_each_side must be at least 0, not {words_each_side}")
    if missing not in get_args(MissingPolicy):
        raise WordlensError(
            f"missing must be one of {', '.join(get_args(MissingPolicy))}, not {missing!r}"
        )


def _draw(seed: int, word: str, n: int) -> int:
    """Index in ``range(n)`` drawn from a generator seeded by ``seed`` and the word alone."""
    word_key = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
    return int(np.random.default_rng([int(seed), word_key]).integers(n))


def _corpus_target(sentence: str, word: str, match: Match, words_each_side: int) -> Target:
    """The first whole-word occurrence of ``word`` in ``sentence``, trimmed to a window."""
    if match == "exact" and _TOKEN.fullmatch(word):  # a one-token word: scan, no regex to build
        found = next(token for token in _TOKEN.finditer(sentence) if token.group() == word)
    else:
        flags = re.IGNORECASE if match == "casefold" else re.NOFLAG
        searched = re.compile(_word_pattern(word).pattern, flags).search(sentence)
        assert searched is not None  # the index only returns sentences that contain the word
        found = searched
    return trim_to_window(Target(sentence, found.start(), found.end()), words_each_side)


def trim_to_window(target: Target, words_each_side: int) -> Target:
    """``target`` cut to its word's whitespace tokens and at most ``words_each_side`` on each side.

    A text with no more tokens than that around the word is returned unchanged.
    """
    spans = [match.span() for match in re.finditer(r"\S+", target.text)]
    first = next(i for i, (_, end) in enumerate(spans) if end > target.start)
    last = max(i for i, (start, _) in enumerate(spans) if start < target.end)
    low, high = max(first - words_each_side, 0), min(last + words_each_side, len(spans) - 1)
    if low == 0 and high == len(spans) - 1:
        return target
    offset = spans[low][0]
    return Target(target.text[offset : spans[high][1]], target.start - offset, target.end - offset)
