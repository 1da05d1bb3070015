"""The Unicode form a model reads texts and words in (``--unicode``; ``unicode=`` in Python).

A word typed with a combining accent ("cafe" + U+0301) and the same word precomposed (U+00E9)
are canonically equivalent: one word to a reader. A tokenizer without a normalizer (byte-level
BPE) gives them different bytes, subtokens and vectors, and a lexicon lists them as two words.
wordlens puts texts and words in NFC by default; ``as-given`` keeps them as they are.
"""

from __future__ import annotations

import unicodedata
from typing import Literal, get_args

from wordlens.errors import WordlensError

UnicodeForm = Literal["NFC", "as-given"]
"""How texts are normalised before a model reads them: ``NFC`` (canonical composition, the
default: "café" typed with a combining accent is "café") or ``as-given``."""
UNICODE_FORMS: tuple[UnicodeForm, ...] = get_args(UnicodeForm)


def normalized(text: str, form: UnicodeForm) -> str:
    """``text`` in the Unicode normal form ``form`` (``as-given`` leaves it as it is).

    Canonically equivalent strings ("café" as ``e`` + U+0301 and as U+00E9) have one NFC form,
    so a model reads them as one word; a tokenizer without a normalizer (byte-level BPE) would
    otherwise give them different subtokens and different vectors.
    """
    if form not in UNICODE_FORMS:
        raise WordlensError(
            f"unknown Unicode form {form!r}; choose one of {', '.join(UNICODE_FORMS)}"
        )
    if form == "as-given" or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)
