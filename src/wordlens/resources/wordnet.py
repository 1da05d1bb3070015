"""WordNet 3.0 with sense keys, read from a local WordNet database through NLTK.

Sense keys (``black%3:00:02::``, Miller 1995; format in ``senseidx(5WN)``) name one sense of one
lemma in one WordNet version; the sense-bias tests of Zhou, Kaneko & Bollegala (2022) and the
LMMS/ARES sense embeddings use WordNet 3.0 keys. The database is read with NLTK's
:class:`~nltk.corpus.reader.wordnet.WordNetCorpusReader` pointed at a WordNet 3.0 ``dict``
directory, so nothing is downloaded. On Debian/Ubuntu two packages provide it::

    apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index

``wordnet-base`` installs the data, index and exception files in ``/usr/share/wordnet`` and
``wordnet-sense-index`` adds ``index.sense`` (sense key → synset). Elsewhere, point
``$WORDLENS_WORDNET`` at any WordNet 3.0 ``dict`` directory (e.g. from the Princeton tarball).

Two adaptations let NLTK read the Debian files as they are:

- Debian does not ship ``lexnames`` (the numbered list of the 45 lexicographer files, fixed for
  WordNet 3.0 and printed in ``lexnames(5WN)``); when the directory lacks it, the list below is
  served in its place.
- NLTK maps other WordNet versions onto its own 3.0 for the Open Multilingual WordNet, which
  would need NLTK's downloaded copy; this database *is* 3.0, so no mapping is made.

NLTK refuses to open corpora outside its data path (``nltk.pathsec``); the WordNet directory is
therefore appended to ``nltk.data.path`` when it is loaded, which authorizes that directory only.

References
----------
Miller, G. A. (1995). WordNet: a lexical database for English. *Communications of the ACM*
38(11), 39-41.

Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating Social
Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

import functools
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wordlens._files import StrPath
from wordlens.errors import ResourceNotFoundError, WordlensError

WORDNET_ENV = "WORDLENS_WORDNET"
"""Environment variable naming a WordNet 3.0 ``dict`` directory (overrides the default)."""

DEFAULT_WORDNET_DIR = Path("/usr/share/wordnet")
"""Where Debian's ``wordnet-base`` and ``wordnet-sense-index`` install the database."""

INSTALL_HINT = "apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index"

