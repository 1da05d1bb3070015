"""The computation of :mod:`wordlens.methods.ripa` at every layer at once, on numpy arrays
``[..., n_words, n_layers, dim]`` (leading axes: the draws of a resampling, broadcast between the
sets; imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from wordlens.methods.ripa.config import Relation

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["relation_vector"]


def relation_vector(x: FloatArray, y: FloatArray, relation: Relation = "pc") -> FloatArray:
    """The relation vector of the pairs ``(x_i, y_i)`` at every layer.

    Parameters
    ----------
    x, y
        ``[..., n_pairs, n_layers, dim]`` each, paired by row, leading axes broadcast.
    relation
        ``"pc"``: the unit first principal component of the differences ``x_i - y_i``
        (uncentred, as the paper's single-pair case ``b = (x - y) / ||x - y||`` requires),
        its sign chosen so that ``b`` points from ``Y`` to ``X`` (``b · sum_i (x_i - y_i) >=
        0``); ``"pairs"``: the mean of the unit differences ``(x_i - y_i) / ||x_i - y_i||``
        (WEFE's association ``mean_i w · b_i`` is ``w`` times this mean).

    Returns
    -------
    FloatArray
        ``[..., n_layers, dim]``; NaN at a layer where a difference (``"pairs"``) or every
        difference (``"pc"``) is the zero vector.
    """
    differences = np.moveaxis(x - y, -3, -2)  # [..., n_layers, n_pairs, dim]
    with np.errstate(divide="ignore", invalid="ignore"):
        if relation == "pairs":
            norms = np.linalg.norm(differences, axis=-1, keepdims=True)  # [..., L, n_pairs, 1]
            unit = np.where(norms > 0, differences / norms, np.nan)
            return np.asarray(unit.mean(axis=-2), dtype=np.float64)
        _, singular, right = np.linalg.svd(differences, full_matrices=False)
        first = right[..., 0, :]  # [..., n_layers, dim], unit
        total = differences.sum(axis=-2)  # [..., n_layers, dim]
        sign = np.where(np.einsum("...ld,...ld->...l", first, total) < 0, -1.0, 1.0)
        component = first * sign[..., None]
        return np.asarray(np.where(singular[..., :1] > 0, component, np.nan), dtype=np.float64)
