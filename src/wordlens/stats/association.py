"""Cosine associations of words with attribute groups: cosine similarity, SC-WEAT, effect sizes.

Every function works in float64 and is vectorized over words and layers. Word and attribute sets
are arrays of vectors of shape ``[n, d]`` (static vectors) or ``[n, n_layers, d]`` (one vector per
layer, e.g. the hidden states of a language model). Results keep the layer axis last for layered
input and have no layer axis for ``[n, d]`` input.

Missing values are never dropped silently: a NaN anywhere in a vector, or an all-zero vector (whose
cosine is undefined), makes every statistic that depends on it NaN, at that layer only.

References
----------
.. [1] Caliskan, A., Bryson, J. J. & Narayanan, A. (2017). Semantics derived automatically from
   language corpora contain human-like biases. *Science* 356(6334), 183-186.
.. [2] Wolfe, R. & Caliskan, A. (2022). VAST: The Valence-Assessing Semantics Test for
   Contextualizing Language Models. *AAAI* 36(10), 11477-11485.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

from wordlens.errors import EmptyInputError, WordlensError

FloatArray = npt.NDArray[np.float64]
"""A float64 NumPy array; shapes are given in each docstring."""

_Item = TypeVar("_Item", bound=np.generic)

RELATIVE_TOLERANCE = 1e-12
"""Relative size below which two float64 statistics count as equal.

Values whose spread is at most ``RELATIVE_TOLERANCE * max |value|`` are treated as constant (zero
standard deviation), and two permutation statistics that differ by at most
``RELATIVE_TOLERANCE * sum |score|`` are treated as tied. Float64 rounding in these sums is about
``1e-16`` relative, so genuine differences are never mistaken for ties.
"""


def cosine_similarity(a: npt.ArrayLike, b: npt.ArrayLike) -> FloatArray:
    r"""Cosine similarity of every vector in `a` with every vector in `b`.

    .. math:: \cos(\vec{a}, \vec{b}) = \frac{\vec{a} \cdot \vec{b}}{\|\vec{a}\| \, \|\vec{b}\|}

    Parameters
    ----------
    a : array_like, shape ``[..., n, d]``
        First vectors. Leading axes (e.g. layers) broadcast against those of `b`.
    b : array_like, shape ``[..., m, d]``
        Second vectors.

    Returns
    -------
    FloatArray, shape ``[..., n, m]``
        ``cos(a[..., i, :], b[..., j, :])`` in float64. A zero vector has no direction, so every
        cosine involving it is NaN (not 0); NaN in a vector gives NaN too.

    Raises
    ------
    WordlensError
        If an input has fewer than 2 axes, the vector sizes differ, or the leading axes do not
        broadcast.
    EmptyInputError
        If the vectors have size 0.
    """
    a_arr = np.asarray(a, dtype=np.float64)
    b_arr = np.asarray(b, dtype=np.float64)
    if a_arr.ndim < 2 or b_arr.ndim < 2:
        raise WordlensError(
            f"cosine_similarity needs arrays of shape [..., n, d]; got {a_arr.shape} and "
            f"{b_arr.shape}"
        )
    if a_arr.shape[-1] != b_arr.shape[-1]:
        raise WordlensError(
            f"vector sizes differ: {a_arr.shape[-1]} (shape {a_arr.shape}) vs "
            f"{b_arr.shape[-1]} (shape {b_arr.shape})"
        )
    if a_arr.shape[-1] == 0:
        raise EmptyInputError("cosine_similarity got vectors of size 0")
    try:
        np.broadcast_shapes(a_arr.shape[:-2], b_arr.shape[:-2])
    except ValueError as error:
        raise WordlensError(
            f"leading axes of shapes {a_arr.shape} and {b_arr.shape} do not broadcast"
        ) from error
    result: FloatArray = _unit(a_arr) @ np.swapaxes(_unit(b_arr), -1, -2)
    return result


def _unit(vectors: FloatArray) -> FloatArray:
    """Scale vectors ``[..., d]`` to unit length; zero vectors become NaN (0/0), without warning."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit: FloatArray = vectors / norms
    return unit


