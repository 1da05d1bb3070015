"""Sense-level bias tests (Zhou, Kaneko & Bollegala 2022): WEAT with sense ids, WAT with the
maximum over sense pairs, eq. 8 gender directions, on constructed vectors with known answers and
end to end on real models."""

from __future__ import annotations

import csv
import itertools
import tracemalloc
from dataclasses import replace
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.evocation_by_hand import usf_strengths
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.registry import get_method
from wordlens.methods.sense_bias import SenseBiasConfig
from wordlens.methods.sense_bias.compute import (
    TABLE2_COLUMNS,
    WEAT_ROWS,
    eq4_max_over_senses,
    eq4_scores,
    gender_direction,
    max_cosine_by_group,
    propagated_gender_scores,
    run_dimension_sweep,
    run_gender_direction,
    run_sense_bias,
    run_sense_weat,
    run_wat,
    wat_reference,
)
from wordlens.methods.sense_bias.report import build_sense_report, write_paper_figures
from wordlens.methods.sense_bias.static_sssb import SSSB_ROWS
from wordlens.models.base import WordEmbedder
from wordlens.models.senses import SenseVectors, build_sense_vectors
from wordlens.resources import WeatTest, WordSet, load_weat_tests
from wordlens.resources.association_norms import AssociationNorms, load_association_norms
from wordlens.resources.gender_words import WAT_SEED_PAIRS
from wordlens.resources.sense_assignments import (
    OccupationSenses,
    SenseAssignments,
    weat_sense_assignments,
)
from wordlens.resources.wordnet import load_wordnet
from wordlens.results import Run
from wordlens.stats import cosine_similarity, pearson, weat

RNG = np.random.default_rng(7)
DIM = 6


def unit(index: int, scale: float = 1.0) -> np.ndarray:
    vector = np.zeros(DIM)
    vector[index] = scale
    return vector


def cosine_with(vector: np.ndarray, direction: np.ndarray) -> float:
    return float(cosine_similarity(vector[np.newaxis], direction[np.newaxis])[0, 0])


def make_store(vectors: dict[str, np.ndarray]) -> SenseVectors:
    """A one-layer store from key → [d] vectors."""
    stacked = np.stack(list(vectors.values()))[:, np.newaxis, :].astype(np.float32)
    return SenseVectors(tuple(vectors), stacked, (0,), source="constructed")


# --- WEAT -----------------------------------------------------------------------------------------

WORDS = {
    "x": ("rose", "tulip"),
    "y": ("ant", "flea"),
    "a": ("love", "peace"),
    "b": ("death", "grief"),
}
TEST = WeatTest(
    99,
    "constructed",
    *(WordSet(role, words) for role, words in WORDS.items()),
    original_finding=load_weat_tests([1])[0].original_finding,
)
ASSIGNED = {word: f"{word}%1:00:00::" for words in WORDS.values() for word in words}


def planted_store() -> SenseVectors:
    """Assigned senses: targets X near A, Y near B; every word also has an unrelated sense."""
    vectors: dict[str, np.ndarray] = {}
    for role, words in WORDS.items():
        axis = 0 if role in "xa" else 1
        for word in words:
            vectors[ASSIGNED[word]] = unit(axis) + 0.2 * RNG.normal(size=DIM)
            vectors[f"{word}%2:00:00::"] = RNG.normal(size=DIM)
    return make_store(vectors)


def test_sense_weat_is_weat_on_assigned_senses_and_on_eq7_word_vectors() -> None:
    senses = planted_store()
    assignments = SenseAssignments(ASSIGNED, {}, (99,), "constructed")
    table = run_sense_weat(
        senses, [TEST], assignments, config=SenseBiasConfig(permutations=1000)
    ).tables["weat"]
    by_rep = table.set_index("representation")
    sense_sets = [senses.sense_vectors([ASSIGNED[w] for w in WORDS[r]]) for r in "xyab"]
    word_sets = [senses.word_vectors(list(WORDS[r])) for r in "xyab"]
    for representation, sets in (("sense", sense_sets), ("word", word_sets)):
        direct = weat(*sets, n_samples=1000)
        row = by_rep.loc[representation]
        assert row["effect_size"] == pytest.approx(float(direct.effect_size[0]), abs=1e-12)
        assert row["p_one_sided"] == pytest.approx(float(direct.p_one_sided[0]))
        assert row["exact"] and row["n_partitions"] == 6  # C(4, 2) partitions, all enumerated
    assert by_rep.loc["sense", "effect_size"] > 1.0  # the planted bias shows at the sense level
    assert by_rep.loc["sense", "effect_size"] != by_rep.loc["word", "effect_size"]
    # d's bootstrap interval over the target words, brute force: s(w, A, B) by hand, X and Y
    # resampled apart with the run's seed (0), d recomputed, the 2.5% and 97.5% quantiles
    for representation, sets in (("sense", sense_sets), ("word", word_sets)):
        x, y, a, b = (np.asarray(vectors, dtype=np.float64)[:, 0] for vectors in sets)

        sx, sy = (_association_by_hand(words, a, b) for words in (x, y))
        draws = np.random.default_rng(0)
        rows_x, rows_y = draws.integers(0, 2, (2000, 2)), draws.integers(0, 2, (2000, 2))
        d = [
            (sx[i].mean() - sy[j].mean()) / np.concatenate([sx[i], sy[j]]).std(ddof=1)
            for i, j in zip(rows_x, rows_y, strict=True)
        ]
        row = by_rep.loc[representation]
        assert row["effect_size_ci_low"] == pytest.approx(np.nanquantile(d, 0.025))
        assert row["effect_size_ci_high"] == pytest.approx(np.nanquantile(d, 0.975))
        assert row["effect_size_ci_low"] <= row["effect_size"] <= row["effect_size_ci_high"]


