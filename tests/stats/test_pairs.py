"""The bias score of eq. 6 over sentence pairs: counts, ties, NaN, the bootstrap interval."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.stats.pairs import pair_bias_score, pair_bias_table


def test_eq6_counts_ties_in_n_and_not_as_stereo_higher() -> None:
    stereo = [3.0, 2.0, 1.0, 5.0, 4.0]
    anti = [1.0, 2.0, 3.0, 0.0, 4.0]
    score = pair_bias_score(stereo, anti, n_resamples=0)
    assert (score.n, score.n_stereo_higher, score.n_anti_higher, score.n_ties) == (5, 2, 1, 2)
    assert score.bias_score == pytest.approx(100 * 2 / 5 - 50)  # -10: the ties pull it down
    assert np.isnan(score.ci_low) and np.isnan(score.ci_high)
    swapped = pair_bias_score(anti, stereo, n_resamples=0)
    assert swapped.bias_score == pytest.approx(100 * 1 / 5 - 50) and swapped.n_ties == 2


def test_all_ties_give_minus_50_and_all_stereo_higher_plus_50() -> None:
    same = np.array([-12.5, -3.0, -7.25])
    tied = pair_bias_score(same, same.copy(), n_resamples=500)
    assert tied.bias_score == -50.0 and tied.n_ties == 3 and tied.n_stereo_higher == 0
    assert (tied.ci_low, tied.ci_high) == (-50.0, -50.0)
    higher = pair_bias_score(same + 1e-9, same, n_resamples=500)
    assert higher.bias_score == 50.0 and (higher.ci_low, higher.ci_high) == (50.0, 50.0)


def test_nan_pairs_are_omitted_and_counted_or_raise() -> None:
    stereo = [1.0, np.nan, 3.0, 0.0]
    anti = [0.0, 1.0, np.nan, 2.0]
    score = pair_bias_score(stereo, anti, n_resamples=0)
    assert (score.n, score.n_missing, score.n_stereo_higher) == (2, 2, 1)
    assert score.bias_score == 0.0
    with pytest.raises(WordlensError, match="2 pair"):
        pair_bias_score(stereo, anti, nan_policy="raise")
    all_nan = pair_bias_score([np.nan], [1.0])
    assert all_nan.n == 0 and np.isnan(all_nan.bias_score) and np.isnan(all_nan.ci_low)


def test_single_pair_has_a_score_but_no_interval() -> None:
    one = pair_bias_score([2.0], [1.0], n_resamples=1000)
    assert one.bias_score == 50.0 and np.isnan(one.ci_low) and np.isnan(one.ci_high)


def test_bootstrap_interval_matches_the_binomial_it_resamples() -> None:
    # Resampling n pairs with replacement makes #(stereo > anti) Binomial(n, k/n): the percentile
    # interval must match that distribution's quantiles (one count is 100/n = 0.5 points).
    n, k = 200, 130
    stereo = np.r_[np.ones(k), np.zeros(n - k)]
    anti = np.full(n, 0.5)
    score = pair_bias_score(stereo, anti, n_resamples=20_000, seed=7)
    expected = 100 * stats.binom(n, k / n).ppf([0.025, 0.975]) / n - 50
    assert score.bias_score == pytest.approx(15.0)
    assert score.ci_low == pytest.approx(expected[0], abs=1.0)
    assert score.ci_high == pytest.approx(expected[1], abs=1.0)
    assert score.ci_low < score.bias_score < score.ci_high
    again = pair_bias_score(stereo, anti, n_resamples=20_000, seed=7)
    assert (again.ci_low, again.ci_high) == (score.ci_low, score.ci_high)
    narrower = pair_bias_score(stereo, anti, n_resamples=20_000, seed=7, confidence=0.5)
    assert score.ci_low < narrower.ci_low <= narrower.ci_high < score.ci_high


@pytest.mark.parametrize(
    ("stereo", "anti", "options", "error", "message"),
    [
        ([1.0, 2.0], [1.0], {}, WordlensError, "equal length"),
        ([[1.0]], [[1.0]], {}, WordlensError, "1-D"),
        ([], [], {}, EmptyInputError, "no pairs"),
        ([np.inf], [1.0], {}, WordlensError, "infinite"),
        ([1.0], [0.0], {"confidence": 1.0}, WordlensError, "confidence"),
        ([1.0], [0.0], {"n_resamples": -1}, WordlensError, "n_resamples"),
    ],
)
def test_bad_input(
    stereo: list[float],
    anti: list[float],
    options: dict[str, float],
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error, match=message):
        pair_bias_score(stereo, anti, **options)  # type: ignore[arg-type]


def test_table_per_group_in_first_appearance_order() -> None:
    pairs = pd.DataFrame(
        {
            "category": ["race", "gender", "race", None, "gender", "race"],
            "score_stereo": [1.0, 0.0, 2.0, 5.0, 3.0, 1.0],
            "score_anti": [0.0, 1.0, 3.0, 4.0, 3.0, 0.0],
        }
    )
    table = pair_bias_table(pairs, ["category"], n_resamples=200, seed=1)
    assert list(table["category"].fillna("missing")) == ["race", "gender", "missing"]
    assert list(table["n"]) == [3, 2, 1] and list(table["n_ties"]) == [0, 1, 0]
    assert table["bias_score"].tolist() == pytest.approx([100 * 2 / 3 - 50, -50.0, 50.0])
    overall = pair_bias_table(pairs, n_resamples=0)
    assert len(overall) == 1 and overall.loc[0, "n_stereo_higher"] == 3
    assert overall.loc[0, "bias_score"] == pytest.approx(0.0)
    # A group's interval does not depend on the other groups (same seed for each).
    alone = pair_bias_table(
        pairs[pairs["category"] == "race"], ["category"], n_resamples=200, seed=1
    )
    assert alone.loc[0, "ci_low"] == table.loc[0, "ci_low"]
    with pytest.raises(WordlensError, match="lacks column"):
        pair_bias_table(pairs, ["bias_type"])
    with pytest.raises(EmptyInputError):
        pair_bias_table(pairs.iloc[:0], ["category"])


def test_two_pairs_get_a_bootstrap_interval() -> None:
    # One pair each way: a resample of the 2 indicators has mean 0, 1/2 or 1 with probabilities
    # 1/4, 1/2, 1/4, so eq. 6 is -50, 0 or 50 and the 95 % percentile interval is (-50, 50).
    result = pair_bias_score([1.0, 0.0], [0.0, 1.0], n_resamples=2000, seed=0)
    assert (result.ci_low, result.ci_high) == (-50.0, 50.0)
    assert result.bias_score == 0.0


def test_a_missing_score_given_as_none_is_dropped_as_nan() -> None:
    result = pair_bias_score([1.0, None, 3.0, 0.0], [0.5, 1.0, None, 2.0], n_resamples=0)
    assert (result.n, result.n_missing, result.n_stereo_higher) == (2, 2, 1)
    assert result.bias_score == 100.0 * 1 / 2 - 50.0


def test_the_score_records_its_seed() -> None:
    assert pair_bias_score([1.0, 0.0, 2.0], [0.0, 1.0, 1.0], n_resamples=10, seed=7).seed == 7


def test_all_pairs_missing_gives_nan_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pair_bias_score([np.nan, 1.0], [0.0, np.nan])
    assert result.n == 0 and np.isnan(result.bias_score) and np.isnan(result.ci_low)


def test_an_empty_pairs_table_says_so() -> None:
    empty = pd.DataFrame({"score_stereo": [], "score_anti": []})
    with pytest.raises(EmptyInputError, match="no pairs to score"):
        pair_bias_table(empty)
