"""Edge probing's plan (:mod:`wordlens.plan`): its stages, their work and their estimated time.

The stages are those :func:`~wordlens.methods.probing.experiment.run_probing` records:

- ``data``: the task's splits, loaded by the plan itself (its estimate is that load's time);
- ``features`` (and ``features (randomized)`` for ``random-*`` representations): every
  sentence's subtoken vectors at every layer. Calibration: :data:`CALIBRATION_SENTENCES` train
  sentences encoded through the real path into a temporary folder (no activation cache), in two
  calls of different sizes after a warm-up (:class:`wordlens.plan.LinearCost`: a fixed cost per
  call plus a cost per subtoken), scaled to the splits' subtokens. A rerun reads the cached
  vectors and takes less;
- ``train <representation>``: the probe's optimizer steps and its validations on dev, then the
  test predictions. Calibration: the representation's own probe, on the calibration sentences'
  features, takes :data:`CALIBRATION_STEPS` timed steps of a batch of 32 sentences (after as
  many untimed ones) and predicts the sample once; a validation costs the sample's prediction scaled
  to dev's sentences. Training stops early (20 validations without improvement, Appendix C), at
  a point no calibration can foresee, so the estimate is the **most** it can take: jiant's cap of
  validations (``max_steps``). The least (the first 21 validations) is in the basis.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from wordlens.methods.probing.config import ProbeConfig
from wordlens.methods.probing.experiment import (
    SPLITS,
    new_probe,
    probing_split,
    representations_of,
    schedule,
    task_examples,
    task_labels,
)
from wordlens.models.hf import HFEmbedder
from wordlens.plan import (
    LinearCost,
    Plan,
    PlannedStage,
    forward_passes,
    seconds_per_call,
    token_counts,
)
from wordlens.probing.converters import probing_task_info
from wordlens.probing.edges import EdgeExample
from wordlens.probing.features import SentenceFeatures, sentence_features
from wordlens.probing.model import EdgeProbe
from wordlens.probing.representations import LEXICAL, Representation
from wordlens.probing.train import (
    ProbingSplit,
    TrainConfig,
    predict,
    train_step,
    training_batches,
)

CALIBRATION_SENTENCES = 32
"""Train sentences encoded and probed to calibrate (one batch of Appendix C's 32 sentences)."""

CALIBRATION_STEPS = 8
"""Timed optimizer steps per representation."""


def plan_probing(embedder: HFEmbedder, config: ProbeConfig, limit: int | None = None) -> Plan:
    """The stages of ``run_probing(config, embedder)`` and their estimated seconds on the
    model's device (module notes)."""
    started = time.perf_counter()
    config.check()
    info = probing_task_info(config.task)
    representations = representations_of(config, embedder.info.n_layers)
    loading = time.perf_counter()
    examples = task_examples(config, limit)
    data_s = time.perf_counter() - loading
    n_sentences = sum(len(examples[split]) for split in SPLITS)
    stages = [PlannedStage("data", {"texts": n_sentences}, data_s, "the plan loaded the splits")]
    sample = examples["train"][:CALIBRATION_SENTENCES]
    lexical = any(LEXICAL in r.layers for r in representations)
    with tempfile.TemporaryDirectory(prefix="wordlens-plan-") as folder:
        cost, features = _features_cost(embedder, sample, Path(folder), lexical)
        lengths = token_counts(embedder, [" ".join(e.tokens) for s in SPLITS for e in examples[s]])
        passes = forward_passes(embedder, lengths)
        work = {"texts": n_sentences, "tokens": sum(lengths)}
        if passes is not None:
            work["forward_passes"] = passes
        per_token = f"{1e3 * cost.per_unit:.3f} ms per subtoken + {cost.fixed:.2f} s per call"
        basis = f"{len(sample)} train sentences encoded: {per_token}"
        for randomized in sorted({r.randomized for r in representations}):
            name = "features (randomized)" if randomized else "features"
            stages.append(PlannedStage(name, work, cost.seconds(sum(lengths)), basis))
        labels = task_labels(examples)
        train_config = schedule(config)
        n_dev = len(examples["dev"])
        n_test = len(examples["test"])
        for representation in representations:
            split = probing_split(sample, features, representation, labels)
            stages.append(
                _training_stage(representation, split, info.two_spans, train_config, n_dev, n_test)
            )
    device = str(embedder.info.details.get("device", "cpu"))
    return Plan("probe", device, tuple(stages), time.perf_counter() - started)


def _features_cost(
    embedder: HFEmbedder, sample: Sequence[EdgeExample], folder: Path, lexical: bool
) -> tuple[LinearCost, SentenceFeatures]:
    """The cost of encoding sentences (per call and per subtoken), and the sample's features
    (the last call's). Each call writes to its own subfolder, so none reads another's files."""
    sentences = [example.tokens for example in sample]
    computed: list[SentenceFeatures] = []

    def encode(n: int) -> float:
        features = sentence_features(
            embedder, sentences[:n], folder=folder / str(len(computed)), lexical=lexical
        )
        computed.append(features)
        return float(features.n_rows)

    cost = LinearCost.fitted(encode, (2, max(1, len(sentences) // 4), len(sentences)))
    return cost, computed[-1]


def _training_stage(
    representation: Representation,
    sample: ProbingSplit,
    two_spans: bool,
    train_config: TrainConfig,
    n_dev: int,
    n_test: int,
) -> PlannedStage:
    """``train <representation>``: at most ``max_steps`` steps and their validations, then the
    test predictions, each timed on ``sample`` (module notes)."""
    torch.manual_seed(train_config.seed)
    probe = new_probe(representation, sample, two_spans)
    step_s = _step_seconds(probe, sample, train_config)
    per_sentence = seconds_per_call(lambda: predict(probe, sample), repeats=1) / sample.n_sentences
    max_steps = train_config.max_steps or train_config.validate_every
    validations = max_steps // train_config.validate_every
    least = train_config.validate_every * (train_config.stop_patience + 1)
    validation_s = per_sentence * n_dev
    estimate = max_steps * step_s + validations * validation_s + per_sentence * n_test
    basis = (
        f"at most {max_steps:,} steps ({validations} validations); at least "
        f"{min(least, max_steps):,}: a step timed {1e3 * step_s:.1f} ms, a validation "
        f"{validation_s:.2f} s"
    )
    return PlannedStage(f"train {representation.name}", {"probe_steps": max_steps}, estimate, basis)


def _step_seconds(probe: EdgeProbe, sample: ProbingSplit, train_config: TrainConfig) -> float:
    """Seconds of one training step on the sample, its batch assembly included (the mean of
    :data:`CALIBRATION_STEPS`, timed after as many untimed ones:
    :func:`~wordlens.plan.seconds_per_call`)."""
    optimizer = torch.optim.Adam(probe.parameters(), lr=train_config.learning_rate)
    loss_function = nn.BCEWithLogitsLoss()
    device = next(probe.parameters()).device
    order = np.random.default_rng(train_config.seed)
    stream = training_batches(sample, train_config.batch_size, order)

    def steps() -> None:
        for _ in range(CALIBRATION_STEPS):
            batch = next(stream).to(device)
            train_step(probe, batch, optimizer, loss_function, train_config.clip_norm)

    return seconds_per_call(steps, repeats=1) / CALIBRATION_STEPS
