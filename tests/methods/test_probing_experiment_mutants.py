"""Fast edge-probing checks (not marked slow, unlike test_probing_experiment.py): a tiny real run
of MiniLM on a few Winograd sentences for two steps, and the split and metadata helpers, each
against a plain recount from the examples (issue 28's 'no tests' mutants)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from wordlens.methods.probing import ProbeConfig
from wordlens.methods.probing.experiment import (
    _left_out,
    probing_split,
    run_probing,
    task_examples,
)
from wordlens.probing.converters import load_probing_task
from wordlens.probing.features import sentence_features
from wordlens.probing.representations import parse_representations

TINY = ProbeConfig(
    task="winograd",  # the quickest two-span task to read
    representations=("top",),
    train_sentences=6,
    eval_sentences=3,
    max_steps=2,
    validate_every=2,
    seed=1,
)


def _label_counts(examples: Any, label_names: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(label_names, 0)
    for example in examples:
        for target in example.targets:
            for label in target.labels:
                if label in counts:
                    counts[label] += 1
    return counts


def test_a_tiny_run_counts_the_test_labels_of_its_examples(shared: Any, minilm: Any) -> None:
    run = run_probing(TINY, minilm)
    examples = task_examples(TINY)
    label_names = sorted({lab for e in examples["train"] for t in e.targets for lab in t.labels})
    assert run.metadata["labels"] == label_names
    scores = run.tables["scores"]
    assert list(scores["representation"]) == ["top", "majority"]
    assert scores["test_micro_f1"].between(0, 1).all()
    per_label = run.tables["per_label"].set_index("label")
    support = _label_counts(examples["test"], label_names)
    assert per_label.loc[label_names, "support"].to_dict() == support
    assert per_label.loc["_micro_avg_", "support"] == sum(support.values())
    predicted = per_label.loc[label_names, "predicted"]
    assert per_label.loc["_micro_avg_", "predicted"] == predicted.sum()
    targets = sum(len(e.targets) for e in examples["test"])
    assert run.metadata["counts"]["test"]["targets"] == targets
    assert run.tables["by_distance"]["n_targets"].sum() == targets


def test_probing_split_spans_labels_and_distances(shared: Any, minilm: Any, tmp_path: Path) -> None:
    examples = [e for e in load_probing_task("dep", "dev") if e.targets][:3]
    features = sentence_features(minilm, [example.tokens for example in examples], folder=tmp_path)
    (top,) = parse_representations("top", minilm.info.n_layers)
    label_names = ["det", "nsubj", "punct", "root"]
    split = probing_split(examples, features, top, label_names)
    targets = [t for e in examples for t in e.targets]
    # the probe reads the top layer's file, no other
    assert split.features == (features.files[features.layers.index(top.layers[0])],)
    assert split.features[0].path.name == f"layer-{top.layers[0]}.npy"
    expected = np.array([[name in t.labels for name in label_names] for t in targets])
    np.testing.assert_array_equal(split.labels, expected)
    assert split.labels.sum() > 0
    distance = [abs(t.span1[0] - t.span2[0]) for t in targets]  # type: ignore[index]
    np.testing.assert_array_equal(split.distance, distance)
    sentence = [number for number, e in enumerate(examples) for _ in e.targets]
    np.testing.assert_array_equal(split.target_sentence, sentence)
    assert split.span1.shape == split.span2.shape == (len(targets), 2)  # type: ignore[union-attr]


def test_left_out_reports_the_spr_converter_choice(shared: Any) -> None:
    examples = [e for e in load_probing_task("spr", "dev") if e.targets][:5]
    left = _left_out(examples)
    assert left == {
        "arguments_only": all(e.info["arguments_only"] for e in examples),
        "non_core_edges_left_out": sum(e.info["non_core_edges_left_out"] for e in examples),
    }
    assert left["arguments_only"] is True
    assert _left_out(load_probing_task("dep", "dev")[:3]) == {}
