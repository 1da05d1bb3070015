"""Embedding coherence test (Dev & Phillips 2019) at every layer of a model.

The two target sets are each averaged into one vector; every attribute word's cosine similarity
with each mean gives two lists, and ECT is their Spearman rank correlation: 1 when the attribute
words are ordered alike by both target sets (no bias), lower the more the orders differ. One
part per attribute set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy.stats import rankdata

from wordlens.methods.association import AssociationConfig, AssociationMethod, FloatArray
from wordlens.methods.association.geometry import cosines
from wordlens.methods.association.method import MoreBias
from wordlens.methods.registry import register

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EmbeddingCoherenceTest", "embedding_coherence", "undefined_notes"]


def embedding_coherence(
    first: FloatArray, second: FloatArray, attributes: FloatArray
) -> FloatArray:
    """ECT of one attribute set with the two target sets at every layer.

    Parameters
    ----------
    first, second
        The target sets ``T1``, ``T2``: ``[n_words, n_layers, dim]`` each.
    attributes
        The attribute set ``A``: ``[n_attributes, n_layers, dim]``.

    Returns
    -------
    FloatArray
        ``[n_layers]``: Spearman's rho (Pearson's correlation of the ranks, ties given their
        average rank, as :func:`scipy.stats.spearmanr`) between ``cos(a, mean(T1))`` and
        ``cos(a, mean(T2))`` over the attribute words ``a``. NaN at a layer where either list is
        constant (all its cosines tie, e.g. one attribute word, or identical attribute vectors):
        a correlation with a constant is undefined; NaN too where a cosine is (a vector of
        length 0).
    """
    similarities = [cosines(attributes, words.mean(axis=0)) for words in (first, second)]
    ranks = [rankdata(values, axis=0) for values in similarities]  # [n_attributes, n_layers]
    centred = [rank - rank.mean(axis=0) for rank in ranks]
    spread = np.sqrt((centred[0] ** 2).sum(axis=0) * (centred[1] ** 2).sum(axis=0))
    undefined = (spread == 0) | np.isnan(similarities[0]).any(axis=0)
    undefined |= np.isnan(similarities[1]).any(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (centred[0] * centred[1]).sum(axis=0) / spread
    return np.asarray(np.where(undefined, np.nan, np.clip(rho, -1.0, 1.0)), dtype=np.float64)


@register
class EmbeddingCoherenceTest(AssociationMethod[AssociationConfig]):
    """Embedding coherence test of Dev & Phillips (2019) at every layer: Spearman correlation
    of an attribute set's cosines with the two target sets' means (1: no bias)."""

    name = "ect"
    title = "Embedding coherence test (ECT)"
    label = "ECT"
    citation = "Dev & Phillips (2019), AISTATS, PMLR 89"
    config_type = AssociationConfig
    formula = (
        "ECT(T1, T2, A) = Spearman rho between (cos(a, mean(T1)))_a and (cos(a, mean(T2)))_a "
        "over a in A (Dev & Phillips 2019, the embedding coherence test); 1: no bias"
    )
    attributes_per_part: ClassVar[int | None] = 1
    more_bias: ClassVar[MoreBias] = "smaller"

    def score(
        self,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> FloatArray:
        """ECT at every layer of one attribute set with the two target sets.

        Dev & Phillips (2019), "Attenuating Bias in Word Vectors", AISTATS (PMLR 89): with
        ``m_1``, ``m_2`` the mean vectors of the target sets and ``A`` the attribute words,
        ``s_k = (cos(a, m_k))_{a in A}``, and their embedding coherence test is::

            ECT = spearman_rho(s_1, s_2)

        1: both target sets order the attribute words alike (no bias); smaller: more
        association. As WEFE's ``ECT``, on the vectors as the model gives them (WEFE's default
        ``normalize=False``).

        Parameters
        ----------
        targets
            ``T1``, ``T2``: ``[n_words, n_layers, dim]`` each.
        attributes
            The one attribute set of the part: ``[n_words, n_layers, dim]``.
        config
            Unused (ECT has no options of its own).

        Returns
        -------
        FloatArray
            ``[n_layers]``, NaN where a cosine list is constant (:func:`embedding_coherence`).
        """
        first, second = targets
        (attribute,) = attributes
        return embedding_coherence(first, second, attribute)

    def notes(self, table: pd.DataFrame) -> list[str]:
        """Why each NaN is one (:func:`undefined_notes`)."""
        return undefined_notes(table)


def undefined_notes(table: pd.DataFrame) -> list[str]:
    """One line per part whose ECT is NaN at some layer, saying why (``table``: the rows of
    :meth:`AssociationMethod.table`)."""
    notes = []
    for part, rows in table.groupby("part", sort=False):
        layers = [int(layer) for layer in rows.loc[rows["value"].isna(), "layer"]]
        if not layers:
            continue
        single = int(rows["n_attributes"].iloc[0]) == 1
        why = (
            "it has one attribute word, so each list of cosines is one number"
            if single
            else "the attribute words' cosines with a target mean all tie (identical vectors) "
            "or a vector has length 0"
        )
        notes.append(
            f"ECT of {part} is undefined (NaN) at layer(s) {', '.join(map(str, layers))}: {why}, "
            "and a rank correlation with a constant list is undefined."
        )
    return notes
