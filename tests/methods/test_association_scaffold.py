"""What every association metric shares (``wordlens.methods.association``): the query's vectors
(words left out are listed, a set left empty is an error), the bootstrap interval (against
scipy's percentile bootstrap) and the permutation p (against every partition enumerated)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from scipy.stats import bootstrap

from wordlens.errors import EmptyInputError, QueryError
from wordlens.methods.association import AssociationConfig
from wordlens.methods.association.method import read_query
from wordlens.methods.association.resampling import bootstrap_interval, permutation_p
from wordlens.methods.association.vectors import FloatArray, embed_query
from wordlens.models.base import WordEmbedder
from wordlens.resources import Query, load_weat_tests

FLOWERS = Query(
    targets={
        "flowers": ["rose", "tulip", "daisy", "lily"],
        "insects": ["ant", "wasp", "flea", "moth"],
    },
    attributes={
        "pleasant": ["love", "peace", "gift", "joy"],
        "unpleasant": ["hate", "war", "filth", "rotten"],
    },
)


def _mean_gap(targets: Sequence[FloatArray], attributes: Sequence[FloatArray]) -> FloatArray:
    """A metric contrasting the two target sets: the gap between their mean cosine with the
    first attribute set, per layer (sets ``[..., n, L, d]``, leading draw axes broadcast)."""

    def cosine_with(words: FloatArray) -> FloatArray:  # [..., n, L]
        a = attributes[0] / np.linalg.norm(attributes[0], axis=-1, keepdims=True)
        w = words / np.linalg.norm(words, axis=-1, keepdims=True)
        return np.einsum("...nld,...mld->...nml", w, a).mean(axis=-2)

    return cosine_with(targets[0]).mean(axis=-2) - cosine_with(targets[1]).mean(axis=-2)


def test_the_query_is_embedded_once_per_word_and_split_by_set(minilm: WordEmbedder) -> None:
    config = AssociationConfig(layers=(0, 6))
    vectors = embed_query(minilm, FLOWERS, config)
    assert vectors.layers == (0, 6)
    assert {name: v.shape for name, v in vectors.targets.items()} == {
        "flowers": (4, 2, 384),
        "insects": (4, 2, 384),
    }
    from wordlens.contexts import targets_from_template

    direct = minilm.embed(targets_from_template(["tulip"]), layers=[6]).vectors[0, 0]
    np.testing.assert_allclose(vectors.targets["flowers"][1, 1], direct, rtol=1e-4, atol=1e-5)
    assert vectors.left_out == {}


def test_words_left_out_are_listed_with_why_and_an_emptied_set_is_an_error(
    glove: WordEmbedder,
) -> None:
    query = Query(
        targets={"flowers": ["rose", "gladiola"], "insects": ["ant", "wasp"]},
        attributes={"pleasant": ["love", "zzqxv"], "unpleasant": ["hate", "war"]},
    )
    vectors = embed_query(glove, query, AssociationConfig())
    assert vectors.left_out == {"flowers": ["gladiola"], "pleasant": ["zzqxv"]}
    assert vectors.words["flowers"] == ["rose"]
    assert vectors.why["gladiola"] == "not in the vocabulary"
    empty = Query(
        targets={"flowers": ["gladiola"], "insects": ["ant"]},
        attributes={"pleasant": ["love"], "unpleasant": ["hate"]},
    )
    with pytest.raises(EmptyInputError, match=r"'flowers'.*every word.*gladiola"):
        embed_query(glove, empty, AssociationConfig())


def test_no_query_is_a_clear_error() -> None:
    with pytest.raises(QueryError, match="rnd needs a query: --query FILE"):
        read_query("rnd", None, AssociationConfig())


def test_permutation_p_equals_the_share_of_all_partitions(glove: WordEmbedder) -> None:
    """4 + 4 target words: 70 partitions. With at least 70 permutations asked, all are
    enumerated and the two-sided p is exactly the share of partitions whose |gap| reaches the
    observed |gap| (brute force over every partition), with the few-partitions warning; with
    fewer, the sampled p, (b + 1) / N, tends to it."""
    vectors = embed_query(glove, FLOWERS, AssociationConfig())
    targets = [vectors.targets["flowers"], vectors.targets["insects"]]
    attributes = [vectors.attributes["pleasant"]]
    observed = abs(_mean_gap(targets, attributes)[0])
    pooled = np.concatenate(targets)
    reached = 0
    partitions = list(itertools.combinations(range(8), 4))
    for chosen in partitions:
        rest = [i for i in range(8) if i not in chosen]
        gap = _mean_gap([pooled[list(chosen)], pooled[rest]], attributes)[0]
        reached += abs(gap) >= observed - 1e-12
    exact = reached / len(partitions)
    enumerated = permutation_p(_mean_gap, targets, attributes, permutations=20_000, seed=3)
    assert enumerated.p.shape == (1,)
    assert enumerated.exact and enumerated.n_relabellings == 70
    assert enumerated.p[0] == pytest.approx(exact, abs=1e-12)
    assert enumerated.warning is not None and "only 70 distinct partitions" in str(
        enumerated.warning
    )
    sampled = permutation_p(_mean_gap, targets, attributes, permutations=60, seed=3)
    assert not sampled.exact and sampled.n_relabellings == 60
    assert sampled.p[0] >= 1 / 60  # the observed partition counts: never 0
    assert sampled.p[0] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 60) + 0.02)


def test_bootstrap_interval_agrees_with_scipys_percentile_bootstrap(glove: WordEmbedder) -> None:
    vectors = embed_query(glove, FLOWERS, AssociationConfig())
    targets = [vectors.targets["flowers"], vectors.targets["insects"]]
    attributes = [vectors.attributes["pleasant"]]
    low, high = bootstrap_interval(
        _mean_gap, targets, attributes, resamples=4000, confidence=0.9, seed=1
    )

    sets = [*targets, *attributes]

    def statistic(*rows: FloatArray) -> float:  # scipy resamples each set's row numbers
        x, y, a = (words[index.astype(int)] for words, index in zip(sets, rows, strict=True))
        return float(_mean_gap([x, y], [a])[0])

    reference = bootstrap(
        tuple(np.arange(len(words)) for words in sets),
        statistic,
        n_resamples=4000,
        confidence_level=0.9,
        method="percentile",
        vectorized=False,
        paired=False,
        random_state=np.random.default_rng(2),
    ).confidence_interval
    width = reference.high - reference.low
    assert low[0] == pytest.approx(reference.low, abs=0.1 * width)
    assert high[0] == pytest.approx(reference.high, abs=0.1 * width)


def test_a_constant_metric_has_a_nan_free_degenerate_interval_and_nan_stays_nan() -> None:
    words = np.ones((3, 2, 4))

    def constant(t: Sequence[FloatArray], a: Sequence[FloatArray]) -> FloatArray:
        return np.tile([1.0, np.nan], (len(t[0]), 1))  # [draws, 2]

    low, high = bootstrap_interval(
        constant, [words, words], [words], resamples=50, confidence=0.95, seed=0
    )
    assert low[0] == high[0] == 1.0 and np.isnan(low[1]) and np.isnan(high[1])
    p = permutation_p(constant, [words, words], [words], permutations=20, seed=0).p
    assert p[0] == 1.0 and np.isnan(p[1])  # every partition reaches a constant value


def test_options_are_checked_before_any_model_loads() -> None:
    from wordlens.options import OptionError, config_from_values

    for values, message in (
        ({"bootstrap": "-1"}, "--bootstrap: must be >= 0"),
        ({"confidence": "1.5"}, "--confidence: must be between 0 and 1"),
        ({"template": "no placeholder"}, "exactly once"),
    ):
        with pytest.raises((OptionError, Exception), match=message):
            config_from_values(AssociationConfig, values)


def test_caliskans_tests_make_queries_of_the_same_words() -> None:
    test = load_weat_tests([7])[0]
    query = Query(
        targets={test.x.name: list(test.x.words), test.y.name: list(test.y.words)},
        attributes={test.a.name: list(test.a.words), test.b.name: list(test.b.words)},
    )
    assert query.to_weat_test().x == test.x


def test_paired_targets_swap_within_pairs_and_resample_pairs(glove: WordEmbedder) -> None:
    """Pairs (x_i, y_i) by position (RIPA): the permutation null swaps words within pairs; with
    4 pairs there are 16 relabellings, enumerated here by brute force."""
    vectors = embed_query(glove, FLOWERS, AssociationConfig())
    x, y = vectors.targets["flowers"], vectors.targets["insects"]
    attributes = [vectors.attributes["pleasant"]]
    observed = abs(_mean_gap([x, y], attributes)[0])
    reached = 0
    for swaps in itertools.product([False, True], repeat=4):
        swap = np.array(swaps)[:, None, None]
        relabelled = [np.where(swap, y, x), np.where(swap, x, y)]
        reached += abs(_mean_gap(relabelled, attributes)[0]) >= observed - 1e-12
    exact = reached / 16
    enumerated = permutation_p(
        _mean_gap, [x, y], attributes, permutations=20_000, seed=5, paired_targets=True
    )
    assert enumerated.exact and enumerated.n_relabellings == 16
    assert enumerated.p[0] == pytest.approx(exact, abs=1e-12)
    assert "only 16 relabellings of the 4 target pairs" in str(enumerated.warning)
    sampled = permutation_p(
        _mean_gap, [x, y], attributes, permutations=10, seed=5, paired_targets=True
    )
    assert not sampled.exact and sampled.n_relabellings == 10  # fewer than the 16 swaps
    assert sampled.p[0] >= 1 / 10

    # a score of the pairs' differences alone: resampling pairs keeps each difference whole
    def gap_of_pairs(t: Sequence[FloatArray], a: Sequence[FloatArray]) -> FloatArray:
        return np.asarray((t[0] - t[1]).sum(axis=-1).std(axis=-2))

    equal = [x, x + 1.0]  # every pair differs by the same vector
    low, high = bootstrap_interval(
        gap_of_pairs, equal, attributes, resamples=200, confidence=0.95, seed=0,
        paired_targets=True,
    )  # fmt: skip
    assert low[0] == pytest.approx(0.0, abs=1e-9) and high[0] == pytest.approx(0.0, abs=1e-9)
    unpaired = bootstrap_interval(
        gap_of_pairs, equal, attributes, resamples=200, confidence=0.95, seed=0
    )
    assert unpaired[1][0] > 0.1  # drawing each set alone breaks the pairs


@pytest.mark.parametrize(
    ("targets", "attributes", "twins"),
    [
        (  # composed and decomposed: one spelling to the model (NFC)
            {
                "x": ["caf\u00e9", "rose", "tulip", "lily"],
                "y": ["cafe\u0301", "ant", "wasp", "moth"],
            },
            FLOWERS.attributes,
            "'caf\\xe9' (x) and 'cafe\\u0301' (y): one spelling once Unicode-normalised (NFC)",
        ),
        (  # GloVe's lookup folds case: one row
            {"x": ["Gun", "rose", "tulip"], "y": ["gun", "ant", "wasp"]},
            FLOWERS.attributes,
            "'Gun' (x) and 'gun' (y): they differ only in case",
        ),
        (  # a repeat within one set after the lookup
            FLOWERS.targets,
            {"a": ["Love", "love", "peace"], "b": ["hate", "war", "filth"]},
            "'Love' (a) and 'love' (a)",
        ),
        (
            FLOWERS.targets,
            {"a": ["Love", "Peace", "Joy"], "b": ["love", "peace", "joy"]},
            "'Love' (a) and 'love' (b)",
        ),
    ],
)
def test_twins_after_the_models_lookup_are_refused(
    glove: WordEmbedder,
    targets: dict[str, list[str]],
    attributes: dict[str, list[str]],
    twins: str,
) -> None:
    """Two words that reach the same vector are one word to the model: where the query may not
    repeat a word they are refused, naming both and why (semaxis on the last query printed
    +nan with a finite interval before)."""
    import wordlens
    from wordlens.errors import WordSetError

    query = Query(targets=targets, attributes=attributes)
    with pytest.raises(WordSetError, match="reads these words as one word") as refused:
        embed_query(glove, query, AssociationConfig())
    assert twins in str(refused.value)
    with pytest.raises(WordSetError, match="reads these words as one word"):
        wordlens.run("semaxis", glove, query=query, bootstrap=10, permutations=10)


def test_a_target_word_may_also_be_an_attribute_word_after_the_lookup(glove: WordEmbedder) -> None:
    """The query itself lets a target word be an attribute word; so does the lookup."""
    query = Query(
        targets={"x": ["Rose", "tulip"], "y": ["ant", "wasp"]},
        attributes={"a": ["rose", "peace"], "b": ["hate", "war"]},
    )
    vectors = embed_query(glove, query, AssociationConfig())
    np.testing.assert_array_equal(vectors.targets["x"][0], vectors.attributes["a"][0])


def test_tiny_sets_are_enumerated_and_said_so(glove: WordEmbedder) -> None:
    """One word per set: two partitions, so the p can only be 1/2 or 1 and every resample is
    the observed sets: a warning, and no interval (not a zero-width one). 4 + 4 words: all 70
    partitions enumerated (not 1,000 sampled), p a multiple of 1/70, the warning WEAT gives."""
    import wordlens
    from wordlens.errors import FewPartitionsWarning

    one = {"targets": {"x": ["rose"], "y": ["ant"]}, "attributes": {"a": ["love"], "b": ["hate"]}}
    for metric in ("rnd", "semaxis", "ripa"):
        with pytest.warns(FewPartitionsWarning, match="only 2 "):
            run = wordlens.run(metric, glove, query=one, bootstrap=100, permutations=1000)
        table = run.tables["scores"]
        assert table["ci_low"].isna().all() and table["ci_high"].isna().all(), metric
        assert (table["n_relabellings"] == 2).all() and table["exact_p"].all()
        assert table["p_value"].isin([0.5, 1.0]).all()
        notes = " ".join(run.metadata["notes"])
        assert "every set has one word" in notes and "can never be below 0.05" in notes
    with pytest.warns(FewPartitionsWarning, match=r"only 70 distinct partitions"):
        run = wordlens.run("rnd", glove, query=FLOWERS, bootstrap=0, permutations=1000)
    table = run.tables["scores"]
    assert (table["n_relabellings"] == 70).all() and table["exact_p"].all()
    np.testing.assert_allclose((table["p_value"] * 70) % 1, 0, atol=1e-9)
