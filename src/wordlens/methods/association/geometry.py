"""Vector geometry the association metrics share, at every layer at once: unit vectors and
cosine similarities with one vector per layer. A vector of length 0 has no direction: its unit
vector and its cosines are NaN, never a division warning or an infinity.

Arrays may carry leading axes before the words (the draws of a bootstrap or a permutation
test, :mod:`~wordlens.methods.association.resampling`); they broadcast between arguments.
"""

from __future__ import annotations

import numpy as np

from wordlens.methods.association.vectors import FloatArray


def unit(words: FloatArray) -> FloatArray:
    """``words`` (``[..., n, n_layers, dim]``) scaled to length 1 along ``dim``; NaN where a
    vector has length 0."""
    lengths = np.linalg.norm(words, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(lengths > 0, words / lengths, np.nan), dtype=np.float64)


def cosines(words: FloatArray, centre: FloatArray) -> FloatArray:
    """Cosine similarity of each word (``[..., n, n_layers, dim]``) with ``centre``
    (``[..., n_layers, dim]``: one vector per layer, leading axes broadcast with those of
    ``words``) at each layer, ``[..., n, n_layers]``; NaN where either vector has length 0."""
    dots = np.einsum("...nld,...ld->...nl", words, centre)
    lengths = np.linalg.norm(words, axis=-1) * np.linalg.norm(centre, axis=-1)[..., None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(lengths > 0, dots / lengths, np.nan), dtype=np.float64)
