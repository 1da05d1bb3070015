"""The computation of :mod:`wordlens.methods.rnd` at every layer at once, on numpy arrays
``[..., n_words, n_layers, dim]`` (leading axes: the draws of a resampling, broadcast between the
sets; imported when a run computes, not when the command line starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from wordlens.methods.association.geometry import cosines, unit

if TYPE_CHECKING:
    from wordlens.methods.association.vectors import FloatArray

__all__ = ["distance_differences", "relative_norm_distance"]


def relative_norm_distance(
    first: FloatArray,
    second: FloatArray,
    attributes: FloatArray,
    *,
    normalize: bool = True,
    average: bool = False,
    distance: str = "norm",
) -> FloatArray:
    """The relative norm distance of ``attributes`` to the two target sets at every layer.

    Parameters
    ----------
    first, second
        The target sets ``T1``, ``T2``: ``[..., n_words, n_layers, dim]`` each.
    attributes
        The attribute set ``A``: ``[..., n_attributes, n_layers, dim]``; the leading axes of
        the three sets broadcast.
    normalize, average, distance
        As :class:`RndConfig`.

    Returns
    -------
    FloatArray
        ``[..., n_layers]``: ``sum_a ||a - mean(T1)|| - ||a - mean(T2)||`` (or the mean over ``a``,
        or the difference of cosine similarities); NaN at a layer where a vector has length 0
        and ``normalize`` or ``distance="cos"`` needs its direction.
    """
    per_word = distance_differences(
        first, second, attributes, normalize=normalize, distance=distance
    )  # [..., n_attributes, n_layers]
    return np.asarray(per_word.mean(axis=-2) if average else per_word.sum(axis=-2))


def distance_differences(
    first: FloatArray,
    second: FloatArray,
    attributes: FloatArray,
    *,
    normalize: bool = True,
    distance: str = "norm",
) -> FloatArray:
    """Each attribute word's term of the relative norm distance at every layer (Garg et al.
    2018): ``||a - mean(T1)|| - ||a - mean(T2)||``, or ``cos(a, mean(T1)) - cos(a, mean(T2))``
    with ``distance="cos"``.

    Parameters
    ----------
    first, second, attributes, normalize, distance
        As :func:`relative_norm_distance`.

    Returns
    -------
    FloatArray
        ``[..., n_attributes, n_layers]``: their sum over the attribute words (or mean, with
        ``average``) is :func:`relative_norm_distance`.
    """
    if normalize:
        first, second, attributes = (unit(words) for words in (first, second, attributes))
    centres = [words.mean(axis=-3) for words in (first, second)]  # [..., n_layers, dim] each
    if distance == "norm":
        gaps = [np.linalg.norm(attributes - centre[..., None, :, :], axis=-1) for centre in centres]
    else:
        gaps = [cosines(attributes, centre) for centre in centres]
    return np.asarray(gaps[0] - gaps[1], dtype=np.float64)
