"""The words whose vectors the VAST authors fit principal components on, and the WEAT words'
valence sides for the aligned setting.

Wolfe & Caliskan (2022) nullify the top principal components (section "PC Nullification") of one
population of vectors, fitted once per setting and layer, and transform every word with that fit.
Their code (wolferobert3/vast_aaai_2022 at d60c2d9) fixes the population:

- ``embedding_collection.py:104`` embeds ``term_list``, the union of the Bellezza, ANEW and
  Warriner words and ``weat_terms`` (``embedding_collection.py:65``) plus the dominance and
  arousal polar words, in each setting; ``VAST.py:74`` defines the same ``weat_terms`` with the
  dominance/arousal polar words inside it, and ``VAST.py:116`` the same union;
- ``VAST.py:359-365`` stacks the vectors of every word of that embedding dictionary at the layer,
  then appends the vectors of the polar words again (``weat_dict``: pleasant, unpleasant,
  dominant, submissive, arousal, indifference, ``VAST.py:140``; in the misaligned setting the
  aligned ones, ``VAST.py:136-138``), and fits mean and PCs on all those rows
  (``helper_functions.py:164-179``, ``pca_transform`` with ``subtract_mean=True``);
- the WEAT bias experiment (``VAST.py:485-495``) fits on the embedding dictionary alone.

``weat_terms`` is not every WEAT word: it holds the words of WEAT tests 1-7 and 10, the target
sets of test 8 (science, arts) but not test 8's male/female terms, and none of test 9 (mental vs
physical disease, temporary vs permanent). :func:`authors_weat_terms` rebuilds it from the packaged
tests and polar words; the tests compare it with a copy of the authors' list.

``embedding_collection.py:167-177`` gives WEAT words that no lexicon rates a valence for choosing
their aligned template: 8.0 for the pleasant side of the valence WEAT tests (targets X and
attributes A of tests 1-5 and 10: ``pleasant_weat``), 2.0 for their unpleasant side
(``unpleasant_weat``), 5.0 for every other word (``neutral_weat``): :func:`weat_valence_sides`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wordlens.methods.vast.config import PcPopulation
from wordlens.resources import Lexicon, WeatTest, load_lexicon, load_weat_tests

#: The lexica of ``term_list`` (``embedding_collection.py:104``, ``VAST.py:116``).
AUTHORS_LEXICA = ("bellezza", "anew", "warriner")
#: WEAT tests whose every word is in the authors' ``weat_terms`` (``VAST.py:74``).
_WHOLE_TESTS = (1, 2, 3, 4, 5, 6, 7, 10)
#: WEAT test whose target sets (science, arts) are in ``weat_terms``, but not its attributes.
_TARGETS_ONLY_TEST = 8
#: WEAT tests whose attributes are pleasant vs unpleasant (``pleasant_weat``/``unpleasant_weat``).
_VALENCE_TESTS = (1, 2, 3, 4, 5, 10)


@dataclass(frozen=True)
class PopulationWords:
    """The distinct words of a principal-component population and where each came from.

    Attributes
    ----------
    name
        ``"authors"`` or ``"lexicon"``.
    words
        Distinct words in a fixed order: lexica (in ``AUTHORS_LEXICA`` order), then WEAT terms,
        then polar words.
    polar_words
        The distinct polar words of every dimension, whose vectors the authors' fit holds twice
        (``VAST.py:362-365``).
    description
        One line for results and reports.
    """

    name: PcPopulation
    words: tuple[str, ...]
    polar_words: tuple[str, ...]
    description: str


def authors_weat_terms(polar_words: Iterable[str], limit: int | None = None) -> list[str]:
    """The authors' ``weat_terms`` (``VAST.py:74``): WEAT tests 1-7 and 10, test 8's targets, and
    the polar words of valence, dominance and arousal, distinct, in test order; with ``limit``
    (quick mode) the first ``limit`` words of each WEAT set."""
    words: list[str] = []
    for test in load_weat_tests():
        test = test if limit is None else test.first(limit)
        if test.id in _WHOLE_TESTS:
            words += [*test.x.words, *test.y.words, *test.a.words, *test.b.words]
        elif test.id == _TARGETS_ONLY_TEST:
            words += [*test.x.words, *test.y.words]
    return list(dict.fromkeys([*words, *polar_words]))


def authors_population(polar_words: Sequence[str], limit: int | None = None) -> PopulationWords:
    """The authors' population: Bellezza ∪ ANEW ∪ Warriner ∪ ``weat_terms`` (``VAST.py:116``);
    with ``limit`` (quick mode, ``--limit``) the first ``limit`` words of each lexicon and of
    each WEAT set, a departure said in the description."""
    lexicon_words = [
        str(word)
        for name in AUTHORS_LEXICA
        for word in load_lexicon(name).data["word"].iloc[:limit]  # [:None]: all
    ]
    words = tuple(dict.fromkeys([*lexicon_words, *authors_weat_terms(polar_words, limit)]))
    polar = tuple(dict.fromkeys(polar_words))
    quick = (
        ""
        if limit is None
        else f" (quick mode, --limit {limit}: the first {limit} words of each lexicon and WEAT "
        "set only)"
    )
    return PopulationWords(
        "authors",
        words,
        polar,
        f"the VAST authors' population (VAST.py:116, 359-365): Bellezza, ANEW, Warriner and the "
        f"WEAT terms, {len(words):,} distinct words, plus the {len(polar)} polar words "
        f"again{quick}",
    )


def lexicon_population(lexicon: Lexicon, polar_words: Sequence[str]) -> PopulationWords:
    """A departure from the authors: the scored lexicon's words, plus the polar words' vectors
    (the aligned ones in the misaligned setting), about 450 rows for Bellezza."""
    words = tuple(dict.fromkeys(map(str, lexicon.data["word"])))
    polar = tuple(dict.fromkeys(polar_words))
    return PopulationWords(
        "lexicon",
        words,
        polar,
        f"the {lexicon.name} lexicon ({len(words):,} words) and the {len(polar)} polar words "
        "(a departure from the authors, who fit on every lexicon and WEAT word)",
    )


def weat_valence_sides(tests: Sequence[WeatTest] | None = None) -> tuple[set[str], set[str]]:
    """Pleasant-side and unpleasant-side WEAT words (``embedding_collection.py:66-67``).

    The pleasant side is targets X and attributes A of the valence WEAT tests (1-5 and 10),
    the unpleasant side their Y and B.
    """
    tests = load_weat_tests() if tests is None else tests
    positive: set[str] = set()
    negative: set[str] = set()
    for test in tests:
        if test.id in _VALENCE_TESTS:
            positive |= {*test.x.words, *test.a.words}
            negative |= {*test.y.words, *test.b.words}
    return positive, negative
