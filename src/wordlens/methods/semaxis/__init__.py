"""SemAxis (An, Kwak & Ahn 2018) at every layer of a model.

The axis runs from the second attribute set's mean vector (the negative pole) to the first's
(the positive pole); a word's score is its cosine with the axis; the query's value is the mean
score of the first target set minus that of the second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.registry import register

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wordlens.methods.association import Part
    from wordlens.methods.association.vectors import FloatArray
    from wordlens.methods.association.words import Contribution

__all__ = ["SemAxis"]


@register
class SemAxis(AssociationMethod[AssociationConfig]):
    """SemAxis (An, Kwak & Ahn 2018): the targets' cosine with the axis between two poles.

    The poles are the query's two attribute sets, ``A`` (positive) and ``B`` (negative); the
    axis is ``v = mean(A) - mean(B)`` (Eq. 1) and a word's score is ``cos(w, v)`` (Eq. 2). The
    paper scores single words; for a query of two target sets, ``X`` and ``Y``, the value is
    ``mean_{x in X} cos(x, v) - mean_{y in Y} cos(y, v)``: positive when ``X`` lies nearer the
    pole ``A`` than ``Y`` does. Everything is computed at every layer at once.

    References
    ----------
    An, J., Kwak, H. & Ahn, Y.-Y. (2018). SemAxis: A lightweight framework to characterize
    domain-specific word semantics beyond sentiment. *ACL 2018*, 2450-2461.
    """

    name = "semaxis"
    title = "SemAxis"
    label = "SemAxis"
    citation = "An, Kwak & Ahn (2018), ACL"
    config_type = AssociationConfig
    formula = (
        "v = mean(A) - mean(B) (Eq. 1); score(w) = cos(w, v) (Eq. 2); "
        "value = mean over X of score(x) - mean over Y of score(y)"
    )
    attributes_per_part = None
    compares_targets = True
    more_bias = "farther from 0"
    word_totals = (
        "each target word's cos(w, v), v = mean(A) - mean(B): the value is their mean over "
        "the first target set minus their mean over the second"
    )

    def score(
        self,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> FloatArray:
        """Mean SemAxis score of ``X`` minus that of ``Y``, ``[..., n_layers]``, from sets
        ``[..., n_words, n_layers, dim]`` (NaN at a layer where the two poles have the same
        mean: the axis is the zero vector)."""
        import numpy as np

        x, y = self.target_scores(targets, attributes)
        return np.asarray(x.mean(axis=-2) - y.mean(axis=-2), dtype=np.float64)

    def target_scores(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray]
    ) -> tuple[FloatArray, FloatArray]:
        """Each target word's SemAxis score ``cos(w, v)`` (Eq. 2) on the axis ``v = mean(A) -
        mean(B)`` (Eq. 1), ``[..., n_words, n_layers]`` for ``X``, then ``Y``
        (:func:`semaxis_scores`)."""
        import numpy as np

        from wordlens.methods.semaxis.metric import semaxis_scores

        x, y = targets
        positive, negative = attributes
        axis = positive.mean(axis=-3) - negative.mean(axis=-3)  # [..., n_layers, dim]
        with np.errstate(invalid="ignore"):
            return semaxis_scores(x, axis), semaxis_scores(y, axis)

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: AssociationConfig,
    ) -> list[Contribution]:
        """Each target word's ``cos(w, v)`` (An et al. 2018, Eq. 2; :meth:`target_scores`):
        the mean over ``X`` minus the mean over ``Y`` is :meth:`score`."""
        from wordlens.methods.association.words import Contribution

        a, b = part.attributes
        scores = self.target_scores(targets, attributes)
        quantity = f"cos(w, v), v = mean({a}) - mean({b})"
        return [Contribution(quantity, dict(zip(part.targets, scores, strict=True)))]
