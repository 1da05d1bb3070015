"""The computation of :mod:`wordlens.methods.mac` at every layer at once, on numpy arrays
``[..., n_words, n_layers, dim]`` (leading axes: the draws of a resampling, broadcast between the
sets; imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from wordlens.methods.association.geometry import unit

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["mean_average_cosine", "set_distances"]


def mean_average_cosine(
    targets: Sequence[FloatArray], attributes: Sequence[FloatArray]
) -> FloatArray:
    """MAC of the target words with the attribute sets at every layer.

    Parameters
    ----------
    targets
        The target sets, ``[..., n_words, n_layers, dim]`` each, with the same leading axes;
        their words are pooled (each word counts once, whatever its set's size).
    attributes
        The attribute sets ``A_j``, ``[..., n_words_j, n_layers, dim]`` each, leading axes
        broadcast with the targets'; each set counts once, whatever its size.

    Returns
    -------
    FloatArray
        ``[..., n_layers]``: ``mean_{t, j} S(t, A_j)`` with ``S(t, A_j) = mean_{a in A_j}
        (1 - cos(t, a))``; NaN at a layer where a vector has length 0.
    """
    per_set = set_distances(np.concatenate(list(targets), axis=-3), attributes)
    return np.asarray(np.stack(per_set).mean(axis=(0, -2)), dtype=np.float64)


def set_distances(words: FloatArray, attributes: Sequence[FloatArray]) -> list[FloatArray]:
    """Each word's mean cosine distance to each attribute set, ``S(t, A_j) = mean_{a in A_j}
    (1 - cos(t, a))`` (Manzini et al. 2019, MAC), at every layer.

    Parameters
    ----------
    words
        ``[..., n_words, n_layers, dim]``.
    attributes
        The attribute sets ``A_j``, ``[..., n_words_j, n_layers, dim]`` each, leading axes
        broadcast with those of ``words``.

    Returns
    -------
    list of FloatArray
        One per attribute set, ``[..., n_words, n_layers]``: MAC is their mean over the target
        words and the sets (:func:`mean_average_cosine`); NaN where a vector has length 0.
    """
    directions = unit(words)
    return [
        np.asarray(
            1.0 - np.einsum("...tld,...ald->...tal", directions, unit(attribute)).mean(axis=-2),
            dtype=np.float64,
        )
        for attribute in attributes
    ]
