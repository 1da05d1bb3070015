"""Mean average cosine distance, MAC (Manzini, Lim, Tsvetkov & Black 2019), at every layer of a
model.

Every target word's mean cosine distance to each attribute set, averaged over the target words
(of both target sets together) and the attribute sets: one value per layer for the whole query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.association.method import MoreBias
from wordlens.methods.registry import register

if TYPE_CHECKING:
    from wordlens.methods.association import Part
    from wordlens.methods.association.vectors import FloatArray
    from wordlens.methods.association.words import Contribution

__all__ = ["MeanAverageCosine"]


@register
class MeanAverageCosine(AssociationMethod[AssociationConfig]):
    """Mean average cosine distance (MAC) of Manzini et al. (2019) at every layer: the target
    words' mean cosine distance to each attribute set, averaged (smaller: closer)."""

    name = "mac"
    title = "Mean average cosine distance (MAC)"
    label = "MAC"
    citation = "Manzini, Lim, Tsvetkov & Black (2019), NAACL-HLT"
    config_type = AssociationConfig
    formula = (
        "MAC(T, A) = 1/(|T||A|) sum over t in T, A_j in A of S(t, A_j), S(t, A_j) = mean over "
        "a in A_j of (1 - cos(t, a)) (Manzini et al. 2019, MAC); T: both target sets' words"
    )
    attributes_per_part: ClassVar[int | None] = None
    compares_targets: ClassVar[bool] = False
    no_permutation: ClassVar[str] = (
        "MAC pools the words of both target sets, so every partition of those words into two "
        "sets gives the same value (p would always be 1); the bootstrap interval shows the "
        "uncertainty"
    )
    more_bias: ClassVar[MoreBias] = "smaller"
    word_totals: ClassVar[str] = (
        "each target word's S(t, A_j), its mean cosine distance to the attribute set A_j: "
        "the value is their mean over every target word and attribute set"
    )

    def score(
        self,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> FloatArray:
        """MAC at every layer of the target words with the attribute sets.

        Manzini, Lim, Tsvetkov & Black (2019), "Black is to Criminal as Caucasian is to
        Police", NAACL-HLT: with ``T`` the target words and ``A = {A_1, ..., A_J}`` the
        attribute sets (``cos`` there is the cosine *distance*)::

            S(t, A_j) = 1/|A_j| sum_{a in A_j} (1 - cos(t, a))
            MAC(T, A) = 1/(|T| |A|) sum_{t in T} sum_{A_j in A} S(t, A_j)

        The words of both target sets are pooled into ``T``, as WEFE's ``MAC`` does. Smaller:
        the targets lie closer to the attribute words (more association).

        Parameters
        ----------
        targets
            The two target sets: ``[..., n_words, n_layers, dim]`` each.
        attributes
            The attribute sets: ``[..., n_words, n_layers, dim]`` each.
        config
            Unused (MAC has no options of its own).

        Returns
        -------
        FloatArray
            ``[..., n_layers]`` (:func:`mean_average_cosine`).
        """
        from wordlens.methods.mac.metric import mean_average_cosine

        return mean_average_cosine(targets, attributes)

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> list[Contribution]:
        """Each target word's ``S(t, A_j)`` for each attribute set (Manzini et al. 2019;
        :func:`set_distances`), whose mean over the words and the sets is :meth:`score`."""
        from wordlens.methods.association.words import Contribution
        from wordlens.methods.mac.metric import set_distances

        distances = [set_distances(words, attributes) for words in targets]  # [set][A_j]
        return [
            Contribution(
                f"S(t, {name}) = mean over a in {name} of 1 - cos(t, a)",
                {target: by_set[j] for target, by_set in zip(part.targets, distances, strict=True)},
            )
            for j, name in enumerate(part.attributes)
        ]
