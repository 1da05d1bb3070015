"""The computation of :mod:`wordlens.methods.rnsb` at every layer at once, on numpy arrays
``[n_words, n_layers, dim]`` (imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from wordlens.errors import WordSetError

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["kl_from_uniform", "rnsb_fits"]


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
