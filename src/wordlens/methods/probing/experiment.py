"""Edge probing (Tenney et al. 2019): train a span probe per representation and score it.

For one model and one task: the task's train/dev/test examples (jiant format, see
:mod:`wordlens.probing.converters`); every sentence's subtoken vectors at every layer, extracted
once through the activation cache and shared by all representations
(:mod:`wordlens.probing.features`), in one file per layer on disk (in the activation cache's
entry for the model, or without a cache in a temporary folder removed at the end); per
representation (:mod:`wordlens.probing.representations`)
a probe trained on train with early stopping on dev micro-F1 (Appendix C), then scored on test:
micro-F1 (Table 2), per-label F1, F1 by span distance (Figure 3) and, for ``mix``, the learned
layer weights and their expected layer (Tenney, Das & Pavlick 2019). The majority-label
baseline of the same test set is reported beside them.

Labels are those of all three splits, as jiant's label vocabulary (the task's labels file):
a test label never seen in training gets an output the probe learns never to predict, so it is
scored as a miss (a false negative), and is counted in the metadata (``unseen_test_labels``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from wordlens.errors import WordlensError
from wordlens.methods.probing.config import ProbeConfig
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder
from wordlens.options import config_values
from wordlens.probing.converters import load_probing_task, probing_task_info
from wordlens.probing.edges import EdgeExample
from wordlens.probing.features import SentenceFeatures, randomize_encoder, sentence_features
from wordlens.probing.metrics import (
    expected_layer,
    f1_by_distance,
    majority_baseline,
    micro_f1,
    micro_f1_interval,
    per_label_f1,
)
from wordlens.probing.model import EdgeProbe
from wordlens.probing.representations import LEXICAL, Representation, parse_representations
from wordlens.probing.retokenize import project_spans
from wordlens.probing.train import ProbingSplit, TrainConfig, predict, train_probe
from wordlens.results import Run
from wordlens.stages import Timings, add_work

SPLITS = ("train", "dev", "test")


def run_probing(
    config: ProbeConfig,
    embedder: HFEmbedder,
    *,
    cache: ActivationCache | None = None,
    load_randomized: Any = None,
    randomized_seed: int = 0,
    progress: bool = False,
    limit: int | None = None,
) -> Run:
    """Run every representation of ``config`` on ``embedder`` (module notes).

    Parameters
    ----------
    config
        The experiment.
    embedder
        The frozen model.
    cache
        Activation cache for the subtoken vectors (``None``: computed, not stored).
    load_randomized
        Called with no argument, returns a fresh copy of the model to randomize (``random-*``
        representations change a model in place, so never ``embedder`` itself); required when a
        randomized representation is asked for.
    randomized_seed
        Seed of the randomized encoder's weights (``random-*`` representations).
    progress
        Show progress bars.
    limit
        Quick mode (``--limit``): the first ``limit`` examples of each split (before the
        seeded samples of ``config``); None: all.

    Returns
    -------
    Run
        Tables ``scores`` (per representation: test and best dev micro-F1, the 95% percentile
        bootstrap interval of the test micro-F1 over test sentences, ``test_micro_f1_ci_low`` and
        ``_ci_high`` (:func:`~wordlens.probing.metrics.micro_f1_interval`, seeded by the probe's
        seed), steps, why training stopped, seconds; plus the majority baseline), ``per_label``
        (test precision, recall, F1, support), ``by_distance`` (test F1 per span-distance bin,
        Figure 3, with its bootstrap interval over the bin's test sentences, seeded as the
        scores'), ``mix_weights`` (per ``mix`` representation and layer), ``history`` (per
        validation). Metadata include the counts per split (for SPR also ``arguments_only`` and
        ``non_core_edges_left_out``, the edges the converter left out) and ``lexical_layer``: how
        the lexical layer of ``lex``, ``cat`` and the CNNs was computed
        (:func:`wordlens.probing.features.lexical_layer`; ``None`` when no representation read it).

    Raises
    ------
    WordlensError
        On an invalid configuration, or a randomized representation without ``load_randomized``.
    """
    config.check()
    with _features_folder(cache) as folder:
        return _run(
            config, embedder, cache, folder, load_randomized, randomized_seed, progress, limit
        )


@contextmanager
def _features_folder(cache: ActivationCache | None) -> Iterator[Path | None]:
    """Where the layer files go: ``None`` (the cache's entry for the model) with a cache, else a
    temporary folder, removed at the end."""
    if cache is not None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="wordlens-probing-") as folder:
        yield Path(folder)


def _run(
    config: ProbeConfig,
    embedder: HFEmbedder,
    cache: ActivationCache | None,
    folder: Path | None,
    load_randomized: Any,
    randomized_seed: int,
    progress: bool,
    limit: int | None = None,
) -> Run:
    """:func:`run_probing` with the layer files in ``folder`` (``None``: the cache's)."""
    timings = Timings()
    info = probing_task_info(config.task)
    representations = representations_of(config, embedder.info.n_layers)
    with timings.stage("data"):
        examples = task_examples(config, limit)
    label_names = task_labels(examples)
    features: dict[bool, dict[str, SentenceFeatures]] = {}
    for randomized in sorted({r.randomized for r in representations}):
        model = _randomized(load_randomized, randomized_seed) if randomized else embedder
        # the randomized copy has the same tokenizer: it reuses the retokenization
        done = next(iter(features.values()), None)
        with timings.stage("features (randomized)" if randomized else "features"):
            features[randomized] = {
                split: sentence_features(
                    model,
                    [example.tokens for example in examples[split]],
                    folder=folder,
                    retokenized=None if done is None else done[split].retokenized,
                    cache=cache,
                    lexical=any(
                        LEXICAL in r.layers for r in representations if r.randomized == randomized
                    ),
                    progress=progress,
                )
                for split in SPLITS
            }
    train_config = schedule(config)
    rows, per_label, by_distance, mix_weights, histories = [], [], [], [], []
    for representation in representations:
        splits = {
            split: probing_split(
                examples[split],
                features[representation.randomized][split],
                representation,
                label_names,
            )
            for split in SPLITS
        }
        with timings.stage(f"train {representation.name}"):
            outcome = _train_one(representation, splits, info.two_spans, train_config, progress)
            add_work(probe_steps=outcome.score_row["steps"])
        rows.append(outcome.score_row)
        per_label.append(outcome.per_label.assign(representation=representation.name))
        by_distance.append(outcome.by_distance.assign(representation=representation.name))
        histories.append(outcome.history.assign(representation=representation.name))
        if outcome.mix_weights is not None:
            mix_weights.append(outcome.mix_weights.assign(representation=representation.name))
    # labels do not depend on the representation: those of the last one's splits serve
    rows.append(
        {
            "representation": "majority",
            "test_micro_f1": majority_baseline(splits["train"].labels, splits["test"].labels),
        }
    )
    tables = {
        "scores": pd.DataFrame(rows),
        "per_label": pd.concat(per_label, ignore_index=True),
        "by_distance": pd.concat(by_distance, ignore_index=True),
        "history": pd.concat(histories, ignore_index=True),
    }
    if mix_weights:
        tables["mix_weights"] = pd.concat(mix_weights, ignore_index=True)
    metadata = {
        "model": embedder.info.as_dict(),
        "task": asdict(info),
        "config": {**config_values(config), "randomized_seed": randomized_seed},
        "train": asdict(train_config),
        "labels": list(label_names),
        "counts": {
            split: {
                "sentences": len(examples[split]),
                "targets": int(sum(len(e.targets) for e in examples[split])),
                "subtokens": next(iter(features.values()))[split].n_rows,
                **_left_out(examples[split]),
            }
            for split in SPLITS
        },
        "unseen_test_labels": _unseen(examples["test"], examples["train"]),
        "lexical_layer": next(
            (f["test"].lexical_layer for f in features.values() if f["test"].lexical_layer),
            None,
        ),
        "sentences_computed": {
            ("randomized" if randomized else "trained"): {
                split: by_split[split].computed for split in SPLITS
            }
            for randomized, by_split in features.items()
        },
        "timings_s": dict(timings.seconds),
    }
    return Run("probe", tables, metadata)


def representations_of(config: ProbeConfig, n_layers: int) -> list[Representation]:
    """The representations ``config`` names, expanded for a model of ``n_layers``."""
    return [
        parsed
        for name in config.representations
        for parsed in parse_representations(name, n_layers)
    ]


def schedule(config: ProbeConfig) -> TrainConfig:
    """The training schedule: the task's validation interval and jiant's cap of validations
    (Appendix C) unless ``config`` sets them."""
    info = probing_task_info(config.task)
    validate_every = config.validate_every or info.validate_every
    return TrainConfig(
        validate_every=validate_every,
        max_steps=config.max_steps or validate_every * info.max_validations,
        seed=config.seed,
    )


def new_probe(representation: Representation, train: ProbingSplit, two_spans: bool) -> EdgeProbe:
    """The untrained probe of ``representation`` for ``train``'s layers, size and labels."""
    return EdgeProbe(
        train.dim,
        len(representation.layers),
        len(train.label_names),
        combine=representation.combine,
        two_spans=two_spans,
        cnn_width=representation.cnn_width,
    )


def task_examples(config: ProbeConfig, limit: int | None = None) -> dict[str, list[EdgeExample]]:
    """The task's splits, examples without targets dropped, sampled by ``config``'s seed; with
    ``limit`` (quick mode, ``--limit``) the first ``limit`` examples of each split first."""
    sizes = {"train": config.train_sentences, "dev": config.eval_sentences}
    sizes["test"] = config.eval_sentences
    chosen = {}
    for split in SPLITS:
        examples = [e for e in load_probing_task(config.task, split) if e.targets]
        if not examples:
            raise WordlensError(f"task {config.task!r} has no {split} examples with targets")
        if limit is not None:
            examples = examples[:limit]
        chosen[split] = _sample(examples, sizes[split], config.seed)
    return chosen


def _sample(examples: Sequence[EdgeExample], size: int | None, seed: int) -> list[EdgeExample]:
    """A seeded sample of ``size`` examples in their original order (all when ``None``)."""
    if size is None or size >= len(examples):
        return list(examples)
    keep = np.sort(np.random.default_rng(seed).choice(len(examples), size, replace=False))
    return [examples[i] for i in keep]


def _left_out(examples: Sequence[EdgeExample]) -> dict[str, Any]:
    """What the converter left out of these examples and by which choice: for SPR, the non-core
    edges (``arguments_only``; :func:`wordlens.probing.converters.spr_examples`); else nothing."""
    infos = [e.info for e in examples if e.info and "non_core_edges_left_out" in e.info]
    if not infos:
        return {}
    return {
        "arguments_only": all(info["arguments_only"] for info in infos),
        "non_core_edges_left_out": int(sum(info["non_core_edges_left_out"] for info in infos)),
    }


def _labels(examples: Sequence[EdgeExample]) -> set[str]:
    return {label for example in examples for t in example.targets for label in t.labels}


def task_labels(examples: dict[str, list[EdgeExample]]) -> tuple[str, ...]:
    """The labels of every split, sorted (jiant's label vocabulary)."""
    if not _labels(examples["train"]):
        raise WordlensError("the train examples carry no labels")
    return tuple(sorted(set().union(*(_labels(examples[split]) for split in SPLITS))))


def _unseen(test: Sequence[EdgeExample], train: Sequence[EdgeExample]) -> dict[str, int]:
    """Test label → its number of test targets, for the labels no train target carries."""
    known = _labels(train)
    counts: dict[str, int] = {}
    for example in test:
        for target in example.targets:
            for label in target.labels:
                if label not in known:
                    counts[label] = counts.get(label, 0) + 1
    return counts


def _randomized(load_randomized: Any, seed: int) -> HFEmbedder:
    if load_randomized is None:
        raise WordlensError("a random-* representation needs a fresh model copy to randomize")
    return randomize_encoder(load_randomized(), seed)


def probing_split(
    examples: Sequence[EdgeExample],
    features: SentenceFeatures,
    representation: Representation,
    label_names: Sequence[str],
) -> ProbingSplit:
    """The probe's input for one split and representation: the layers it reads and every
    target's subtoken spans (source spans projected through each sentence's retokenization),
    multi-hot labels over ``label_names`` and span distance (``|start1 - start2|`` in source
    tokens: for dependencies, the distance between a word and its head, Figure 3).

    Raises
    ------
    WordlensError
        If the features lack a layer the representation reads.
    """
    missing = [layer for layer in representation.layers if layer not in features.layers]
    if missing:
        raise WordlensError(
            f"{representation.name} reads layer(s) {missing} ({LEXICAL} = the lexical layer), "
            f"the features hold {list(features.layers)}"
        )
    index = {label: column for column, label in enumerate(label_names)}
    target_sentence, span1, span2, distance, labels = [], [], [], [], []
    for number, example in enumerate(examples):
        retokenized = features.retokenized[number]
        starts1 = np.array([t.span1 for t in example.targets], dtype=np.int64)
        span1.append(project_spans(retokenized, starts1))
        if example.targets[0].span2 is not None:
            spans2 = np.array([t.span2 for t in example.targets], dtype=np.int64)
            span2.append(project_spans(retokenized, spans2))
            distance.append(np.abs(starts1[:, 0] - spans2[:, 0]))
        else:
            distance.append(np.zeros(len(starts1), dtype=np.int64))
        target_sentence.append(np.full(len(starts1), number, dtype=np.int64))
        rows = np.zeros((len(starts1), len(label_names)), dtype=bool)
        for row, target in enumerate(example.targets):
            rows[row, [index[label] for label in target.labels if label in index]] = True
        labels.append(rows)
    return ProbingSplit(
        features=tuple(features.layer(layer) for layer in representation.layers),
        sentence_offsets=features.sentence_offsets,
        target_sentence=np.concatenate(target_sentence),
        span1=np.concatenate(span1),
        span2=np.concatenate(span2) if span2 else None,
        labels=np.concatenate(labels),
        label_names=tuple(label_names),
        distance=np.concatenate(distance),
    )


@dataclass(frozen=True)
class _Outcome:
    score_row: dict[str, Any]
    per_label: pd.DataFrame
    by_distance: pd.DataFrame
    history: pd.DataFrame
    mix_weights: pd.DataFrame | None


def _train_one(
    representation: Representation,
    splits: dict[str, ProbingSplit],
    two_spans: bool,
    train_config: TrainConfig,
    progress: bool,
) -> _Outcome:
    """Train one probe (seeded) and score it on test."""
    torch.manual_seed(train_config.seed)
    train = splits["train"]
    probe = new_probe(representation, train, two_spans)
    start = time.perf_counter()
    result = train_probe(probe, train, splits["dev"], train_config, progress=progress)
    test = splits["test"]  # the probe now holds the weights of the best validation
    predicted = predict(probe, test) >= train_config.threshold
    weights = probe.mix_weights()
    low, high = micro_f1_interval(
        test.labels, predicted, test.target_sentence, seed=train_config.seed
    )
    score_row = {
        "representation": representation.name,
        "test_micro_f1": micro_f1(test.labels, predicted),
        "test_micro_f1_ci_low": low,
        "test_micro_f1_ci_high": high,
        "best_dev_micro_f1": result.best_dev_micro_f1,
        "best_step": result.best_step,
        "steps": result.steps,
        "stopped": result.stop_reason,
        "train_seconds": time.perf_counter() - start,
        "expected_layer": (
            expected_layer(weights, representation.layers) if weights is not None else np.nan
        ),
    }
    mix = (
        pd.DataFrame({"layer": list(representation.layers), "weight": weights})
        if weights is not None
        else None
    )
    return _Outcome(
        score_row,
        per_label_f1(test.labels, predicted, test.label_names),
        f1_by_distance(
            test.labels,
            predicted,
            test.distance,
            groups=test.target_sentence,
            seed=train_config.seed,
        ),
        result.history,
        mix,
    )
