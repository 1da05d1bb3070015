"""An offline part-of-speech tagger: NLTK's averaged perceptron trained on UD English EWT (UPOS).

NLTK's pretrained tagger needs ``nltk.download``, which wordlens cannot rely on, so
:func:`load_tagger` trains :class:`nltk.tag.perceptron.PerceptronTagger` on the training split of
the Universal Dependencies English Web Treebank (the gzipped CoNLL-U files of the ``corpus-ud-ewt``
resource, registered by :mod:`wordlens.resources.corpora`; syntactic words with their 17 UPOS
tags) and caches the weights as JSON (never pickle) under ``user_home()/taggers/``, keyed by the
training file's sha256, the training settings and the NLTK version. Training on all 12,544
sentences (5 iterations) takes 25-35 s, once.

Token accuracy on gold-tokenized EWT (measured; stored in :attr:`TaggerInfo.accuracy`):

==============================  ==========  ==========
training sentences              EWT dev     EWT test
==============================  ==========  ==========
all 12,544                      0.938       0.939
2,000 (seeded sample, seed 0)   0.901       0.901
1,000                           0.883       0.880
500                             0.850       0.848
==============================  ==========  ==========

Text is split into words by :func:`tokenize`: NLTK's Treebank-style word tokenizer (clitics split
as in EWT: ``won't`` -> ``wo`` ``n't``), with hyphens between word characters split off as EWT does
(``long-term`` -> ``long`` ``-`` ``term``). It needs no downloaded data.

References
----------
Silveira, N., Dozat, T., de Marneffe, M.-C., Bowman, S., Connor, M., Bauer, J., & Manning, C. D.
(2014). A gold standard dependency corpus for English. *LREC 2014*.

Bird, S., Klein, E., & Loper, E. (2009). *Natural Language Processing with Python*. O'Reilly.
(NLTK; the averaged perceptron tagger follows Honnibal's 2013 design.)

Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*. (Labels the CoLA POS probes with a tagger.)
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import importlib.metadata
import itertools
import json
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from wordlens._files import StrPath, atomic_write_text, sha256_file_cached, user_home
from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError
from wordlens.resources.registry import get_resource, resolve

# numpy is imported in the functions that use it: `wordlens --help` imports the resources.

EwtSplit = Literal["train", "dev", "test"]
EWT_SPLITS: tuple[EwtSplit, ...] = get_args(EwtSplit)
UPOS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM",
    "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X",
)  # fmt: skip
"""The 17 universal part-of-speech tags of Universal Dependencies v2."""

TaggedSentence = list[tuple[str, str]]
"""One sentence as ``(form, upos)`` pairs, one per syntactic word."""

_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
_CACHE_FORMAT = 1
_EWT_RESOURCE = "corpus-ud-ewt"  # registered by wordlens.resources.corpora


@dataclass(frozen=True)
class TaggedToken:
    """A word of a text with its predicted UPOS tag: ``text[start:end] == form``."""

    start: int
    end: int
    form: str
    upos: str


@dataclass(frozen=True)
class TaggerInfo:
    """How a :class:`PosTagger` was trained and how well it tags EWT.

    Attributes
    ----------
    train_sha256
        sha256 of the EWT training file.
    n_sentences
        Training sentences used (a seeded sample when fewer than the 12,544 available).
    n_iter, seed
        Perceptron iterations and the seed of the sample and of NLTK's per-iteration shuffles.
    nltk_version
        The NLTK version that trained it (its feature set defines the weights).
    accuracy
        Token accuracy on gold-tokenized EWT ``dev`` and ``test``.
    """

    train_sha256: str
    n_sentences: int
    n_iter: int
    seed: int
    nltk_version: str
    accuracy: dict[str, float]


class PosTagger:
    """A trained UPOS tagger (use :func:`load_tagger`)."""

    def __init__(self, perceptron: Any, info: TaggerInfo) -> None:
        self._perceptron = perceptron
        self.info = info

    def tag(self, words: Sequence[str]) -> list[str]:
        """UPOS tag of each word of one tokenized sentence."""
        if not words:
            return []
        return [tag for _, tag in self._perceptron.tag(list(words))]

    def tag_text(self, text: str) -> list[TaggedToken]:
        """Tokenize ``text`` with :func:`tokenize` and tag its words."""
        spans = tokenize(text)
        tags = self.tag([text[start:end] for start, end in spans])
        return [
            TaggedToken(start, end, text[start:end], upos)
            for (start, end), upos in zip(spans, tags, strict=True)
        ]

    def accuracy(self, sentences: Sequence[TaggedSentence]) -> float:
        """Share of words whose predicted tag equals the gold tag (gold tokenization).

        Raises
        ------
        EmptyInputError
            If the sentences hold no words.
        """
        import numpy as np

        gold = [tag for sentence in sentences for _, tag in sentence]
        if not gold:
            raise EmptyInputError("no tagged words to score the tagger on")
        predicted = [
            tag for sentence in sentences for tag in self.tag([form for form, _ in sentence])
        ]
        return float(np.mean(np.asarray(predicted) == np.asarray(gold)))


def tokenize(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the words of ``text``, tokenized as EWT is.

    NLTK's Treebank-style tokenizer (:class:`nltk.tokenize.NLTKWordTokenizer`, no downloaded
    data) splits punctuation and clitics; a hyphen between two word characters becomes a word of
    its own, as in EWT.
    """
    return [
        piece
        for start, end in _word_tokenizer().span_tokenize(text)
        for piece in _split_inner_hyphens(text, start, end)
    ]


