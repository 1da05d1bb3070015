"""A query's word sets embedded once, at every requested layer (:func:`embed_query`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from wordlens.contexts import word_targets
from wordlens.errors import EmptyInputError, shown_word

if TYPE_CHECKING:
    from wordlens.methods.association.config import AssociationConfig
    from wordlens.models.base import WordEmbedder
    from wordlens.models.cache import ActivationCache
    from wordlens.resources import Query

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class QueryVectors:
    """The vectors of a query's words, set by set.

    Attributes
    ----------
    targets, attributes
        Set name → float64 ``[n_words, n_layers, dim]`` of the set's kept words, in the order
        of the query.
    words
        Set name → the kept words, in the order of the rows.
    layers
        The hidden-state layers along axis 1.
    left_out
        Set name → the words left out (the model lacks them or cannot tell them apart within
        the query), only sets that lost some.
    why
        Word left out → why (:meth:`~wordlens.models.base.WordEmbedder.missing_reasons`).
    skipped
        Why the query is skipped (a set lost more than ``max_missing`` of its words,
        :func:`too_many_lost`), its words then not embedded and no set holding vectors; ''
        where it runs.
    """

    targets: dict[str, FloatArray]
    attributes: dict[str, FloatArray]
    words: dict[str, list[str]]
    layers: tuple[int, ...]
    left_out: dict[str, list[str]]
    why: dict[str, str]
    skipped: str = ""


def embed_query(
    model: WordEmbedder,
    query: Query,
    config: AssociationConfig,
    *,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> QueryVectors:
    """Embed every word of ``query`` once (in ``config``'s context, layers and pooling) and
    split the vectors by set.

    Words the model cannot read are left out of their set, counted and listed
    (:attr:`QueryVectors.left_out`), never dropped silently; where a set loses more than
    ``config.max_missing`` of its words, nothing is embedded and the query is skipped with the
    reason (:attr:`QueryVectors.skipped`). Two words the model reads as one
    (an uncased tokenizer's "Gun" and "gun", a static vocabulary's case-folded lookup, "café"
    composed and decomposed) are one word to it: where the query may not repeat a word (within
    a set, across the two target sets, across the two attribute sets) such twins are refused
    (:func:`refuse_twins`), as the query refuses a word written twice.

    Raises
    ------
    EmptyInputError
        If a set loses every word (naming the set and why).
    WordSetError
        If two words the query may not repeat reach the same vector (naming both, their sets
        and why).
    """
    sets = {**query.targets, **query.attributes}
    words = list(dict.fromkeys(word for members in sets.values() for word in members))
    why = model.missing_reasons(words, tell_apart=False)
    present = [word for word in words if word not in why]
    left_out = {
        name: [word for word in members if word in why]
        for name, members in sets.items()
        if any(word in why for word in members)
    }
    skipped = too_many_lost(sets, left_out, config.max_missing)
    if skipped:
        return QueryVectors({}, {}, {}, (), left_out, why, skipped)
    for name, members in sets.items():
        if len(left_out.get(name, [])) == len(members):
            from wordlens.report.html import listed_by_reason

            raise EmptyInputError(
                f"query set {name!r}: the model lacks or cannot tell apart every word "
                f"({listed_by_reason(list(members), why)})"
            )
    context = "none" if model.info.kind == "static" else config.context
    embeddings = model.embed(
        word_targets(present, context, config.template),
        config.layers,
        config.pooling,
        cache=cache,
        progress=progress,
    )
    row = {word: index for index, word in enumerate(present)}
    kept = {name: [word for word in members if word not in why] for name, members in sets.items()}
    roles = {name: "targets" for name in query.targets}
    roles |= {name: "attributes" for name in query.attributes}
    refuse_twins(roles, kept, {word: embeddings.vectors[row[word]] for word in present}, model)

    def vectors(name: str) -> FloatArray:
        return np.asarray(embeddings.vectors[[row[w] for w in kept[name]]], dtype=np.float64)

    return QueryVectors(
        {name: vectors(name) for name in query.targets},
        {name: vectors(name) for name in query.attributes},
        kept,
        tuple(embeddings.layers),
        left_out,
        why,
    )


def too_many_lost(
    sets: Mapping[str, Sequence[str]],
    lost: Mapping[str, Sequence[str]],
    max_missing: float | None,
) -> str:
    """Why a query is skipped: the sets that lost more than ``max_missing`` of their words, as
    WEFE skips a query (``lost_vocabulary_threshold``: a set's lost share strictly greater
    than the threshold; Badilla et al. 2020); '' when none did or there is no threshold.

    Parameters
    ----------
    sets
        Set name → the query's words.
    lost
        Set name → the words the model lacks (sets that lost none may be absent).
    max_missing
        The most share of a set's words that may be lost, or None for no threshold.
    """
    if max_missing is None:
        return ""
    shares = {name: len(lost.get(name, ())) / len(words) for name, words in sets.items()}
    over = [
        f"{name!r} lost {len(lost[name])} of {len(sets[name])} words ({share:.0%})"
        for name, share in shares.items()
        if share > max_missing
    ]
    if not over:
        return ""
    return f"skipped: {'; '.join(over)}, more than --max-missing {max_missing:g} of a set's words"


def refuse_twins(
    roles: Mapping[str, str],
    kept: Mapping[str, Sequence[str]],
    vectors: Mapping[str, npt.NDArray[np.floating]],
    model: WordEmbedder,
    context: str = "",
) -> None:
    """Refuse two distinct words that reach the same vector where a query may not repeat a
    word: in one set, or in two sets of one role (the two target sets, the two attribute sets;
    a target word may also be an attribute word, as in the query itself).

    Parameters
    ----------
    roles
        Set name → its role (``"targets"``, ``"attributes"``).
    kept
        Set name → the words the model reads, in the query's order.
    vectors
        Word → its vectors ``[n_layers, dim]`` (every layer must match for twins).
    model
        The model (its name and its :meth:`~wordlens.models.base.WordEmbedder.spelling`, for
        the reason).
    context
        What the message names first (``"WEAT test 0 (...): "``), or nothing.

    Raises
    ------
    WordSetError
        Naming each pair of twins, their sets and why the model reads them as one.
    """
    from wordlens.errors import WordSetError

    groups: dict[bytes, list[tuple[str, str]]] = {}
    for name, members in kept.items():
        for word in members:
            key = np.ascontiguousarray(vectors[word]).tobytes()
            groups.setdefault(key, []).append((word, name))
    twins = [
        f"{_shown(first, second)} ({first_set}) and {_shown(second, first)} ({second_set}): "
        + _why_twins(first, second, model)
        for group in groups.values()
        for (first, first_set), (second, second_set) in itertools.combinations(group, 2)
        if first != second and roles[first_set] == roles[second_set]
    ]
    if twins:
        raise WordSetError(
            f"{context}{model.info.name} reads these words as one word (the same vector at every "
            f"layer), so a query may not list both where it may not repeat a word: "
            + "; ".join(twins)
            + ". Keep one of each."
        )


def _why_twins(first: str, second: str, model: WordEmbedder) -> str:
    """Why the model reads two distinct words alike, as far as their spelling tells."""
    if model.spelling(first) == model.spelling(second):
        return f"one spelling once Unicode-normalised ({model.unicode_form})"
    if first.casefold() == second.casefold():
        return "they differ only in case, which its lookup or tokenizer folds"
    return "the same vector"


def _shown(word: str, twin: str) -> str:
    """``word`` quoted, with escapes (``'cafe\\u0301'``) where it would look like its twin (one
    NFC form)."""
    import unicodedata

    alike = unicodedata.normalize("NFC", word) == unicodedata.normalize("NFC", twin)
    return ascii(word) if alike else shown_word(word)
