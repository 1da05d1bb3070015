"""RNSB, the relative negative sentiment bias (Sweeney & Najafian 2019), at every layer of a
model.

At each layer a logistic regression learns to tell the second attribute set (negative) from
the first (positive); its probabilities of "negative" for every target word, normalised into a
distribution ``P``, are compared with the uniform distribution by the KL divergence. The fit is
repeated with ``fits`` random states: the value is their mean, ``fits_sd`` their spread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens.methods.association import AssociationMethod
from wordlens.methods.registry import register
from wordlens.methods.rnsb.config import RnsbConfig

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wordlens.methods.association import Part
    from wordlens.methods.association.vectors import FloatArray
    from wordlens.methods.association.words import Contribution

__all__ = ["Rnsb", "RnsbConfig"]


@register
class Rnsb(AssociationMethod[RnsbConfig]):
    """RNSB (Sweeney & Najafian 2019): how far the targets' probabilities of negative sentiment
    are from uniform.

    A logistic regression learns to tell the query's second attribute set (negative) from its
    first (positive), as WEFE's ``RNSB`` does; the probabilities ``p(w)`` of negative sentiment
    of every target word ``w`` in ``X ∪ Y`` are normalised into ``P(w) = p(w) / sum p`` and
    ``RNSB = KL(P || U) = sum_w P(w) log(P(w) |X ∪ Y|)`` with ``U`` the uniform distribution
    (§3 of the paper). The paper trains on a sentiment lexicon; here the attribute sets are the
    lexicon. The classifier is fitted ``fits`` times at every layer (random state ``seed + k``
    for its holdout split and solver); the value is the mean over the fits, the table adds
    ``fits_sd`` (their standard deviation) and ``accuracy`` (mean held-out accuracy).

    RNSB pools the target words into one distribution, so it does not change when the words
    are split differently between ``X`` and ``Y``: there is no permutation test.

    References
    ----------
    Sweeney, C. & Najafian, M. (2019). A transparent framework for evaluating unintended
    demographic bias in word embeddings. *ACL 2019*, 1662-1667.
    """

    name = "rnsb"
    title = "Relative negative sentiment bias (RNSB)"
    label = "RNSB"
    citation = "Sweeney & Najafian (2019), ACL"
    config_type = RnsbConfig
    formula = (
        "RNSB = KL(P || U), P(w) = p(negative | w) / sum over X ∪ Y of p(negative | w), "
        "U uniform over X ∪ Y (§3); p from a logistic regression of B (negative) vs. A"
    )
    attributes_per_part = None
    compares_targets = False
    no_permutation = (
        "RNSB pools the words of both target sets into one distribution, so its value is the "
        "same for every partition of them"
    )
    more_bias = "larger"
    batched = False  # each draw refits the classifiers
    word_totals = (
        "each target word's p(negative | w) and its term P(w) log(P(w) |X ∪ Y|) of the "
        "divergence, each the mean over the fits: the terms' sum over the target words is "
        "the value"
    )

    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RnsbConfig
    ) -> FloatArray:
        """Mean RNSB over the fits, ``[n_layers]`` (:func:`rnsb_fits`)."""
        import numpy as np

        from wordlens.methods.rnsb.metric import rnsb_fits

        divergences, _, _ = rnsb_fits(
            targets, attributes, fits=config.fits, holdout=config.holdout, seed=config.seed
        )
        return np.asarray(divergences.mean(axis=0), dtype=np.float64)

    def observed(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: RnsbConfig,
    ) -> tuple[FloatArray, dict[str, FloatArray], list[Contribution]]:
        """Mean RNSB over the fits, with ``fits_sd``, the standard deviation of RNSB over the
        fits (NaN for one fit), ``accuracy``, the classifiers' mean held-out accuracy, and the
        target words' scores from the same fits (:meth:`contributions`)."""
        import numpy as np

        from wordlens.methods.rnsb.metric import rnsb_fits

        divergences, accuracies, negatives = rnsb_fits(
            targets, attributes, fits=config.fits, holdout=config.holdout, seed=config.seed
        )
        layers = divergences.shape[1]
        spread = divergences.std(axis=0, ddof=1) if config.fits > 1 else np.full(layers, np.nan)
        value = np.asarray(divergences.mean(axis=0), dtype=np.float64)
        own = {"fits_sd": spread, "accuracy": accuracies.mean(axis=0)}
        return value, own, _word_scores(part, targets, negatives)

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: RnsbConfig,
    ) -> list[Contribution]:
        """Each target word's ``p(negative | w)`` and its term ``P(w) log(P(w) |X ∪ Y|)`` of
        ``KL(P || U)`` (§3), each the mean over the fits: the terms' sum over the target words
        is the mean RNSB over the fits (:meth:`score`)."""
        return self.observed(part, targets, attributes, config)[2]

    def uncertainty(self, config: RnsbConfig) -> dict[str, Any]:
        """The scaffold's description, the spread over the fits, and why there is no
        interval by default."""
        described = super().uncertainty(config)
        if not config.bootstrap:
            described["interval"] = (
                "none (bootstrap 0, RNSB's default: each resample refits every classifier at "
                "every layer)"
            )
        described["spread"] = (
            f"fits_sd: standard deviation of RNSB over {config.fits} logistic regressions "
            f"(random states {config.seed} to {config.seed + config.fits - 1}"
            f"{', each on a stratified 80% holdout split' if config.holdout else ''})"
        )
        return described


def _word_scores(
    part: Part, targets: Sequence[FloatArray], negatives: FloatArray
) -> list[Contribution]:
    """The target words' mean ``p(negative | w)`` and mean KL term over the fits, by set, from
    the fits' probabilities ``[fits, n_target_words, n_layers]`` (:func:`rnsb_fits`)."""
    import numpy as np

    from wordlens.methods.association.words import Contribution
    from wordlens.methods.rnsb.metric import kl_terms

    ends = np.cumsum([len(words) for words in targets])[:-1]
    quantities = {
        "p(negative | w)": negatives.mean(axis=0),
        "P(w) log(P(w) |X ∪ Y|)": kl_terms(negatives).mean(axis=0),
    }
    return [
        Contribution(
            quantity,
            dict(zip(part.targets, np.split(scores, ends, axis=0), strict=True)),
        )
        for quantity, scores in quantities.items()
    ]
