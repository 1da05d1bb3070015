"""The English indefinite article, "a" or "an", chosen by the sound that starts the next word.

"an" goes before a vowel sound, "a" before a consonant sound, whatever the letter: "an old",
"an hour", "an LGBT", "an 80-year-old"; "a young", "a European", "a unicorn", "a one-eyed",
"a UN". Spelling does not determine sound, so :func:`indefinite_article` applies a short list of
documented rules, tried in order on the word with leading quotes and brackets removed:

1. **Digits** are read as a cardinal number: "an" when it is read starting with "eight" or
   "eleven"/"eighteen" ("an 8", "an 80-year-old", "an 11", "an 18,000", "an 800"); else "a"
   ("a 1", "a 100", "a 20-year-old").
2. **Silent h**: words starting with ``hour`` (not ``houri``), ``honest``, ``honor``, ``honour``,
   ``heir`` take "an" (hourly, honesty, honorary, heirloom).
3. **Letters read by name**: a single letter, a letter followed by a hyphen or a period ("x-ray",
   "u-turn", "e-mail") or a word in capitals of two or more letters (an initialism: "LGBT",
   "FBI", "UN") is read letter by letter; "an" before the letters whose names start with a vowel
   sound, ``A E F H I L M N O R S X``. An acronym spoken as a word ("NATO") is misread as letters;
   write it in lower case ("nato") to have it read as a word.
4. **Vowel letter, consonant sound** ("a"): ``eu``/``ew`` (European, eulogy, ewe); ``one`` and
   ``once`` as a whole word or before a hyphen (one-eyed; but "an onerous"); ``uni`` not followed
   by ``n``, ``m`` or ``d``, or followed by ``mo`` (unicorn, unique, union, universal, unimodal;
   but "an uninformed", "an unimportant", "an unidentified"); ``u`` + one of
   ``b c f g h j k q r s t`` + a vowel (ubiquitous, Ugandan, usual, user, utopia, urine, ukulele;
   but "an unusual", "an usher", "an utter"); ``ukr`` (Ukrainian); ``unanimous``.
5. Otherwise, "an" before ``a e i o u``, "a" before any other character.

Rules 2-4 are those of Conway's Lingua::EN::Inflect ("A/AN"), also used by the PyPI package
``inflect`` (not a dependency: the rules are the few lines below). They are a heuristic, not a
pronunciation dictionary: words they misread include "herb" (American "an herb"), "Uber", "NATO"
(rule 3), and "unidirectional".
"""

from __future__ import annotations

import re

__all__ = ["indefinite_article", "with_article_for"]

_LEADING_PUNCTUATION = "\"'“‘«([{"
_VOWEL_LETTER_NAMES = frozenset("aefhilmnorsx")
_SILENT_H = re.compile(r"^(hour(?!i)|honest|hono[ur]|heir)")
_CONSONANT_SOUND_VOWEL = re.compile(
    r"^(e[uw]|onc?e(?![a-z])|uni([^nmd]|mo)|u[bcfghjkqrst][aeiou]|ukr|unanimous)"
)
_LETTER_NAMED = re.compile(r"^((?i:[a-z])(?=[-.]|$)|[A-Z][A-Z]+(?![a-z]))")
_NUMBER = re.compile(r"^\d[\d,]*")


def indefinite_article(word: str) -> str:
    """``"a"`` or ``"an"`` for `word`, by the rules of the module docstring.

    Parameters
    ----------
    word
        The word that follows the article (only its start matters).

    Returns
    -------
    str
        ``"a"`` or ``"an"``, in lower case.

    Raises
    ------
    ValueError
        If `word` has no character after leading whitespace, quotes and brackets.
    """
    text = word.strip().lstrip(_LEADING_PUNCTUATION)
    if not text:
        raise ValueError(f"no word to choose an indefinite article for: {word!r}")
    lower = text.casefold()
    if number := _NUMBER.match(text):
        return "an" if _number_starts_with_vowel(number.group().replace(",", "")) else "a"
    if _SILENT_H.match(lower):
        return "an"
    if _LETTER_NAMED.match(text):
        return "an" if lower[0] in _VOWEL_LETTER_NAMES else "a"
    if _CONSONANT_SOUND_VOWEL.match(lower):
        return "a"
    return "an" if lower[0] in "aeiou" else "a"


def with_article_for(article: str, word: str) -> str:
    """`article` ("a" or "an", any case) replaced by the one `word` takes, in the same case.

    Examples: ``("a", "old") -> "an"``, ``("An", "young") -> "A"``, ``("A", "hour") -> "An"``,
    ``("AN", "young") -> "A"``.

    Raises
    ------
    ValueError
        If `article` is not "a" or "an" (case-insensitively), or `word` is empty.
    """
    if article.casefold() not in ("a", "an"):
        raise ValueError(f"not an indefinite article: {article!r}")
    chosen = indefinite_article(word)
    if len(article) > 1 and article.isupper():
        return chosen.upper()
    return chosen.capitalize() if article[0].isupper() else chosen


def _number_starts_with_vowel(digits: str) -> bool:
    """Whether the cardinal number `digits` is read starting with "eight", "eleven" or
    "eighteen": its leading group of up to three digits (the thousands, millions ... group)
    starts with 8, or is 11 or 18."""
    leading = digits[: len(digits) % 3 or 3]
    return leading.startswith("8") or leading in ("11", "18")
