"""The indefinite article chooser: "a" or "an" by the sound that starts the next word."""

from __future__ import annotations

import pytest

from wordlens.contexts.articles import indefinite_article, with_article_for

CASES = {
    # vowel letter, vowel sound / consonant letter, consonant sound
    "old": "an",
    "affluent": "an",
    "illiterate": "an",
    "ignorant": "an",
    "young": "a",
    "destitute": "a",
    "Old": "an",
    "'old'": "an",
    "(old": "an",
    # vowel letter, consonant sound
    "European": "a",
    "eulogy": "a",
    "ewe": "a",
    "one": "a",
    "one-eyed": "a",
    "once": "a",
    "onerous": "an",
    "unicorn": "a",
    "unique": "a",
    "union": "a",
    "universal": "a",
    "unimodal": "a",
    "uninformed": "an",
    "unimportant": "an",
    "unidentified": "an",
    "unusual": "an",
    "unanimous": "a",
    "user": "a",
    "usual": "a",
    "utopia": "a",
    "Ugandan": "a",
    "Ukrainian": "a",
    "usher": "an",
    "utter": "an",
    "urban": "an",
    "ugly": "an",
    # silent h
    "hour": "an",
    "hourly": "an",
    "houri": "a",
    "honest": "an",
    "honor": "an",
    "honourable": "an",
    "heir": "an",
    "heiress": "an",
    "human": "a",
    "heterosexual": "a",
    "homosexual": "a",
    # letters read by name
    "LGBT": "an",
    "FBI": "an",
    "HIV-positive": "an",
    "MBA": "an",
    "UN": "a",
    "UK": "a",
    "CEO": "a",
    "x-ray": "an",
    "X": "an",
    "u-turn": "a",
    "e-mail": "an",
    "b.": "a",
    # numbers
    "8": "an",
    "80-year-old": "an",
    "800": "an",
    "11": "an",
    "18": "an",
    "18,000": "an",
    "11000": "an",
    "1": "a",
    "20-year-old": "a",
    "110": "a",
    "118": "a",
    "1800": "a",
    "100": "a",
}


@pytest.mark.parametrize(("word", "article"), CASES.items())
def test_article_by_sound(word: str, article: str) -> None:
    assert indefinite_article(word) == article


@pytest.mark.parametrize(
    ("article", "word", "expected"),
    [
        ("a", "old", "an"),
        ("an", "young", "a"),
        ("A", "old", "An"),
        ("An", "young", "A"),
        ("AN", "young", "A"),
        ("a", "hour", "an"),
        ("a", "young", "a"),
        ("an", "old", "an"),
    ],
)
def test_article_keeps_the_templates_case(article: str, word: str, expected: str) -> None:
    assert with_article_for(article, word) == expected


def test_invalid_input_raises() -> None:
    with pytest.raises(ValueError, match="no word"):
        indefinite_article(" '(")
    with pytest.raises(ValueError, match="no word"):
        indefinite_article("")
    with pytest.raises(ValueError, match="not an indefinite article"):
        with_article_for("the", "old")
