"""VAST's polar words: the dominance/arousal lists, exclusion from Warriner, single-token
selection on real tokenizers and seeded balancing."""

from __future__ import annotations

import pytest

from wordlens.contexts import targets_from_template
from wordlens.errors import EmptyInputError, ResourceNotFoundError, WordlensError
from wordlens.methods.vast.polar import (
    PolarSets,
    balance_groups,
    polar_sets,
    rated_words,
    select_polar,
    subtoken_counts,
)
from wordlens.models.base import WordEmbedder
from wordlens.resources import WordSet, load_lexicon, pleasant_unpleasant


def test_dominance_and_arousal_lists_are_the_authors() -> None:
    dominance, arousal = polar_sets("dominance"), polar_sets("arousal")
    assert (dominance.a.name, dominance.b.name) == ("dominant", "submissive")
    assert (arousal.a.name, arousal.b.name) == ("arousal", "indifference")
    for sets in (dominance, arousal):
        for group in (sets.a, sets.b):
            assert len(group.words) == len(set(group.words)) == 25
            assert list(group.words) == sorted(group.words)  # as sorted(list(set(...)))
    assert {"power", "king", "capable"} <= set(dominance.a.words)
    assert {"meek", "impotence", "subordinate"} <= set(dominance.b.words)
    assert {"thrill", "sex", "murder", "aroused"} <= set(arousal.a.words)
    assert {"placid", "peace", "gentle", "sleep"} <= set(arousal.b.words)


def test_valence_sets_are_the_weat_words_in_any_vast_language() -> None:
    valence = polar_sets()
    english = pleasant_unpleasant("en")
    assert (valence.a.words, valence.b.words) == (english.pleasant, english.unpleasant)
    assert valence.a.words[:2] == ("caress", "freedom") and len(valence.b.words) == 25
    french = polar_sets("valence", "fr")
    assert french.language == "fr" and french.a.words == pleasant_unpleasant("fr").pleasant


def test_unknown_dimension_or_language_raises() -> None:
    with pytest.raises(ResourceNotFoundError, match="arousal polar words in English only"):
        polar_sets("arousal", "fr")
    with pytest.raises(ResourceNotFoundError, match="no polar words for language 'de'"):
        polar_sets("valence", "de")
    with pytest.raises(WordlensError, match="dimension must be one of"):
        polar_sets("potency")  # type: ignore[arg-type]


def test_rated_words_exclude_polar_words_as_vast_does_for_warriner() -> None:
    warriner = load_lexicon("warriner")
    assert len(rated_words(warriner, "valence")) == 13915  # valence keeps the WEAT words
    for dimension in ("dominance", "arousal"):
        rated = rated_words(warriner, dimension)  # type: ignore[arg-type]
        sets = polar_sets(dimension)  # type: ignore[arg-type]
        assert len(rated) == 13915 - 50  # all 50 polar words are Warriner words
        assert not rated["word"].isin(sets.a.words + sets.b.words).any()
        assert list(rated.columns) == ["word", dimension]
    assert "peace" in set(rated_words(warriner, "dominance")["word"])
    assert "peace" not in set(rated_words(warriner, "arousal")["word"])
    with pytest.raises(WordlensError, match="'bellezza' has no arousal ratings"):
        rated_words(load_lexicon("bellezza"), "arousal")


SMOLLM2_MULTI = {
    "valence": ("caress", "filth", "agony"),
    "dominance": ("feeble", "humiliate", "impotence", "meek", "timid"),
    "arousal": ("ecstasy", "flirt", "infatuation", "intruder", "startled", "bland", "placid"),
}
MINILM_MULTI = {
    "valence": ("filth", "pollute"),
    "dominance": ("feeble", "humiliate", "impotence", "insecure", "timid"),
    "arousal": ("infatuation", "placid"),
}


@pytest.mark.parametrize("dimension", ["valence", "dominance", "arousal"])
def test_single_token_selection_on_smollm2(smollm2: WordEmbedder, dimension: str) -> None:
    _check_selection(smollm2, dimension, SMOLLM2_MULTI[dimension])


