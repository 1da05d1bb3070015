"""Training the edge probe (Tenney et al. 2019, Appendix C) on real minilm-l6 hidden states of UD
English EWT sentences: batching, prediction order, learning, the LR / stopping schedule and
determinism."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch

from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.probing.metrics import expected_layer, majority_baseline, micro_f1
from wordlens.probing.model import EdgeProbe
from wordlens.probing.train import (
    ProbingSplit,
    TrainConfig,
    batches,
    predict,
    train_probe,
)
from wordlens.resources.tagger import TaggedSentence, load_ewt


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    """The probe's small matrices train several times faster on one thread than on two shared
    cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _pos_split(model: Any, sentences: list[TaggedSentence], tags: list[str]) -> ProbingSplit:
    """POS as single-span edge probing: every word is a target, its subtokens the span."""
    words = [[form for form, _ in sentence] for sentence in sentences]
    encoded = model.tokenizer(words, is_split_into_words=True, padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = model.model(**encoded, output_hidden_states=True).hidden_states
    layers = torch.stack(hidden, dim=2).numpy()  # [sentences, T, 7, 384]
    lengths = encoded["attention_mask"].sum(dim=1).numpy()
    target_sentence, spans, labels = [], [], []
    for number, sentence in enumerate(sentences):
        word_of_subtoken = np.array([-1 if w is None else w for w in encoded.word_ids(number)])
        for word, (_, tag) in enumerate(sentence):
            positions = np.flatnonzero(word_of_subtoken == word)
            target_sentence.append(number)
            spans.append([positions[0], positions[-1] + 1])
            labels.append(np.array(tags) == tag)
    vectors = np.concatenate([layers[i, :n] for i, n in enumerate(lengths)]).astype(np.float16)
    return ProbingSplit(
        features=tuple(np.ascontiguousarray(vectors[:, layer]) for layer in range(7)),
        sentence_offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        target_sentence=np.array(target_sentence, dtype=np.int64),
        span1=np.array(spans, dtype=np.int64),
        span2=None,
        labels=np.array(labels),
        label_names=tuple(tags),
        distance=np.zeros(len(target_sentence), dtype=np.int64),
    )


@pytest.fixture(scope="module")
def pos(minilm: Any) -> tuple[ProbingSplit, ProbingSplit]:
    """40 training and 20 held-out EWT dev sentences, the 15 UPOS tags they use, 7 minilm layers."""
    sentences = load_ewt("dev")[:60]
    tags = sorted({tag for sentence in sentences for _, tag in sentence})
    return _pos_split(minilm, sentences[:40], tags), _pos_split(minilm, sentences[40:], tags)


def _probe(split: ProbingSplit) -> EdgeProbe:
    torch.manual_seed(0)
    return EdgeProbe(split.dim, split.n_layers, split.n_labels, combine="mix", two_spans=False)


def test_batches_hold_whole_sentences_and_their_targets(pos: tuple[ProbingSplit, ...]) -> None:
    train = pos[0]
    order = np.array([5, 0, 17, 3, 9])
    produced = list(batches(train, order, batch_size=2))
    assert [len(batch.mask) for batch in produced] == [2, 2, 1]
    first = produced[0]
    lengths = train.sentence_lengths[[5, 0]]
    assert first.features.dtype == torch.float32
    assert first.features.shape == (2, lengths.max(), 7, 384)
    np.testing.assert_array_equal(first.mask.sum(dim=1).numpy(), lengths)
    rows = slice(train.sentence_offsets[5], train.sentence_offsets[6])
    by_layer = np.stack([layer[rows] for layer in train.features], axis=1)  # [rows, 7, 384]
    np.testing.assert_array_equal(first.features[0, : lengths[0]].numpy(), by_layer)
    assert not first.features[1, lengths[1] :].any()  # padding is zero
    expected_targets = np.flatnonzero(np.isin(train.target_sentence, [5, 0]))
    np.testing.assert_array_equal(np.sort(first.target_index), expected_targets)
    sentence_of_row = np.array([5, 0])[first.target_row.numpy()]
    np.testing.assert_array_equal(sentence_of_row, train.target_sentence[first.target_index])
    np.testing.assert_array_equal(first.span1.numpy(), train.span1[first.target_index])
    np.testing.assert_array_equal(first.labels.numpy(), train.labels[first.target_index])


def test_predictions_follow_target_order_whatever_the_batch(pos: tuple[ProbingSplit, ...]) -> None:
    dev = pos[1]
    probe = _probe(dev)
    whole = predict(probe, dev, batch_size=32)
    one_by_one = predict(probe, dev, batch_size=1)
    assert whole.shape == (dev.n_targets, dev.n_labels) and whole.dtype == np.float32
    np.testing.assert_allclose(one_by_one, whole, rtol=0, atol=1e-5)
    assert ((whole > 0) & (whole < 1)).all()


def test_probe_learns_pos_and_beats_the_majority_baseline(pos: tuple[ProbingSplit, ...]) -> None:
    train, held_out = pos
    probe = _probe(train)
    # The paper's schedule (Adam 1e-4, clipping 5.0); batches of 8 sentences on this tiny set.
    config = TrainConfig(batch_size=8, validate_every=25, max_steps=200)
    result = train_probe(probe, train, held_out, config)
    losses = result.history["train_loss"].to_numpy()
    assert result.steps == 200 and result.stop_reason == "max_steps"
    assert list(result.history["step"]) == list(range(25, 201, 25))
    # A trained probe's loss and F1 have no independent value (they depend on the training run);
    # the bounds are loose around one run (loss 0.51 -> 0.10, F1 0.72) for the claim "it learns".
    assert losses[-1] < losses[0] / 3
    f1 = micro_f1(held_out.labels, predict(probe, held_out) >= 0.5)
    assert f1 == pytest.approx(result.best_dev_micro_f1)  # the best weights are loaded back
    baseline = majority_baseline(train.labels, held_out.labels)
    # by hand: one POS tag per word, so predicting the most frequent training tag (NOUN) for
    # every word scores micro F1 = the share of held-out words with that tag
    assert (train.labels.sum(axis=1) == 1).all() and (held_out.labels.sum(axis=1) == 1).all()
    assert baseline == pytest.approx(held_out.labels[:, train.labels.sum(axis=0).argmax()].mean())
    assert f1 > baseline + 0.4
    weights = probe.mix_weights()
    assert weights is not None and 0 < expected_layer(weights) < 6


def test_learning_rate_halves_then_training_stops_without_improvement(
    pos: tuple[ProbingSplit, ...],
) -> None:
    train, held_out = pos
    # No dev target carries a label: micro F1 is 0.0 whatever the probe predicts, so only the
    # first validation improves on the initial -inf.
    no_positives = replace(held_out, labels=np.zeros_like(held_out.labels))
    config = TrainConfig(batch_size=4, validate_every=1)  # lr_patience 5, stop_patience 20
    result = train_probe(_probe(train), train, no_positives, config)
    history = result.history
    assert result.stop_reason == "no_improvement" and result.steps == 21 and len(history) == 21
    assert list(history["improved"]) == [True] + [False] * 20
    assert (history["dev_micro_f1"] == 0.0).all() and result.best_step == 1
    rates = history["learning_rate"].to_numpy()
    # halved after the 5th, 10th, 15th and 20th validation without improvement
    expected = 1e-4 * 0.5 ** (np.arange(21) // 5)
    np.testing.assert_allclose(rates, expected, rtol=1e-12)


def test_learning_rate_schedule_needs_a_gain_above_the_threshold_and_stops_at_the_minimum(
    pos: tuple[ProbingSplit, ...],
) -> None:
    train, held_out = pos
    # No dev gain can beat the best by 1.0: for the schedule only the first validation (over the
    # initial -inf) improves, so the rate halves every 5 validations however the probe learns,
    # and falls below 1e-6 at the 7th halving (validation 36), before the stop patience.
    config = TrainConfig(batch_size=4, validate_every=1, lr_threshold=1.0, stop_patience=100)
    result = train_probe(_probe(train), train, held_out, config)
    history = result.history
    assert result.stop_reason == "min_learning_rate" and result.steps == 36
    rates = history["learning_rate"].to_numpy()
    np.testing.assert_allclose(rates, 1e-4 * 0.5 ** (np.arange(36) // 5), rtol=1e-12)
    # strict gains still count for the kept weights and the stop patience (26 of 36 in one run:
    # how many depends on training, so the bound is loose)
    assert history["improved"].sum() > 5
    assert result.best_dev_micro_f1 == history["dev_micro_f1"].max()


def test_training_is_deterministic_given_the_seed(pos: tuple[ProbingSplit, ...]) -> None:
    train, held_out = pos
    config = TrainConfig(batch_size=8, validate_every=4, max_steps=10, seed=3)
    runs = []
    for outside_seed in (11, 12):  # train_probe seeds dropout itself, whatever came before
        probe = _probe(train)
        torch.manual_seed(outside_seed)
        runs.append(train_probe(probe, train, held_out, config))
    first, second = runs
    assert list(first.history["step"]) == [4, 8, 10]  # a last validation at max_steps
    assert first.history.equals(second.history)
    for name, value in first.best_state.items():
        assert torch.equal(value, second.best_state[name]), name
    other_seed = train_probe(_probe(train), train, held_out, replace(config, seed=4))
    assert not other_seed.history["train_loss"].equals(first.history["train_loss"])


def test_bad_splits_and_settings_raise(pos: tuple[ProbingSplit, ...]) -> None:
    train, held_out = pos
    with pytest.raises(TargetError, match="span1 of target 1"):
        replace(train, span1=np.where(np.arange(train.n_targets)[:, None] == 1, 0, train.span1))
    with pytest.raises(WordlensError, match="sentence_offsets"):
        replace(train, sentence_offsets=train.sentence_offsets[:-1])
    with pytest.raises(WordlensError, match="layers of one shape"):
        replace(train, features=(train.features[0], train.features[1][:-1]))
    with pytest.raises(WordlensError, match="labels must be bool"):
        replace(train, labels=train.labels.astype(np.int64))
    with pytest.raises(TargetError, match="target_sentence"):
        replace(train, target_sentence=train.target_sentence + 40)
    empty = replace(
        held_out,
        target_sentence=held_out.target_sentence[:0],
        span1=held_out.span1[:0],
        labels=held_out.labels[:0],
        distance=held_out.distance[:0],
    )
    with pytest.raises(EmptyInputError, match="dev split has no targets"):
        train_probe(_probe(train), train, empty, TrainConfig(max_steps=1))
    with pytest.raises(WordlensError, match="the probe expects"):
        cat = EdgeProbe(384, 2, train.n_labels, combine="cat", two_spans=False)
        train_probe(cat, train, held_out, TrainConfig(max_steps=1))
    bad_settings = (
        {"batch_size": 0},
        {"learning_rate": -1.0},
        {"threshold": 1.0},
        {"lr_threshold": -0.1},
        {"min_learning_rate": 1e-4},
    )
    for setting in bad_settings:
        with pytest.raises(WordlensError):
            TrainConfig(**setting)  # type: ignore[arg-type]
