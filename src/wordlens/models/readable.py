"""Which words a tokenizer can read: a word made only of unknown tokens is not a word to the model.

A WordPiece or SentencePiece vocabulary without byte fallback maps what it lacks to one unknown
token: on MiniLM (BERT's uncased vocabulary) 🦄, 🐉 and a run of 150 letters are all ``[UNK]``, so
their vectors are one vector, and six emoji added to a 20-word lexicon pull VAST's correlation from
.863 to .443. Such a word is missing, as an out-of-vocabulary word of a static model is. So is a
word whose subtokens are the same as another word's: the model cannot tell "AIDS" from "aids"
through an uncased tokenizer, or two Chinese idioms that are the same known character and three
``[UNK]`` (:func:`~wordlens.models.base.indistinct_words`).

A word is read alone, as :func:`~wordlens.contexts.decontextualized_targets` puts it to the
model: its subtokens are those the tokenizer gives it without special tokens. A subtoken that is
a bare word-boundary marker (SentencePiece's ``▁`` before an unknown character) reads nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wordlens.models.base import indistinct_words

#: Characters that mark a word boundary inside a subtoken's text (SentencePiece, byte-level BPE).
_BOUNDARY_MARKERS = "▁Ġ "


def word_token_ids(tokenizer: Any, words: Sequence[str]) -> list[tuple[int, ...]]:
    """Each word's subtoken ids, read alone and without special tokens.

    Parameters
    ----------
    tokenizer
        A Hugging Face tokenizer.
    words
        The words.

    Returns
    -------
    list of tuple of int
        Per word, its token ids (empty when the tokenizer's normalizer removes the whole word).
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.padding is None and backend.truncation is None:
        return [tuple(e.ids) for e in backend.encode_batch(list(words), add_special_tokens=False)]
    return [tuple(ids) for ids in tokenizer(list(words), add_special_tokens=False)["input_ids"]]


def unread_reasons(
    tokenizer: Any,
    words: Sequence[str],
    spelling: Callable[[str], str] = str,
    *,
    tell_apart: bool = True,
) -> dict[str, str]:
    """The distinct ``words`` the tokenizer reads nothing of, or reads as another word, with why.

    Parameters
    ----------
    tokenizer
        A Hugging Face tokenizer.
    words
        The words (repeats are one word).
    spelling
        The form in which the model reads a word (:meth:`WordEmbedder.spelling
        <wordlens.models.base.WordEmbedder.spelling>`): the tokenizer reads that form.
    tell_apart
        Also give the words whose token ids equal another word's.

    Returns
    -------
    dict
        word → reason, in order of first appearance: ``"no subtoken"``, ``"only unknown tokens
        ('[UNK]')"``, or ``"the same token ids as 'x'"``.
    """
    distinct = list(dict.fromkeys(words))
    ids = word_token_ids(tokenizer, [spelling(word) for word in distinct])
    nothing = _ids_that_read_nothing(tokenizer)
    unread: dict[str, str] = {}
    for word, word_ids in zip(distinct, ids, strict=True):
        if not word_ids:
            unread[word] = "no subtoken: the tokenizer's normalizer removes it"
        elif nothing.issuperset(word_ids):
            unread[word] = f"only unknown tokens ({tokenizer.unk_token!r})"
    keys = [None if word in unread else key for word, key in zip(distinct, ids, strict=True)]
    same = indistinct_words(distinct, keys, "the same token ids", spelling) if tell_apart else {}
    return {word: unread.get(word) or same[word] for word in distinct if word in unread | same}


def _ids_that_read_nothing(tokenizer: Any) -> frozenset[int]:
    """The unknown token's id and those of bare word-boundary markers (``▁``, ``Ġ``)."""
    markers = {
        token_id
        for token, token_id in tokenizer.get_vocab().items()
        if not token.strip(_BOUNDARY_MARKERS)
    }
    unknown = tokenizer.unk_token_id
    return frozenset(markers if unknown is None else {*markers, unknown})
