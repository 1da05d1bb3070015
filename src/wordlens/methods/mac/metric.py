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

__all__ = ["mean_average_cosine"]


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
    pooled = unit(np.concatenate(list(targets), axis=-3))  # [..., n_targets, n_layers, dim]
    per_set = [  # [..., n_targets, n_layers] each
        1.0 - np.einsum("...tld,...ald->...tal", pooled, unit(words)).mean(axis=-2)
        for words in attributes
    ]
    return np.asarray(np.stack(per_set).mean(axis=(0, -2)), dtype=np.float64)