def association(words: npt.ArrayLike, attr_a: npt.ArrayLike, attr_b: npt.ArrayLike) -> FloatArray:
    r"""Differential association of each word with two attribute groups.

    The numerator of SC-WEAT (eq. 1 of Wolfe & Caliskan 2022 [2]_) and the per-word term
    ``s(w, A, B)`` of WEAT (Caliskan et al. 2017 [1]_, Methods):

    .. math:: s(w, A, B) = \operatorname{mean}_{a \in A} \cos(\vec{w}, \vec{a})
              - \operatorname{mean}_{b \in B} \cos(\vec{w}, \vec{b})

    Parameters
    ----------
    words : array_like, shape ``[n_words, d]`` or ``[n_words, n_layers, d]``
        Target word vectors.
    attr_a, attr_b : array_like, shape ``[n_a, d]`` / ``[n_b, d]`` or with a layer axis
        Attribute vectors (e.g. pleasant and unpleasant words), with the same layer axis as
        `words`: layer ``l`` of a word is compared with layer ``l`` of the attributes.

    Returns
    -------
    FloatArray, shape ``[n_words]`` or ``[n_words, n_layers]``
        ``s(w, A, B)`` in float64, between -2 and 2.

    Raises
    ------
    EmptyInputError
        If a set has no vectors or the vectors have size 0.
    WordlensError
        If the sets disagree in layer count or vector size, or are not 2-D/3-D.
    """
    sets, layered = _layers_first(words=words, attr_a=attr_a, attr_b=attr_b)
    return _drop_layer_axis(_association(sets["words"], sets["attr_a"], sets["attr_b"]), layered)


def sc_weat(
    words: npt.ArrayLike, attr_a: npt.ArrayLike, attr_b: npt.ArrayLike, *, ddof: int = 1
) -> FloatArray:
    r"""Single-category WEAT effect size of each word (eq. 1 of Wolfe & Caliskan 2022 [2]_).

    .. math:: \text{SC-WEAT}(w, A, B) =
              \frac{\operatorname{mean}_{a \in A} \cos(\vec{w}, \vec{a})
                    - \operatorname{mean}_{b \in B} \cos(\vec{w}, \vec{b})}
                   {\operatorname{std}_{x \in A \cup B} \cos(\vec{w}, \vec{x})}

    This is the single-category WEAT of Caliskan et al. (2017) [1]_, which VAST and ValNorm use to
    measure the valence of a word with the 25 pleasant and 25 unpleasant WEAT words. The numerator
    alone is :func:`association`.

    Parameters
    ----------
    words : array_like, shape ``[n_words, d]`` or ``[n_words, n_layers, d]``
        Target word vectors.
    attr_a, attr_b : array_like, shape ``[n_a, d]`` / ``[n_b, d]`` or with a layer axis
        Attribute vectors with the same layer axis as `words`.
    ddof : int, default 1
        Delta degrees of freedom of the standard deviation over the ``n_a + n_b`` cosines. The
        default 1 is the sample standard deviation, as in the papers; 0 gives the population one.

    Returns
    -------
    FloatArray, shape ``[n_words]`` or ``[n_words, n_layers]``
        Effect sizes in float64. NaN where the cosines of a word with all attribute words are
        (numerically) equal, since the standard deviation is then zero, and where a NaN or zero
        vector is involved.

    Raises
    ------
    EmptyInputError
        If a set has no vectors or the vectors have size 0.
    WordlensError
        If the sets disagree in layer count or vector size, or ``ddof`` is not in
        ``[0, n_a + n_b)``.
    """
    sets, layered = _layers_first(words=words, attr_a=attr_a, attr_b=attr_b)
    cos_a, cos_b = _attribute_cosines(sets["words"], sets["attr_a"], sets["attr_b"])
    return _drop_layer_axis(effect_size(cos_a, cos_b, axis=-1, ddof=ddof), layered)


def effect_size(
    first: npt.ArrayLike, second: npt.ArrayLike, *, axis: int = 0, ddof: int = 1
) -> FloatArray:
    r"""Standardized difference of two groups of values (Cohen's d with the pooled-sample std).

    .. math:: d = \frac{\operatorname{mean}_{u \in U} u - \operatorname{mean}_{v \in V} v}
                       {\operatorname{std}_{t \in U \cup V} t}

    With ``U = {s(x, A, B) : x in X}`` and ``V = {s(y, A, B) : y in Y}`` this is the WEAT effect
    size of Caliskan et al. (2017) [1]_ (Methods); with the cosines of one word to ``A`` and ``B``
    it is SC-WEAT (eq. 1 of [2]_). The standard deviation is taken over the union of the two
    groups, not pooled within groups.

    Parameters
    ----------
    first : array_like, shape ``[..., n_first, ...]``
        Values of the first group along `axis`.
    second : array_like, shape ``[..., n_second, ...]``
        Values of the second group; the other axes must equal those of `first`.
    axis : int, default 0
        Axis that runs over the members of a group.
    ddof : int, default 1
        Delta degrees of freedom of the standard deviation; 1 (sample std) as in the papers.

    Returns
    -------
    FloatArray
        `first`'s shape without `axis` (a 0-d array for 1-D input), in float64. NaN where all
        ``n_first + n_second`` values are numerically equal (spread at most
        ``RELATIVE_TOLERANCE * max |value|``: the standard deviation is zero and d undefined), and
        where any value is NaN. No division warning is emitted.

    Raises
    ------
    EmptyInputError
        If a group is empty.
    WordlensError
        If the groups' other axes differ or ``ddof`` is not in ``[0, n_first + n_second)``.
    """
    first_arr = np.asarray(first, dtype=np.float64)
    second_arr = np.asarray(second, dtype=np.float64)
    if first_arr.ndim == 0 or first_arr.ndim != second_arr.ndim:
        raise WordlensError(
            f"effect_size needs two arrays with the same number of axes (at least 1); got shapes "
            f"{first_arr.shape} and {second_arr.shape}"
        )
    axis = axis % first_arr.ndim
    if first_arr.shape[axis] == 0 or second_arr.shape[axis] == 0:
        raise EmptyInputError("effect_size needs at least one value in each group")
    if np.delete(first_arr.shape, axis).tolist() != np.delete(second_arr.shape, axis).tolist():
        raise WordlensError(
            f"groups of shapes {first_arr.shape} and {second_arr.shape} differ outside axis {axis}"
        )
    pooled = np.concatenate([first_arr, second_arr], axis=axis)
    n_total = pooled.shape[axis]
    if not 0 <= ddof < n_total:
        raise WordlensError(
            f"ddof={ddof} must be at least 0 and less than the number of values ({n_total})"
        )
    difference = np.asarray(first_arr.mean(axis=axis) - second_arr.mean(axis=axis))
    std = pooled.std(axis=axis, ddof=ddof)
    result: FloatArray = np.divide(
        difference,
        std,
        out=np.full(difference.shape, np.nan),
        where=~is_constant(pooled, axis=axis),
    )
    return result