_REQUIRED_FILES = (
    "index.sense",
    *(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")),
    *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")),
)

#: The 45 lexicographer files of WordNet 3.0, numbered 0-44 (``lexnames(5WN)``).
_LEXICOGRAPHER_FILES = (
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
)
_SYNTACTIC_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
_LEXNAMES = "".join(
    f"{number:02d}\t{name}\t{_SYNTACTIC_CATEGORY[name.split('.')[0]]}\n"
    for number, name in enumerate(_LEXICOGRAPHER_FILES)
)

#: ``lemma%ss_type:lex_filenum:lex_id:head_word:head_id`` (``senseidx(5WN)``).
_SENSE_KEY = re.compile(r"^[^%\s]+%[1-5]:\d\d:\d\d:[^:\s]*:(\d\d)?$")


class WordNetNotFoundError(ResourceNotFoundError):
    """No WordNet 3.0 database directory was found; the message says how to install one."""


class UnknownSenseError(WordlensError, KeyError):
    """A sense key is malformed or not in WordNet 3.0, or a word has no senses."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Sense:
    """One WordNet sense of one lemma.

    Attributes
    ----------
    key
        The sense key, e.g. ``"black%3:00:02::"`` (lower case).
    lemma
        The lemma as WordNet writes it, with spaces for underscores and its case kept
        (``"black"``, ``"Einstein"``, ``"short-term"``, ``"Coca Cola"``).
    pos
        Part of speech of the synset: ``n``, ``v``, ``a``, ``s`` (adjective satellite) or ``r``.
    synset
        NLTK's synset name, e.g. ``"black.a.02"``.
    definition
        The gloss's definition.
    examples
        The gloss's example sentences (they may use another lemma of the synset, or an
        inflected form).
    """

    key: str
    lemma: str
    pos: str
    synset: str
    definition: str
    examples: tuple[str, ...]


class WordNet:
    """A WordNet 3.0 database: sense keys to senses, words to their senses.

    Use :func:`load_wordnet`, which checks the directory and caches one instance per directory.
    """

    def __init__(self, reader: Any, root: Path) -> None:
        self._reader = reader
        self.root = root
        self.version: str = str(reader.get_version())

    def sense(self, key: str) -> Sense:
        """The sense a sense key names.

        Raises
        ------
        UnknownSenseError
            If the key is malformed or not in this WordNet; the message lists the keys of the
            same lemma.
        """
        from nltk.corpus.reader.wordnet import WordNetError  # type: ignore[import-untyped]

        lemma_name = key.split("%")[0]
        if not _SENSE_KEY.match(key.lower()):
            raise UnknownSenseError(
                f"{key!r} is not a WordNet sense key (lemma%ss_type:lex_filenum:lex_id:"
                f"head_word:head_id, e.g. 'black%3:00:02::'){self._suggest(lemma_name)}"
            )
        try:
            lemma = self._reader.lemma_from_key(key)
        except (WordNetError, ValueError, KeyError):
            raise UnknownSenseError(
                f"no sense {key!r} in WordNet {self.version}{self._suggest(lemma_name)}"
            ) from None
        return _sense(lemma)

    def has_sense(self, key: str) -> bool:
        """Whether ``key`` is a sense key of this WordNet."""
        try:
            self.sense(key)
        except UnknownSenseError:
            return False
        return True

    def base_forms(self, word: str) -> tuple[str, ...]:
        """The WordNet lemmas (lower case, ``_`` for spaces) ``word`` can be a form of.

        ``word`` itself first when it is a lemma (of any part of speech), then its base forms by
        WordNet's morphology (exception lists and suffix rules, nouns, verbs, adjectives, adverbs):
        ``"numbers"`` gives ``("numbers", "number")``, ``"depressed"`` ``("depressed",
        "depress")``, ``"equations"`` ``("equation",)``, a word WordNet lacks ``()``.
        """
        form = lemma_form(word)
        if not form:
            return ()
        forms = dict.fromkeys(
            str(found) for pos in ("n", "v", "a", "r") for found in self._reader._morphy(form, pos)
        )
        if form not in forms:
            return tuple(forms)
        return (form, *(found for found in forms if found != form))

    def lemma_of(self, word: str) -> str | None:
        """The lemma whose senses stand for ``word``: the first of :meth:`base_forms` (the word
        itself when it is a lemma), or None when WordNet has no sense of it."""
        forms = self.base_forms(word)
        return forms[0] if forms else None

    def senses(self, word: str) -> tuple[Sense, ...]:
        """Every sense of the lemma of ``word`` (see :meth:`lemma_of`), nouns, verbs, adjectives,
        then adverbs, each in WordNet's sense order.

        Only senses whose key is in the sense index count: a synset may list a lemma twice in
        different case (``sun`` and ``Sun``, the star), and the index has a key for one of them.

        Raises
        ------
        UnknownSenseError
            If ``word`` has no sense in WordNet.
        """
        lemma = self.lemma_of(word)
        if lemma is None:
            raise UnknownSenseError(f"{word!r} has no sense in WordNet {self.version}")
        return tuple(_sense(found) for found in self._reader.lemmas(lemma) if self._indexed(found))

    def synset_head_keys(self, word: str) -> tuple[str, ...]:
        """The sense key of the *first* lemma of each synset ``word`` belongs to, in the order of
        NLTK's ``wn.synsets(word)`` (nouns, verbs, adjectives, adverbs; WordNet's morphology
        applied, so ``"wizards"`` gives the synsets of ``wizard``).

        The first lemma need not be ``word``: ``"he"`` gives ``helium%1:27:00::`` first. This is
        how Zhou et al.'s code picks a sense for a word (``synset.lemmas()[0].key()``,
        ``eval-sssb-sense.py:78-81`` and ``:202-207`` of LivNLP/bias-sense); a word WordNet lacks
        gives ``()``.
        """
        form = lemma_form(word)
        if not form:
            return ()
        return tuple(str(synset.lemmas()[0].key()) for synset in self._reader.synsets(form))

    def _indexed(self, lemma: Any) -> bool:
        """Whether an NLTK lemma's sense key is in ``index.sense``."""
        from nltk.corpus.reader.wordnet import WordNetError

        try:
            self._reader.lemma_from_key(lemma.key())
        except (WordNetError, ValueError, KeyError):
            return False
        return True

    def _suggest(self, lemma_name: str) -> str:
        """``"; the senses of <lemma> are ..."`` for error messages, or why there are none."""
        lemma = self.lemma_of(lemma_name.replace("_", " "))
        if lemma is None:
            return f"; {lemma_name!r} is not a WordNet lemma"
        keys = [sense.key for sense in self.senses(lemma)]
        return f"; the senses of {lemma!r} are {', '.join(keys)}"


