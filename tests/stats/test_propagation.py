"""Label propagation (Zhou et al. 2003; Du et al. 2019's WAT) against closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.stats.propagation import (
    largest_strong_component,
    log_ratio,
    propagate_labels,
    propagation_matrix,
)

# A strongly connected directed graph of 5 nodes with unequal weights.
DIRECTED = np.array(
    [
        [0.0, 2.0, 0.0, 0.0, 1.0],
        [0.5, 0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 3.0, 1.0],
        [1.0, 0.0, 0.5, 0.0, 0.0],
        [0.0, 1.0, 0.0, 2.0, 0.0],
    ]
)
SEEDS = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0]])


def closed_form(weights: np.ndarray, seeds: np.ndarray, alpha: float) -> np.ndarray:
    """(1 - alpha) (I - alpha T)^-1 Y with T = D_out^-1/2 W D_in^-1/2, all by hand."""
    out_scale = np.diag(1 / np.sqrt(weights.sum(axis=1)))
    in_scale = np.diag(1 / np.sqrt(weights.sum(axis=0)))
    transition = out_scale @ weights @ in_scale
    return (1 - alpha) * np.linalg.inv(np.eye(len(weights)) - alpha * transition) @ seeds


@pytest.mark.parametrize("alpha", [0.5, 0.9, 0.99])
def test_solve_and_iterate_reach_the_closed_form(alpha: float) -> None:
    expected = closed_form(DIRECTED, SEEDS, alpha)
    solved = propagate_labels(DIRECTED, SEEDS, alpha=alpha, method="solve")
    np.testing.assert_allclose(solved.labels, expected, rtol=1e-12, atol=1e-15)
    assert solved.method == "solve" and solved.converged and solved.n_iter == 0
    iterated = propagate_labels(sparse.csr_array(DIRECTED), SEEDS, alpha=alpha)
    np.testing.assert_allclose(iterated.labels, expected, rtol=1e-9)
    assert iterated.method == "iterate" and iterated.converged and 1 < iterated.n_iter < 10_000


def test_a_capped_iteration_is_reported_as_not_converged() -> None:
    capped = propagate_labels(DIRECTED, SEEDS, alpha=0.99, method="iterate", max_iter=5)
    assert not capped.converged and capped.n_iter == 5
    assert np.abs(capped.labels - closed_form(DIRECTED, SEEDS, 0.99)).max() > 1e-3


def test_symmetric_weights_give_zhou_et_al_normalization() -> None:
    weights = DIRECTED + DIRECTED.T
    degree = np.diag(1 / np.sqrt(weights.sum(axis=1)))
    np.testing.assert_allclose(propagation_matrix(weights).toarray(), degree @ weights @ degree)


def test_a_mirror_symmetric_path_gives_opposite_scores() -> None:
    # a - b - c - d - e, male seed a, female seed e: c is neutral, b and d mirror each other
    path = np.diag(np.ones(4), 1) + np.diag(np.ones(4), -1)
    seeds = np.zeros((5, 2))
    seeds[0, 0] = seeds[4, 1] = 1.0
    scores = log_ratio(propagate_labels(path, seeds, alpha=0.9).labels)
    np.testing.assert_allclose(scores, -scores[::-1], atol=1e-12)
    assert abs(scores[2]) < 1e-12
    assert scores[0] > scores[1] > 0 > scores[3] > scores[4]


def test_log_ratio_is_nan_without_information() -> None:
    scores = log_ratio([[2.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    assert scores[0] == pytest.approx(np.log(2.0))
    assert np.isnan(scores[1:]).all()
    with pytest.raises(WordlensError, match=r"\[n, 2\]"):
        log_ratio([[1.0, 2.0, 3.0]])


def test_largest_strong_component() -> None:
    weights = np.zeros((6, 6))
    for cue, response in [(0, 1), (1, 2), (2, 0), (3, 0), (4, 5), (5, 4)]:
        weights[cue, response] = 1.0
    np.testing.assert_array_equal(largest_strong_component(weights), [0, 1, 2])
    np.testing.assert_array_equal(largest_strong_component(np.ones((1, 1))), [0])


@pytest.mark.parametrize(
    ("weights", "seeds", "options", "message"),
    [
        (DIRECTED, SEEDS, {"alpha": 1.0}, r"alpha must be in \(0, 1\)"),
        (DIRECTED, SEEDS, {"alpha": 0.0}, r"alpha must be in \(0, 1\)"),
        (DIRECTED, SEEDS, {"method": "power"}, "unknown propagation method"),
        (DIRECTED[:, :4], SEEDS, {}, "must be square"),
        (-DIRECTED, SEEDS, {}, "non-negative"),
        (np.triu(DIRECTED), SEEDS, {}, "no outgoing or no incoming"),
        (DIRECTED, SEEDS[:4], {}, r"seeds must have shape \[n_nodes"),
        (DIRECTED, SEEDS * [1.0, 0.0], {}, r"label column\(s\) \[1\] have no seed"),
        (DIRECTED, -SEEDS, {}, "finite and non-negative"),
        (DIRECTED, SEEDS, {"method": "iterate", "tol": 0.0}, "tol > 0"),
    ],
)
def test_invalid_inputs_are_clear_errors(
    weights: np.ndarray, seeds: np.ndarray, options: dict[str, object], message: str
) -> None:
    with pytest.raises(WordlensError, match=message):
        propagate_labels(weights, seeds, **options)  # type: ignore[arg-type]


def test_an_empty_graph_is_an_empty_input() -> None:
    with pytest.raises(EmptyInputError):
        propagation_matrix(np.zeros((0, 0)))


def test_float32_seeds_give_the_float64_solution() -> None:
    # F* = (1 - alpha)(I - alpha T)^{-1} Y with T = D_out^{-1/2} W D_in^{-1/2}, by dense numpy.
    weights = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [2.0, 1.0, 0.0]])
    seeds = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    alpha = 0.9
    transition = weights / np.sqrt(weights.sum(axis=1))[:, None] / np.sqrt(weights.sum(axis=0))
    expected = (1 - alpha) * np.linalg.solve(np.eye(3) - alpha * transition, seeds)
    result = propagate_labels(weights, seeds.astype(np.float32), alpha=alpha, method="solve")
    np.testing.assert_allclose(result.labels, expected, rtol=1e-13, atol=0.0)


def test_solve_with_one_label_column_keeps_the_column_axis() -> None:
    weights = np.array([[0.0, 1.0], [1.0, 0.0]])
    result = propagate_labels(weights, [[1.0], [0.0]], alpha=0.5, method="solve")
    # (I - T/2) F = Y/2 with T = [[0, 1], [1, 0]]: F = [[2/3], [1/3]].
    assert result.labels.shape == (2, 1)
    np.testing.assert_allclose(result.labels, [[2 / 3], [1 / 3]], rtol=1e-14)


def test_iteration_count_and_stopping_rule_by_hand() -> None:
    # Two nodes swapping their labels (T = W), alpha = 1/2, Y = [[1], [0]]:
    # F(1) = T Y / 2 + Y / 2 = [[1/2], [1/2]]; change 1/2, max |F(1)| = 1/2.
    # F(2) = T F(1) / 2 + Y / 2 = [[3/4], [1/4]]; change 1/4, max |F(2)| = 3/4. (exact in binary)
    weights, seeds = [[0.0, 1.0], [1.0, 0.0]], [[1.0], [0.0]]
    at_bound = propagate_labels(weights, seeds, alpha=0.5, tol=1.0)  # 1/2 <= 1 * 1/2: stop at 1
    assert (at_bound.n_iter, at_bound.converged) == (1, True)
    np.testing.assert_array_equal(at_bound.labels, [[0.5], [0.5]])
    second = propagate_labels(weights, seeds, alpha=0.5, tol=0.5)  # 1/2 > 1/4; 1/4 <= 3/8
    assert (second.n_iter, second.converged) == (2, True)
    np.testing.assert_array_equal(second.labels, [[0.75], [0.25]])
    unfinished = propagate_labels(weights, seeds, alpha=0.5, tol=0.1, max_iter=2)
    assert (unfinished.n_iter, unfinished.converged, unfinished.alpha) == (2, False, 0.5)
    np.testing.assert_array_equal(unfinished.labels, [[0.75], [0.25]])


def test_largest_component_need_not_contain_node_0() -> None:
    # Node 0 alone (it only points into the cycle 1 -> 2 -> 3 -> 1), then nodes 4 <-> 5.
    weights = np.zeros((6, 6))
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 1), (4, 5), (5, 4), (3, 4)]:
        weights[i, j] = 1.0
    reach = (weights > 0) | np.eye(6, dtype=bool)
    for _ in range(6):  # transitive closure by repeated boolean products
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    components = {tuple(np.flatnonzero(reach[i] & reach[:, i])) for i in range(6)}
    expected = max(sorted(components), key=len)
    assert expected == (1, 2, 3)
    assert largest_strong_component(weights).tolist() == list(expected)
