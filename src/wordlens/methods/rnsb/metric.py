"""The computation of :mod:`wordlens.methods.rnsb` at every layer at once, on numpy arrays
``[n_words, n_layers, dim]`` (imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from wordlens.errors import WordSetError

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["kl_from_uniform", "kl_terms", "rnsb_fits"]


def kl_from_uniform(negative: FloatArray) -> FloatArray:
    """``KL(P || U)`` of the distribution ``P`` of ``negative`` normalised over the words
    (natural log), at every layer.

    Parameters
    ----------
    negative
        ``[..., n_words, n_layers]`` probabilities of the negative class.

    Returns
    -------
    FloatArray
        ``[..., n_layers]``: the sum of :func:`kl_terms` over the words; 0 when every word is
        equally negative.
    """
    return np.asarray(kl_terms(negative).sum(axis=-2), dtype=np.float64)


def kl_terms(negative: FloatArray) -> FloatArray:
    """Each word's term ``P(w) log(P(w) |W|)`` of ``KL(P || U)`` (Sweeney & Najafian 2019, §3),
    ``P(w) = p(w) / sum_v p(v)`` over the ``|W|`` words, at every layer.

    Parameters
    ----------
    negative
        ``[..., n_words, n_layers]`` probabilities of the negative class.

    Returns
    -------
    FloatArray
        ``[..., n_words, n_layers]``; 0 where ``P(w)`` is 0.
    """
    p = negative / negative.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p * p.shape[-2]), 0.0)
    return np.asarray(terms, dtype=np.float64)


def rnsb_fits(
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    fits: int,
    holdout: bool,
    seed: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """RNSB, the classifier's accuracy and the target words' probabilities of negative
    sentiment for each fit at every layer.

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
    negatives
        ``[fits, n_target_words, n_layers]``: ``p(negative | w)`` of every target word (the
        target sets' words in order), whose :func:`kl_from_uniform` is the divergence.

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
    negatives = np.empty((fits, len(pooled), n_layers))
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
        negative_probability = negatives[fit]
        for layer in range(n_layers):
            classifier = LogisticRegression(solver="liblinear", max_iter=10000, random_state=state)
            classifier.fit(words[train, layer], labels[train])
            column = int(np.flatnonzero(classifier.classes_ == -1)[0])
            negative_probability[:, layer] = classifier.predict_proba(pooled[:, layer])[:, column]
            accuracies[fit, layer] = classifier.score(words[test, layer], labels[test])
    return kl_from_uniform(negatives), accuracies, negatives
