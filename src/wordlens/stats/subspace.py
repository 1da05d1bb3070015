r"""All-but-the-top: mean subtraction and nullification of the top principal components.

Mu & Viswanath (2018) [1]_ post-process word vectors by subtracting their common mean and removing
their projections on the top principal components (PCs), which carry non-semantic (e.g.
frequency) information. VAST (Wolfe & Caliskan 2022 [2]_, "PC Nullification" and "Semantic
Isolation") applies the method per layer to contextual word embeddings, fitted on the union of the
lexicon and polar-word vectors at that layer, and also studies the removed part, the "top PCs".

For fit vectors :math:`X \in \mathbb{R}^{n \times d}` with mean :math:`\mu` and any vectors
:math:`Y` to transform (often :math:`Y = X`, or a subset of the fit set):

.. math::

    \tilde{Y} = Y - \mu, \qquad
    \text{scores}_k = \tilde{Y} U_k, \qquad
    \text{top}_k = \tilde{Y} U_k U_k^\top, \qquad
    \text{removed}_k = \tilde{Y} - \tilde{Y} U_k U_k^\top

where the columns of :math:`U_k \in \mathbb{R}^{d \times k}` are the top-:math:`k` right singular
vectors of the centred fit matrix :math:`X - \mu` (the principal directions). These are the
semantics of the VAST authors' ``pca_transform`` (``helper_functions.py`` of
``wolferobert3/vast_aaai_2022``), checked line by line:

- the mean is subtracted first (``subtract_mean=True``, used throughout the paper), and the same
  fit-set mean is subtracted from every transformed vector;
- the directions come from scikit-learn's ``PCA(n_components=k)`` fitted on the centred vectors,
  i.e. the right singular vectors of :math:`X - \mu`; here they come from one SVD per layer, with
  scikit-learn's sign convention (the largest-magnitude entry of each direction is positive);
- the reference's nullified vectors are :math:`\tilde{X} - \tilde{X} U_k U_k^\top`;
- the reference's "top PCs" are ``PCA.fit_transform``'s coordinates :math:`\tilde{X} U_k`
  (``scores`` here), without the mean. :meth:`PrincipalComponents.top` gives the same part in the
  original space, :math:`\tilde{X} U_k U_k^\top`, so that ``removed + top`` is the centred input;
  since :math:`U_k^\top U_k = I`, both have the same inner products, norms and cosines, hence the
  same SC-WEAT, WEAT and similarity results;
- :math:`k = 0` removes nothing: the result is the mean-centred input (the reference's ``PCA(0)``).

Mu & Viswanath suggest :math:`k \approx d / 100`; VAST nullifies 1-12 PCs.

References
----------
.. [1] Mu, J. & Viswanath, P. (2018). All-but-the-Top: Simple and Effective Postprocessing for
   Word Representations. *ICLR 2018*, Algorithm 1.
.. [2] Wolfe, R. & Caliskan, A. (2022). VAST: The Valence-Assessing Semantics Test for
   Contextualizing Language Models. *AAAI* 36(10), 11477-11485.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from wordlens.errors import WordlensError
from wordlens.stats.association import FloatArray, _layers_first

Part = Literal["removed", "top"]
"""A part of the centred vectors: what nullification leaves, or the top PCs it removes."""


@dataclass(frozen=True)
class PrincipalComponents:
    r"""The mean and top principal directions of a set of vectors, per layer.

    Built by :func:`fit_principal_components`; transforms the fit vectors or any other vectors of
    the same layout (e.g. fit on lexicon plus polar words, then transform the lexicon only).

    Attributes
    ----------
    mean : FloatArray, shape ``[n_layers, d]``
        Mean fit vector :math:`\mu` of each layer (``n_layers = 1`` for ``[n, d]`` input).
    components : FloatArray, shape ``[n_layers, K, d]``
        Rows are the top-``K`` principal directions of each layer (:math:`U_K^\top`),
        orthonormal, by decreasing variance, the largest-magnitude entry of each positive.
    explained_variance_ratio : FloatArray, shape ``[n_layers, K]``
        Share of the fit set's total variance along each direction (as scikit-learn's PCA).
    rank : numpy.ndarray of int64, shape ``[n_layers]``
        Number of directions with nonzero variance in each layer's centred fit vectors.
    layered : bool
        Whether the fit vectors had a layer axis (``[n, n_layers, d]``); transformed vectors must
        have the same layout.
    """

    mean: FloatArray
    components: FloatArray
    explained_variance_ratio: FloatArray
    rank: npt.NDArray[np.int64]
    layered: bool

    @property
    def n_components(self) -> int:
        """``K``, the largest number of components these fits can nullify."""
        return int(self.components.shape[1])

    def scores(self, vectors: npt.ArrayLike, k: int) -> FloatArray:
        r"""Coordinates on the top ``k`` directions, :math:`(Y - \mu) U_k` (the reference's
        "top PCs", ``PCA.fit_transform``).

        Parameters
        ----------
        vectors : array_like, shape ``[m, d]`` or ``[m, n_layers, d]``
            As the fit vectors (same layer count and size).
        k : int
            Number of components, ``0 <= k <= n_components``.

        Returns
        -------
        FloatArray, shape ``[m, k]`` or ``[m, n_layers, k]``
        """
        return self._restore(self._scores(self._centered(vectors), self._checked(k)))

    def top(self, vectors: npt.ArrayLike, k: int) -> FloatArray:
        r"""The part that nullification removes, :math:`(Y - \mu) U_k U_k^\top`.

        Parameters
        ----------
        vectors : array_like, shape ``[m, d]`` or ``[m, n_layers, d]``
            As the fit vectors.
        k : int
            Number of components, ``0 <= k <= n_components`` (0 gives zeros).

        Returns
        -------
        FloatArray, shape as `vectors`
        """
        return self._restore(self._top(self._centered(vectors), self._checked(k)))

    def remove(self, vectors: npt.ArrayLike, k: int) -> FloatArray:
        r"""All-but-the-top vectors, :math:`\tilde{Y} - \tilde{Y} U_k U_k^\top` with
        :math:`\tilde{Y} = Y - \mu` (Mu & Viswanath 2018, Algorithm 1).

        Parameters
        ----------
        vectors : array_like, shape ``[m, d]`` or ``[m, n_layers, d]``
            As the fit vectors.
        k : int
            Number of components to nullify, ``0 <= k <= n_components``; 0 only centres.

        Returns
        -------
        FloatArray, shape as `vectors`
            Orthogonal to the top ``k`` directions.
        """
        centered = self._centered(vectors)
        return self._restore(centered - self._top(centered, self._checked(k)))

    def sweep(
        self, vectors: npt.ArrayLike, k_max: int | None = None, *, part: Part = "removed"
    ) -> Iterator[tuple[int, FloatArray]]:
        r"""All-but-the-top vectors (or the top part) for ``k = 0, 1, ..., k_max``, one at a time.

        Each step adds one rank-one projection to the running top part,
        :math:`T_k = T_{k-1} + (\tilde{Y} u_k) u_k^\top`, and yields :math:`\tilde{Y} - T_k`
        (``part="removed"``) or :math:`T_k` (``part="top"``); the coordinates
        :math:`\tilde{Y} U_K` are computed once and the fit's SVDs are reused, so a sweep costs
        one projection, not ``k_max`` of them (VAST's k = 0..12 nullification sweep).

        Parameters
        ----------
        vectors : array_like, shape ``[m, d]`` or ``[m, n_layers, d]``
            As the fit vectors.
        k_max : int, optional
            Last ``k``; default ``n_components``.
        part : {"removed", "top"}, default "removed"
            Which part to yield: :meth:`remove`'s or :meth:`top`'s.

        Yields
        ------
        (int, FloatArray)
            ``k`` and ``remove(vectors, k)`` or ``top(vectors, k)`` (a fresh array, shape as
            `vectors`), equal to them up to float rounding.
        """
        last = self.n_components if k_max is None else self._checked(k_max)
        if part not in ("removed", "top"):
            raise WordlensError(f"part must be 'removed' or 'top'; got {part!r}")
        centered = self._centered(vectors)  # validated now, not at the first next()
        return self._sweep(centered, last, part)

    def _sweep(
        self, centered: FloatArray, last: int, part: Part
    ) -> Iterator[tuple[int, FloatArray]]:
        coordinates = self._scores(centered, last)  # [L, m, last]
        top = np.zeros_like(centered)  # running projection on the first k directions
        for k in range(last + 1):
            if k:
                top += coordinates[:, :, k - 1, np.newaxis] * self.components[:, np.newaxis, k - 1]
            yield k, self._restore(centered - top if part == "removed" else top.copy())

    def _checked(self, k: int) -> int:
        return _checked_count(k, self.n_components, "the n_components fitted; fit more to go on")

    def _centered(self, vectors: npt.ArrayLike) -> FloatArray:
        """Check ``[m, (L,) d]`` input against the fit; return it ``[L, m, d]``, mean subtracted."""
        data = _layers_first_finite(vectors)
        layered = np.ndim(vectors) == 3
        if layered != self.layered or data.shape[::2] != self.mean.shape:
            expected = "[m, n_layers, d]" if self.layered else "[m, d]"
            raise WordlensError(
                f"vectors must have shape {expected} with n_layers and d as the fit vectors "
                f"({self.mean.shape[0]} layer(s), d={self.mean.shape[1]}); got "
                f"{np.shape(vectors)}"
            )
        centered: FloatArray = data - self.mean[:, np.newaxis, :]
        return centered

    def _scores(self, centered: FloatArray, k: int) -> FloatArray:
        """``[L, m, d]`` centred vectors → ``[L, m, k]`` coordinates."""
        coordinates: FloatArray = centered @ np.swapaxes(self.components[:, :k], 1, 2)
        return coordinates

    def _top(self, centered: FloatArray, k: int) -> FloatArray:
        """``[L, m, d]`` centred vectors → ``[L, m, d]`` projections on the top ``k``."""
        projection: FloatArray = self._scores(centered, k) @ self.components[:, :k]
        return projection

    def _restore(self, values: FloatArray) -> FloatArray:
        """``[L, m, x]`` → ``[m, L, x]``, or ``[m, x]`` when the fit input had no layer axis."""
        restored: FloatArray = np.moveaxis(values, 0, 1) if self.layered else values[0]
        return restored


def fit_principal_components(vectors: npt.ArrayLike, n_components: int) -> PrincipalComponents:
    r"""Mean and top principal directions of `vectors`, fitted per layer (one SVD per layer).

    Parameters
    ----------
    vectors : array_like, shape ``[n, d]`` or ``[n, n_layers, d]``
        Fit vectors, e.g. the union of lexicon and polar-word vectors (VAST), converted to
        float64.
    n_components : int
        ``K``, the most components to nullify later; ``0 <= K < min(n, d)``.

    Returns
    -------
    PrincipalComponents
        Its :meth:`~PrincipalComponents.remove`, :meth:`~PrincipalComponents.top`,
        :meth:`~PrincipalComponents.scores` and :meth:`~PrincipalComponents.sweep` take any
        ``k <= K``.

    Raises
    ------
    WordlensError
        If the shape is not ``[n, d]`` or ``[n, n_layers, d]``, a value is NaN or infinite,
        ``K`` is not an integer in ``[0, min(n, d))``, or a layer's centred vectors have fewer
        than ``K`` directions of nonzero variance (e.g. constant or repeated vectors), where the
        directions to nullify would be arbitrary.
    EmptyInputError
        If there are no vectors or they have size 0.
    """
    data = _layers_first_finite(vectors)
    n, d = data.shape[1:]
    k = _checked_count(n_components, min(n, d) - 1, f"below min(n_vectors={n}, d={d})")
    mean = data.mean(axis=1)
    fits = [
        _principal_directions(layer_data - layer_mean, layer_data, k, position)
        for position, (layer_data, layer_mean) in enumerate(zip(data, mean, strict=True))
    ]
    return PrincipalComponents(
        mean=mean,
        components=np.stack([fit[0] for fit in fits]),
        explained_variance_ratio=np.stack([fit[1] for fit in fits]),
        rank=np.array([fit[2] for fit in fits], dtype=np.int64),
        layered=np.ndim(vectors) == 3,
    )


def nullify_top_components(
    vectors: npt.ArrayLike, k: int, *, fit_on: npt.ArrayLike | None = None
) -> FloatArray:
    r"""All-but-the-top in one call: :math:`\tilde{Y} - \tilde{Y} U_k U_k^\top`.

    Parameters
    ----------
    vectors : array_like, shape ``[m, d]`` or ``[m, n_layers, d]``
        Vectors to transform.
    k : int
        Number of top components to nullify; 0 only subtracts the mean.
    fit_on : array_like, optional
        Vectors to fit the mean and directions on (same layout), e.g. the union of lexicon and
        polar words when `vectors` is the lexicon; default `vectors` itself.

    Returns
    -------
    FloatArray, shape as `vectors`

    Raises
    ------
    WordlensError
        As :func:`fit_principal_components`, or if the layouts differ.
    """
    fitted = fit_principal_components(vectors if fit_on is None else fit_on, k)
    return fitted.remove(vectors, k)


def _principal_directions(
    centered: FloatArray, data: FloatArray, k: int, position: int
) -> tuple[FloatArray, FloatArray, int]:
    """Top-``k`` directions ``[k, d]``, their variance ratios ``[k]`` and the rank of one layer.

    The rank counts singular values above ``max(n, d) * eps * ||data||_F``, scaled by the
    uncentred data so that constant vectors (centred to rounding noise) have rank 0. For tall
    input the SVD is taken of ``R`` from ``centered = QR`` (same singular values and right
    singular vectors), which skips the ``[n, d]`` left factor and is 2-3 times faster.
    """
    tall = centered.shape[0] > centered.shape[1]
    reduced = np.linalg.qr(centered, mode="r") if tall else centered
    _, singular, directions = np.linalg.svd(reduced, full_matrices=False)
    tolerance = max(centered.shape) * np.finfo(np.float64).eps * np.linalg.norm(data)
    rank = int(np.count_nonzero(singular > tolerance))
    if k > rank:
        raise WordlensError(
            f"cannot fit {k} principal component(s) at layer position {position}: the centred "
            f"vectors vary along only {rank} direction(s) (constant or repeated vectors?), so "
            "further directions would be arbitrary"
        )
    top = directions[:k]
    largest = top[np.arange(k), np.argmax(np.abs(top), axis=1)]
    variance = singular**2
    ratio: FloatArray = variance[:k] / variance.sum() if k else np.zeros(0)
    return top * np.sign(largest)[:, np.newaxis], ratio, rank


def _layers_first_finite(vectors: npt.ArrayLike) -> FloatArray:
    """Validate ``[n, d]`` / ``[n, L, d]`` finite input; return float64 ``[L, n, d]``."""
    sets, _ = _layers_first(vectors=vectors)
    data = sets["vectors"]
    if not np.isfinite(data).all():
        raise WordlensError("vectors contain NaN or infinite values")
    return data


def _checked_count(k: int, maximum: int, why: str) -> int:
    """``k`` if it is an integer with ``0 <= k <= maximum``; `why` explains the maximum."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise WordlensError(f"the number of components must be an integer; got {k!r}")
    if not 0 <= k <= maximum:
        raise WordlensError(
            f"the number of components must be from 0 to {maximum} ({why}); got {k}"
        )
    return int(k)
