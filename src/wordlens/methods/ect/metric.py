"""The computation of :mod:`wordlens.methods.ect` at every layer at once, on numpy arrays
``[n_words, n_layers, dim]`` (imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import rankdata

from wordlens.methods.association.geometry import cosines

if TYPE_CHECKING:
    import pandas as pd

    from wordlens.methods.association.vectors import FloatArray

__all__ = ["embedding_coherence", "undefined_notes"]


def embedding_coherence(
    first: FloatArray, second: FloatArray, attributes: FloatArray
) -> FloatArray:
    """ECT of one attribute set with the two target sets at every layer.

    Parameters
    ----------
    first, second
        The target sets ``T1``, ``T2``: ``[n_words, n_layers, dim]`` each.
    attributes
        The attribute set ``A``: ``[n_attributes, n_layers, dim]``.

    Returns
    -------
    FloatArray
        ``[n_layers]``: Spearman's rho (Pearson's correlation of the ranks, ties given their
        average rank, as :func:`scipy.stats.spearmanr`) between ``cos(a, mean(T1))`` and
        ``cos(a, mean(T2))`` over the attribute words ``a``. NaN at a layer where either list is
        constant (all its cosines tie, e.g. one attribute word, or identical attribute vectors):
        a correlation with a constant is undefined; NaN too where a cosine is (a vector of
        length 0).
    """
    similarities = [cosines(attributes, words.mean(axis=0)) for words in (first, second)]
    ranks = [rankdata(values, axis=0) for values in similarities]  # [n_attributes, n_layers]
    centred = [rank - rank.mean(axis=0) for rank in ranks]
    spread = np.sqrt((centred[0] ** 2).sum(axis=0) * (centred[1] ** 2).sum(axis=0))
    undefined = (spread == 0) | np.isnan(similarities[0]).any(axis=0)
    undefined |= np.isnan(similarities[1]).any(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (centred[0] * centred[1]).sum(axis=0) / spread
    return np.asarray(np.where(undefined, np.nan, np.clip(rho, -1.0, 1.0)), dtype=np.float64)


def undefined_notes(table: pd.DataFrame) -> list[str]:
    """One line per part whose ECT is NaN at some layer, saying why (``table``: the rows of
    :meth:`AssociationMethod.table`)."""
    notes = []
    for part, rows in table.groupby("part", sort=False):
        layers = [int(layer) for layer in rows.loc[rows["value"].isna(), "layer"]]
        if not layers:
            continue
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
