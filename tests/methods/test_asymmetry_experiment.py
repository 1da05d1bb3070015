"""The asymmetry experiment (Zhang et al. 2021) end to end: GloVe 6B 50d on all EAT and USF pairs,
and the masked-LM fixture on a few EAT pairs over a UD English Web Treebank paragraph index,
resumed from its work directory; configuration errors; the report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from tests.conceptnet5_sample import EDGES, write_sample
from tests.conftest import shared_dir
from tests.evocation_by_hand import (
    conceptnet_vocabulary,
    lar_table,
    static_model_lar,
    strengths,
)
from wordlens.contexts.paragraphs import ParagraphIndex, build_paragraph_index
from wordlens.errors import WordlensError
from wordlens.methods.asymmetry import Asymmetry, AsymmetryConfig
from wordlens.methods.asymmetry.experiment import (
    ALL_PAIRS,
    AsymmetrySettings,
    EstimatedConditionals,
    NotLanguageModelError,
    run_asymmetry,
)
from wordlens.models.base import WordEmbedder
from wordlens.models.scoring import LMScorer, load_scorer
from wordlens.resources import load_corpus
from wordlens.resources.association_norms import load_association_norms
from wordlens.resources.conceptnet import load_conceptnet
from wordlens.results import Run
from wordlens.stats.asymmetry import log_asymmetry_ratio

MLM_DIR = shared_dir() / "models" / "minilm-l6-mlm"


def write_asymmetry(run: Run, out_dir: Path) -> list[Path]:
    """The run's tables, ``run.json`` and report, as ``wordlens asymmetry`` writes them."""
    method = Asymmetry()
    return run.write(out_dir, method.prefix)  # report.html too


@pytest.fixture(scope="module")
def glove_run(shared: Path, glove: WordEmbedder) -> Run:
    config = AsymmetryConfig(norms=("eat", "usf"), similarity=("men", "ws353-rel"))
    return run_asymmetry(config, glove)  # type: ignore[arg-type]


def _row(table: pd.DataFrame, **where: object) -> pd.Series:
    mask = np.logical_and.reduce([table[column] == value for column, value in where.items()])
    (found,) = np.flatnonzero(mask)
    return table.iloc[int(found)]


@pytest.fixture(scope="module")
def glove_by_hand(shared: Path, glove: WordEmbedder) -> dict[str, pd.DataFrame]:
    """Per data set, the pairs the experiment keeps and both LARs, recomputed from the raw files
    and GloVe's vectors (tests/evocation_by_hand.py): the data's pairs (eq. 5, eq. 1, ConceptNet
    annotation), eq. 9 with ConceptNet's single-word concepts and GloVe's vocabulary, and the
    model LAR of eqs. 7-8."""
    data = shared / "data"
    concepts = conceptnet_vocabulary(data)
    tables = {}
    for name in ("eat", "usf"):
        strength = strengths(data, name)
        words = sorted({word for pair in strength for word in pair})
        missing = set(glove.missing_words(words))
        known = [word for word in words if word not in missing]
        matrix = glove.embed_words(known, layers=[-1]).vectors[:, 0].astype(np.float64)
        vectors = dict(zip(known, matrix, strict=True))
        pairs = lar_table(data, name).rename(columns={"lar": "lar_data"})
        inside = [
            a in concepts and b in concepts and a in vectors and b in vectors
            for a, b in zip(pairs["a"], pairs["b"], strict=True)
        ]
        pairs = pairs[inside].reset_index(drop=True)
        tables[name] = pairs.assign(lar_model=static_model_lar(pairs, strength, vectors))
    return tables


def _distinct_oriented(pairs: pd.DataFrame) -> pd.DataFrame:
    """Every distinct pair once, oriented a < b (both LARs negated on a flip: eq. 1 is
    antisymmetric)."""
    sign = np.where(pairs["a"] > pairs["b"], -1.0, 1.0)
    return pd.DataFrame(
        {
            "pair": [tuple(sorted(pair)) for pair in zip(pairs["a"], pairs["b"], strict=True)],
            "data": pairs["lar_data"].to_numpy() * sign,
            "model": pairs["lar_model"].to_numpy() * sign,
        }
    ).drop_duplicates("pair")


