"""Targets: a word in context, given as a character span of a text.

A target is ``(text, char_start, char_end)`` with ``text[char_start:char_end]`` the word. Models map
the span onto their own subtokens through the tokenizer's offset mapping, never by re-tokenizing the
word alone (leading-space BPE tokenizes ``"pleasant"`` and ``" pleasant"`` differently).

Helpers build targets from ``(text, word, occurrence)`` with whole-word matching (``"male"`` is not
found inside ``"female"``) and from templates such as ``"This is {word}"`` (the semantically
bleached context of May et al. 2019, used by VAST).
"""

from __future__ import annotations

import numbers
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from wordlens.errors import EmptyInputError, TargetError, shown_word
from wordlens.unicode_forms import UnicodeForm, normalized

#: The semantically bleached template of the VAST paper ("This is WORD").
BLEACHED_TEMPLATE = "This is {word}"
PLACEHOLDER = "{word}"

GLOSS_TEMPLATE = "{gloss}: {lemma}"
"""Default gloss context of a sense vector (:mod:`wordlens.models.senses`): the gloss, then the
lemma (the target), so causal models see the gloss."""


@dataclass(frozen=True, slots=True)
class Target:
    """A word in context: ``text[start:end]`` is the word.

    Attributes
    ----------
    text
        The full context passed to the model.
    start, end
        Character offsets (Python string indices, end exclusive) of the word in ``text``:
        integers (NumPy integers are converted to ``int``; booleans and floats are refused) with
        ``0 <= start < end <= len(text)``, on grapheme-cluster boundaries.
    shares_tokens
        Whether the span may start or end inside a subtoken it shares with its neighbours (a
        clitic such as ``n't`` of "shouldn't", which a tokenizer reads as ``shouldn`` ``'`` ``t``);
        its vector is then that of the whole subtokens that cover it. By default a model refuses
        such a span (:func:`wordlens.models.align.subtoken_span`): "happy" inside the one token
        "unhappy" has no vector of its own.
    """

    text: str
    start: int
    end: int
    shares_tokens: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TargetError(f"target text must be a string, got {type(self.text).__name__}")
        for name in ("start", "end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TargetError(
                    f"span {name} must be an integer character offset, got {value!r} "
                    f"({type(value).__name__}) for the text {self.text!r}"
                )
            object.__setattr__(self, name, int(value))  # a NumPy integer becomes an int
        if not (0 <= self.start < self.end <= len(self.text)):
            raise TargetError(
                f"span [{self.start}, {self.end}) is out of range for a text of "
                f"{len(self.text)} characters: {self.text!r}"
            )
        if self.text[self.start : self.end].strip() != self.text[self.start : self.end]:
            raise TargetError(
                f"span [{self.start}, {self.end}) of {self.text!r} starts or ends with "
                f"whitespace: {self.text[self.start : self.end]!r}"
            )
        if _splits_character(self.text, self.start) or _splits_character(self.text, self.end):
            raise TargetError(
                f"span [{self.start}, {self.end}) of {self.text!r} is not on character "
                "boundaries: it cuts a character made of several code points (a letter and its "
                "combining mark, the two halves of a flag, an emoji sequence)"
            )

    @property
    def word(self) -> str:
        """The characters the span covers."""
        return self.text[self.start : self.end]


def _splits_character(text: str, index: int) -> bool:
    """Whether a cut before ``text[index]`` falls inside a user-perceived character: a surrogate
    pair, or an extended grapheme cluster (Unicode UAX #29: a letter and its combining marks, the
    two regional indicators of a flag, an emoji with its skin tone or ZWJ sequence)."""
    if index <= 0 or index >= len(text):
        return False
    before, char = text[index - 1], text[index]
    if before.isascii() and char.isascii():
        return before == "\r" and char == "\n"
    if "\udc00" <= char <= "\udfff":  # low surrogate: continuation of a pair
        return True
    import regex

    return index not in {match.end() for match in regex.finditer(r"\X", text)}


def _word_pattern(word: str) -> re.Pattern[str]:
    """A regex matching ``word`` as a whole word (not inside a longer word)."""
    if not word or word.strip() != word:
        raise TargetError(
            f"a word must be non-empty without surrounding whitespace: {shown_word(word)}"
        )
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")