def is_constant(values: FloatArray, *, axis: int) -> npt.NDArray[np.bool_]:
    """Whether values are equal up to rounding along `axis`.

    Parameters
    ----------
    values : FloatArray
        Values of any shape.
    axis : int
        Axis to test along.

    Returns
    -------
    numpy.ndarray of bool
        `values`' shape without `axis`: True where
        ``max - min <= RELATIVE_TOLERANCE * max |value|``; False where a value is NaN.
    """
    spread = np.ptp(values, axis=axis)
    scale = np.max(np.abs(values), axis=axis)
    constant: npt.NDArray[np.bool_] = np.asarray(spread <= RELATIVE_TOLERANCE * scale)
    return constant


def _association(words: FloatArray, attr_a: FloatArray, attr_b: FloatArray) -> FloatArray:
    """``s(w, A, B)`` from layer-first sets ``[L, n, d]`` etc.; returns ``[n, L]``."""
    cos_a, cos_b = _attribute_cosines(words, attr_a, attr_b)
    scores: FloatArray = cos_a.mean(axis=-1) - cos_b.mean(axis=-1)
    return scores


def _attribute_cosines(
    words: FloatArray, attr_a: FloatArray, attr_b: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Cosines of layer-first words ``[L, n, d]`` with each attribute set: ``[n, L, n_a|n_b]``."""
    return (
        np.moveaxis(cosine_similarity(words, attr_a), 0, 1),
        np.moveaxis(cosine_similarity(words, attr_b), 0, 1),
    )


def _layers_first(**sets: npt.ArrayLike) -> tuple[dict[str, FloatArray], bool]:
    """Validate named vector sets and move their layer axis first.

    Each set is ``[n, d]`` or ``[n, n_layers, d]``; all must have the same number of axes,
    layers and vector size. Returns the sets as float64 ``[n_layers, n, d]`` (``n_layers = 1`` for
    2-D input) and whether the input had a layer axis.
    """
    arrays = {name: np.asarray(vectors, dtype=np.float64) for name, vectors in sets.items()}
    for name, array in arrays.items():
        if array.ndim not in (2, 3):
            raise WordlensError(
                f"{name} must have shape [n, d] or [n, n_layers, d]; got shape {array.shape}"
            )
        if array.shape[0] == 0:
            raise EmptyInputError(f"{name} is empty: it needs at least one vector")
        if array.shape[-1] == 0:
            raise EmptyInputError(f"{name} has vectors of size 0")
    if len({array.shape[1:] for array in arrays.values()}) > 1:
        described = ", ".join(f"{name} {array.shape}" for name, array in arrays.items())
        raise WordlensError(
            "all sets must have the same layer count and vector size (shape [n, d] or "
            f"[n, n_layers, d] with equal n_layers and d); got {described}"
        )
    layered = next(iter(arrays.values())).ndim == 3
    return {
        name: np.moveaxis(array, 0, 1) if layered else array[np.newaxis]
        for name, array in arrays.items()
    }, layered


def _drop_layer_axis(values: npt.NDArray[_Item], layered: bool) -> npt.NDArray[_Item]:
    """Return `values` ``[..., n_layers]`` unchanged, or without the (size-1) layer axis."""
    return values if layered else values[..., 0]