def test_glove_cam_alar_and_accuracy_match_a_recount(
    glove_run: Run, glove_by_hand: dict[str, pd.DataFrame], shared: Path
) -> None:
    tables = glove_run.tables
    coverage, cam, alar = tables["coverage"], tables["cam"], tables["alar"]
    accuracy = tables["direction_accuracy"]
    for name, pairs in glove_by_hand.items():
        bidirectional = lar_table(shared / "data", name)
        n_bidirectional = len(_distinct_oriented(bidirectional.assign(lar_data=0.0, lar_model=0.0)))
        assert _row(coverage, norm=name, step="bidirectional pairs")["n_pairs"] == n_bidirectional
        distinct = _distinct_oriented(pairs)
        kept = _row(coverage, norm=name, step="in ConceptNet and model vocabularies (eq. 9)")
        assert kept["n_pairs"] == len(distinct)
        assert _row(coverage, norm=name, step="model LAR defined")["n_pairs"] == len(distinct)
        assert distinct["model"].notna().all()
        # CAM (eq. 4) and accuracy at theta = 0 (Appendix G) over every distinct pair
        everything = _row(cam, norm=name, relation=ALL_PAIRS)
        assert everything["n"] == len(distinct)
        rho = spearmanr(distinct["data"], distinct["model"]).statistic
        assert everything["cam"] == pytest.approx(rho, abs=1e-12)
        assert everything["ci_low"] < everything["cam"] < everything["ci_high"]
        decided = distinct[distinct["data"] != 0]  # eq. 13: |LAR_data| > theta = 0
        right = (np.sign(decided["model"]) == np.sign(decided["data"])).mean()
        found = _row(accuracy, norm=name, relation=ALL_PAIRS, threshold=0.0)
        assert found["accuracy"] == pytest.approx(right, abs=1e-12)
        # per relation: CAM, and Figure 1's ALAR of data and model over the same pairs
        for relation, group in pairs.groupby("relation"):
            if len(group) >= 3:
                expected = spearmanr(group["lar_data"], group["lar_model"]).statistic
                assert _row(cam, norm=name, relation=relation)["cam"] == pytest.approx(
                    expected, abs=1e-12
                )
            side = _row(alar, norm=name, relation=relation)
            assert side["n_pairs"] == len(group)
            assert side["alar_data"] == pytest.approx(group["lar_data"].mean(), abs=1e-12)
            assert side["alar_model"] == pytest.approx(group["lar_model"].mean(), abs=1e-10)
    # Figure 1: the data's ALAR of isA and partOf is positive, hasA negative (the paper's signs).
    eat_alar = alar[alar["norm"] == "eat"].set_index("relation")
    assert (eat_alar.loc[["isA", "partOf"], "alar_data"] > 0).all()
    assert eat_alar.loc["hasA", "alar_data"] < 0
    # Appendix G: accuracy grows with theta and the decided pairs shrink.
    overall = accuracy[(accuracy["norm"] == "eat") & (accuracy["relation"] == ALL_PAIRS)]
    assert list(overall["threshold"]) == [0.0, 0.5, 1.0]
    assert overall["accuracy"].is_monotonic_increasing and overall["n"].is_monotonic_decreasing
    assert "factors" not in tables  # static vectors have no contexts


def test_glove_pairs_table_and_the_all_pairs_orientation(glove_run: Run) -> None:
    pairs = glove_run.tables["pairs"]
    lar = log_asymmetry_ratio(pairs["model_p_b_given_a"], pairs["model_p_a_given_b"])
    np.testing.assert_allclose(pairs["lar_model"], lar)
    assert not pairs.duplicated(["norm", "relation", "a", "b"]).any()
    # The all-pairs CAM counts each distinct pair once, whatever its relations.
    eat = pairs[pairs["norm"] == "eat"]
    distinct = len({tuple(sorted(pair)) for pair in zip(eat["a"], eat["b"], strict=True)})
    assert distinct == 7696 < len(eat)