def target_from_word(text: str, word: str, occurrence: int = 0) -> Target:
    """Build the target of the ``occurrence``-th (0-based) whole-word match of ``word`` in ``text``.

    Matching is case-sensitive and whole-word: ``"male"`` does not match inside ``"female"``,
    ``"he"`` does not match inside ``"the"``.

    Raises
    ------
    TargetError
        If ``word`` does not occur that many times in ``text`` as a whole word.
    """
    matches = list(_word_pattern(word).finditer(text))
    if occurrence < 0 or occurrence >= len(matches):
        found = f"{len(matches)} time(s)" if matches else "nowhere"
        raise TargetError(
            f"word {shown_word(word)} occurrence {occurrence} not found: it occurs {found} as a "
            f"whole word in {text!r}"
        )
    match = matches[occurrence]
    return Target(text, match.start(), match.end())


def targets_from_template(
    words: Iterable[str], template: str = BLEACHED_TEMPLATE, placeholder: str = PLACEHOLDER
) -> list[Target]:
    """Put each word into ``template`` (at its single ``placeholder``) and return the targets.

    Parameters
    ----------
    words
        The words, in order.
    template
        A context with exactly one ``placeholder``, e.g. ``"This is {word}"``.
    placeholder
        The marker replaced by each word.

    Raises
    ------
    TargetError
        If the template does not contain the placeholder exactly once.
    EmptyInputError
        If ``words`` is empty.
    """
    check_template(template, placeholder)
    prefix, suffix = template.split(placeholder)
    targets = []
    for word in words:
        if not word or word.strip() != word:
            raise TargetError(
                f"a word must be non-empty without surrounding whitespace: {shown_word(word)}"
            )
        targets.append(Target(prefix + word + suffix, len(prefix), len(prefix) + len(word)))
    if not targets:
        raise EmptyInputError("no words given to put into the template")
    return targets


def check_template(template: str, placeholder: str = PLACEHOLDER) -> None:
    """Refuse a template without exactly one ``placeholder`` (where each word goes).

    Raises
    ------
    TargetError
        Naming the template and how many placeholders it has.
    """
    count = template.count(placeholder)
    if count != 1:
        raise TargetError(
            f"template must contain {placeholder!r} exactly once, where each word goes "
            f"(e.g. {'This is ' + placeholder!r}); {template!r} has {count or 'none'}"
        )


def decontextualized_targets(words: Sequence[str]) -> list[Target]:
    """Targets for words embedded alone (the text is the word itself)."""
    return targets_from_template(words, template=PLACEHOLDER)


WordContext = Literal["template", "none"]
"""How a word list is embedded: ``"template"``, each word in a template (by default the
semantically bleached ``"This is {word}"`` of May et al. 2019), or ``"none"``, each word alone.
``wordlens weat``, ``wordlens embed`` and :func:`wordlens.methods.vast.similarity.run_similarity`
share it (``"bleached"`` was WEAT's former name for ``"template"``)."""

WORD_CONTEXTS: tuple[WordContext, ...] = ("template", "none")


def word_targets(
    words: Sequence[str], context: WordContext, template: str = BLEACHED_TEMPLATE
) -> list[Target]:
    """``words`` in ``template`` (``context="template"``) or alone (``context="none"``).

    Raises
    ------
    ValueError
        If ``context`` is neither (a former name such as ``"bleached"`` included: read options
        through :mod:`wordlens.options`, which translates it).
    TargetError, EmptyInputError
        As :func:`targets_from_template`.
    """
    if context not in WORD_CONTEXTS:
        raise ValueError(f"unknown context {context!r}: use {', '.join(WORD_CONTEXTS)}")
    if context == "none":
        return decontextualized_targets(words)
    return targets_from_template(words, template)


def normalized_target(target: Target, form: UnicodeForm) -> Target:
    """``target`` with its text in the normal form ``form``, its span moved to the same word.

    The text before the word, the word and the text after it are normalised apart: a span on
    grapheme boundaries (as :class:`Target` requires) has no composition across its ends.
    """
    if form == "as-given" or unicodedata.is_normalized("NFC", target.text):
        return target
    before = normalized(target.text[: target.start], form)
    word = normalized(target.word, form)
    after = normalized(target.text[target.end :], form)
    return Target(before + word + after, len(before), len(before) + len(word), target.shares_tokens)
