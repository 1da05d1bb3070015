"""The SSSB rows of Table 2 on static vectors (Zhou, Kaneko & Bollegala 2022, the authors'
``eval-sssb-sense.py``): the bootstrap statistic on constructed cosines, the authors' choice of
keys in WordNet 3.0, and the rows on real GloVe vectors against a hand computation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.sense_bias.static_sssb import (
    NATIONALITIES,
    SSSB_ROWS,
    Draws,
    SssbItems,
    gender_draws,
    run_static_sssb,
    sampled_ratio,
    sssb_items,
    sssb_table2_rows,
    summarize_draws,
    two_sided_draws,
)
from wordlens.models.base import WordEmbedder
from wordlens.models.senses import SenseVectors, build_sense_vectors
from wordlens.resources.bias_benchmarks import load_sssb_adjectives
from wordlens.resources.gender_words import load_gender_pairs
from wordlens.resources.sense_assignments import occupation_senses
from wordlens.resources.wordnet import WordNet, load_wordnet

RNG = np.random.default_rng(11)


# --- the statistic --------------------------------------------------------------------------------


def test_sampled_ratio_is_mean_over_population_sd_of_each_draw() -> None:
    cosines = RNG.normal(size=(7, 3))  # 7 attributes, 3 layers
    rows = RNG.integers(0, 7, size=(40, 7))
    sizes = RNG.integers(3, 8, size=40)
    ratio = sampled_ratio(cosines, Draws(sizes, rows))
    assert ratio.shape == (40, 3)
    for draw in range(40):
        values = cosines[rows[draw, : sizes[draw]]]
        expected = values.mean(axis=0) / values.std(axis=0)  # np.std: ddof 0, as the authors
        np.testing.assert_allclose(ratio[draw], expected, rtol=1e-12)


def test_a_draw_of_equal_cosines_has_no_ratio_and_is_counted() -> None:
    cosines = np.array([0.3, 0.3, 0.5])
    draws = Draws(np.array([2, 3, 1]), np.array([[0, 1, 2], [0, 1, 2], [2, 0, 0]]))
    ratio = sampled_ratio(cosines, draws)
    assert np.isnan(ratio[0]) and np.isnan(ratio[2])  # {0.3, 0.3} and a single value: sd 0
    assert ratio[1] == pytest.approx(np.mean([0.3, 0.3, 0.5]) / np.std([0.3, 0.3, 0.5]))
    summary = summarize_draws(ratio[:, np.newaxis])
    assert summary.score[0] == pytest.approx(ratio[1]) and summary.n_degenerate[0] == 2
    assert np.isnan(summary.sem[0])  # one draw left: no standard error
    empty = summarize_draws(np.full((4, 1), np.nan))
    assert np.isnan(empty.score[0]) and empty.n_degenerate[0] == 4


def test_draws_follow_the_authors_sizes() -> None:
    pleasant, unpleasant = two_sided_draws(9, 2000, seed=3)
    assert pleasant.sizes is unpleasant.sizes  # one size per draw for both lists
    assert set(np.unique(pleasant.sizes)) == set(range(4, 10))  # randint(t // 2, t), inclusive
    assert pleasant.rows.shape == (2000, 9) and pleasant.rows.max() == 8
    assert not np.array_equal(pleasant.rows, unpleasant.rows)
    gender = gender_draws(11, 50, seed=3)
    assert (gender.sizes == 5).all() and gender.rows.shape == (50, 5)  # len(L) // 2
    again = two_sided_draws(9, 2000, seed=3)[0]
    assert np.array_equal(again.rows, pleasant.rows)
    with pytest.raises(EmptyInputError, match="at least 2 words"):
        two_sided_draws(1, 10, seed=0)
    with pytest.raises(EmptyInputError, match="at least 2 pairs"):
        gender_draws(1, 10, seed=0)


# --- the authors' keys ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wordnet() -> WordNet:
    return load_wordnet()


@pytest.fixture(scope="module")
def items(wordnet: WordNet, shared: Path) -> SssbItems:
    return sssb_items(wordnet, load_gender_pairs(), occupation_senses(wordnet))


def test_keys_are_chosen_as_the_authors_code_chooses_them(
    wordnet: WordNet, items: SssbItems
) -> None:
    assert wordnet.synset_head_keys("he")[0] == "helium%1:27:00::"
    assert wordnet.synset_head_keys("wizards")[0] == "ace%1:18:00::"  # morphy: wizard
    assert wordnet.synset_head_keys("she") == () and wordnet.synset_head_keys("") == ()
    pleasant_words, unpleasant_words = load_sssb_adjectives()
    assert (len(pleasant_words), len(unpleasant_words)) == (130, 54)
    # The authors' selection (eval-sssb-sense.py:69-110, 196-209) written out on NLTK's reader
    # of the same WordNet 3.0 files: the first synset whose first lemma's key is a head
    # adjective (ss_type 3); for a gender pair, each word's first synset's first lemma.
    reader = wordnet._reader

    def authors_adjective(word: str) -> str | None:
        keys = [synset.lemmas()[0].key() for synset in reader.synsets(word)]
        heads = [key for key in keys if int(key.split("%")[1].split(":")[0]) == 3]
        return heads[0] if heads else None

    for words, chosen in ((pleasant_words, items.pleasant), (unpleasant_words, items.unpleasant)):
        assert chosen == tuple(key for key in map(authors_adjective, words) if key is not None)
    pairs = []
    for male, female in load_gender_pairs():
        male_synsets, female_synsets = reader.synsets(male), reader.synsets(female)
        if male_synsets and female_synsets:
            pairs.append((male_synsets[0].lemmas()[0].key(), female_synsets[0].lemmas()[0].key()))
    assert items.pairs == tuple(pairs)
    # 66 and 31 words have a head-adjective synset; the first lemma may be another word
    assert (len(items.pleasant), len(items.unpleasant)) == (66, 31)
    assert items.pleasant[:2] == ("agreeable%3:00:00::", "bright%3:00:00::")
    assert "sympathetic%3:00:02::" in items.pleasant  # "Likable"
    assert items.pleasant.count("brave%3:00:00::") == 2  # "Brave" and "Courageous"
    assert "Affectionate" in items.dropped["pleasant"] and "cruel" in items.dropped["unpleasant"]
    assert "he/she" in items.dropped["pairs"]
    assert ("man%1:18:00::", "woman%1:18:00::") in items.pairs
    assert len(items.pairs) + len(items.dropped["pairs"]) == 222
    rows = pd.Series([target.row for target in items.targets]).value_counts().to_dict()
    assert rows == {
        "black (ethnicity)": 1,
        "black (colour)": 1,
        "nationality": 16,
        "language": 16,
        "noun": 6,
        "verb": 6,
    }
    keys = items.keys(wordnet)
    assert "arabic%1:10:00::" in keys and "arabic%1:18:00::" not in keys  # not in WordNet 3.0
    assert {"black", "japanese", "nurse"} <= set(items.lemmas)


# --- the rows on real vectors --------------------------------------------------------------------


@pytest.fixture(scope="module")
def glove_senses(glove: WordEmbedder, wordnet: WordNet, items: SssbItems) -> SenseVectors:
    """GloVe as a static sense store: every sense of a lemma gets the lemma's vector."""
    keys = [sense.key for lemma in items.lemmas for sense in wordnet.senses(lemma)]
    return build_sense_vectors(glove, [*keys, *items.keys(wordnet)], wordnet=wordnet)


