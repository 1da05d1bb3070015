"""A query's word sets embedded once, at every requested layer (:func:`embed_query`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from wordlens.contexts import word_targets
from wordlens.errors import EmptyInputError

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
    """

    targets: dict[str, FloatArray]
    attributes: dict[str, FloatArray]
    words: dict[str, list[str]]
    layers: tuple[int, ...]
    left_out: dict[str, list[str]]
    why: dict[str, str]


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

    Words the model cannot read, or cannot tell apart from another word of the query (an
    uncased model's "Bill" and "bill"), are left out of their set, counted and listed
    (:attr:`QueryVectors.left_out`), never dropped silently.

    Raises
    ------
    EmptyInputError
        If a set loses every word (naming the set and why).
    """
    sets = {**query.targets, **query.attributes}
    words = list(dict.fromkeys(word for members in sets.values() for word in members))
    why = model.missing_reasons(words)
    present = [word for word in words if word not in why]
    left_out = {
        name: [word for word in members if word in why]
        for name, members in sets.items()
        if any(word in why for word in members)
    }
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
