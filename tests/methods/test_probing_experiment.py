"""The edge-probing experiment on real data and a real model: two-span dependencies with mix and
lex (features once, reused), the randomized encoder, tables and report."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import WordlensError
from wordlens.methods.probing import Probe, ProbeConfig
from wordlens.methods.probing.experiment import probing_split, run_probing, task_examples
from wordlens.models.cache import ActivationCache
from wordlens.models.loading import load_model
from wordlens.probing.converters import load_probing_task
from wordlens.probing.features import sentence_features
from wordlens.probing.representations import parse_representations
from wordlens.results import Run

pytestmark = pytest.mark.slow


def write_probing(run: Run, out_dir: Path) -> list[Path]:
    """The run's tables, ``run.json`` and report, as ``wordlens probe`` writes them."""
    method = Probe()
    return run.write(out_dir, method.prefix)  # report.html too


CONFIG = ProbeConfig(
    task="dep",
    representations=("mix", "lex", "random-top"),
    train_sentences=120,
    eval_sentences=40,
    max_steps=500,
    validate_every=100,
    seed=1,
)


@pytest.fixture(scope="module")
def run(minilm: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    cache = ActivationCache(tmp_path_factory.mktemp("cache"))
    return run_probing(
        CONFIG, minilm, cache=cache, load_randomized=lambda: load_model("minilm-l6")
    ), cache


def _majority_f1() -> float:
    """Micro F1 of the most frequent training label set predicted for every test target,
    counted by hand; a test label no training target has is a miss (FN)."""
    examples = task_examples(CONFIG)
    train_targets = [t for e in examples["train"] for t in e.targets]
    label_sets = Counter(tuple(sorted(t.labels)) for t in train_targets)
    (majority, count), (_, runner_up) = label_sets.most_common(2)
    assert count > runner_up  # no tie to break
    tp = fp = fn = 0
    for target in (t for e in examples["test"] for t in e.targets):
        labels = set(target.labels)
        tp += len(labels & set(majority))
        fp += len(set(majority) - labels)
        fn += len(labels - set(majority))
    return 2 * tp / (2 * tp + fp + fn)


def test_scores_of_every_representation_and_the_baseline(run: Any) -> None:
    result, _ = run
    scores = result.tables["scores"].set_index("representation")
    assert list(scores.index) == ["mix", "lex", "random-top", "majority"]
    f1 = scores["test_micro_f1"]
    # The majority baseline, counted by hand from the sampled examples: the most frequent
    # training label set predicted for every test target, micro F1 over every test label (one
    # never seen in training, here nsubj:outer, is a miss)
    assert f1["majority"] == pytest.approx(_majority_f1(), abs=1e-12)
    # The trained probes' F1 has no independent value (a 500-step MLP on 120 sentences; the
    # paper's numbers are for full data and other encoders): the margins below are the paper's
    # qualitative claims, loose bounds around one run (mix .541, lex .541, random-top .233).
    assert f1["mix"] > f1["majority"] + 0.3
    assert f1["lex"] > f1["random-top"] + 0.15  # random layers above the kept lexical one hurt
    # each probe's bootstrap interval over the test sentences holds its F1; the majority
    # baseline has none
    probes = scores.loc[["mix", "lex", "random-top"]]
    assert (probes["test_micro_f1_ci_low"] <= probes["test_micro_f1"]).all()
    assert (probes["test_micro_f1"] <= probes["test_micro_f1_ci_high"]).all()
    assert (probes["test_micro_f1_ci_high"] > probes["test_micro_f1_ci_low"]).all()
    assert np.isnan(scores.loc["majority", "test_micro_f1_ci_low"])
    assert (scores.loc[["mix", "lex", "random-top"], "steps"] == 500).all()
    assert 0 <= scores.loc["mix", "expected_layer"] <= 6
    assert np.isnan(scores.loc["lex", "expected_layer"])
    # lex reads jiant's lexical layer (modules.py:295-296), not hidden state 0
    lexical = "embeddings.LayerNorm(embeddings.word_embeddings(ids))"
    assert result.metadata["lexical_layer"] == lexical


def test_unseen_test_labels_are_scored_as_misses(run: Any) -> None:
    """jiant's label vocabulary holds every split's labels: a test label the training data
    never shows is a label the probe learns never to predict, a false negative."""
    result, _ = run
    assert result.metadata["unseen_test_labels"] == {"nsubj:outer": 1}
    assert "nsubj:outer" in result.metadata["labels"]
    per_label = result.tables["per_label"].set_index(["representation", "label"])
    for representation in ("mix", "lex", "random-top"):
        row = per_label.loc[(representation, "nsubj:outer")]
        assert (row["support"], row["predicted"], row["f1"]) == (1, 0, 0.0)


def test_mix_weights_distance_bins_and_labels(run: Any) -> None:
    result, _ = run
    weights = result.tables["mix_weights"]
    assert list(weights["layer"]) == list(range(7))
    assert weights["weight"].sum() == pytest.approx(1.0)
    by_distance = result.tables["by_distance"]
    mix = by_distance[by_distance["representation"] == "mix"]
    assert mix["n_targets"].sum() == result.metadata["counts"]["test"]["targets"]
    assert (mix["n_targets"] > 0).sum() >= 5  # dependencies span many distances
    per_label = result.tables["per_label"]
    assert {"nsubj", "det", "root", "punct"} <= set(per_label["label"])


def test_features_are_computed_once_per_model(run: Any, minilm: Any) -> None:
    result, cache = run
    computed = result.metadata["sentences_computed"]
    # one dev and one test sentence repeat a train sentence (same input ids): read, not computed
    assert computed["trained"] == {"train": 120, "dev": 39, "test": 39}
    assert computed["randomized"] == computed["trained"]
    again = run_probing(
        ProbeConfig(**{**CONFIG.__dict__, "representations": ("top",), "max_steps": 2}),
        minilm,
        cache=cache,
    )
    assert again.metadata["sentences_computed"]["trained"] == {"train": 0, "dev": 0, "test": 0}
    assert again.metadata["lexical_layer"] is None  # top alone needs no lexical layer
    assert "non_core_edges_left_out" not in again.metadata["counts"]["train"]  # SPR only


def test_spr_run_records_the_non_core_edges_left_out(minilm: Any) -> None:
    config = ProbeConfig(
        task="spr", representations=("top",), train_sentences=30, eval_sentences=10, max_steps=2
    )
    result = run_probing(config, minilm)
    examples = task_examples(config)
    for split in ("train", "dev", "test"):
        counts = result.metadata["counts"][split]
        left_out = sum(example.info["non_core_edges_left_out"] for example in examples[split])
        assert counts["arguments_only"] is True
        assert counts["non_core_edges_left_out"] == left_out
    assert result.metadata["counts"]["train"]["non_core_edges_left_out"] > 0
    # argument edges only: every label is one of the 14 argument properties
    assert not {"location", "manner", "purpose", "time"} & set(result.metadata["labels"])


def test_report_and_tables_are_written(run: Any, tmp_path: Path) -> None:
    result, _ = run
    written = write_probing(result, tmp_path)
    assert (tmp_path / "report.html") in written
    html = (tmp_path / "report.html").read_text()
    for heading in ("Table 2", "Figure 3", "Scalar-mix weights", "Per-label F1"):
        assert heading in html
    scores = pd.read_parquet(tmp_path / "probing_scores.parquet")
    assert len(scores) == 4


def test_bad_configurations_are_refused(minilm: Any, tmp_path: Path) -> None:
    with pytest.raises(WordlensError, match="unknown"):
        ProbeConfig(task="ner").check()
    with pytest.raises(WordlensError, match="--train-sentences: must be >= 1, not 0"):
        ProbeConfig(task="pos", train_sentences=0).check()
    examples = load_probing_task("pos", "dev")[:2]
    features = sentence_features(minilm, [example.tokens for example in examples], folder=tmp_path)
    (lex,) = parse_representations("lex", 7)
    with pytest.raises(WordlensError, match=r"lex reads layer\(s\) \[-1\]"):
        probing_split(examples, features, lex, ["NOUN"])
    with pytest.raises(WordlensError, match="fresh model copy"):
        run_probing(
            ProbeConfig(task="pos", representations=("random-mix",), train_sentences=4),
            minilm,
        )


def test_summary_headlines_and_the_single_layer_curve(minilm: Any) -> None:
    from wordlens.methods.summaries import CURVE_COLUMNS
    from wordlens.options import config_values

    config = ProbeConfig(
        task="pos",
        representations=("layer:0", "layer:6"),
        train_sentences=16,
        eval_sentences=8,
        max_steps=5,
        validate_every=5,
    )
    result = run_probing(config, minilm)
    summary = Probe().summary(result)
    scores = result.tables["scores"]
    assert summary.headline == dict(
        zip("pos_f1_" + scores["representation"], scores["test_micro_f1"], strict=True)
    )
    assert list(summary.headline) == ["pos_f1_layer:0", "pos_f1_layer:6", "pos_f1_majority"]
    (grid,) = Probe().console(result)
    assert grid.title == "Edge probing: pos, minilm-l6" and grid.row_count == 3  # type: ignore[union-attr]
    curves = summary.curves
    assert curves is not None and tuple(curves.columns) == CURVE_COLUMNS
    assert curves["metric"].unique().tolist() == ["pos_f1"]
    assert curves["layer"].tolist() == [0, 6] and curves["depth"].tolist() == [0, 1]
    np.testing.assert_array_equal(curves["value"], scores["test_micro_f1"][:2])
    assert result.metadata["config"] == {**config_values(config), "randomized_seed": 0}


def test_summary_without_single_layer_probes_has_no_curve(run: Any) -> None:
    result, _ = run
    summary = Probe().summary(result)
    assert summary.curves is None
    assert list(summary.headline) == [
        "dep_f1_mix",
        "dep_f1_lex",
        "dep_f1_random-top",
        "dep_f1_majority",
    ]
