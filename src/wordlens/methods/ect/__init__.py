"""Embedding coherence test (Dev & Phillips 2019) at every layer of a model.

The two target sets are each averaged into one vector; every attribute word's cosine similarity
with each mean gives two lists, and ECT is their Spearman rank correlation: 1 when the attribute
words are ordered alike by both target sets (no bias), lower the more the orders differ. One
part per attribute set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.association.method import MoreBias
from wordlens.methods.registry import register

if TYPE_CHECKING:
    import pandas as pd

    from wordlens.methods.association import Part
    from wordlens.methods.association.vectors import FloatArray
    from wordlens.methods.association.words import Contribution

__all__ = ["EmbeddingCoherenceTest"]


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
    word_totals: ClassVar[str] = (
        "each attribute word's cosine with the mean vector of each target set: the value is "
        "Spearman's rho between the two lists over the part's attribute words"
    )

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
            ``T1``, ``T2``: ``[..., n_words, n_layers, dim]`` each.
        attributes
            The one attribute set of the part: ``[..., n_words, n_layers, dim]``.
        config
            Unused (ECT has no options of its own).

        Returns
        -------
        FloatArray
            ``[..., n_layers]``, NaN where a cosine list is constant
            (:func:`embedding_coherence`).
        """
        from wordlens.methods.ect.metric import embedding_coherence

        first, second = targets
        (attribute,) = attributes
        return embedding_coherence(first, second, attribute)

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> list[Contribution]:
        """Each attribute word's ``cos(a, mean(T1))`` and ``cos(a, mean(T2))``, the two lists
        whose Spearman correlation is ECT (Dev & Phillips 2019), ``[n_words, n_layers]`` each
        (:func:`target_cosines`)."""
        from wordlens.methods.association.words import Contribution
        from wordlens.methods.ect.metric import target_cosines

        first, second = targets
        (attribute,) = attributes
        similarities = target_cosines(first, second, attribute)
        return [
            Contribution(f"cos(a, mean({name}))", {part.attributes[0]: cosines})
            for name, cosines in zip(part.targets, similarities, strict=True)
        ]

    def notes(self, table: pd.DataFrame) -> list[str]:
        """Why each NaN is one (:func:`undefined_notes`)."""
        from wordlens.methods.ect.metric import undefined_notes

        return undefined_notes(table)
