"""WEAT tests (cross-checked against responsibly, WEFE and SEAT) and the VAST polar words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.peer_data import WEFE_SETS

from wordlens.errors import LexiconFormatError, ResourceNotFoundError, WordlensError
from wordlens.resources import (
    WeatTest,
    get_resource,
    load_weat_tests,
    pleasant_unpleasant,
    read_polar_words,
)

ROLES = ("x", "y", "a", "b")

# (|X|, |Y|, |A|, |B|) of each test after the paper's removals
SIZES = {
    1: (25, 25, 25, 25),
    2: (25, 25, 25, 25),
    3: (32, 32, 25, 25),
    4: (16, 16, 25, 25),
    5: (16, 16, 8, 8),
    6: (8, 8, 8, 8),
    7: (8, 8, 8, 8),
    8: (8, 8, 8, 8),
    9: (6, 6, 7, 7),
    10: (8, 8, 8, 8),
}


# Known differences, documented in weat/SOURCE.md: (test, role) -> (only in package, only in copy)
RESPONSIBLY_DIFFERENCES = {(10, "b"): ({"failure"}, {"failur"})}
WEFE_DIFFERENCES = {
    (4, "x"): (set(), {"Jay", "Kristen"}),
    (4, "y"): (set(), {"Tremayne", "Latonya"}),
    (5, "x"): (set(), {"Jay", "Kristen"}),
    (5, "y"): (set(), {"Tremayne", "Latonya"}),
    (9, "a"): ({"short-term"}, {"short"}),
    (10, "x"): ({"Billy"}, {"Bill"}),
}


def differences(ours: tuple[str, ...], theirs: tuple[str, ...]) -> tuple[set[str], set[str]]:
    return set(ours) - set(theirs), set(theirs) - set(ours)


def test_sizes_ids_and_order() -> None:
    tests = load_weat_tests()
    assert [t.id for t in tests] == list(SIZES)
    for test in tests:
        assert tuple(len(getattr(test, role).words) for role in ROLES) == SIZES[test.id]
        for role in ROLES:
            assert len(set(getattr(test, role).words)) == SIZES[test.id][ROLES.index(role)]
    assert [t.id for t in load_weat_tests([3, 1])] == [3, 1]
    with pytest.raises(WordlensError, match=r"no WEAT test \[11\]"):
        load_weat_tests([1, 11])


def test_paper_specific_words() -> None:
    tests = {t.id: t for t in load_weat_tests()}
    assert {"agony", "prison"} <= set(tests[1].b.words) and "bomb" not in tests[1].b.words
    assert tests[2].b == tests[1].b
    assert {"bomb", "evil"} <= set(tests[3].b.words) and "agony" not in tests[3].b.words
    assert tests[4].b == tests[3].b
    assert "short-term" in tests[9].a.words
    assert "failure" in tests[10].b.words and tests[10].b == tests[5].b
    for removed in ("Jay", "Kristen", "Tremayne", "Latonya"):
        assert removed not in tests[4].x.words + tests[4].y.words + tests[5].x.words
    assert tests[1].original_finding.d == 1.35
    assert tests[4].original_finding.d is None
    assert "Monteith" in tests[9].original_finding.citation


def _by_id(tests: list[WeatTest]) -> dict[int, WeatTest]:
    return {test.id: test for test in tests}


@pytest.mark.usefixtures("shared_env")
def test_cross_check_against_responsibly() -> None:
    theirs = get_resource("weat-responsibly").load()
    assert isinstance(theirs, list)
    theirs_by_id = _by_id(theirs)
    for test in load_weat_tests():
        for role in ROLES:
            ours_words = getattr(test, role).words
            their_words = getattr(theirs_by_id[test.id], role).words
            expected = RESPONSIBLY_DIFFERENCES.get((test.id, role), (set(), set()))
            assert differences(ours_words, their_words) == expected, (test.id, role)
            if expected == (set(), set()):
                assert ours_words == their_words, (test.id, role)  # same order too


@pytest.mark.usefixtures("shared_env")
def test_cross_check_against_wefe() -> None:
    sets = get_resource("weat-wefe").load()
    assert isinstance(sets, dict) and len(sets) == 31
    for test in load_weat_tests():
        for role, set_name in zip(ROLES, WEFE_SETS[test.id], strict=True):
            expected = WEFE_DIFFERENCES.get((test.id, role), (set(), set()))
            ours = getattr(test, role).words
            assert differences(ours, sets[set_name]) == expected, (test.id, role)


def test_identical_to_seat_word_level_tests(shared_data: Path) -> None:
    keys = ("targ1", "targ2", "attr1", "attr2")
    for test in load_weat_tests():
        seat = json.loads((shared_data / f"weat/seat/weat{test.id}.jsonl").read_text())
        for role, key in zip(ROLES, keys, strict=True):
            assert list(getattr(test, role).words) == seat[key]["examples"], (test.id, role)


@pytest.mark.usefixtures("shared_env")
def test_english_polar_words_are_test_one_attributes_and_match_vast() -> None:
    english = pleasant_unpleasant()
    first = load_weat_tests([1])[0]
    assert (english.pleasant, english.unpleasant) == (first.a.words, first.b.words)
    from_file = get_resource("vast-polar-words").load()
    assert isinstance(from_file, dict)
    assert from_file["en"] == english


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize(
    ("language", "pleasant", "unpleasant", "repeated"),
    [
        ("pt", 25, 25, ("divórcio", "cadeia", "pobreza", "feio", "cancro", "matar")),
        ("zh", 16, 24, ("监狱",)),
        ("es", 22, 25, ()),
        ("fr", 25, 24, ("prison",)),
        ("pl", 25, 25, ()),
        ("tr", 23, 25, ()),
    ],
)
def test_translated_polar_words(
    language: str, pleasant: int, unpleasant: int, repeated: tuple[str, ...]
) -> None:
    words = pleasant_unpleasant(language)
    assert (len(words.pleasant), len(words.unpleasant)) == (pleasant, unpleasant)
    assert words.repeated == repeated
    assert len(set(words.pleasant + words.unpleasant)) == pleasant + unpleasant
    assert all(word == word.strip() and word for word in words.pleasant + words.unpleasant)


@pytest.mark.usefixtures("shared_env")
def test_specific_translations() -> None:
    assert "ölüm" in pleasant_unpleasant("tr").unpleasant  # "ölüm " in the file
    assert pleasant_unpleasant("fr").pleasant[-6:-3] == ("lever du soleil", "famille", "heureux")
    with pytest.raises(ResourceNotFoundError, match="none for German"):
        pleasant_unpleasant("de")


def test_malformed_polar_word_file(tmp_path: Path) -> None:
    path = tmp_path / "polar.txt"
    path.write_text("English\nPleasant Polar Attribute Words: a, b\nNeutral words: c\n")
    with pytest.raises(LexiconFormatError, match=r"polar.txt, line 3: expected a language"):
        read_polar_words(path)
    path.write_text("English\nPleasant Polar Attribute Words: a, b\n")
    with pytest.raises(LexiconFormatError, match=r"no complete pleasant/unpleasant lists"):
        read_polar_words(path)
    path.write_text("Klingon\n")
    with pytest.raises(LexiconFormatError, match=r"line 1: unknown language 'Klingon'"):
        read_polar_words(path)
