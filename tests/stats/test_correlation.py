"""Pearson/Spearman with Fisher-z intervals against scipy and hand formulas, and on real data."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_lexicon, pleasant_unpleasant
from wordlens.stats import (
    CorrelationResult,
    correlation_by_layer,
    fit_principal_components,
    pearson,
    sc_weat,
    spearman,
)
from wordlens.stats.correlation import Method, fisher_interval

Correlate = Callable[..., CorrelationResult]
NUMBER_WORDS = [str(number) for number in range(1, 91)]
RNG = np.random.default_rng(99)


def _fisher_interval(r: float, std_error: float, confidence: float) -> tuple[float, float]:
    z = np.arctanh(r)
    half = stats.norm.ppf(0.5 + confidence / 2) * std_error
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def _pair(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = RNG.normal(size=n)
    return x, 0.6 * x + RNG.normal(size=n)


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_pearson_matches_scipy_and_fisher_z(confidence: float) -> None:
    x, y = _pair(40)
    result = pearson(x, y, confidence=confidence)
    reference = stats.pearsonr(x, y)
    assert result.r == pytest.approx(reference.statistic, abs=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    assert (result.n, result.method, result.confidence) == (40, "pearson", confidence)
    assert result.reason is None
    expected = _fisher_interval(result.r, 1 / np.sqrt(40 - 3), confidence)
    assert (result.ci_low, result.ci_high) == pytest.approx(expected, abs=1e-12)
    scipy_ci = reference.confidence_interval(confidence_level=confidence)
    assert (result.ci_low, result.ci_high) == pytest.approx(
        (scipy_ci.low, scipy_ci.high), abs=1e-12
    )


@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_spearman_matches_scipy_and_bonett_wright_interval(confidence: float) -> None:
    x, y = _pair(30)
    result = spearman(x, y, confidence=confidence)
    reference = stats.spearmanr(x, y)
    assert result.r == pytest.approx(reference.statistic, abs=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    assert (result.n, result.method) == (30, "spearman")
    # Bonett & Wright (2000): SE of artanh(rho) = sqrt((1 + rho^2 / 2) / (n - 3))
    std_error = np.sqrt((1 + result.r**2 / 2) / (30 - 3))
    expected = _fisher_interval(result.r, std_error, confidence)
    assert (result.ci_low, result.ci_high) == pytest.approx(expected, abs=1e-12)
    assert result.ci_low < result.r < result.ci_high


def test_spearman_uses_average_ranks_for_ties() -> None:
    x = np.array([1, 2, 2, 3, 3, 3, 4, 5, 5, 6], dtype=float)
    y = np.array([2, 1, 4, 3, 3, 5, 6, 5, 7, 7], dtype=float)
    result = spearman(x, y)
    ranked = stats.pearsonr(stats.rankdata(x), stats.rankdata(y))  # average ranks
    assert result.r == pytest.approx(ranked.statistic, abs=1e-12)
    assert result.r == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


@pytest.mark.parametrize("correlate", [pearson, spearman])
def test_pairs_with_nan_are_omitted(correlate: Correlate) -> None:
    x, y = _pair(25)
    x[[2, 7]] = np.nan
    y[[7, 11, 20]] = np.nan
    keep = ~(np.isnan(x) | np.isnan(y))
    result = correlate(x, y)
    reference = correlate(x[keep], y[keep])
    assert result.n == 21
    assert (result.r, result.p_value, result.ci_low) == (
        reference.r,
        reference.p_value,
        reference.ci_low,
    )
    with pytest.raises(WordlensError, match="NaN"):
        correlate(x, y, nan_policy="raise")


def test_three_pairs_give_r_and_p_but_no_interval() -> None:
    """Fisher z's standard error 1/sqrt(n - 3) needs n > 3; n = 3 still has r and p."""
    result = pearson([1.0, 2.0, 4.0], [1.0, 3.0, 2.0])
    assert result.r == pytest.approx(stats.pearsonr([1.0, 2.0, 4.0], [1.0, 3.0, 2.0]).statistic)
    assert np.isfinite(result.p_value)
    assert np.isnan(result.ci_low) and np.isnan(result.ci_high)
    with pytest.raises(WordlensError, match="at least 3"):
        pearson([1.0, 2.0, np.nan], [1.0, 3.0, 2.0])
    with pytest.raises(EmptyInputError):
        spearman([np.nan, 1.0, 2.0], [1.0, np.nan, np.nan])


@pytest.mark.parametrize("correlate", [pearson, spearman])
def test_constant_input_gives_nan_with_reason_and_no_warning(correlate: Correlate) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = correlate([2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 3.0, 2.0, 5.0, 4.0])
    assert np.isnan([result.r, result.p_value, result.ci_low, result.ci_high]).all()
    assert result.n == 5
    assert result.reason is not None and "constant" in result.reason


def test_perfect_correlation_has_a_degenerate_interval() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pearson([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 6.0, 8.0, 10.0])
    assert result.r == pytest.approx(1.0)
    assert (result.ci_low, result.ci_high) == pytest.approx((1.0, 1.0))