@functools.cache
def _word_tokenizer() -> Any:
    # nltk takes about a second to import: only when text is tokenized or a tagger is made
    from nltk.tokenize import NLTKWordTokenizer  # type: ignore[import-untyped]

    return NLTKWordTokenizer()


def _new_perceptron() -> Any:
    from nltk.tag.perceptron import PerceptronTagger  # type: ignore[import-untyped]

    return PerceptronTagger(load=False)


def _split_inner_hyphens(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut before and after each hyphen that joins two word characters."""
    cuts = [start + m.start() for m in _INNER_HYPHEN.finditer(text[start:end])]
    bounds = [start, *(edge for cut in cuts for edge in (cut, cut + 1)), end]
    return list(itertools.pairwise(bounds))


def read_conllu(path: Path) -> list[TaggedSentence]:
    """``(form, upos)`` of every syntactic word of a CoNLL-U file (``.gz`` read transparently).

    Multiword-token ranges (``3-4``) and empty nodes (``5.1``) are skipped, so the words are the
    treebank's syntactic words (``don't`` -> ``do`` ``n't``).

    Raises
    ------
    LexiconFormatError
        A word line without 10 tab-separated fields or with an unknown UPOS tag (file and line).
    EmptyInputError
        The file has no sentences.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    sentences: list[TaggedSentence] = []
    current: TaggedSentence = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\n").split("\t")
            if fields == [""] and current:
                sentences.append(current)
                current = []
            elif not line.startswith("#") and fields[0].isdigit():
                current.append(_word(path, number, fields))
    if current:
        sentences.append(current)
    if not sentences:
        raise EmptyInputError(f"{path}: no CoNLL-U sentences")
    return sentences


def _word(path: Path, number: int, fields: list[str]) -> tuple[str, str]:
    if len(fields) != 10:
        raise LexiconFormatError(f"{path}, line {number}: expected 10 fields, found {len(fields)}")
    if fields[3] not in UPOS:
        raise LexiconFormatError(f"{path}, line {number}: unknown UPOS tag {fields[3]!r}")
    return fields[1], fields[3]


def load_ewt(split: EwtSplit = "train", *, path: StrPath | None = None) -> list[TaggedSentence]:
    """One split of UD English EWT as ``(form, upos)`` sentences (see :func:`read_conllu`).

    Parameters
    ----------
    split
        ``"train"`` (12,544 sentences), ``"dev"`` (2,001) or ``"test"`` (2,077).
    path
        An explicit data root containing ``probing/ud_english_ewt/``.
    """
    return read_conllu(ewt_path(split, path))


def ewt_path(split: EwtSplit, path: StrPath | None = None) -> Path:
    """Local path of one EWT split, resolved through the registered ``corpus-ud-ewt`` files.

    Raises
    ------
    WordlensError
        If ``split`` is not one of :data:`EWT_SPLITS`.
    """
    if split not in EWT_SPLITS:
        raise WordlensError(f"unknown EWT split {split!r}; choose one of {', '.join(EWT_SPLITS)}")
    resource = get_resource(_EWT_RESOURCE)
    (file,) = (f for f in resource.files if f.relpath.endswith(f"en_ewt-ud-{split}.conllu.gz"))
    return resolve(resource, file, path)


def load_tagger(
    n_sentences: int | None = None,
    *,
    n_iter: int = 5,
    seed: int = 0,
    path: StrPath | None = None,
    cache: bool = True,
) -> PosTagger:
    """The EWT-trained UPOS tagger, from the cache or trained now (and then cached).

    Parameters
    ----------
    n_sentences
        Train on a seeded random sample of this many EWT training sentences (tests use a few
        thousand); ``None`` for all 12,544.
    n_iter
        Perceptron training iterations (NLTK's default, 5).
    seed
        Seed of the sample and of the perceptron's per-iteration shuffles.
    path
        An explicit data root holding ``probing/ud_english_ewt/``.
    cache
        Read and write ``user_home()/taggers/upos-perceptron-<key>.json``; the key hashes the
        training file's sha256, ``n_sentences``, ``n_iter``, ``seed`` and the NLTK version. The
        cache is an optimisation: when it cannot be written (a read-only ``WORDLENS_HOME``) the
        tagger is returned all the same, and trained again next time.

    Raises
    ------
    WordlensError
        ``n_sentences`` or ``n_iter`` is not positive, or ``n_sentences`` exceeds the training set.
    """
    if n_iter < 1 or (n_sentences is not None and n_sentences < 1):
        raise WordlensError(f"n_sentences and n_iter must be positive: {n_sentences}, {n_iter}")
    train_path, dev_path, test_path = (ewt_path(split, path) for split in EWT_SPLITS)
    settings: dict[str, Any] = {
        "train_sha256": sha256_file_cached(train_path),
        "n_iter": n_iter,
        "seed": seed,
        "nltk_version": importlib.metadata.version("nltk"),
    }
    key = json.dumps({**settings, "n_sentences": n_sentences}, sort_keys=True)
    cached = user_home() / "taggers" / f"upos-perceptron-{_short_hash(key)}.json"
    if cache and cached.is_file():
        return _read_tagger(cached)
    sample = _sample(read_conllu(train_path), n_sentences, seed)
    tagger = PosTagger(
        train_perceptron(sample, n_iter=n_iter, seed=seed),
        TaggerInfo(**settings, n_sentences=len(sample), accuracy={}),
    )
    held_out = {"dev": dev_path, "test": test_path}
    scores = {split: tagger.accuracy(read_conllu(file)) for split, file in held_out.items()}
    tagger.info = replace(tagger.info, accuracy=scores)
    if cache:
        with contextlib.suppress(OSError):  # as the corpus index: tolerate a read-only home
            _write_tagger(cached, tagger)
    return tagger


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _sample(
    sentences: list[TaggedSentence], n_sentences: int | None, seed: int
) -> list[TaggedSentence]:
    import numpy as np

    if n_sentences is None:
        return sentences
    if n_sentences > len(sentences):
        raise WordlensError(
            f"n_sentences={n_sentences} exceeds the {len(sentences)} EWT training sentences"
        )
    chosen = np.random.default_rng(seed).choice(len(sentences), n_sentences, replace=False)
    return [sentences[index] for index in sorted(chosen)]


def train_perceptron(sentences: Sequence[TaggedSentence], *, n_iter: int, seed: int) -> Any:
    """Train NLTK's averaged perceptron tagger, reproducibly.

    NLTK shuffles the sentences between iterations with the global :mod:`random` generator; it
    is seeded with ``seed`` for the call and restored afterwards.
    """
    perceptron = _new_perceptron()
    state = random.getstate()
    random.seed(seed)
    try:
        perceptron.train(list(sentences), nr_iter=n_iter)
    finally:
        random.setstate(state)
    return perceptron


def _write_tagger(path: Path, tagger: PosTagger) -> None:
    weights, tagdict, classes = tagger._perceptron.encode_json_obj()
    payload = {
        "format": _CACHE_FORMAT,
        "info": asdict(tagger.info),
        "weights": weights,
        "tagdict": tagdict,
        "classes": sorted(classes),
    }
    atomic_write_text(path, json.dumps(payload))


def _read_tagger(path: Path) -> PosTagger:
    payload = json.loads(path.read_text(encoding="utf-8"))
    if payload.get("format") != _CACHE_FORMAT:
        raise WordlensError(f"{path}: unknown tagger cache format; delete the file to retrain")
    perceptron = _new_perceptron()
    perceptron.decode_json_params((payload["weights"], payload["tagdict"], payload["classes"]))
    return PosTagger(perceptron, TaggerInfo(**payload["info"]))