def _cos(vectors: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The authors' ``cosine`` (0 for a zero vector; their division by ``|x|`` is omitted, which
    ``mean / sd`` does not see) times ``1 / |x|``."""
    norms = np.linalg.norm(vectors, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    return np.where(norms > 0, vectors @ target / safe, 0.0) / np.linalg.norm(target)


def test_glove_baseline_rows_equal_a_hand_computation(
    glove: WordEmbedder, glove_senses: SenseVectors, items: SssbItems
) -> None:
    n_draws, seed = 300, 5
    table, meta = run_static_sssb(glove_senses, items, baseline=glove, n_draws=n_draws, seed=seed)

    def vector(word: str) -> np.ndarray:
        return glove.embed_words([word], layers=[-1]).vectors[0, 0].astype(np.float64)

    def lemma(key: str) -> str:
        return key.split("%")[0].replace("_", " ")

    # black (ethnicity) on GloVe, as two_sided_sampling with the documented draw order
    missing = set(glove.missing_words([lemma(k) for k in (*items.pleasant, *items.unpleasant)]))
    pleasant = [k for k in items.pleasant if k in glove_senses and lemma(k) not in missing]
    unpleasant = [k for k in items.unpleasant if k in glove_senses and lemma(k) not in missing]
    t = min(len(pleasant), len(unpleasant))
    cos_p, cos_u = (
        _cos(np.stack([vector(lemma(k)) for k in keys[:t]]), vector("black"))
        for keys in (pleasant, unpleasant)
    )
    rng = np.random.default_rng([seed, 0])
    sizes = rng.integers(t // 2, t, size=n_draws, endpoint=True)
    rows_p, rows_u = rng.integers(0, t, size=(n_draws, t)), rng.integers(0, t, size=(n_draws, t))
    scores = []
    for draw in range(n_draws):
        p, u = cos_p[rows_p[draw, : sizes[draw]]], cos_u[rows_u[draw, : sizes[draw]]]
        scores.append(np.mean(p) / np.std(p) - np.mean(u) / np.std(u))
    rows = sssb_table2_rows(table).set_index(["row", "representation"])["value"]
    assert t == meta["baseline"]["t"] == 31
    assert rows[("black (ethnicity)", "baseline")] == pytest.approx(np.mean(scores), rel=1e-10)
    # its standard error is the authors' ``stats.sem(bias_scores)`` (eval-sssb-sense.py:67):
    # sd with ddof 1 over sqrt(n_draws), here from scipy and written out
    black = table[(table["representation"] == "baseline") & (table["row"] == "black (ethnicity)")]
    (sem,) = black["sem"]
    by_hand = np.sqrt(np.sum((scores - np.mean(scores)) ** 2) / (n_draws - 1) / n_draws)
    assert sem == pytest.approx(stats.sem(scores), rel=1e-9)
    assert sem == pytest.approx(by_hand, rel=1e-9)

    # noun: mean over the occupations of |sample_and_average| with the gender offsets
    pairs = [
        pair
        for pair in items.pairs
        if all(k in glove_senses for k in pair) and not {lemma(k) for k in pair} & missing
    ]
    offsets = np.stack([vector(lemma(m)) - vector(lemma(f)) for m, f in pairs])
    assert (np.linalg.norm(offsets, axis=1) == 0).sum() == 3  # chairman/chairwoman, ...
    rng = np.random.default_rng([seed, 1])
    drawn = rng.integers(0, len(pairs), size=(n_draws, len(pairs) // 2))
    per_occupation = []
    for occupation in ("engineer", "nurse", "judge", "mentor", "guide", "carpenter"):
        cosines = _cos(offsets, vector(occupation))
        ratios = [np.mean(c) / np.std(c) for c in cosines[drawn]]
        per_occupation.append(np.mean(ratios))
        found = table[
            (table["representation"] == "baseline")
            & (table["row"] == "noun")
            & (table["target"] == occupation)
        ]
        assert found["score"].item() == pytest.approx(np.mean(ratios), rel=1e-10)
        assert found["sem"].item() == pytest.approx(stats.sem(ratios), rel=1e-9)  # :44
    assert rows[("noun", "baseline")] == pytest.approx(np.mean(np.abs(per_occupation)), rel=1e-10)

    # every row, every representation, finite; a static store gives the word's vector to every
    # sense, so sense = word = baseline wherever the targets agree
    assert set(rows.index.get_level_values("row")) == set(SSSB_ROWS)
    assert np.isfinite(rows.to_numpy()).all() and len(rows) == 18
    for row in ("black (ethnicity)", "black (colour)", "noun", "verb"):
        assert rows[(row, "sense")] == pytest.approx(rows[(row, "baseline")], rel=1e-6)
    assert rows[("noun", "word")] == rows[("verb", "word")]  # one eq. 7 vector per occupation


def test_nationality_rows_keep_the_authors_targets(
    glove_senses: SenseVectors, items: SssbItems
) -> None:
    table, meta = run_static_sssb(glove_senses, items, n_draws=50)
    counts = table.groupby(["row", "representation"]).size()
    # sense level: a nationality needs both senses (Arabic, Swedish, Polish, Finnish lack one)
    assert counts[("nationality", "sense")] == counts[("language", "sense")] == 12
    assert counts[("nationality", "word")] == len(NATIONALITIES) == 16
    assert "nationality: swedish%1:18:00::" in meta["sense"]["left_out_targets"]
    assert meta["word"]["left_out_targets"] == {}
    assert meta["sense"]["t"] == 31 and len(meta["sense"]["cut_to_t"]) == 66 - 31
    # keys GloVe cannot embed (multi-word lemmas) are not in the store and are listed
    assert all("_" in key.split("%")[0] for key in meta["not_in_store"])
    aggregated = sssb_table2_rows(table).set_index(["row", "representation"])
    language = table[(table["row"] == "language") & (table["representation"] == "word")]
    assert aggregated.loc[("language", "word"), "value"] == pytest.approx(
        language["score"].abs().mean()
    )
    assert "baseline" not in set(table["representation"])
    with pytest.raises(WordlensError, match="n_draws must be at least 2"):
        run_static_sssb(glove_senses, items, n_draws=1)


def test_too_few_attributes_or_pairs_is_an_error(
    glove_senses: SenseVectors, items: SssbItems
) -> None:
    with pytest.raises(EmptyInputError, match="2 pleasant and 2 unpleasant"):
        run_static_sssb(glove_senses, replace(items, unpleasant=items.unpleasant[:1]), n_draws=10)
    with pytest.raises(EmptyInputError, match="at least 2 gender pairs; got 1"):
        run_static_sssb(glove_senses, replace(items, pairs=items.pairs[:1]), n_draws=10)
