"""RNSB, the relative negative sentiment bias (Sweeney & Najafian 2019), at every layer of a
model.

At each layer a logistic regression learns to tell the second attribute set (negative) from
the first (positive); its probabilities of "negative" for every target word, normalised into a
distribution ``P``, are compared with the uniform distribution by the KL divergence. The fit is
repeated with ``fits`` random states: the value is their mean, ``fits_sd`` their spread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from wordlens.errors import WordSetError
from wordlens.methods.association import AssociationMethod, FloatArray
from wordlens.methods.registry import register
from wordlens.methods.rnsb.config import RnsbConfig

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Rnsb", "RnsbConfig", "kl_from_uniform", "rnsb_fits"]


def kl_from_uniform(negative: FloatArray) -> FloatArray:
    """``KL(P || U)`` of the distribution ``P`` of ``negative`` normalised over the words
    (natural log), at every layer.

    Parameters
    ----------
    negative
        ``[n_words, n_layers]`` probabilities of the negative class.

    Returns
    -------
    FloatArray
        ``[n_layers]``; 0 when every word is equally negative.
    """
    p = negative / negative.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p * len(p)), 0.0)
    return np.asarray(terms.sum(axis=0), dtype=np.float64)


def rnsb_fits(
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    fits: int,
    holdout: bool,
    seed: int,
) -> tuple[FloatArray, FloatArray]:
    """RNSB and the classifier's accuracy for each fit at every layer.

    Fit ``k`` uses random state ``seed + k`` for the stratified 80/20 split of the attribute
    words (the same words at every layer) and for scikit-learn's liblinear logistic
    regression (``max_iter=10000``), as WEFE's ``RNSB.run_query(random_state=seed + k)``.

    Parameters
    ----------
    targets
        The target sets, ``[n_words, n_layers, dim]`` each; their words are pooled.
    attributes
        The positive then the negative attribute set, ``[n_words, n_layers, dim]`` each.

    Returns
    -------
    divergences, accuracies
        ``[fits, n_layers]`` each: ``KL(P || U)``, and the accuracy on the held-out 20% (on
        the training words without ``holdout``).

    Raises
    ------
    WordSetError
        If the attribute sets are too small for a stratified holdout split.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    positive, negative = attributes
    words = np.concatenate([positive, negative])  # [n_attribute_words, n_layers, dim]
    labels = np.concatenate([np.ones(len(positive)), -np.ones(len(negative))])
    pooled = np.concatenate(list(targets))  # [n_target_words, n_layers, dim]
    n_layers = words.shape[1]
    divergences = np.empty((fits, n_layers))
    accuracies = np.empty((fits, n_layers))
    for fit in range(fits):
        state = seed + fit
        train = test = np.arange(len(words))
        if holdout:
            try:
                train, test = train_test_split(
                    np.arange(len(words)),
                    shuffle=True,
                    random_state=state,
                    test_size=0.2,
                    stratify=labels,
                )
            except ValueError as error:
                raise WordSetError(
                    f"rnsb: the attribute sets ({len(positive)} and {len(negative)} words) are "
                    f"too small for a stratified 80/20 holdout split ({error}); give more "
                    "words or --no-holdout"
                ) from None
        negative_probability = np.empty((len(pooled), n_layers))
        for layer in range(n_layers):
            classifier = LogisticRegression(solver="liblinear", max_iter=10000, random_state=state)
            classifier.fit(words[train, layer], labels[train])
            column = int(np.flatnonzero(classifier.classes_ == -1)[0])
            negative_probability[:, layer] = classifier.predict_proba(pooled[:, layer])[:, column]
            accuracies[fit, layer] = classifier.score(words[test, layer], labels[test])
        divergences[fit] = kl_from_uniform(negative_probability)
    return divergences, accuracies


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

    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RnsbConfig
    ) -> FloatArray:
        """Mean RNSB over the fits, ``[n_layers]`` (:func:`rnsb_fits`)."""
        divergences, _ = rnsb_fits(
            targets, attributes, fits=config.fits, holdout=config.holdout, seed=config.seed
        )
        return np.asarray(divergences.mean(axis=0), dtype=np.float64)

    def observed(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RnsbConfig
    ) -> tuple[FloatArray, dict[str, FloatArray]]:
        """Mean RNSB over the fits, with ``fits_sd``, the standard deviation of RNSB over the
        fits (NaN for one fit), and ``accuracy``, the classifiers' mean held-out accuracy."""
        divergences, accuracies = rnsb_fits(
            targets, attributes, fits=config.fits, holdout=config.holdout, seed=config.seed
        )
        layers = divergences.shape[1]
        spread = divergences.std(axis=0, ddof=1) if config.fits > 1 else np.full(layers, np.nan)
        value = np.asarray(divergences.mean(axis=0), dtype=np.float64)
        return value, {"fits_sd": spread, "accuracy": accuracies.mean(axis=0)}

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
