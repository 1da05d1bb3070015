"""The 10 WEAT tests of Caliskan et al. (2017) on real GloVe 6B 50d vectors, against peers.

Peers and their conventions (read from their source):

* WEFE 1.0.1, ``wefe.metrics.WEAT.run_query``: statistic ``s(X, Y, A, B)`` and effect size, with
  ``np.std`` at its default ``ddof=0`` (population std). We compare our ``ddof=0`` effect size
  directly and our default ``ddof=1`` after converting, ``d_0 = d_1 * sqrt(n / (n - 1))``. WEFE's
  p-value is *not* comparable: its "approximate" method draws ``rng.choice(pool, size=n)``, i.e.
  target words *with replacement* (so not even a partition), from an unseeded generator, and
  reports ``(count + 1) / (runs + 1)``; its "exact" method raises NotImplementedError.
* responsibly 0.1.2, ``responsibly.we.weat``: effect size with ``np.std(..., ddof=0)`` too; its
  p-value is ``mlxtend.evaluate.permutation_test(x_assoc, y_assoc, func=sum(x) - sum(y),
  method="exact")`` with mlxtend < 0.17, which enumerates all ``C(n_x + n_y, n_x)`` partitions and
  counts strict ``>``: the one-sided convention of Caliskan et al. and ours. responsibly itself
  cannot be imported here (matplotlib < 3, seaborn, pkg_resources), so we run its p-value engine,
  mlxtend 0.16.0, on per-word associations computed the way responsibly computes them (gensim's
  ``KeyedVectors.cosine_similarities``). Exact enumeration in pure Python is feasible for tests
  6-10 (8+8 and 6+6 words), where both p-values are the exact share ``b / N``; for tests 1-5 (up
  to 32+32 words) both sides sample at random, so the p-values are compared within Monte Carlo
  error, after putting mlxtend's ``b / R`` on our sampled footing ``(b + 1) / (R + 1)``.
  ``scipy.stats.permutation_test`` counts ties (``>=``), the observed partition included: its exact
  p is ours plus the share of partitions tied with the observed one, counted from its own null
  distribution.

Word sets: WEFE's WEAT.json, mapped onto the 10 tests as documented in data/weat/SOURCE.md,
lowercased (GloVe is uncased) and stripped of words missing from GloVe ("gladiola"), identically for
every implementation. The float32 GloVe vectors are handed to every implementation as float64.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from gensim.models import KeyedVectors
from mlxtend.evaluate import permutation_test as mlxtend_permutation_test
from scipy.stats import permutation_test as scipy_permutation_test
from tests.peer_data import WEFE_SETS, raw_glove
from wefe.metrics import WEAT
from wefe.query import Query
from wefe.word_embedding_model import WordEmbeddingModel

from wordlens.stats import WeatResult, association, weat

EXACT_TESTS = [6, 7, 8, 9, 10]
SAMPLED_TESTS = [1, 2, 3, 4, 5]


@cache
def _word_sets(shared: Path, test: int) -> tuple[list[str], ...]:
    """X, Y, A, B of a Caliskan test: lowercased, without words missing from GloVe."""
    all_sets = json.loads((shared / "data/weat/wefe/WEAT.json").read_text())
    _, row_of = raw_glove()
    sets = tuple(
        [word.lower() for word in all_sets[name] if word.lower() in row_of]
        for name in WEFE_SETS[test]
    )
    assert not set(sets[0]) & set(sets[1]) and not set(sets[2]) & set(sets[3])
    return sets


def _keyed_vectors(shared: Path, test: int) -> KeyedVectors:
    vectors, row_of = raw_glove()
    words = sorted({word for word_set in _word_sets(shared, test) for word in word_set})
    keyed = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float64)
    keyed.add_vectors(words, np.asarray(vectors[[row_of[w] for w in words]], dtype=np.float64))
    return keyed


def _ours(shared: Path, test: int, **kwargs: int) -> WeatResult:
    keyed = _keyed_vectors(shared, test)
    return weat(*(keyed[word_set] for word_set in _word_sets(shared, test)), **kwargs)


@pytest.mark.parametrize("test", sorted(WEFE_SETS))
def test_statistic_and_effect_size_equal_wefe(shared: Path, test: int) -> None:
    keyed = _keyed_vectors(shared, test)
    x, y, a, b = _word_sets(shared, test)
    query = Query(target_sets=[x, y], attribute_sets=[a, b])
    peer = WEAT().run_query(query, WordEmbeddingModel(keyed, "glove-6B-50d"), preprocessors=[{}])
    ours_population = _ours(shared, test, ddof=0, n_samples=1)
    ours_sample = _ours(shared, test, n_samples=1)
    n = len(x) + len(y)
    assert float(ours_population.statistic) == pytest.approx(peer["weat"], abs=1e-6)
    assert float(ours_population.effect_size) == pytest.approx(peer["effect_size"], abs=1e-6)
    converted = float(ours_sample.effect_size) * math.sqrt(n / (n - 1))
    assert converted == pytest.approx(peer["effect_size"], abs=1e-6)
    # The GloVe results of Caliskan et al. (2017, Table 1) are all large and positive.
    assert float(ours_sample.effect_size) > 0.6


def _responsibly_associations(shared: Path, test: int) -> tuple[list[float], list[float]]:
    """Per-word s(w, A, B) as responsibly computes them, with gensim's cosine similarities."""
    keyed = _keyed_vectors(shared, test)
    x, y, a, b = _word_sets(shared, test)

    def s(word: str) -> float:
        return float(
            keyed.cosine_similarities(keyed[word], keyed[a]).mean()
            - keyed.cosine_similarities(keyed[word], keyed[b]).mean()
        )

    return [s(word) for word in x], [s(word) for word in y]


