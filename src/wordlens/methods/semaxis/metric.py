"""The computation of :mod:`wordlens.methods.semaxis` at every layer at once, on numpy arrays
``[..., n_words, n_layers, dim]`` (leading axes: the draws of a resampling, broadcast between the
sets; imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.methods.association.geometry import cosines

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["semaxis_scores"]


def semaxis_scores(words: FloatArray, axis: FloatArray) -> FloatArray:
    """Each word's SemAxis score, ``cos(w, axis)`` (An et al. 2018, Eq. 2), at every layer.

    Parameters
    ----------
    words
        ``[..., n_words, n_layers, dim]``.
    axis
        ``[..., n_layers, dim]``, leading axes broadcast with those of ``words``.

    Returns
    -------
    FloatArray
        ``[..., n_words, n_layers]``; NaN where the word or the axis is the zero vector.
    """
    return cosines(words, axis)
