"""Which WordNet sense a bias test means by each of its words (package data, checked on load).

Zhou, Kaneko & Bollegala (2022), section 3, evaluate sense embeddings on WEAT by assigning each
test word the sense id of the bias type it stands for (e.g. ``violet%1:20:00::``, the flower, in
*Flowers*); their section 7 and Figure 2 compare the noun (occupation) and verb (action) senses
of six occupations. Both assignments ship with wordnet as JSON (``data/weat_senses.json``,
``data/occupation_senses.json``; the WEAT list's construction is described in the file) and are
checked against the local WordNet 3.0 every time they are loaded: each key must exist, and its
lemma must be the word or one of its base forms, so a typo or a synonym's key cannot slip in.

References
----------
Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating Social
Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Any

from wordlens.errors import WordlensError
from wordlens.resources.wordnet import UnknownSenseError, WordNet, load_wordnet

_WEAT_SENSES = "weat_senses.json"
_OCCUPATION_SENSES = "occupation_senses.json"


@dataclass(frozen=True)
class SenseAssignments:
    """Words mapped to the one WordNet sense a test means.

    Attributes
    ----------
    senses
        Word (as the test spells it) → sense key.
    unassigned
        Word → why WordNet has no fitting sense (e.g. pronouns); such words are left out.
    tests
        The WEAT test ids the assignments cover.
    citation
        Where the assignment scheme comes from.
    """

    senses: dict[str, str]
    unassigned: dict[str, str]
    tests: tuple[int, ...]
    citation: str

    def key_of(self, word: str) -> str:
        """The sense key assigned to ``word``.

        Raises
        ------
        UnknownSenseError
            If the word is unassigned (with the reason) or not covered.
        """
        if word in self.senses:
            return self.senses[word]
        if word in self.unassigned:
            raise UnknownSenseError(f"{word!r} has no sense assigned: {self.unassigned[word]}")
        raise UnknownSenseError(
            f"{word!r} is not in the sense assignments (they cover WEAT tests {list(self.tests)})"
        )


@dataclass(frozen=True)
class OccupationSenses:
    """An occupation's noun (the occupation) and verb (the action) sense keys."""

    occupation: str
    noun: str
    verb: str


def weat_sense_assignments(wordnet: WordNet | None = None) -> SenseAssignments:
    """The sense of each word of WEAT tests 1, 2, 7, 8 and 9 (section 3 of Zhou et al. 2022).

    Parameters
    ----------
    wordnet
        The WordNet to validate against; :func:`~wordlens.resources.wordnet.load_wordnet` if None.

    Raises
    ------
    WordlensError
        Listing every key that is not in WordNet or not a sense of its word.
    WordNetNotFoundError
        If WordNet is not installed.
    """
    document = _package_json(_WEAT_SENSES)
    senses = dict(document["senses"])
    check_assignments(senses.items(), wordnet or load_wordnet(), source=_WEAT_SENSES)
    return SenseAssignments(
        senses=senses,
        unassigned=dict(document["unassigned"]),
        tests=tuple(document["tests"]),
        citation=str(document["citation"]),
    )


def occupation_senses(wordnet: WordNet | None = None) -> tuple[OccupationSenses, ...]:
    """The noun and verb senses of SSSB's six occupations (Zhou et al. 2022, Figure 2).

    Raises
    ------
    WordlensError
        Listing every key that is not in WordNet or not a sense of its occupation.
    """
    document = _package_json(_OCCUPATION_SENSES)
    occupations = tuple(
        OccupationSenses(name, keys["noun"], keys["verb"])
        for name, keys in document["occupations"].items()
    )
    pairs = [(o.occupation, key) for o in occupations for key in (o.noun, o.verb)]
    check_assignments(pairs, wordnet or load_wordnet(), source=_OCCUPATION_SENSES)
    return occupations


def check_assignments(
    assignments: Iterable[tuple[str, str]], wordnet: WordNet, *, source: str
) -> None:
    """Check that each ``(word, sense key)`` names a WordNet sense of that word.

    The key's lemma must be one of the word's :meth:`~WordNet.base_forms`.

    Raises
    ------
    WordlensError
        Naming `source` and every failing entry with the reason.
    """
    problems = [
        f"{word!r}: {problem}"
        for word, key in assignments
        if (problem := _assignment_problem(word, key, wordnet)) is not None
    ]
    if problems:
        raise WordlensError(
            f"{source}: {len(problems)} sense assignment(s) do not match WordNet "
            f"{wordnet.version}: " + "; ".join(problems)
        )


def _assignment_problem(word: str, key: str, wordnet: WordNet) -> str | None:
    """Why ``key`` is not a sense of ``word``, or None when it is."""
    try:
        wordnet.sense(key)
    except UnknownSenseError as error:
        return str(error)
    forms = wordnet.base_forms(word)
    lemma = key.split("%")[0].lower()
    if lemma not in forms:
        return f"{key!r} is a sense of {lemma!r}, not of {word!r} (forms: {list(forms)})"
    return None


@functools.cache
def _package_json(name: str) -> dict[str, Any]:
    text = package_files.files("wordlens.resources").joinpath("data", name).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document