def test_bad_input_is_rejected() -> None:
    with pytest.raises(WordlensError):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(WordlensError):
        pearson(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(WordlensError, match="confidence"):
        pearson([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0], confidence=95)
    with pytest.raises(WordlensError):
        correlation_by_layer(np.ones((4, 2)), np.ones(5))


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_correlation_by_layer_equals_per_layer_calls(method: Method) -> None:
    human = RNG.normal(size=30)
    scores = human[:, None] * np.array([0.0, 0.5, 1.0, 2.0]) + RNG.normal(size=(30, 4))
    scores[3, 2] = np.nan  # dropped at layer 2 only
    correlate = pearson if method == "pearson" else spearman
    results = correlation_by_layer(scores, human, method=method)
    assert [result.n for result in results] == [30, 30, 29, 30]
    for layer, result in enumerate(results):
        assert result == correlate(scores[:, layer], human)


def test_glove_sc_weat_valence_correlates_with_bellezza_ratings(glove: WordEmbedder) -> None:
    """ValNorm on real GloVe 6B 50d: SC-WEAT with the 25+25 WEAT valence words vs Bellezza.

    Toney-Wails & Caliskan (2021) report Pearson's r up to .88 on static embeddings; the band
    below is a plausibility check around that published range. The exact value (.797) is
    derived independently from GloVe's raw files, numpy and scipy in
    ``tests/methods/test_vast.py::test_glove_layers_table_against_numpy_and_scipy``.
    """
    lexicon = load_lexicon("bellezza").data
    polar = pleasant_unpleasant()
    valence = sc_weat(
        glove.embed_words(list(lexicon["word"])).at_layer(0),
        glove.embed_words(polar.pleasant).at_layer(0),
        glove.embed_words(polar.unpleasant).at_layer(0),
    )
    ratings = lexicon["valence"].to_numpy()
    result = pearson(valence, ratings)
    assert result.n == 399
    assert 0.75 < result.r < 0.85
    assert result.ci_low < result.r < result.ci_high
    assert result.p_value < 1e-50
    assert result.r == pytest.approx(stats.pearsonr(valence, ratings).statistic, abs=1e-12)
    assert 0.7 < spearman(valence, ratings).r < result.r


@pytest.mark.parametrize(("method", "se"), [("pearson", 0.0), ("spearman", 1.0)])
def test_fisher_interval_follows_the_formula(method: Method, se: float) -> None:
    r, n = 0.42, 50
    spread = stats.norm.ppf(0.975) * np.sqrt((1 + se * r**2 / 2) / (n - 3))  # rho: Bonett & Wright
    expected = (np.tanh(np.arctanh(r) - spread), np.tanh(np.arctanh(r) + spread))
    assert fisher_interval(r, n, method=method) == pytest.approx(expected, abs=1e-12)
    assert all(np.isnan(fisher_interval(r, 3)))
    assert all(np.isnan(fisher_interval(float("nan"), n)))
    assert fisher_interval(1.0, n) == (1.0, 1.0)


def test_the_reason_names_which_input_is_constant() -> None:
    varying, constant = [1.0, 2.0, 4.0, 3.0], [5.0, 5.0, 5.0, 5.0]
    assert pearson(varying, constant).reason == ("constant input (y): the correlation is undefined")
    assert spearman(constant, varying).reason == (
        "constant input (x): the correlation is undefined"
    )
    assert pearson(constant, constant).reason == (
        "constant input (x, y): the correlation is undefined"
    )


def test_all_pairs_with_nan_name_nan_in_the_error() -> None:
    with pytest.raises(EmptyInputError, match=r"^no pair of values without NaN to correlate$"):
        pearson([np.nan, 1.0, 2.0], [1.0, np.nan, np.nan])


def test_a_layer_without_pairs_is_nan_with_its_reason_and_the_others_are_scored(
    glove: WordEmbedder,
) -> None:
    """Real GloVe SC-WEAT of Bellezza's words beside two undefined layers: every score NaN and a
    constant one. Those layers are NaN with the reason, not an error; the defined layer is
    scipy's r. ``pearson`` alone still refuses the all-NaN input.

    The NaN layer is VAST's top-PC representation at k = 1 with the PC fitted on numbers and
    the polar words (as ``pc_population="lexicon"`` on a lexicon of numbers): every polar word
    lies on one side of PC 1, so each word's cosines with them are all +1 or all -1 and SC-WEAT
    (eq. 1) is 0/0 for every word."""
    lexicon = load_lexicon("bellezza").data
    polar = pleasant_unpleasant()
    words, pleasant, unpleasant, numbers = (
        glove.embed_words(list(group)).at_layer(0)
        for group in (lexicon["word"], polar.pleasant, polar.unpleasant, NUMBER_WORDS)
    )
    ratings = lexicon["valence"].to_numpy()
    fitted = fit_principal_components(np.concatenate([numbers, pleasant, unpleasant]), 1)
    rank_one = [fitted.top(group, 1) for group in (words, pleasant, unpleasant)]
    undefined = sc_weat(*rank_one)
    assert np.isnan(undefined).all()
    defined = sc_weat(words, pleasant, unpleasant)
    scores = np.stack([defined, undefined, np.full_like(defined, 0.25)], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first, empty, constant = correlation_by_layer(scores, ratings)
    assert first.r == pytest.approx(stats.pearsonr(defined, ratings).statistic, abs=1e-12)
    assert first.reason is None and first.n == 399
    assert np.isnan([empty.r, empty.p_value, empty.ci_low, empty.ci_high]).all()
    assert (empty.n, empty.method) == (0, "pearson")
    assert empty.reason == "0 of 399 pair(s) without NaN: a correlation needs at least 3"
    assert np.isnan(constant.r) and constant.n == 399
    assert constant.reason == "constant input (x): the correlation is undefined"
    with pytest.raises(EmptyInputError, match=r"^no pair of values without NaN to correlate$"):
        pearson(undefined, ratings)