def test_glove_similarity_and_table1(glove_run: Run, glove: WordEmbedder, shared: Path) -> None:
    similarity = glove_run.tables["similarity"]
    men = _row(similarity, set="men", measure="cosine")
    # Appendix E: the cosine, from the raw MEN file and GloVe's vectors, against the human scores
    raw = pd.read_csv(
        shared / "data" / "similarity" / "EN-MEN-TR-3k.txt",
        sep="\t",
        header=None,
        names=["word1", "word2", "score"],
        keep_default_na=False,
    )
    first, second = (
        glove.embed_words(raw[column].tolist(), layers=[-1]).vectors[:, 0].astype(np.float64)
        for column in ("word1", "word2")
    )
    cosine = np.einsum("nd,nd->n", first, second) / (
        np.linalg.norm(first, axis=1) * np.linalg.norm(second, axis=1)
    )
    assert not glove.missing_words([*raw["word1"], *raw["word2"]])
    assert men["n_used"] == men["n_pairs"] == len(raw) == 3000
    assert men["spearman"] == pytest.approx(spearmanr(cosine, raw["score"]).statistic, abs=1e-9)
    # Eq. 8 is defined only on the evocation response ranges: fewer pairs, lower rho.
    conditional = _row(similarity, set="men", measure="geometric_mean")
    assert conditional["n_used"] < 3000 and conditional["spearman"] < men["spearman"]
    # Table 1 is the data side only: isA over the raw files' common pairs
    table1 = glove_run.tables["table1"]
    isa = _row(table1, relation="isA")
    eat, usf = (lar_table(shared / "data", name) for name in ("eat", "usf"))
    common = eat[eat["relation"] == "isA"].merge(usf, on=["relation", "a", "b"])
    assert isa["count_eat"] == (eat["relation"] == "isA").sum() == 384
    assert isa["n_eat_usf"] == len(common)
    expected = spearmanr(common["lar_x"], common["lar_y"]).statistic
    assert isa["cam_eat_usf"] == pytest.approx(expected, abs=1e-12)


def test_relations_of_the_paper_missing_from_conceptnet_100k_are_listed(
    glove_run: Run,
) -> None:
    relations = glove_run.tables["relations"]
    eat = relations[relations["norm"] == "eat"].set_index("relation")
    assert len(eat) == 27 and eat.index[0] == "relatedTo"  # Table 5, in its order
    absent = set(eat.index[~eat["in_source"]])
    assert absent == {
        "antonym",
        "synonym",
        "distinctFrom",
        "similarTo",
        "hasContext",
        "formOf",
        "derivedFrom",
    }
    assert set(eat.index[~eat["has_pairs"]]) == absent
    assert eat.loc["isA", "n_pairs"] == 384 and eat.loc["relatedTo", "n_pairs"] == 18_700
    assert not {"antonym", "synonym"} & set(glove_run.tables["alar"]["relation"])
    assert glove_run.metadata["conceptnet"]["source"] == "ConceptNet-100K (CKBC, Li et al. 2016)"


