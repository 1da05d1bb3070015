"""The computation of :mod:`wordlens.methods.ect` at every layer at once, on numpy arrays
``[..., n_words, n_layers, dim]`` (leading axes: the draws of a resampling, broadcast between the
sets; imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from wordlens.methods.association.geometry import cosines

if TYPE_CHECKING:
    import pandas as pd

    from wordlens.methods.association.vectors import FloatArray

__all__ = ["average_ranks", "embedding_coherence", "target_cosines", "undefined_notes"]


def embedding_coherence(
    first: FloatArray, second: FloatArray, attributes: FloatArray
) -> FloatArray:
    """ECT of one attribute set with the two target sets at every layer.

    Parameters
    ----------
    first, second
        The target sets ``T1``, ``T2``: ``[..., n_words, n_layers, dim]`` each.
    attributes
        The attribute set ``A``: ``[..., n_attributes, n_layers, dim]``; the leading axes of
        the three sets broadcast.

    Returns
    -------
    FloatArray
        ``[..., n_layers]``: Spearman's rho (Pearson's correlation of the ranks, ties given their
        average rank, as :func:`scipy.stats.spearmanr`) between ``cos(a, mean(T1))`` and
        ``cos(a, mean(T2))`` over the attribute words ``a``. NaN at a layer where either list is
        constant (all its cosines tie, e.g. one attribute word, or identical attribute vectors):
        a correlation with a constant is undefined; NaN too where a cosine is (a vector of
        length 0).
    """
    similarities = target_cosines(first, second, attributes)  # [2, ..., n_attributes, n_layers]
    ranks = average_ranks(similarities)
    centred = ranks - ranks.mean(axis=-2, keepdims=True)
    spread = np.sqrt((centred[0] ** 2).sum(axis=-2) * (centred[1] ** 2).sum(axis=-2))
    undefined = (spread == 0) | np.isnan(similarities).any(axis=(0, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (centred[0] * centred[1]).sum(axis=-2) / spread
    return np.asarray(np.where(undefined, np.nan, np.clip(rho, -1.0, 1.0)), dtype=np.float64)


def target_cosines(first: FloatArray, second: FloatArray, attributes: FloatArray) -> FloatArray:
    """Each attribute word's cosine with the mean vector of each target set at every layer: the
    two lists ``s_k = (cos(a, mean(T_k)))_{a in A}`` whose Spearman correlation is ECT (Dev &
    Phillips 2019).

    Parameters
    ----------
    first, second, attributes
        As :func:`embedding_coherence`.

    Returns
    -------
    FloatArray
        ``[2, ..., n_attributes, n_layers]``: ``s_1``, then ``s_2``; NaN where a vector has
        length 0.
    """
    means = np.broadcast_arrays(first.mean(axis=-3), second.mean(axis=-3))
    return cosines(attributes, np.stack(means))


def average_ranks(values: FloatArray) -> FloatArray:
    """Ranks of ``values`` (``[..., n, n_layers]``) along the ``n`` axis, from 1, tied values
    given the average of their ranks: :func:`scipy.stats.rankdata`'s ``"average"`` method,
    exactly (a rank is a half-integer), without its checks on every call.

    A tie group in sorted order from position ``first`` to ``last`` (from 0) gets rank
    ``(first + last) / 2 + 1``. NaN values rank apart from each other (ECT is NaN where one
    occurs).

    Returns
    -------
    FloatArray
        ``[..., n, n_layers]``.
    """
    n = values.shape[-2]
    order = np.argsort(values, axis=-2, kind="stable")  # [..., n, n_layers]
    ordered = np.take_along_axis(values, order, axis=-2)
    position = np.arange(n)[:, np.newaxis]  # [n, 1]
    starts = np.ones(ordered.shape, dtype=bool)  # a tie group starts at this position
    starts[..., 1:, :] = ordered[..., 1:, :] != ordered[..., :-1, :]
    ends = np.ones(ordered.shape, dtype=bool)  # ... ends at this position
    ends[..., :-1, :] = starts[..., 1:, :]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-2)
    last = np.flip(
        np.minimum.accumulate(np.flip(np.where(ends, position, n), axis=-2), axis=-2), axis=-2
    )
    ranks = np.empty(values.shape, dtype=np.float64)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=-2)
    return ranks


def undefined_notes(table: pd.DataFrame) -> list[str]:
    """One line per part whose ECT is NaN at some layer, saying why (``table``: the rows of
    :meth:`AssociationMethod.table`)."""
    notes: list[str] = []
    undefined = table["value"].isna()
    if not undefined.any():  # the common case, without a groupby
        return notes
    for part, rows in table.loc[undefined].groupby("part", sort=False):
        layers = [int(layer) for layer in rows["layer"]]
        single = int(rows["n_attributes"].iloc[0]) == 1
        why = (
            "it has one attribute word, so each list of cosines is one number"
            if single
            else "the attribute words' cosines with a target mean all tie (identical vectors) "
            "or a vector has length 0"
        )
        notes.append(
            f"ECT of {part} is undefined (NaN) at layer(s) {', '.join(map(str, layers))}: {why}, "
            "and a rank correlation with a constant list is undefined."
        )
    return notes