def _sum_difference(first: np.ndarray, second: np.ndarray) -> float:
    return float(sum(first) - sum(second))


@pytest.mark.parametrize("test", EXACT_TESTS)
def test_exact_one_sided_p_equals_responsibly_mlxtend(shared: Path, test: int) -> None:
    first, second = _responsibly_associations(shared, test)
    peer_p = mlxtend_permutation_test(first, second, func=_sum_difference, method="exact")
    ours = _ours(shared, test)
    assert ours.exact
    assert ours.n_partitions == math.comb(len(first) + len(second), len(first))
    assert float(ours.p_one_sided) == pytest.approx(peer_p, abs=1e-12)
    # scipy counts s_i >= s_obs: ours plus the partitions tied with (or equal to) the observed one
    scipy_result = scipy_permutation_test(
        (first, second),
        lambda u, v, axis: np.sum(u, axis=axis) - np.sum(v, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=np.inf,
        alternative="greater",
    )
    null = scipy_result.null_distribution
    tolerance = 1e-12 * np.abs(first + second).sum()
    tied = int(np.count_nonzero(np.abs(null - scipy_result.statistic) <= tolerance))
    assert len(null) == ours.n_partitions and tied >= 1
    assert scipy_result.pvalue == pytest.approx(
        float(ours.p_one_sided) + tied / ours.n_partitions, abs=1e-12
    )
    # the per-word associations agree too
    keyed = _keyed_vectors(shared, test)
    x, y, a, b = _word_sets(shared, test)
    np.testing.assert_allclose(
        association(keyed[x + y], keyed[a], keyed[b]), first + second, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("test", SAMPLED_TESTS)
def test_sampled_one_sided_p_agrees_with_mlxtend_within_monte_carlo_error(
    shared: Path, test: int
) -> None:
    """C(50, 25) partitions and more: our 100,000 distinct partitions vs mlxtend's 4,000 shuffles.

    mlxtend 0.16's approximate mode returns ``b / R``: strict ``>`` over ``R = num_rounds``
    independent shuffles (which may repeat), the observed partition not counted. Ours is
    ``(b + 1) / (m + 1)`` over the observed partition and ``m`` random ones (Phipson & Smyth
    2010), so mlxtend's count ``b`` is put on that footing, ``(b + 1) / (R + 1)``, and the two
    compared within 5 standard errors of the smaller sample. Both are at least ``1 / (R + 1)``
    and ``1 / (m + 1)``: with these strong biases b is often 0, where mlxtend's raw p is 0.
    """
    first, second = _responsibly_associations(shared, test)
    rounds = 4000
    peer_p = mlxtend_permutation_test(
        first, second, func=_sum_difference, method="approximate", num_rounds=rounds, seed=0
    )
    peer_count = round(peer_p * rounds)
    assert peer_count == pytest.approx(peer_p * rounds, abs=1e-6)
    peer_corrected = (peer_count + 1) / (rounds + 1)
    ours = _ours(shared, test)
    assert not ours.exact
    assert ours.n_partitions == 100_000
    p = float(ours.p_one_sided)
    assert p >= 1 / ours.n_partitions
    standard_error = math.sqrt(max(p, peer_corrected) * (1 - p) / rounds)
    assert abs(p - peer_corrected) <= 5 * standard_error
    assert p < 0.01  # these five biases are significant in GloVe (Caliskan et al. 2017)
