"""Cell summaries of likelihood-bias, asymmetry, probe, intersectional and sense-bias, each read
from the tables of a small real run (WEAT and VAST: tests/study/test_study_report.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from wordlens.contexts.intersectional import Bias, IntersectionalStudy
from wordlens.methods.asymmetry import Asymmetry, AsymmetryConfig
from wordlens.methods.asymmetry.experiment import run_asymmetry
from wordlens.methods.intersectional import IntersectionalConfig
from wordlens.methods.intersectional.experiments import run_intersectional
from wordlens.methods.likelihood_bias import LikelihoodBiasConfig
from wordlens.methods.likelihood_bias.compute import run_likelihood_bias
from wordlens.methods.probing import Probe, ProbeConfig
from wordlens.methods.probing.experiment import run_probing
from wordlens.methods.sense_bias import SenseBiasConfig
from wordlens.methods.sense_bias.compute import run_sense_bias
from wordlens.methods.summaries import CURVE_COLUMNS
from wordlens.models.base import WordEmbedder
from wordlens.models.scoring import load_scorer
from wordlens.resources import load_lexicon
from wordlens.study.summary import CellOutputError, summarize_cell


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cells")


def test_likelihood_bias_headlines_are_table_3(shared: Path, cells: Path) -> None:
    scorer = load_scorer(str(shared / "models" / "minilm-l6-mlm"))
    config = LikelihoodBiasConfig(
        benchmarks=("crows", "sssb"), methods=("aul", "aula"), sample=16, bootstrap=0
    )
    run = run_likelihood_bias(scorer, config)
    run.write(cells / "likelihood-bias", "likelihood_")
    summary = summarize_cell("likelihood-bias", cells / "likelihood-bias")
    assert summary.curves is None
    table3 = run.tables["table3"]
    senses = table3.loc[table3["benchmark"] == "SSSB", "group"].map(str.lower).tolist()
    expected = [
        f"{method}_{benchmark}"
        for benchmark in ["crows_pairs", *(f"sssb_{sense}" for sense in senses)]
        for method in ("aul", "aula")
    ]
    assert list(summary.headline) == expected
    # eq. 6 from the pair scores: 100 * share(stereotypical sentence scores higher) - 50
    pairs = run.tables["pair_scores"]
    crows_aul = pairs[(pairs["benchmark"] == "crows") & (pairs["method"] == "aul")]
    assert len(crows_aul) == 16
    assert summary.headline["aul_crows_pairs"] == pytest.approx(
        100 * crows_aul["stereo_higher"].mean() - 50
    )
    assert "CrowS-Pairs all, 16 pairs" in summary.definitions["aul_crows_pairs"]


def test_asymmetry_headlines_are_cam_and_direction_accuracy(
    glove: WordEmbedder, cells: Path
) -> None:
    run = run_asymmetry(AsymmetryConfig(norms=("eat",), similarity=()), glove)  # type: ignore[arg-type]
    run.write(cells / "asymmetry", Asymmetry().prefix)
    summary = summarize_cell("asymmetry", cells / "asymmetry")
    assert list(summary.headline) == [
        "cam_eat",
        "direction_accuracy_eat_theta0",
        "direction_accuracy_eat_theta0.5",
        "direction_accuracy_eat_theta1",
    ]
    # CAM (eq. 4): Spearman of the model's and the data's LAR over every distinct pair, each
    # oriented a < b (LAR is antisymmetric, eq. 1, so a flipped pair flips both signs)
    pairs = run.tables["pairs"]
    sign = np.where(pairs["a"] > pairs["b"], -1.0, 1.0)
    distinct = pd.DataFrame(
        {
            "pair": [tuple(sorted(pair)) for pair in zip(pairs["a"], pairs["b"], strict=True)],
            "data": pairs["lar_data"] * sign,
            "model": pairs["lar_model"] * sign,
        }
    ).drop_duplicates("pair")
    assert len(distinct) == 7696  # the pairs kept by eq. 9 (GloVe and ConceptNet vocabularies)
    cam = spearmanr(distinct["model"], distinct["data"]).statistic
    assert summary.headline["cam_eat"] == pytest.approx(cam, abs=1e-12)
    assert summary.definitions["cam_eat"].endswith("7696 pairs")
    accuracy = run.tables["direction_accuracy"]
    strict = accuracy[(accuracy["relation"] == "all") & (accuracy["threshold"] == 1.0)]
    assert summary.headline["direction_accuracy_eat_theta1"] == strict["accuracy"].item()
    assert 0 < summary.headline["direction_accuracy_eat_theta0"] < 1


def test_probe_headlines_and_the_layer_curve(minilm: WordEmbedder, cells: Path) -> None:
    config = ProbeConfig(
        task="pos",
        representations=("layer:0", "layer:6"),
        train_sentences=16,
        eval_sentences=8,
        max_steps=5,
        validate_every=5,
    )
    run_probing(config, minilm).write(cells / "probe", Probe().prefix)  # type: ignore[arg-type]
    summary = summarize_cell("probe", cells / "probe")
    scores = pd.read_parquet(cells / "probe" / "probing_scores.parquet")
    assert summary.headline == dict(
        zip("pos_f1_" + scores["representation"], scores["test_micro_f1"], strict=True)
    )
    assert "pos_f1_majority" in summary.headline
    curves = summary.curves
    assert curves is not None and tuple(curves.columns) == CURVE_COLUMNS
    assert curves["metric"].unique().tolist() == ["pos_f1"]
    assert curves["layer"].tolist() == [0, 6] and curves["depth"].tolist() == [0, 1]
    np.testing.assert_array_equal(curves["value"], scores["test_micro_f1"][:2])


def test_intersectional_headlines_are_effect_sizes_and_valnorm(
    minilm: WordEmbedder, cells: Path
) -> None:
    lexicon = cells / "bellezza-sample.csv"
    load_lexicon("bellezza").data.iloc[::10].to_csv(lexicon, index=False)
    study = IntersectionalStudy(
        (Bias("social class", "affluent", "destitute"), Bias("sex", "male", "female")),
        strongest_biases=(),
        name="two",
    )
    config = IntersectionalConfig(
        lexicon=str(lexicon),
        layers=(0, 3, 6),
        permutations=200,
        experiments=("valnorm", "differential"),
    )
    run = run_intersectional(minilm, config, study=study)
    run.write(cells / "intersectional", "intersectional_")
    summary = summarize_cell("intersectional", cells / "intersectional")
    differential = run.tables["differential"].set_index("bias")["effect_size"]
    assert summary.headline["d_social_class"] == differential["social class"]
    assert summary.headline["d_sex"] == differential["sex"]
    valnorm = run.tables["valnorm"].set_index("layer")
    assert summary.headline["valnorm_projection_best_r"] == valnorm["projection_r"].max()
    assert summary.headline["valnorm_projection_best_layer"] == valnorm["projection_r"].idxmax()
    assert summary.headline["valnorm_cosine_best_r"] == valnorm["cosine_r"].max()
    curves = summary.curves
    assert curves is not None
    cosine = curves[curves["metric"] == "valnorm_cosine_r"]
    assert cosine["depth"].tolist() == [0, 0.5, 1]
    np.testing.assert_array_equal(cosine["value"], valnorm["cosine_r"])


def test_sense_bias_headlines_at_the_top_layer(glove: WordEmbedder, cells: Path) -> None:
    config = SenseBiasConfig(
        experiments=("weat", "wat"), weat_tests=(9,), wat_words=12, permutations=200
    )
    run = run_sense_bias(config, model=glove)
    run.write(cells / "sense-bias", "sense_bias_")
    summary = summarize_cell("sense-bias", cells / "sense-bias")
    weat = run.tables["weat"].set_index("representation")["effect_size"]
    wat = run.tables["wat"].set_index("representation")["r"]
    assert summary.headline == {
        "weat9_d_sense": weat["sense"],
        "weat9_d_word": weat["word"],
        "wat_r_sense": wat["sense"],
        "wat_r_word": wat["word"],
    }
    curves = summary.curves
    assert curves is not None and curves["depth"].isna().all()  # GloVe: one layer, no depth
    assert sorted(curves["metric"]) == [
        "wat_r_sense",
        "wat_r_word",
        "weat9_d_sense",
        "weat9_d_word",
    ]


def test_a_cell_without_its_tables_is_named(cells: Path) -> None:
    empty = cells / "empty"
    empty.mkdir()
    with pytest.raises(CellOutputError, match=r"empty: cannot read the run .*\(run\.json\)"):
        summarize_cell("sense-bias", empty)
    (empty / "run.json").write_text('{"method": "probe", "tables": {"scores": "gone"}}')
    with pytest.raises(CellOutputError, match=r"gone\.parquet"):
        summarize_cell("probe", empty)