def test_conceptnet5_file_gives_alar_rows_to_relations_conceptnet_100k_lacks(
    shared: Path, glove: WordEmbedder, tmp_path: Path
) -> None:
    sample = write_sample(tmp_path / "assertions.csv.gz")
    config = AsymmetryConfig(norms=("eat", "usf"), similarity=(), conceptnet=str(sample))
    run = run_asymmetry(config, glove)  # type: ignore[arg-type]
    # Eq. 9 with the sample's vocabulary: 12 EAT and 9 USF pairs, every LAR defined.
    coverage = run.tables["coverage"]
    kept = _row(coverage, norm="eat", step="in ConceptNet and model vocabularies (eq. 9)")
    assert kept["n_pairs"] == 12
    assert _row(coverage, norm="usf", step="model LAR defined")["n_pairs"] == 9
    # the same counts from the raw files: the single words of the sample's English edges of the
    # relations read (not MannerOf), then the data's bidirectional pairs of two such words
    concepts = set()
    for relation, start, end, _, _ in EDGES:
        if relation != "/r/MannerOf" and start.startswith("/c/en/") and end.startswith("/c/en/"):
            words = (start.split("/")[3], end.split("/")[3])
            if not any("_" in word for word in words):
                concepts.update(words)
    assert not glove.missing_words(sorted(concepts))
    for name, n_kept in (("eat", 12), ("usf", 9)):
        strength = strengths(shared / "data", name)
        both_ways = {
            (c, r) for c, r in strength if c < r and (r, c) in strength and {c, r} <= concepts
        }
        assert len(both_ways) == n_kept
    alar = run.tables["alar"]
    counts = {(r.norm, r.relation): r.n_pairs for r in alar.itertuples()}
    assert counts[("eat", "antonym")] == counts[("usf", "antonym")] == 3  # hot, black, wet
    assert counts[("eat", "synonym")] == 2 and counts[("eat", "distinctFrom")] == 1
    # queen -> king (a RelatedTo edge, head -> tail) and 4 EAT pairs under no relation.
    assert counts[("eat", "relatedTo")] == 5
    pairs = run.tables["pairs"]
    related = pairs[(pairs["norm"] == "eat") & (pairs["relation"] == "relatedTo")]
    assert ("queen", "king") in set(zip(related["a"], related["b"], strict=True))
    # Figure 1 for the sample's relations, recomputed from the raw evocation files and GloVe's
    # vectors (eqs. 5, 7-8, 1) on the pairs the sample asserts, head -> tail
    expected_pairs = {
        ("eat", "antonym"): {("hot", "cold"), ("black", "white"), ("wet", "dry")},
        ("usf", "synonym"): {("large", "big"), ("sofa", "couch")},
    }
    for (name, relation), oriented in expected_pairs.items():
        rows = pairs[(pairs["norm"] == name) & (pairs["relation"] == relation)]
        assert set(zip(rows["a"], rows["b"], strict=True)) == oriented
        strength = strengths(shared / "data", name)
        hand = pd.DataFrame(sorted(oriented), columns=["a", "b"])
        cues = {*hand["a"], *hand["b"]}
        words = sorted(cues | {r for c, r in strength if c in cues})
        known = [word for word in words if word not in set(glove.missing_words(words))]
        matrix = glove.embed_words(known, layers=[-1]).vectors[:, 0].astype(np.float64)
        vectors = dict(zip(known, matrix, strict=True))
        data_lar = [np.log(strength[(a, b)] / strength[(b, a)]) for a, b in sorted(oriented)]
        side = _row(alar, norm=name, relation=relation)
        assert side["alar_data"] == pytest.approx(np.mean(data_lar), abs=1e-12)
        model_lar = static_model_lar(hand, strength, vectors)
        assert side["alar_model"] == pytest.approx(np.mean(model_lar), abs=1e-10)
    relations = run.tables["relations"]
    usf = relations[relations["norm"] == "usf"].set_index("relation")
    in_source = {"relatedTo", "antonym", "synonym", "distinctFrom", "partOf"}
    assert set(usf.index[usf["in_source"]]) == in_source
    assert usf.loc["relatedTo", "n_assertions"] == 1  # queen -> king
    meta = run.metadata
    assert meta["config"]["conceptnet"] == str(sample)
    assert meta["conceptnet"]["skipped"] == {
        "English edge of relation mannerOf (not read)": 1,
        "non-English edge": 3,
    }
    write_asymmetry(run, tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    assert "ConceptNet 5 assertions, English edges (assertions.csv.gz)" in html
    assert "22 have no single-word assertion in this source: isA, atLocation," in html
    assert "usf: no pair under isA, atLocation, similarTo," in html


def test_report_and_results_are_written(glove_run: Run, tmp_path: Path) -> None:
    written = write_asymmetry(glove_run, tmp_path)
    html = (tmp_path / "report.html").read_text()
    for title in ("Table 1", "Figure 1", "Tables 2-3", "Figure 4", "Table 4", "Coverage"):
        assert title in html
    assert "Of the paper&#x27;s 27 relations, 7 have no single-word assertion" in html
    assert "Figure 2 " not in html and html.count("<img") == 3  # ALAR x 2 data sets, accuracy
    cam = pd.read_parquet(tmp_path / "asymmetry_cam.parquet")
    numbers = ["n", "cam", "p_value", "ci_low", "ci_high"]  # exact floats through parquet
    pd.testing.assert_frame_equal(cam[numbers], glove_run.tables["cam"][numbers])
    tables = [path for path in written if "_figure_" not in path.name]
    assert len(tables) == 3 * len(glove_run.tables) + 2  # and run.json, report.html
    figures = {path.suffix for path in written if "_figure_" in path.name}
    assert figures >= {".png", ".svg", ".pdf"}


@pytest.fixture(scope="module")
def ewt_index(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> ParagraphIndex:
    corpus = load_corpus("corpus-ud-ewt")
    return build_paragraph_index([corpus], tmp_path_factory.mktemp("index") / "index.sqlite")


@pytest.fixture(scope="module")
def eat_and_graph(shared: Path) -> dict[str, Any]:
    """EAT and ConceptNet loaded once for the language-model runs."""
    return {"norms": {"eat": load_association_norms("eat")}, "conceptnet": load_conceptnet()}


@pytest.fixture(scope="module")
def mlm() -> LMScorer:
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    return load_scorer(str(MLM_DIR))


MLM_CONFIG = AsymmetryConfig(
    norms=("eat",),
    pairs="8",
    similarity=("ws353-rel",),
    similarity_pairs="6",
    max_contexts=2,
    seed=1,
)
MLM_SETTINGS = AsymmetrySettings(n_bins=2)


@pytest.mark.slow
def test_masked_lm_runs_and_resumes_from_its_work_directory(
    mlm: LMScorer, ewt_index: ParagraphIndex, eat_and_graph: dict[str, Any], tmp_path: Path
) -> None:
    first = run_asymmetry(
        MLM_CONFIG, mlm, settings=MLM_SETTINGS, workdir=tmp_path, index=ewt_index, **eat_and_graph
    )
    contextual = first.metadata["contextual"]
    assert not contextual["worklist_reused"] and contextual["shards"][0]["passes_computed"] > 0
    pairs = first.tables["pairs"]
    # Eight sampled pairs that co-occur in the treebank (some under several relations).
    keys = {tuple(sorted(pair)) for pair in zip(pairs["a"], pairs["b"], strict=True)}
    assert len(keys) == 8 and (pairs["pair_contexts"] >= 1).all()
    assert (pairs["pair_contexts"] <= 2).all() and pairs["lar_model"].notna().any()
    assert set(first.tables) >= {"alar", "cam", "direction_accuracy", "factors", "similarity"}
    factors = first.tables["factors"]
    assert set(factors["factor"]) == {"contexts", "distance"} and factors["n"].sum() > 0
    similarity = first.tables["similarity"]
    assert list(similarity["measure"]) == ["geometric_mean"] and similarity["n_used"].iloc[0] <= 6
    second = run_asymmetry(
        MLM_CONFIG, mlm, settings=MLM_SETTINGS, workdir=tmp_path, index=ewt_index, **eat_and_graph
    )
    resumed = second.metadata["contextual"]
    assert resumed["worklist_reused"] and resumed["shards"][0]["passes_computed"] == 0
    assert resumed["shards"][0]["batches_computed"] == 0
    pd.testing.assert_frame_equal(second.tables["pairs"], pairs)
    write_asymmetry(second, tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Figure 2" in html and "distinct masked passes" in html


def _figure2_oracle(pairs: pd.DataFrame, n_bins: int) -> pd.DataFrame:
    """Figure 2 by brute force from the pairs table: every distinct pair once, oriented a < b
    (both LARs negated on a flip, eq. 1 being antisymmetric), the pairs with both LARs defined
    cut at the numpy quantiles of each factor (right-closed bins, the lowest value in the first,
    repeated edges merged), then per bin the share of pairs with a non-zero data LAR whose model
    LAR has its sign (Appendix G at theta = 0) and scipy's Spearman rho (eq. 4)."""
    sign = np.where(pairs["a"] > pairs["b"], -1.0, 1.0)
    oriented = pd.DataFrame(
        {
            "pair": [tuple(sorted(p)) for p in zip(pairs["a"], pairs["b"], strict=True)],
            "data": pairs["lar_data"].to_numpy() * sign,
            "model": pairs["lar_model"].to_numpy() * sign,
            "contexts": pairs["pair_contexts"].to_numpy(dtype=float),
            "distance": pairs["mean_distance"].to_numpy(dtype=float),
        }
    ).drop_duplicates("pair")
    defined = oriented.dropna(subset=["data", "model"])
    rows = []
    for factor in ("contexts", "distance"):
        values = defined[factor].to_numpy()
        edges = np.unique(np.quantile(values, np.linspace(0, 1, min(n_bins, len(values)) + 1)))
        for number in range(len(edges) - 1):
            low, high = edges[number], edges[number + 1]
            inside = (values > low) | (number == 0) & (values == low)
            members = defined[inside & (values <= high)]
            decided = members[members["data"] != 0]
            right = np.sign(decided["model"]) == np.sign(decided["data"])
            rho = (
                spearmanr(members["data"], members["model"]).statistic
                if len(members) >= 3
                and members["data"].nunique() > 1
                and members["model"].nunique() > 1
                else np.nan
            )
            rows.append(
                {
                    "factor": factor,
                    "bin": number,
                    "low": low,
                    "high": high,
                    "median": np.median(members[factor]),
                    "n": len(members),
                    "accuracy": right.mean() if len(decided) else np.nan,
                    "cam": rho,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_figure2_bins_match_a_brute_force_recount(
    mlm: LMScorer, ewt_index: ParagraphIndex, eat_and_graph: dict[str, Any], tmp_path: Path
) -> None:
    config = dataclasses.replace(MLM_CONFIG, pairs="30", similarity=(), max_contexts=3)
    settings = AsymmetrySettings(n_bins=3)
    run = run_asymmetry(
        config, mlm, settings=settings, workdir=tmp_path, index=ewt_index, **eat_and_graph
    )
    factors = run.tables["factors"]
    expected = _figure2_oracle(run.tables["pairs"], n_bins=3)
    assert len(expected) >= 4 and (expected["n"] >= 3).any()  # several bins with a CAM
    assert factors[["factor", "bin", "n"]].to_dict("records") == (
        expected[["factor", "bin", "n"]].to_dict("records")
    )
    for column in ("low", "high", "median", "accuracy", "cam"):
        np.testing.assert_allclose(
            factors[column].to_numpy(dtype=float),
            expected[column].to_numpy(dtype=float),
            rtol=1e-12,
            atol=1e-12,
            err_msg=column,
        )
    assert np.isfinite(factors["cam"]).any() and np.isfinite(factors["accuracy"]).all()


@pytest.mark.slow
def test_masked_lm_shards_stop_then_merge(
    mlm: LMScorer, ewt_index: ParagraphIndex, eat_and_graph: dict[str, Any], tmp_path: Path
) -> None:
    sharded = [
        run_asymmetry(
            dataclasses.replace(MLM_CONFIG, shards=2, shard=k),
            mlm,
            settings=MLM_SETTINGS,
            workdir=tmp_path,
            index=ewt_index,
            **eat_and_graph,
        )
        for k in (1, 0)
    ]
    assert not any(run.complete for run in sharded)
    assert set(sharded[0].tables) == {"data_alar", "relations"}
    merged = run_asymmetry(
        dataclasses.replace(MLM_CONFIG, shards=2),
        mlm,
        settings=MLM_SETTINGS,
        workdir=tmp_path,
        index=ewt_index,
        **eat_and_graph,
    )
    assert merged.complete
    assert all(shard["passes_computed"] == 0 for shard in merged.metadata["contextual"]["shards"])
    assert merged.tables["pairs"]["lar_model"].notna().any()


def test_estimated_conditionals_look_up_both_directions() -> None:
    estimates = pd.DataFrame(
        {
            "cue": ["cat", "rain"],
            "response": ["dog", "cat"],
            "p_response_given_cue": [0.2, 0.0],
            "p_cue_given_response": [0.1, np.nan],
        }
    )
    source = EstimatedConditionals(estimates)
    found = source.conditional(["cat", "Dog", "cat", "cat"], ["dog", "cat", "rain", "sun"])
    np.testing.assert_array_equal(found, [0.2, 0.1, np.nan, np.nan])
    with pytest.raises(WordlensError, match="2 cues but 1 responses"):
        source.conditional(["cat", "dog"], ["dog"])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"norms": ("eat", "nelson")}, "unknown evocation data"),
        ({"norms": ()}, "no evocation data"),
        ({"norms": ("eat", "eat")}, "more than once"),
        ({"norms": ("swow",)}, "--swow-file"),
        ({"shards": 2, "shard": 2}, "out of range"),
        ({"shard": -1}, "--shard: must be >= 0, not -1"),
        ({"thresholds": (0.0, -0.5)}, "thresholds"),
        ({"thresholds": (float("nan"),)}, "thresholds"),
        ({"pairs": "0"}, "--pairs: at least 1"),
        ({"pairs": "many"}, "--pairs: a number"),
        ({"similarity_pairs": "some"}, "--similarity-pairs"),
        ({"max_contexts": -1}, "--max-contexts: must be >= 0, not -1"),
        ({"shards": 0}, "--shards: must be >= 1, not 0"),
        ({"conceptnet": "conceptnet6"}, "no ConceptNet 'conceptnet6'"),
    ],
)
def test_bad_configurations_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(WordlensError, match=message):
        AsymmetryConfig(**settings).check()  # type: ignore[arg-type]


def test_an_encoder_without_its_head_is_refused(minilm: WordEmbedder, tmp_path: Path) -> None:
    with pytest.raises(NotLanguageModelError, match="load_scorer"):
        run_asymmetry(AsymmetryConfig(), minilm, workdir=tmp_path)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"n_bins": 0}, "n_bins"), ({"confidence": 1.0}, "confidence")],
)
def test_bad_settings_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(WordlensError, match=message):
        AsymmetrySettings(**settings).check()  # type: ignore[arg-type]