@pytest.mark.parametrize("dimension", ["valence", "dominance", "arousal"])
def test_single_token_selection_on_minilm(minilm: WordEmbedder, dimension: str) -> None:
    _check_selection(minilm, dimension, MINILM_MULTI[dimension])


def _check_selection(model: WordEmbedder, dimension: str, multi: tuple[str, ...]) -> None:
    sets = polar_sets(dimension)  # type: ignore[arg-type]
    selection = select_polar(sets, model, seed=0)
    assert selection.multiply_tokenized == multi
    a, b = selection.sets.a.words, selection.sets.b.words
    assert (
        len(a)
        == len(b)
        == 25 - max(sum(w in multi for w in sets.a.words), sum(w in multi for w in sets.b.words))
    )
    assert not set(a + b) & set(multi + selection.removed)
    assert len(selection.table) == 50
    assert (selection.table["status"] == "kept").sum() == len(a) + len(b)
    again = select_polar(sets, model, seed=0)
    assert again.removed == selection.removed and again.sets == selection.sets


def test_counts_agree_with_the_embedded_subtokens(minilm: WordEmbedder) -> None:
    words = list(polar_sets().a.words + polar_sets().b.words)
    counts = subtoken_counts(minilm, words)
    embedded = minilm.embed(targets_from_template(words), layers=[0]).n_subtokens
    assert counts.tolist() == embedded.tolist()
    assert counts[words.index("pollute")] == 2


def test_smollm2_counts_depend_on_the_leading_space(smollm2: WordEmbedder) -> None:
    words = ["happy", "vacation", "caress"]
    assert subtoken_counts(smollm2, words, "This is {word}").tolist() == [1, 1, 2]
    assert subtoken_counts(smollm2, words, "{word}").tolist() == [1, 2, 2]


def test_static_model_counts_every_known_word_as_one_token(glove: WordEmbedder) -> None:
    selection = select_polar(polar_sets(), glove, seed=0)
    assert len(selection.sets.a.words) == len(selection.sets.b.words) == 25
    assert selection.multiply_tokenized == () and selection.removed == ()
    sets = PolarSets(
        "valence", "en", WordSet("p", ("love", "qzxqzx", "peace")), WordSet("u", ("war", "hate"))
    )
    odd = select_polar(sets, glove, seed=0, balance=False)
    assert odd.table["status"].tolist() == ["kept", "out_of_vocabulary", "kept", "kept", "kept"]
    assert odd.table["n_subtokens"].tolist() == [1, 0, 1, 1, 1]
    assert odd.sets.a.words == ("love", "peace")
    with pytest.raises(WordlensError, match="seed must be a non-negative integer"):
        select_polar(sets, glove, seed=-1, balance=False)


def test_without_single_token_filter_all_words_stay(smollm2: WordEmbedder) -> None:
    selection = select_polar(polar_sets(), smollm2, seed=0, singly_tokenized=False)
    assert selection.sets.a.words == polar_sets().a.words
    assert selection.sets.b.words == polar_sets().b.words
    assert selection.multiply_tokenized == ()


def test_balancing_is_seeded_and_equalizes_the_groups() -> None:
    a = tuple(f"a{i}" for i in range(10))
    b = ("b0", "b1", "b2", "b3")
    kept_a, kept_b, removed = balance_groups(a, b, seed=3)
    assert len(kept_a) == len(kept_b) == 4 and kept_b == b
    assert len(removed) == 6 and set(removed) | set(kept_a) == set(a)
    assert balance_groups(a, b, seed=3) == (kept_a, kept_b, removed)
    assert len({balance_groups(a, b, seed=s)[2] for s in range(5)}) > 1
    swapped = balance_groups(b, a, seed=3)
    assert swapped == (b, kept_a, removed)  # the same draw on the larger group, either side
    assert balance_groups(b, b, seed=0) == (b, b, ())
    with pytest.raises(WordlensError, match="seed must be a non-negative integer"):
        balance_groups(a, b, seed=-2)


def test_a_group_left_empty_raises(smollm2: WordEmbedder) -> None:
    sets = PolarSets("valence", "en", WordSet("p", ("caress",)), WordSet("u", ("death",)))
    with pytest.raises(EmptyInputError, match="no 'p' polar words are left"):
        select_polar(sets, smollm2, seed=0)
