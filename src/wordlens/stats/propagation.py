r"""Label propagation on a weighted directed graph, as the Word Association Test uses it.

Zhou et al. (2003) spread the labels of a few seed nodes over a graph by iterating

.. math:: F^{(t+1)} = \alpha T F^{(t)} + (1 - \alpha) Y, \qquad F^{(0)} = Y,

where ``Y`` ``[n, k]`` holds a one-hot row for each seed (zeros elsewhere) and ``T`` is the
normalized weight matrix. The iteration converges to the stationary solution

.. math:: F^{*} = (1 - \alpha) (I - \alpha T)^{-1} Y .

Du, Wu & Lan (2019) use it on the Small World of Words association graph to give every word a
gender orientation: ``W[i, j]`` is how often cue ``i`` evoked response ``j``, restricted to the
graph's largest strongly connected component; ``T = D_out^{-1/2} W D_in^{-1/2}`` with ``D_out``
and ``D_in`` the diagonal matrices of row (out-) and column (in-) weight sums (for a symmetric
``W`` this is Zhou et al.'s ``D^{-1/2} W D^{-1/2}``); ``alpha = 0.99``; seeds are 10 male and 10
female words, and a word's bias score is ``log(F*[w, male] / F*[w, female])``
(:func:`log_ratio`), the ``log(b_m / b_f)`` of Zhou, Kaneko & Bollegala (2022, section 3).

By the Cauchy-Schwarz inequality every singular value of such a ``T`` is at most 1, so the
spectral radius of ``alpha T`` is below 1 for ``alpha < 1``: the inverse exists and the
iteration converges. :func:`propagate_labels` computes ``F*`` either by the iteration above until
the largest change is at most ``tol`` times the largest value (``method="iterate"``, the
default), or by a sparse direct solve of ``(I - alpha T) F = (1 - alpha) Y``
(``method="solve"``). On the association graphs the iteration is far faster and agrees with the
solve to about ``1e-12`` relative (EAT's largest component, 7,754 words and 247,172 edges: 126
iterations in 0.2 s against 36 s for SuperLU's factorization, on 2 CPU cores).

References
----------
.. [1] Zhou, D., Bousquet, O., Lal, T. N., Weston, J. & Schölkopf, B. (2003). Learning with
   local and global consistency. *NeurIPS 16*.
.. [2] Du, Y., Wu, Y. & Lan, M. (2019). Exploring Human Gender Stereotypes with Word Association
   Test. *EMNLP-IJCNLP 2019*, 6132-6142.
.. [3] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased -
   Evaluating Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse import linalg as sparse_linalg

from wordlens.errors import EmptyInputError, WordlensError

FloatArray = npt.NDArray[np.float64]
Method = Literal["solve", "iterate"]
Adjacency = npt.ArrayLike | sparse.csr_array
"""A weight matrix ``[n, n]``: any dense array-like, or a SciPy CSR array."""


@dataclass(frozen=True, eq=False)
class Propagation:
    """Outcome of :func:`propagate_labels`.

    Attributes
    ----------
    labels : FloatArray, shape ``[n_nodes, n_labels]``
        ``F*``: how much of each seed label reaches each node (not normalized).
    alpha : float
        The propagation weight used.
    method : {"solve", "iterate"}
        How ``F*`` was computed.
    n_iter : int
        Iterations run (0 for the direct solve).
    converged : bool
        Whether the iteration met the tolerance (always True for the direct solve).
    """

    labels: FloatArray
    alpha: float
    method: Method
    n_iter: int
    converged: bool


def propagation_matrix(adjacency: Adjacency) -> sparse.csr_array:
    """``T = D_out^{-1/2} W D_in^{-1/2}`` of a non-negative weight matrix ``W`` ``[n, n]``.

    Raises
    ------
    WordlensError
        If ``W`` is not square, has negative or non-finite weights, or a node without outgoing
        or incoming weight (restrict the graph to a strongly connected component first, see
        :func:`largest_strong_component`).
    EmptyInputError
        If the graph has no nodes.
    """
    weights = _as_csr(adjacency)
    n_rows, n_columns = weights.shape[0], weights.shape[1]
    if n_rows != n_columns:
        raise WordlensError(f"an adjacency matrix must be square; got shape {weights.shape}")
    if n_rows == 0:
        raise EmptyInputError("the graph has no nodes")
    if not np.isfinite(weights.data).all() or (weights.data < 0).any():
        raise WordlensError("edge weights must be finite and non-negative")
    out_degree = np.asarray(weights.sum(axis=1)).ravel()
    in_degree = np.asarray(weights.sum(axis=0)).ravel()
    isolated = np.nonzero((out_degree == 0) | (in_degree == 0))[0]
    if isolated.size:
        raise WordlensError(
            f"{isolated.size} node(s) have no outgoing or no incoming weight (first: "
            f"{isolated[:5].tolist()}); propagate on a strongly connected component "
            "(largest_strong_component)"
        )
    scale_rows = sparse.diags_array(1.0 / np.sqrt(out_degree))
    scale_columns = sparse.diags_array(1.0 / np.sqrt(in_degree))
    return sparse.csr_array(scale_rows @ weights @ scale_columns)


def propagate_labels(
    adjacency: Adjacency,
    seeds: npt.ArrayLike,
    *,
    alpha: float = 0.99,
    method: Method = "iterate",
    tol: float = 1e-12,
    max_iter: int = 100_000,
) -> Propagation:
    r"""Stationary label distribution ``F* = (1 - alpha)(I - alpha T)^{-1} Y`` ([1]_, [2]_).

    Parameters
    ----------
    adjacency : array_like or scipy.sparse.csr_array, shape ``[n, n]``
        Non-negative weights ``W[i, j]`` of edge ``i -> j`` (cue ``i`` evoked response ``j``);
        every node needs outgoing and incoming weight.
    seeds : array_like, shape ``[n, k]``
        Initial labels ``Y``: for each seed node a row with 1 in its label's column, zeros
        elsewhere (any non-negative values are accepted).
    alpha : float, default 0.99
        Weight of propagation against the initial labels, in (0, 1); 0.99 as Du et al.
    method : {"iterate", "solve"}, default "iterate"
        The iteration of Zhou et al. (2003), or a sparse direct solve (exact, but slow on large
        graphs: the LU factors fill in).
    tol : float, default 1e-12
        The iteration stops when ``max |F(t+1) - F(t)| <= tol * max |F(t+1)|``.
    max_iter : int, default 100,000
        Most iterations; reaching it is recorded as not converged.

    Returns
    -------
    Propagation
        ``labels`` ``[n, k]`` in float64.

    Raises
    ------
    WordlensError
        For an invalid graph (see :func:`propagation_matrix`), ``alpha`` outside (0, 1), seeds of
        the wrong shape or with negative values, a label column without seeds, or an unknown
        method.
    """
    if not 0.0 < alpha < 1.0:
        raise WordlensError(f"alpha must be in (0, 1); got {alpha}")
    if method not in ("solve", "iterate"):
        raise WordlensError(f"unknown propagation method {method!r}: use 'solve' or 'iterate'")
    transition = propagation_matrix(adjacency)
    initial = _check_seeds(seeds, transition.shape[0])
    if method == "solve":
        system = sparse.csc_array(sparse.eye_array(transition.shape[0]) - alpha * transition)
        solved = sparse_linalg.spsolve(system, (1.0 - alpha) * initial)
        labels = np.asarray(solved, dtype=np.float64).reshape(initial.shape)
        return Propagation(labels, alpha, method, n_iter=0, converged=True)
    return _iterate(transition, initial, alpha, tol, max_iter)


def log_ratio(labels: npt.ArrayLike) -> FloatArray:
    """``log(F[:, 0] / F[:, 1])`` per node: Du et al.'s gender score (male label first).

    Returns
    -------
    FloatArray, shape ``[n]``
        NaN where either label is 0 (the node received no information to compare), without
        warning.

    Raises
    ------
    WordlensError
        If ``labels`` is not ``[n, 2]``.
    """
    values = np.asarray(labels, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != 2:
        raise WordlensError(f"labels must have shape [n, 2]; got {values.shape}")
    defined = (values[:, 0] > 0) & (values[:, 1] > 0)
    scores = np.full(values.shape[0], np.nan)
    scores[defined] = np.log(values[defined, 0] / values[defined, 1])
    return scores


def largest_strong_component(adjacency: Adjacency) -> npt.NDArray[np.int64]:
    """Indices (ascending) of the nodes of the largest strongly connected component.

    Du et al. (2019) keep only this component, so that every word both reaches and is reached
    by the rest of the graph. Ties in size go to the component with the smallest node index.
    """
    graph = _as_csr(adjacency)
    _, component = csgraph.connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(component)
    largest = int(component[np.argmax(sizes[component])])  # first node of a largest component
    return np.nonzero(component == largest)[0].astype(np.int64)


def _as_csr(matrix: Adjacency) -> sparse.csr_array:
    """A float64 CSR copy of a dense or sparse ``[n, m]`` matrix."""
    if isinstance(matrix, sparse.csr_array):
        converted: sparse.csr_array = matrix.astype(np.float64)
        return converted
    dense = np.asarray(matrix, dtype=np.float64)
    if dense.ndim != 2:
        raise WordlensError(f"an adjacency matrix must be 2-D; got shape {dense.shape}")
    return sparse.csr_array(dense)


def _iterate(
    transition: sparse.csr_array, initial: FloatArray, alpha: float, tol: float, max_iter: int
) -> Propagation:
    """Zhou et al.'s iteration from ``F(0) = Y`` until the relative change is at most ``tol``."""
    if max_iter < 1 or tol <= 0:
        raise WordlensError(f"need max_iter >= 1 and tol > 0; got {max_iter} and {tol}")
    current = initial
    for iteration in range(1, max_iter + 1):
        updated = alpha * (transition @ current) + (1.0 - alpha) * initial
        change = float(np.abs(updated - current).max())
        current = updated
        if change <= tol * float(np.abs(updated).max()):
            return Propagation(current, alpha, "iterate", iteration, converged=True)
    return Propagation(current, alpha, "iterate", max_iter, converged=False)


def _check_seeds(seeds: npt.ArrayLike, n_nodes: int) -> FloatArray:
    initial = np.asarray(seeds, dtype=np.float64)
    if initial.ndim != 2 or initial.shape[0] != n_nodes:
        raise WordlensError(
            f"seeds must have shape [n_nodes, n_labels] = [{n_nodes}, k]; got {initial.shape}"
        )
    if not np.isfinite(initial).all() or (initial < 0).any():
        raise WordlensError("seed labels must be finite and non-negative")
    unseeded = np.nonzero(initial.sum(axis=0) == 0)[0]
    if unseeded.size:
        raise WordlensError(f"label column(s) {unseeded.tolist()} have no seed node")
    return initial
