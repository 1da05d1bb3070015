"""Relative norm distance (Garg, Schiebinger, Jurafsky & Zou 2018) at every layer of a model.

For one attribute set ``A`` and the target sets ``T1``, ``T2`` (each averaged into one vector),
the sum over the attribute words of how much nearer ``mean(T2)`` than ``mean(T1)`` each one
lies. One part per attribute set; the options (:class:`RndConfig`) give WEFE's variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from wordlens.methods.association import AssociationMethod
from wordlens.methods.association.method import MoreBias
from wordlens.methods.registry import register
from wordlens.methods.rnd.config import RndConfig

if TYPE_CHECKING:
    from wordlens.methods.association import Part
    from wordlens.methods.association.vectors import FloatArray
    from wordlens.methods.association.words import Contribution

__all__ = ["RelativeNormDistance", "RndConfig"]


@register
class RelativeNormDistance(AssociationMethod[RndConfig]):
    """Relative norm distance of Garg et al. (2018) at every layer: sum over an attribute set's
    words of ||a - mean(T1)|| - ||a - mean(T2)||, one attribute set at a time."""

    name = "rnd"
    title = "Relative norm distance (RND)"
    label = "RND"
    citation = "Garg, Schiebinger, Jurafsky & Zou (2018), PNAS 115(16)"
    config_type = RndConfig
    formula = (
        "RND(T1, T2, A) = sum over a in A of ||a - mean(T1)|| - ||a - mean(T2)|| on unit-length "
        "vectors (Garg et al. 2018, definition of the relative norm distance); "
        "positive: A nearer T2"
    )
    attributes_per_part: ClassVar[int | None] = 1
    compares_targets: ClassVar[bool] = True
    more_bias: ClassVar[MoreBias] = "farther from 0"
    word_totals: ClassVar[str] = (
        "each attribute word's term of the sum (||a - mean(T1)|| - ||a - mean(T2)||, or "
        "cos(a, mean(T1)) - cos(a, mean(T2)) with --distance cos): their sum over the "
        "part's attribute words is the value (their mean with --average)"
    )

    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RndConfig
    ) -> FloatArray:
        """RND at every layer of one attribute set to the two target sets.

        Garg, Schiebinger, Jurafsky & Zou (2018), PNAS 115(16), E3635-E3644: with ``v_1``,
        ``v_2`` the average vectors of the target sets and ``M`` an attribute ("neutral word")
        set, their relative norm distance is::

            RND = sum_{v_m in M} ( ||v_m - v_1||_2 - ||v_m - v_2||_2 )

        on word vectors of unit length. Positive: the attribute words lie nearer ``T2``. WEFE's
        ``RND`` differs in three ways, each an option of :class:`RndConfig`: it averages over
        the attribute words (``average``), keeps the vectors' lengths (``normalize`` False) and
        offers the cosine similarity instead of the distance (``distance="cos"``).

        Parameters
        ----------
        targets
            ``T1``, ``T2``: ``[..., n_words, n_layers, dim]`` each.
        attributes
            The one attribute set of the part: ``[..., n_words, n_layers, dim]``.
        config
            Its ``normalize``, ``average`` and ``distance``.

        Returns
        -------
        FloatArray
            ``[..., n_layers]`` (:func:`relative_norm_distance`).
        """
        from wordlens.methods.rnd.metric import relative_norm_distance

        first, second = targets
        (attribute,) = attributes
        return relative_norm_distance(
            first,
            second,
            attribute,
            normalize=config.normalize,
            average=config.average,
            distance=config.distance,
        )

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: RndConfig,
    ) -> list[Contribution]:
        """Each attribute word's term of RND (Garg et al. 2018, the relative norm distance's
        summand), ``[n_words, n_layers]`` (:func:`distance_differences`): their sum (or mean,
        ``average``) is :meth:`score`."""
        from wordlens.methods.association.words import Contribution
        from wordlens.methods.rnd.metric import distance_differences

        first, second = targets
        (attribute,) = attributes
        t1, t2 = part.targets
        gap = (
            f"||a - mean({t1})|| - ||a - mean({t2})||"
            if config.distance == "norm"
            else f"cos(a, mean({t1})) - cos(a, mean({t2}))"
        )
        terms = distance_differences(
            first, second, attribute, normalize=config.normalize, distance=config.distance
        )
        return [Contribution(gap, {part.attributes[0]: terms})]