def load_wordnet(root: StrPath | None = None) -> WordNet:
    """Open WordNet 3.0 from ``root``, ``$WORDLENS_WORDNET`` or ``/usr/share/wordnet``.

    The database is read once per directory and process (about a second).

    Raises
    ------
    WordNetNotFoundError
        If the directory lacks a WordNet file; the message names the Debian packages.
    WordlensError
        If the database is not WordNet 3.0 (sense keys are version-specific).
    """
    return _open_wordnet(_wordnet_dir(root))


@functools.cache
def _open_wordnet(directory: Path) -> WordNet:
    """Read the WordNet database in ``directory`` (checked by :func:`_wordnet_dir`)."""
    import nltk  # type: ignore[import-untyped]

    if str(directory) not in nltk.data.path:
        nltk.data.path.append(str(directory))
    reader_class = _reader_class()
    with warnings.catch_warnings():
        # "The multilingual functions are not available with this Wordnet version"
        warnings.simplefilter("ignore", UserWarning)
        reader = reader_class(str(directory), None)
    wordnet = WordNet(reader, directory)
    if wordnet.version != "3.0":
        raise WordlensError(
            f"{directory} holds WordNet {wordnet.version}, but sense keys here are WordNet 3.0 "
            f"keys; install WordNet 3.0 ({INSTALL_HINT}) or set ${WORDNET_ENV}"
        )
    return wordnet


def _wordnet_dir(root: StrPath | None) -> Path:
    """The WordNet directory to use, checked to hold every file the reader opens."""
    explicit = root if root is not None else os.environ.get(WORDNET_ENV)
    directory = Path(explicit).expanduser() if explicit else DEFAULT_WORDNET_DIR
    missing = [name for name in _REQUIRED_FILES if not (directory / name).is_file()]
    if missing:
        raise WordNetNotFoundError(
            f"WordNet 3.0 with sense keys is not installed at {directory} (missing "
            f"{', '.join(missing)}). On Debian/Ubuntu run `{INSTALL_HINT}` (the packages "
            f"wordnet-base and wordnet-sense-index); elsewhere set ${WORDNET_ENV} to a WordNet "
            "3.0 dict directory."
        )
    return directory.resolve()


@functools.cache
def _reader_class() -> type:
    """NLTK's WordNet reader adapted to a bare WordNet 3.0 directory (see the module notes)."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class LocalWordNetReader(WordNetCorpusReader):  # type: ignore[misc]
        def open(self, file: str) -> Any:
            if file == "lexnames" and not Path(self._root.path, file).is_file():
                return io.StringIO(_LEXNAMES)
            return super().open(file)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return LocalWordNetReader


def lemma_form(word: str) -> str:
    """A word as WordNet lemma names are written: lower case, underscores for spaces."""
    return "_".join(word.lower().split())


def _sense(lemma: Any) -> Sense:
    """A :class:`Sense` from an NLTK ``Lemma``."""
    synset = lemma.synset()
    return Sense(
        key=str(lemma.key()),
        lemma=str(lemma.name()).replace("_", " "),
        pos=str(synset.pos()),
        synset=str(synset.name()),
        definition=str(synset.definition()),
        examples=tuple(str(example) for example in synset.examples()),
    )