def _association_by_hand(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B): the mean cosine with A minus the mean cosine with B, per word."""

    def normed(vectors: np.ndarray) -> np.ndarray:
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    return (normed(words) @ normed(a).T).mean(axis=1) - (normed(words) @ normed(b).T).mean(axis=1)


def test_words_with_one_sense_give_the_same_sense_and_word_results() -> None:
    single = make_store({ASSIGNED[w]: RNG.normal(size=DIM) for ws in WORDS.values() for w in ws})
    assignments = SenseAssignments(ASSIGNED, {}, (99,), "constructed")
    table = run_sense_weat(
        single, [TEST], assignments, config=SenseBiasConfig(permutations=100)
    ).tables["weat"]
    sense, word = (table[table["representation"] == r].iloc[0] for r in ("sense", "word"))
    assert sense["effect_size"] == word["effect_size"]
    assert sense["statistic"] == word["statistic"]


def test_unassigned_and_missing_words_are_dropped_from_both_levels() -> None:
    senses = planted_store()
    assigned = dict(ASSIGNED) | {"tulip": "tulip%1:20:00::"}  # a key the store lacks
    assignments = SenseAssignments(assigned, {"flea": "no fitting sense"}, (99,), "c")
    run = run_sense_weat(senses, [TEST], assignments, config=SenseBiasConfig(permutations=100))
    assert run.metadata["dropped_words"]["99"] == {
        "tulip": "tulip%1:20:00:: is not in the sense vectors",
        "flea": "no fitting sense",
    }
    assert set(run.tables["weat"]["n_x"]) == {1} and set(run.tables["weat"]["n_y"]) == {1}
    empty = SenseAssignments({}, {}, (99,), "c")
    with pytest.raises(EmptyInputError, match="no word of set X"):
        run_sense_weat(senses, [TEST], empty)


# --- WAT -----------------------------------------------------------------------------------------


def test_max_cosine_by_group_is_the_brute_force_maximum() -> None:
    vectors = RNG.normal(size=(9, DIM))
    groups_a = [np.array([0, 3]), np.array([5]), np.array([1, 2, 8])]
    groups_b = [np.array([4, 7]), np.array([6, 0])]
    cos = cosine_similarity(vectors, vectors)
    expected = [[max(cos[i, j] for i in a for j in b) for b in groups_b] for a in groups_a]
    np.testing.assert_allclose(max_cosine_by_group(vectors, groups_a, groups_b), expected)
    with pytest.raises(EmptyInputError):
        max_cosine_by_group(vectors, [np.array([], dtype=np.int64)], groups_b)


def test_eq4_is_the_mean_cosine_difference_over_pairs() -> None:
    words = RNG.normal(size=(4, 2, DIM))
    male, female = RNG.normal(size=(3, 2, DIM)), RNG.normal(size=(3, 2, DIM))
    expected = np.zeros((4, 2))
    for n, layer in itertools.product(range(4), range(2)):
        diffs = [
            cosine_similarity(words[n, layer][None], male[p, layer][None])[0, 0]
            - cosine_similarity(words[n, layer][None], female[p, layer][None])[0, 0]
            for p in range(3)
        ]
        expected[n, layer] = np.mean(diffs)
    np.testing.assert_allclose(eq4_scores(words, (male, female)), expected, atol=1e-12)


def wat_store() -> SenseVectors:
    """Male seeds along axis 0, female along axis 1; five words in between, 'bank' two-sensed."""
    vectors = {
        "father%1:18:00::": unit(0) + 0.1 * unit(2),
        "mother%1:18:00::": unit(1) + 0.1 * unit(2),
        "man%1:18:00::": unit(0) + 0.1 * unit(3),
        "woman%1:18:00::": unit(1) + 0.1 * unit(3),
    }
    for index, word in enumerate(["tool", "doll", "car", "lace", "bank"]):
        vectors[f"{word}%1:06:00::"] = unit(0, np.cos(index)) + unit(1, np.sin(index)) + unit(4)
    vectors["bank%1:17:00::"] = unit(0)  # a second, strongly male sense of "bank"
    return make_store(vectors)


def test_wat_correlates_eq4_with_the_reference_at_both_levels() -> None:
    senses = wat_store()
    pairs = (("father", "mother"), ("man", "woman"), ("he", "she"))
    words = ["tool", "doll", "car", "lace", "bank"]
    word_scores = eq4_scores(
        senses.word_vectors(words),
        (senses.word_vectors(["father", "man"]), senses.word_vectors(["mother", "woman"])),
    )[:, 0]
    reference = pd.Series(word_scores * 2.0 + 1.0, index=words)  # exactly linear in eq. 4
    run = run_wat(senses, reference, pairs=pairs)
    table = run.tables["wat"].set_index("representation")
    assert table.loc["word", "r"] == pytest.approx(1.0)
    assert table.loc["word", "n"] == 5
    assert run.metadata["dropped_pairs"] == [["he", "she"]]
    sense_scores = eq4_max_over_senses(senses, words, (("father", "mother"), ("man", "woman")))
    assert sense_scores[4, 0] > word_scores[4]  # max picks the male sense of "bank"
    np.testing.assert_allclose(sense_scores[:4, 0], word_scores[:4], atol=1e-6)  # one sense each
    expected_r = pearson(sense_scores[:, 0], reference.to_numpy()).r
    assert table.loc["sense", "r"] == pytest.approx(expected_r)
    np.testing.assert_allclose(run.tables["wat_scores"]["sense_score"], sense_scores[:, 0])


def test_wat_needs_pairs_and_words() -> None:
    senses = wat_store()
    with pytest.raises(EmptyInputError, match="no gender pair"):
        run_wat(
            senses,
            pd.Series([1.0, 2.0, 3.0], index=["tool", "doll", "car"]),
            pairs=(("he", "she"),),
        )
    with pytest.raises(EmptyInputError, match="only 2 reference word"):
        run_wat(
            senses,
            pd.Series([1.0, 2.0, 3.0], index=["tool", "doll", "zzz"]),
            pairs=(("man", "woman"),),
        )


def test_propagated_scores_on_a_symmetric_graph() -> None:
    # he - x - y - z - she (both directions) and a separate pair that is not strongly connected
    chain = ["he", "x", "y", "z", "she"]
    edges = [(a, b) for a, b in itertools.pairwise(chain)] + [
        (b, a) for a, b in itertools.pairwise(chain)
    ]
    edges.append(("lone", "he"))
    frame = pd.DataFrame(edges, columns=["cue", "response"]).assign(strength=0.5)
    scores, meta = propagated_gender_scores(
        AssociationNorms("toy", frame), (("he", "she"),), alpha=0.9
    )
    assert meta["component_size"] == 5 and meta["n_words"] == 6
    assert meta["seeds"] == {"male": ["he"], "female": ["she"]}
    assert abs(scores["y"]) < 1e-12
    assert scores["x"] == pytest.approx(-scores["z"])
    assert scores["he"] > scores["x"] > 0
    with pytest.raises(EmptyInputError, match="lacks every female seed"):
        propagated_gender_scores(AssociationNorms("toy", frame), (("he", "lone"),))


# --- gender direction ----------------------------------------------------------------------------


def test_gender_direction_is_eq8_and_cosines_are_taken_with_it() -> None:
    vectors = {
        "father%1:18:00::": unit(0) + unit(2),
        "mother%1:18:00::": unit(1) + unit(2),
        "king%1:18:00::": unit(0, 3.0),
        "queen%1:18:00::": unit(1, 3.0) + unit(3),
        "nurse%1:18:00::": unit(1) + unit(4),
        "nurse%2:29:00::": unit(4),
    }
    senses = make_store(vectors)
    pairs = (("father", "mother"), ("king", "queen"), ("he", "she"))
    g = gender_direction(
        senses.word_vectors(["father", "king"]), senses.word_vectors(["mother", "queen"])
    )
    np.testing.assert_allclose(g[0], (unit(0) * 4 - unit(1) * 4 - unit(3)) / 2)
    nurse = OccupationSenses("nurse", "nurse%1:18:00::", "nurse%2:29:00::")
    run = run_gender_direction(senses, pairs, [nurse])
    row = run.tables["gender_direction"].iloc[0]
    assert row["noun_sense"] == pytest.approx(cosine_with(vectors["nurse%1:18:00::"], g[0]))
    assert row["noun_sense"] < 0  # female-leaning
    assert row["verb_sense"] == pytest.approx(0.0, abs=1e-12)
    assert row["word"] == pytest.approx(cosine_with(unit(1) / 2 + unit(4), g[0]))
    assert np.isnan(row["baseline"])
    assert run.metadata["dropped_pairs"] == [["he", "she"]]
    with pytest.raises(EmptyInputError, match="no male-female pair"):
        run_gender_direction(senses, (("he", "she"),), [nurse])
    with pytest.raises(WordlensError, match=r"\[P, n_layers, d\]"):
        gender_direction(np.zeros((2, 3)), np.zeros((2, 3)))


def test_gender_direction_cosines_carry_a_bootstrap_interval_over_the_pairs() -> None:
    """``<column>_ci_low``/``_high``: the percentiles of the cosine with ``g`` recomputed, in a
    plain loop, on the seeded resamples of the pairs (the occupation's vector fixed)."""
    rng = np.random.default_rng(0)
    words = ["father", "king", "brother", "uncle", "mother", "queen", "sister", "aunt"]
    vectors = {f"{word}%1:18:00::": rng.normal(size=DIM) for word in words}
    vectors |= {"nurse%1:18:00::": rng.normal(size=DIM), "nurse%2:29:00::": rng.normal(size=DIM)}
    senses = make_store(vectors)
    pairs = tuple(zip(words[:4], words[4:], strict=True))
    nurse = OccupationSenses("nurse", "nurse%1:18:00::", "nurse%2:29:00::")
    row = run_gender_direction(senses, pairs, [nurse], seed=3).tables["gender_direction"].iloc[0]
    noun = senses.sense_vectors(["nurse%1:18:00::"])[0, 0].astype(np.float64)
    male, female = (senses.word_vectors(list(side))[:, 0] for side in zip(*pairs, strict=True))
    differences = male.astype(np.float64) - female.astype(np.float64)
    resamples = np.random.default_rng(3).integers(0, 4, (2000, 4))
    brute = [cosine_with(noun, differences[r].mean(axis=0)) for r in resamples]
    low, high = np.quantile(brute, [0.025, 0.975])
    assert (row["noun_sense_ci_low"], row["noun_sense_ci_high"]) == pytest.approx((low, high))
    assert row["noun_sense_ci_low"] <= row["noun_sense"] <= row["noun_sense_ci_high"]
    for column in ("verb_sense", "word"):
        assert row[f"{column}_ci_low"] < row[column] < row[f"{column}_ci_high"], column


# --- references and end to end -------------------------------------------------------------------


def _raw_lexicon(path: Path) -> dict[str, float]:
    """A WAT lexicon file read directly: ``word<TAB>score`` per line."""
    with path.open(encoding="utf-8") as handle:
        return {word: float(score) for word, score in csv.reader(handle, delimiter="\t")}


def test_registered_wat_references(shared: Path) -> None:
    folder = shared / "data" / "bias_benchmarks" / "wat"
    du2019, meta = wat_reference("wat-du2019")
    raw_du = _raw_lexicon(folder / "stereotype_lexicon_du2019.tsv")
    assert len(du2019) == len(raw_du) == 12_215 and meta == {"reference": "wat-du2019"}
    assert du2019.to_dict() == raw_du  # the published lexicon, value for value (he 1.084)
    zhou, _ = wat_reference("wat-zhou2022")
    assert zhou.to_dict() == _raw_lexicon(folder / "wat_bi_bias_sense.tsv")
    usf = load_association_norms("usf")
    assert usf.edges["strength"].between(0, 1).all()
    assert not usf.edges.duplicated(["cue", "response"]).any()
    scores, meta = wat_reference("usf")
    # Du et al.'s propagation recomputed from the raw USF file: networkx's largest strongly
    # connected component, T = D_out^-1/2 W D_in^-1/2 on it, F* = (1 - alpha)(I - alpha T)^-1 Y
    # by a dense numpy solve (the code iterates), score log(F*[w, m] / F*[w, f])
    strength = usf_strengths(shared / "data")
    graph = nx.DiGraph()
    graph.add_weighted_edges_from((cue, response, w) for (cue, response), w in strength.items())
    component = sorted(max(nx.strongly_connected_components(graph), key=len))
    assert meta["component_size"] == len(component)
    weights = nx.to_numpy_array(graph, nodelist=component, weight="weight")
    out_sums, in_sums = weights.sum(axis=1), weights.sum(axis=0)
    transition = weights / np.sqrt(out_sums)[:, None] / np.sqrt(in_sums)[None, :]
    row = {word: i for i, word in enumerate(component)}
    seeds = np.zeros((len(component), 2))
    for side in (0, 1):
        for pair in WAT_SEED_PAIRS:
            if pair[side] in row:
                seeds[row[pair[side]], side] = 1.0
    missing = sorted({w for pair in WAT_SEED_PAIRS for w in pair} - set(row))
    assert meta["missing_seeds"] == missing == ["grandfather", "grandmother"]
    labels = np.linalg.solve(np.eye(len(component)) - 0.99 * transition, 0.01 * seeds)
    expected = pd.Series(np.log(labels[:, 0] / labels[:, 1]), index=component)
    assert list(scores.index) == component
    np.testing.assert_allclose(scores.to_numpy(), expected.to_numpy(), rtol=1e-6, atol=1e-9)
    # its agreement with Du et al.'s SWOW lexicon, over the words both have (lower-cased)
    lexicon = pd.Series(raw_du)
    lexicon = lexicon.groupby(lexicon.index.str.lower()).first()
    both = expected.index.intersection(lexicon.index)
    assert meta["n_shared"] == len(both)
    r = stats.pearsonr(expected[both], lexicon[both]).statistic
    assert meta["pearson_with_wat_du2019"] == pytest.approx(r, abs=1e-6)
    assert r > 0.2  # the propagation on other norms agrees with the published lexicon
    assert scores["he"] > 0 > scores["she"]
    with pytest.raises(WordlensError, match="unknown WAT reference"):
        wat_reference("swow")


def test_config_validation() -> None:
    with pytest.raises(WordlensError, match="choose experiments"):
        SenseBiasConfig(experiments=("weat", "seat"))  # type: ignore[arg-type]
    with pytest.raises(WordlensError, match="unknown WAT reference"):
        SenseBiasConfig(wat_reference="swow")
    with pytest.raises(WordlensError, match="unknown gender pairs"):
        SenseBiasConfig(gender_pairs="bolukbasi")
    with pytest.raises(WordlensError, match="at least 3"):
        SenseBiasConfig(wat_words=2)
    with pytest.raises(WordlensError, match="dimensions must be positive"):
        SenseBiasConfig(dimensions=(0, 10))
    with pytest.raises(WordlensError, match="sssb_draws must be at least 2"):
        SenseBiasConfig(sssb_draws=1)
    with pytest.raises(WordlensError, match="give exactly one of --model and --senses"):
        run_sense_bias(SenseBiasConfig())


@pytest.mark.slow
def test_sense_bias_end_to_end_on_minilm_with_a_glove_baseline(
    minilm: WordEmbedder, glove: WordEmbedder, shared: Path, tmp_path: Path
) -> None:
    config = SenseBiasConfig(
        layers=(0, -1),
        weat_tests=(9,),
        wat_words=12,
        max_examples=0,
        gender_pairs="debiaswe-definitional-pairs",
        permutations=500,
    )
    run = run_sense_bias(config, model=minilm, baseline=glove)
    weat_table = run.tables["weat"]
    assert set(weat_table["representation"]) == {"sense", "word", "baseline"}
    assert set(weat_table.loc[weat_table["representation"] == "sense", "layer"]) == {0, 6}
    assert weat_table.loc[weat_table["representation"] == "baseline", "layer"].tolist() == [0]
    assert (weat_table[["n_x", "n_y", "n_a", "n_b"]].to_numpy() == [6, 6, 7, 7]).all()
    wat_table = run.tables["wat"]
    assert len(wat_table) == 5 and (wat_table["n"] == 12).all()
    directions = run.tables["gender_direction"]
    assert len(directions) == 12 and directions["baseline"].notna().all()
    assert run.metadata["experiments"]["wat"]["n_sampled"] == 12
    assert run.metadata["sense_vectors"]["n_senses"] > 100
    table2 = run.tables["table2"].set_index("row")
    assert list(table2.index) == [*WEAT_ROWS.values(), "WAT", *SSSB_ROWS]
    computed = ["Physical vs. Mental condition", "WAT", *SSSB_ROWS]
    assert np.isfinite(table2.loc[computed, ["word", "sense", "baseline"]].to_numpy()).all()
    assert table2.loc["Math vs Art", "note"] == "WEAT test 7 not among the tests run ((9,))"
    assert (table2.loc[computed, "layer"] == 6).all()
    # contextual sense vectors tell black's two senses apart; its eq. 7 word vector cannot
    assert table2.loc["black (ethnicity)", "sense"] != table2.loc["black (colour)", "sense"]
    assert table2.loc["black (ethnicity)", "word"] == table2.loc["black (colour)", "word"]
    sweep = run.tables["dimensions"]
    assert sorted(set(sweep["dimension"])) == [48, 96, 192, 384]  # d/8, d/4, d/2, d of minilm
    written = run.write(tmp_path, "sense_bias_") + write_paper_figures(run, tmp_path)
    html = build_sense_report(run).render()
    assert "Figure 2" in html and "Table 2" in html and "Figure 1" in html and "<img" in html
    assert {path.name for path in written} >= {
        "sense_bias_weat.parquet",
        "sense_bias_table2.parquet",
        "sense_bias_sssb.parquet",
        "figure_1_dimensions.png",
        "figure_1_dimensions.svg",
        "figure_1_dimensions.pdf",
        "figure_2_gender_direction.png",
        "figure_2_gender_direction.pdf",
        "run.json",
    }
    assert (tmp_path / "figure_1_dimensions.png").read_bytes().startswith(b"\x89PNG")


def test_a_sense_file_gives_the_same_results_as_the_built_vectors(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    wordnet = load_wordnet()
    assignments = weat_sense_assignments(wordnet)
    test = load_weat_tests([9])[0]
    lemmas = {
        assignments.senses[w].split("%")[0]
        for s in (test.x, test.y, test.a, test.b)
        for w in s.words
    }
    keys = [sense.key for lemma in sorted(lemmas) for sense in wordnet.senses(lemma)]
    built = build_sense_vectors(glove, keys, wordnet=wordnet)
    config = SenseBiasConfig(
        senses=built.write(tmp_path / "glove_senses.npz"),
        experiments=("weat",),
        weat_tests=(9,),
        permutations=200,
    )
    from_file = run_sense_bias(config)
    from_store = run_sense_weat(
        built, [test], assignments, config=SenseBiasConfig(permutations=200)
    )
    pd.testing.assert_frame_equal(from_file.tables["weat"], from_store.tables["weat"])
    table = from_store.tables["weat"].set_index("representation")
    # a static model gives every sense the word's vector: sense and word levels agree
    assert table.loc["sense", "effect_size"] == pytest.approx(table.loc["word", "effect_size"])


# --- Table 2 and Figure 1 ------------------------------------------------------------------------


def test_table2_has_every_row_and_says_why_a_row_is_missing(glove: WordEmbedder) -> None:
    config = SenseBiasConfig(experiments=("weat", "sssb"), weat_tests=(9,), permutations=100)
    run = run_sense_bias(replace(config, sssb_draws=200), model=glove, baseline=glove)
    table = run.tables["table2"]
    assert list(table.columns) == TABLE2_COLUMNS
    assert list(table["row"]) == [*WEAT_ROWS.values(), "WAT", *SSSB_ROWS]
    rows = table.set_index("row")
    sssb = rows.loc[list(SSSB_ROWS), ["word", "sense", "baseline"]].to_numpy()
    assert np.isfinite(sssb).all() and (sssb > 0).all()  # mean |score| or a positive score
    assert rows.loc["WAT", "note"] == "experiment wat not run" and np.isnan(rows.loc["WAT", "word"])
    assert rows.loc["Flowers vs Insects", "note"].startswith("WEAT test 1 not among")
    weat_9 = run.tables["weat"].set_index("representation")["effect_size"]
    assert rows.loc["Physical vs. Mental condition", "sense"] == weat_9["sense"]
    assert rows.loc["Physical vs. Mental condition", "baseline"] == weat_9["baseline"]
    assert rows.loc["nationality", "note"] == "sense 12, word 16, baseline 16 target(s)"
    sssb_table = run.tables["sssb"]
    assert set(sssb_table["representation"]) == {"sense", "word", "baseline"}
    assert (sssb_table["n_draws"] == 200).all()
    assert "dimensions" not in run.tables and "sssb" in run.metadata["experiments"]


def test_summary_headlines_are_at_each_representations_top_layer(glove: WordEmbedder) -> None:
    config = SenseBiasConfig(
        experiments=("weat", "wat", "gender-direction"),
        weat_tests=(9,),
        wat_words=12,
        permutations=200,
    )
    run = run_sense_bias(config, model=glove)
    method = get_method("sense-bias")
    summary = method.summary(run)
    weat_d = run.tables["weat"].set_index("representation")["effect_size"]
    wat_r = run.tables["wat"].set_index("representation")["r"]
    assert summary.headline == {
        "weat9_d_sense": weat_d["sense"],
        "weat9_d_word": weat_d["word"],
        "wat_r_sense": wat_r["sense"],
        "wat_r_word": wat_r["word"],
    }
    curves = summary.curves
    assert curves is not None and curves["depth"].isna().all()  # GloVe: one layer, no depth
    assert sorted(curves["metric"]) == [
        "wat_r_sense",
        "wat_r_word",
        "weat9_d_sense",
        "weat9_d_word",
    ]
    assert set(summary.definitions) >= set(summary.headline)
    # a run without the weat and wat experiments has no headline (and no curves)
    directions_only = Run(run.method, {"gender_direction": run.tables["gender_direction"]})
    empty = method.summary(directions_only)
    assert empty.headline == {} and empty.curves is None
    titles = [getattr(shown, "title", "") for shown in method.console(run)]
    assert titles == [
        "Table 2 (word / sense / baseline), top layer",
        "WEAT with sense ids, top layer",
        "WAT (Pearson with the reference), top layer",
        "Cosine with the gender direction (eq. 8), top layer; + male",
    ]


def _weat_senses(
    model: WordEmbedder,
    test_id: int,
    layers: list[int] | None = None,
    max_examples: int | None = None,
) -> tuple[SenseVectors, WeatTest, SenseAssignments]:
    """Sense vectors of every sense of the lemmas a WEAT test's assigned senses name."""
    wordnet = load_wordnet()
    assignments = weat_sense_assignments(wordnet)
    test = load_weat_tests([test_id])[0]
    words = (word for group in (test.x, test.y, test.a, test.b) for word in group.words)
    lemmas = sorted({assignments.senses[word].split("%")[0] for word in words})
    keys = [sense.key for lemma in lemmas for sense in wordnet.senses(lemma)]
    senses = build_sense_vectors(model, keys, layers, max_examples=max_examples, wordnet=wordnet)
    return senses, test, assignments


def test_dimension_sweep_defaults_and_sizes_beyond_the_rank(glove: WordEmbedder) -> None:
    senses, test, assignments = _weat_senses(glove, 1)
    run = run_dimension_sweep(senses, [test], assignments, SenseBiasConfig(permutations=100))
    table = run.tables["dimensions"]
    assert run.metadata["dimensions"] == [6, 12, 25, 50]  # d/8, d/4, d/2, d of GloVe 50d
    assert list(table.groupby("dimension").size()) == [2, 2, 2, 2]  # sense and word per size
    assert table["energy"].is_monotonic_increasing and table["energy"].iloc[-1] == pytest.approx(1)
    direct = run_sense_weat(
        senses, [test], assignments, config=SenseBiasConfig(permutations=100)
    ).tables["weat"]
    full = table[table["dimension"] == 50].set_index("representation")["effect_size"]
    # the full size is a rotation: the effect sizes of the unreduced vectors
    for representation, value in direct.set_index("representation")["effect_size"].items():
        assert full[representation] == pytest.approx(value, abs=1e-5)
    capped_config = SenseBiasConfig(dimensions=(10, 51), permutations=100)
    capped = run_dimension_sweep(senses, [test], assignments, capped_config)
    assert capped.metadata["dimensions"] == [10] and capped.metadata["skipped_dimensions"] == [51]
    with pytest.raises(EmptyInputError, match="no size"):
        run_dimension_sweep(senses, [test], assignments, SenseBiasConfig(dimensions=(51,)))


def _plain_effect_size(sets: list[np.ndarray]) -> float:
    """WEAT eq. 3 written out: s(w) = mean cos(w, A) - mean cos(w, B); d = (mean_X s - mean_Y
    s) / sd_{X u Y} s, sample sd (ddof 1, the config's default)."""

    def unit_rows(matrix: np.ndarray) -> np.ndarray:
        rows: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return rows

    x, y, a, b = (unit_rows(vectors) for vectors in sets)
    s_x = (x @ a.T).mean(axis=1) - (x @ b.T).mean(axis=1)
    s_y = (y @ a.T).mean(axis=1) - (y @ b.T).mean(axis=1)
    return float((s_x.mean() - s_y.mean()) / np.concatenate([s_x, s_y]).std(ddof=1))


def test_dimension_sweep_matches_a_plain_svd_at_every_size(glove: WordEmbedder) -> None:
    """Figure 1 oracle: every reduced size against an independent computation. The top-k right
    singular vectors are taken here as the top-k eigenvectors of the Gram matrix S^T S (numpy
    eigh, not the SVD the code uses; signs and the order within a size do not change cosines),
    the projection S V_k and the eq. 7 means are written out, and WEAT eq. 3 is computed by
    hand on them."""
    senses, test, assignments = _weat_senses(glove, 1)
    run = run_dimension_sweep(senses, [test], assignments, SenseBiasConfig(permutations=100))
    table = run.tables["dimensions"]
    matrix = senses.at_layer(senses.layers[-1]).vectors[:, 0, :].astype(np.float64)
    eigenvalues, eigenvectors = np.linalg.eigh(matrix.T @ matrix)
    order = np.argsort(eigenvalues)[::-1]
    eigenvalues, eigenvectors = np.clip(eigenvalues[order], 0, None), eigenvectors[:, order]
    assert not np.isclose(eigenvalues[:-1], eigenvalues[1:], rtol=1e-9).any()  # subspaces unique
    row_of = {key: row for row, key in enumerate(senses.keys)}
    roles = [
        [w for w in group.words if w in assignments.senses and assignments.senses[w] in row_of]
        for group in (test.x, test.y, test.a, test.b)
    ]
    assert [len(words) for words in roles] == table[["n_x", "n_y", "n_a", "n_b"]].iloc[0].tolist()
    sizes = [6, 12, 25, 50]
    assert sorted(set(table["dimension"])) == sizes
    for size in sizes:
        reduced = matrix @ eigenvectors[:, :size]  # S V_k, [n_senses, k]
        sense_sets = [reduced[[row_of[assignments.senses[w]] for w in words]] for words in roles]
        word_sets = []
        for words in roles:
            lemmas = [assignments.senses[w].split("%")[0] for w in words]
            word_sets.append(
                np.stack(
                    [
                        reduced[[i for k, i in row_of.items() if k.split("%")[0] == lemma]].mean(0)
                        for lemma in lemmas
                    ]
                )
            )
        found = table[table["dimension"] == size].set_index("representation")
        for representation, sets in (("sense", sense_sets), ("word", word_sets)):
            expected = _plain_effect_size(sets)
            assert found.loc[representation, "effect_size"] == pytest.approx(expected, abs=1e-4), (
                size,
                representation,
            )
        kept_energy = eigenvalues[:size].sum() / eigenvalues.sum()
        assert found["energy"].iloc[0] == pytest.approx(kept_energy, abs=1e-9)
    # the sizes really differ (a sweep returning the full-size value everywhere would fail)
    assert table[table["dimension"] == 6]["effect_size"].iloc[0] != pytest.approx(
        table[table["dimension"] == 50]["effect_size"].iloc[0], abs=1e-3
    )


def test_dimension_sweep_allocates_no_senses_by_senses_matrix(glove: WordEmbedder) -> None:
    """The SVD keeps the right singular vectors only: U of every sense (``[n, n]`` float64, 14
    GiB for the paper-scale reproduction's 42,942 senses) is never allocated."""
    wordnet = load_wordnet()
    tests = load_weat_tests(list(range(1, 11)))
    groups = (group for test in tests for group in (test.x, test.y, test.a, test.b))
    words = {word for group in groups for word in group.words}
    lemmas = sorted(filter(None, map(wordnet.lemma_of, words)))
    keys = [sense.key for lemma in lemmas for sense in wordnet.senses(lemma)]
    senses = build_sense_vectors(glove, keys, wordnet=wordnet)
    assert len(senses) > 800  # U would be over 5 MB; the sense matrix is 0.3 MB
    tracemalloc.start()
    try:
        run = run_dimension_sweep(
            senses, tests[:1], weat_sense_assignments(wordnet), SenseBiasConfig(permutations=100)
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.metadata["dimensions"] == [6, 12, 25, 50]
    assert peak < len(senses) ** 2 * 8 / 2, f"peak {peak / 2**20:.1f} MiB"


@pytest.mark.slow
def test_dimension_sweep_on_minilm_gives_one_point_per_size(minilm: WordEmbedder) -> None:
    senses, test, assignments = _weat_senses(minilm, 9, layers=[-1], max_examples=0)
    config = SenseBiasConfig(dimensions=(24, 96, 384), permutations=200)
    run = run_dimension_sweep(senses, [test], assignments, config)
    table = run.tables["dimensions"]
    assert table.groupby(["dimension", "representation"]).size().to_dict() == {
        (size, rep): 1 for size in (24, 96, 384) for rep in ("sense", "word")
    }
    assert np.isfinite(table["effect_size"]).all() and run.metadata["layer"] == 6
    assert run.metadata["n_senses"] < 384  # rank below d: the full size is still a rotation
    direct = run_sense_weat(
        senses, [test], assignments, config=SenseBiasConfig(permutations=200)
    ).tables["weat"]
    full = table[table["dimension"] == 384].set_index("representation")["effect_size"]
    for representation, value in direct.set_index("representation")["effect_size"].items():
        assert full[representation] == pytest.approx(value, abs=1e-4)
    # reduced sizes are other spaces: the effect sizes move
    assert table[table["dimension"] == 24]["effect_size"].tolist() != full.tolist()