def test_options_read_as_the_command_line_and_a_study_file_write_them() -> None:
    from wordlens.options import OptionError, config_from_values, option_specs

    text = config_from_values(
        AsymmetryConfig, {"pairs": "all", "similarity": "none", "thresholds": "0,1"}
    )
    assert text.n_pairs == "all" and text.similarity == () and text.thresholds == (0.0, 1.0)
    study = config_from_values(AsymmetryConfig, {"pairs": 500, "max_contexts": 0})
    assert study.n_pairs == 500 and study.context_cap is None
    default = config_from_values(AsymmetryConfig, {"similarity-pairs": "default"})
    assert default.n_pairs is None and default.n_similarity_pairs is None
    assert default.context_cap == 5 and default.thresholds == (0.0, 0.5, 1.0)
    command_line_only = {spec.name for spec in option_specs(AsymmetryConfig) if not spec.info.study}
    assert command_line_only == {"shard", "workdir"}
    with pytest.raises(OptionError, match="--thresholds"):
        config_from_values(AsymmetryConfig, {"thresholds": "0,high"})


def test_summary_is_the_cam_and_direction_accuracy_over_every_distinct_pair(
    glove_run: Run,
) -> None:
    summary = Asymmetry().summary(glove_run)
    assert summary.curves is None
    assert list(summary.headline) == [
        "cam_eat",
        "cam_usf",
        *(f"direction_accuracy_{norm}_theta{t}" for norm in ("eat", "usf") for t in (0, 0.5, 1)),
    ]
    # CAM (eq. 4): Spearman of the model's and the data's LAR over every distinct pair, each
    # oriented a < b (LAR is antisymmetric, eq. 1, so a flipped pair flips both signs)
    pairs = glove_run.tables["pairs"]
    eat = pairs[pairs["norm"] == "eat"]
    sign = np.where(eat["a"] > eat["b"], -1.0, 1.0)
    distinct = pd.DataFrame(
        {
            "pair": [tuple(sorted(pair)) for pair in zip(eat["a"], eat["b"], strict=True)],
            "data": eat["lar_data"] * sign,
            "model": eat["lar_model"] * sign,
        }
    ).drop_duplicates("pair")
    assert len(distinct) == 7696
    cam = spearmanr(distinct["model"], distinct["data"]).statistic
    assert summary.headline["cam_eat"] == pytest.approx(cam, abs=1e-12)
    assert summary.definitions["cam_eat"].endswith("7696 pairs")
    decided = distinct[distinct["data"].abs() > 1.0]
    right = (np.sign(decided["model"]) == np.sign(decided["data"])).mean()
    assert summary.headline["direction_accuracy_eat_theta1"] == pytest.approx(right, abs=1e-12)


def test_console_after_one_shard_says_how_to_merge() -> None:
    shard = {"shard": 1, "n_shards": 3, "path": "work/scores"}
    run = Run("asymmetry", {}, {"contextual": {"shards": [shard]}}, complete=False)
    (line,) = Asymmetry().console(run)
    assert str(line).startswith("shard 1 of 3 finished (work/scores); when every shard is done")
