"""Intersectional valence bias experiments on real models, checked against direct formulas."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.contexts.intersectional import (
    Bias,
    IntersectionalStudy,
    combination_phrases,
    default_study,
    membership_table,
    permutation_phrases,
)
from wordlens.errors import WordlensError
from wordlens.methods.intersectional import Intersectional, IntersectionalConfig
from wordlens.methods.intersectional.experiments import (
    NotContextualError,
    fit_context_direction,
    run_differential_bias,
    run_intersectional,
    run_projection_valnorm,
    run_strongest_biases,
)
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.resources import load_lexicon, pleasant_unpleasant
from wordlens.results import Run
from wordlens.stats import fit_direction, pearson, permutation_test, sc_weat

SMALL = IntersectionalStudy(
    (
        Bias("social class", "affluent", "destitute"),
        Bias("sexual orientation", "heterosexual", "homosexual"),
        Bias("gender", "cisgender", "transgender"),
        Bias("sex", "male", "female"),
    ),
    strongest_biases=("sexual orientation", "gender", "sex"),
    name="small",
)
#: Every 10th Bellezza word (40, real ratings) keeps the transformer runs short.
LEXICON_STEP = 10
#: |projection r - cosine r| on GloVe 6B 50d / Bellezza (measured: 0.766 vs 0.797, 0.032 apart).
GLOVE_BAND = 0.05


def test_glove_projection_valnorm_is_the_direct_formula_and_near_cosine(
    glove: WordEmbedder,
) -> None:
    run = run_projection_valnorm(glove)
    row = run.tables["valnorm"].iloc[0]
    lexicon = load_lexicon("bellezza").data
    polar = pleasant_unpleasant()
    words = glove.embed_words(list(lexicon["word"]), pooling="last").vectors
    pleasant = glove.embed_words(polar.pleasant, pooling="last").vectors
    unpleasant = glove.embed_words(polar.unpleasant, pooling="last").vectors
    direction = fit_direction(pleasant, unpleasant)
    projection = pearson(direction.project(words)[:, 0], lexicon["valence"])
    cosine = pearson(sc_weat(words, pleasant, unpleasant)[:, 0], lexicon["valence"])
    assert row["layer"] == 0 and row["n"] == 399 == projection.n
    assert row["projection_r"] == pytest.approx(projection.r, abs=1e-12)
    assert row["cosine_r"] == pytest.approx(cosine.r, abs=1e-12)
    assert row["projection_ci_low"] < row["projection_r"] < row["projection_ci_high"]
    assert row["projection_r"] > 0.7 and abs(row["projection_r"] - row["cosine_r"]) < GLOVE_BAND
    assert row["train_accuracy"] == 1.0 and row["converged"]
    assert run.metadata["missing_lexicon_words"] == [] and run.metadata["lexicon"] == "bellezza"


def test_static_models_run_valnorm_only(glove: WordEmbedder) -> None:
    with pytest.raises(NotContextualError, match="static embedding"):
        run_differential_bias(glove, SMALL)
    with pytest.raises(NotContextualError, match="--experiments valnorm"):
        run_intersectional(glove, study=SMALL)
    run = run_intersectional(glove, IntersectionalConfig(experiments=("valnorm",)))
    assert list(run.tables) == ["valnorm"] and set(run.metadata["timings_s"]) == {"valnorm"}
    with pytest.raises(WordlensError, match="unknown experiment"):
        run_intersectional(glove, IntersectionalConfig(experiments=("valnorm", "weat")))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def small_config(tmp_path_factory: pytest.TempPathFactory) -> IntersectionalConfig:
    """The small study, and a lexicon file of every 10th Bellezza word with its rating."""
    path = tmp_path_factory.mktemp("lexicon") / "bellezza-sample.csv"
    load_lexicon("bellezza").data.iloc[::LEXICON_STEP].to_csv(path, index=False)
    return IntersectionalConfig(
        lexicon=str(path), layers=(0, 15, -1), permutations=2_000, seed=7, fraction=0.25
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> ActivationCache:
    return ActivationCache(tmp_path_factory.mktemp("activations"))


@pytest.fixture(scope="module")
def small_run(
    smollm2: WordEmbedder, small_config: IntersectionalConfig, cache: ActivationCache
) -> Run:
    return run_intersectional(smollm2, small_config, study=SMALL, cache=cache)


def test_smollm2_small_study_against_direct_formulas(
    smollm2: WordEmbedder,
    small_config: IntersectionalConfig,
    small_run: Run,
    cache: ActivationCache,
) -> None:
    tables = small_run.tables
    assert list(tables["valnorm"]["layer"]) == [0, 15, 30]
    assert (tables["valnorm"]["n"] == 40).all()
    assert tables["valnorm"]["projection_r"].between(0.0, 1.0).all()
    # one seed for the SVC solver and the permutations, as the command line's --seed
    assert small_run.metadata["config"]["direction"]["seed"] == 7
    assert small_run.metadata["experiments"]["differential"]["direction"]["seed"] == 7
    # the projections are those of "person" (last subtoken, top layer) on the top-layer direction
    phrases = combination_phrases(SMALL)
    direction = fit_context_direction(smollm2, small_config, cache=cache)
    targets = [p.target for p in phrases]
    vectors = smollm2.embed(targets, layers=[30], pooling="last", cache=cache).vectors
    projections = tables["combination_projections"]
    assert list(projections["phrase"]) == [p.text for p in phrases]
    np.testing.assert_allclose(
        projections["projection"], direction.project(vectors)[:, 0], atol=1e-5
    )
    members = membership_table(phrases, SMALL.categories)
    differential = tables["differential"]
    assert list(differential["test"]) == [b.label for b in SMALL.biases]
    for row in differential.itertuples():
        group_a = projections["projection"][members[row.first]].to_numpy()
        group_b = projections["projection"][members[row.second]].to_numpy()
        assert row.n_a == row.n_b == 8
        pooled = np.concatenate([group_a, group_b])
        direct = (group_a.mean() - group_b.mean()) / pooled.std(ddof=1)
        assert row.effect_size == pytest.approx(direct, abs=1e-12)
        again = permutation_test(group_a, group_b, n_samples=2_000, seed=7)
        assert row.p_one_sided == float(again.p_one_sided)
        assert row.p_two_sided == float(again.p_two_sided)
        assert row.n_permutations == 2_000 and row.seed == 7 and row.layer == 30


def test_smollm2_small_study_strongest_biases(small_run: Run) -> None:
    tables = small_run.tables
    ranked = tables["strongest_projections"]
    assert len(ranked) == 48 == len(permutation_phrases(SMALL))
    top = ranked[ranked["group"] == "top"]
    bottom = ranked[ranked["group"] == "bottom"]
    assert len(top) == len(bottom) == 12
    assert top["projection"].min() >= ranked["projection"].quantile(0.5)
    assert sorted(top["rank"]) == list(range(1, 13))
    shares = tables["strongest_categories"].set_index("category")
    for category in ("heterosexual", "homosexual", "male", "female"):
        in_top = top["phrase"].str.split().apply(lambda tokens, c=category: c in tokens)
        assert shares.loc[category, "pct_top"] == pytest.approx(100 * in_top.mean())
    for bias in ("sexual orientation", "gender", "sex"):  # one category of each per phrase
        assert shares[shares["bias"] == bias]["pct_bottom"].sum() == pytest.approx(100.0)
    assert (shares["pct_all"] == 50.0).all()
    positions = tables["strongest_positions"]
    assert set(positions["position"]) == {1, 2, 3}
    by_position = positions.groupby("position")["pct_top"].sum()
    np.testing.assert_allclose(by_position, 100.0)  # each position holds one category


def test_report_and_files(small_run: Run, tmp_path: Path) -> None:
    method = Intersectional()
    written = small_run.write(tmp_path, method.prefix)
    written.append(method.report(small_run).write(tmp_path / "report.html"))
    names = {path.name for path in written}
    assert "report.html" in names and "intersectional_differential.parquet" in names
    html = (tmp_path / "report.html").read_text()
    for heading in ("Figure 2", "Table 2", "Figure 3", "Figure 4", "male vs. female"):
        assert heading in html
    assert html.count("<img") == 3
    # the phrases as measured, the article agreeing with the first category
    assert "“an affluent heterosexual cisgender male person”" in html
    assert "“a destitute homosexual transgender female person”" in html
    assert "p = (b + 1) / (m + 1)" in html  # how the sampled p-values are counted
    table = pd.read_parquet(tmp_path / "intersectional_differential.parquet")
    assert len(table) == 4


def test_minilm_end_to_end(minilm: WordEmbedder, small_config: IntersectionalConfig) -> None:
    run = run_intersectional(minilm, replace(small_config, layers=None), study=SMALL)
    assert list(run.tables["valnorm"]["layer"]) == list(range(7))
    assert run.metadata["context_layer"] == 6
    assert len(run.tables["strongest_projections"]) == 48
    assert np.isfinite(run.tables["differential"]["effect_size"]).all()


def test_default_study_tail_differential_on_smollm2(
    smollm2: WordEmbedder, cache: ActivationCache
) -> None:
    """The paper's last five biases in its order and template (32 phrases; all 4,096 take
    ~220 s on 2 CPU cores, too long for a unit test), with the default 10,000 permutations."""
    paper = default_study()
    study = IntersectionalStudy(paper.biases[-5:], template=paper.template, target=paper.target)
    run = run_differential_bias(smollm2, study, cache=cache)
    table = run.tables["differential"]
    assert list(table["test"]) == [b.label for b in paper.biases[-5:]]
    assert (table["n_a"] == 16).all() and (table["n_b"] == 16).all()
    assert (table["n_permutations"] == 10_000).all() and not table["exact"].any()
    assert np.isfinite(table["effect_size"]).all() and (table["effect_size"].abs() < 2.5).all()
    projections = run.tables["combination_projections"]["projection"].to_numpy()
    female = np.array([p.contains("female") for p in combination_phrases(study)])
    again = permutation_test(projections[~female], projections[female], n_samples=10_000, seed=0)
    row = table[table["bias"] == "sex"].iloc[0]
    assert row["p_one_sided"] == float(again.p_one_sided)
    assert row["p_two_sided"] == float(again.p_two_sided)
    rerun = run_differential_bias(smollm2, study, cache=cache).tables["differential"]
    pd.testing.assert_frame_equal(rerun, table)


def test_bad_context_settings_raise(smollm2: WordEmbedder) -> None:
    backwards = IntersectionalStudy(
        (Bias("sex", "male", "female"),), template="person: {categories}"
    )
    with pytest.raises(WordlensError, match="must follow the categories"):
        run_differential_bias(smollm2, backwards)
    with pytest.raises(WordlensError, match="fraction must be in"):
        run_strongest_biases(smollm2, SMALL, IntersectionalConfig(fraction=0.6))
    with pytest.raises(WordlensError, match="selects none"):
        only_sex = replace(SMALL, strongest_biases=("sex",))
        run_strongest_biases(smollm2, only_sex, IntersectionalConfig(fraction=0.2))
    with pytest.raises(WordlensError, match="out of range"):
        run_differential_bias(smollm2, SMALL, IntersectionalConfig(context_layer=31))
