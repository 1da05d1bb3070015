"""Prefix key/value reuse for causal models: planning, and vectors equal to full-text passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import torch

import wordlens.models.hf as hf_module
from wordlens.contexts import Target, target_from_word, targets_from_template
from wordlens.models.align import pool_subtokens
from wordlens.models.base import POOLINGS, Pooling
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import Encoded, HFEmbedder
from wordlens.models.prefix import (
    PrefixRows,
    assign_rows,
    common_prefix_length,
    shared_prefix_lengths,
    token_batches,
)

ALIGNED = ("It is very unpleasant to think of {word}", "It is pleasant to think of {word}")
WORDS = ["pleasant", "Lakisha", "unpleasantness"]  # 1, 2 and 3 subtokens after a space


def mixed_targets() -> list[Target]:
    """Different prefixes in one call: the bleached template, aligned templates, a word in the
    middle, targets right after BOS, and a one-off sentence."""
    return [
        *targets_from_template(WORDS),
        *(target for template in ALIGNED for target in targets_from_template(WORDS, template)),
        *targets_from_template(WORDS, "It is {word} to think"),
        Target("pleasant", 0, 8),
        target_from_word("Cats are nice", "Cats"),
        target_from_word("The cat saw the cat.", "cat", 1),
    ]


class PrefixPassCounter:
    """Counts the prefix passes ``HFEmbedder.forward`` runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = hf_module.prefix_states

        def counted(*args: object) -> object:
            self.calls += 1
            return original(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(hf_module, "prefix_states", counted)


def assert_close_per_layer(got: npt.NDArray[np.float32], expected: npt.NDArray[np.float32]) -> None:
    """Max |difference| per layer within 1e-5 of that layer's max |value| (float32 rounding)."""
    scale = np.abs(expected).max(axis=(0, 2))
    difference = np.abs(got - expected).max(axis=(0, 2))
    assert np.all(difference <= 1e-5 * scale), difference / scale


def test_common_and_shared_prefix_lengths() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([], [1]) == 0
    contexts = [[1, 2, 3], [1, 2, 3], [1, 2, 4, 5], [1], [7, 8, 9], [1, 2, 4]]
    assert shared_prefix_lengths(contexts, min_tokens=1) == [3, 3, 3, 1, 0, 3]
    # below the threshold a shared head is not reused
    assert shared_prefix_lengths(contexts, min_tokens=3) == [3, 3, 3, 0, 0, 3]
    assert shared_prefix_lengths([[5, 6]], min_tokens=1) == [0]


def test_prefix_rows_serve_heads_from_longer_rows() -> None:
    rows, row_of = assign_rows([(1, 2), (), (1, 2, 3, 4), (1, 2, 3, 4), (5,), (1, 2, 9)])
    assert rows == [(1, 2, 3, 4), (1, 2, 9), (5,)]
    assert [rows[row][:2] for row in (row_of[0], row_of[2])] == [(1, 2), (1, 2)]
    assert rows[row_of[3]] == (1, 2, 3, 4) and rows[row_of[4]] == (5,)
    assert row_of[1] == 0  # an empty prefix reads no row
    prefix_rows = PrefixRows()
    assert prefix_rows.tokens_with((1, 2)) == 2
    prefix_rows.add((1, 2))
    assert prefix_rows.tokens_with((1, 2, 3)) == 3  # extends the row
    assert prefix_rows.tokens_with((4,)) == 4  # a second row of the longest width
    assert prefix_rows.tokens_with(()) == 2
    prefix_rows.add((1, 2, 3))
    prefix_rows.add((1,))  # a head of a row: served by it
    assert prefix_rows.rows == {(1, 2, 3)} and prefix_rows.longest == 3


def test_token_batches_group_prefixes_within_budget() -> None:
    prefixes = [(1, 2, 3), (), (4, 5), (1, 2, 3), (4, 5), (1, 2, 3), ()]
    suffix_lengths = [1, 6, 2, 3, 2, 1, 4]
    batches = token_batches(prefixes, suffix_lengths, 12)
    assert sorted(index for batch in batches for index in batch) == list(range(7))
    for batch in batches:
        rows, _ = assign_rows([prefixes[index] for index in batch])
        cost = len(batch) * max(suffix_lengths[index] for index in batch)
        cost += len(rows) * max((len(row) for row in rows), default=0)
        assert len(batch) == 1 or cost <= 12
    # longest suffix first, then by prefix
    assert batches == [[1, 6], [3, 2], [4, 0, 5]]
    assert token_batches([(1,)], [50], 10) == [[0]]


def test_only_causal_full_attention_models_reuse(
    smollm2: HFEmbedder, minilm: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert smollm2.reuses_prefixes
    monkeypatch.setattr(smollm2, "prefix_reuse", False)
    assert not smollm2.reuses_prefixes
    assert minilm.prefix_reuse and not minilm.reuses_prefixes


def prefix_lengths(model: HFEmbedder) -> dict[str, int]:
    """Planned prefix length of each mixed target, by text."""
    targets = mixed_targets()
    items = model.with_shared_prefixes(model.encode(targets))
    assert all(item.prefix_len <= item.span[0] for item in items)
    return {target.text: item.prefix_len for target, item in zip(targets, items, strict=True)}


def test_plan_of_mixed_targets(smollm2: HFEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    lengths = prefix_lengths(smollm2)
    assert lengths["This is pleasant"] == 3  # BOS, "This", " is"
    assert lengths["It is very unpleasant to think of Lakisha"] == 8
    assert lengths["It is pleasant to think of Lakisha"] == 7
    assert lengths["It is Lakisha to think"] == 3  # the head shared with the aligned templates
    # targets right after BOS, and a text sharing only BOS: the default reuses BOS alone
    assert lengths["pleasant"] == lengths["Cats are nice"] == lengths["The cat saw the cat."] == 1
    monkeypatch.setattr(smollm2, "min_prefix_tokens", 2)
    lengths = prefix_lengths(smollm2)
    assert lengths["pleasant"] == lengths["Cats are nice"] == lengths["The cat saw the cat."] == 0
    assert lengths["It is Lakisha to think"] == 3


@pytest.fixture(scope="module")
def encoded(smollm2: HFEmbedder) -> list[Encoded]:
    """The mixed targets, tokenized, no prefixes."""
    return smollm2.encode(mixed_targets())


@pytest.fixture(scope="module")
def full_hidden(smollm2: HFEmbedder, encoded: list[Encoded]) -> tuple[torch.Tensor, ...]:
    """Hidden states of every layer of the whole texts, one pass."""
    return smollm2.hidden_states(encoded)


@pytest.mark.parametrize(("min_tokens", "lengths"), [(1, {1, 3, 7, 8}), (2, {0, 3, 7, 8})])
def test_suffix_hidden_states_equal_full_text_pass(
    smollm2: HFEmbedder,
    encoded: list[Encoded],
    full_hidden: tuple[torch.Tensor, ...],
    min_tokens: int,
    lengths: set[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every suffix token at all 31 layers; prefixes of different lengths (and, above a
    threshold of 1, texts without one) in one batch."""
    monkeypatch.setattr(smollm2, "min_prefix_tokens", min_tokens)
    planned = smollm2.with_shared_prefixes(encoded)
    assert {item.prefix_len for item in planned} == lengths
    suffix_hidden = smollm2.hidden_states(planned)
    assert len(suffix_hidden) == len(full_hidden) == 31
    for layer, (suffix, full) in enumerate(zip(suffix_hidden, full_hidden, strict=True)):
        got = torch.cat([suffix[row, : len(item.suffix)] for row, item in enumerate(planned)])
        expected = torch.cat(
            [full[row, item.prefix_len : len(item.input_ids)] for row, item in enumerate(planned)]
        )
        if layer == 0:  # embeddings: no context involved
            torch.testing.assert_close(got, expected, rtol=0, atol=0)
        scale = float(expected.abs().max())
        assert float((got - expected).abs().max()) <= 1e-5 * scale, layer


@pytest.mark.parametrize("pooling", POOLINGS)
def test_pooled_vectors_equal_full_text_pass(
    smollm2: HFEmbedder,
    encoded: list[Encoded],
    full_hidden: tuple[torch.Tensor, ...],
    pooling: Pooling,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counter = PrefixPassCounter(monkeypatch)
    pooled, counts = smollm2.forward(smollm2.with_shared_prefixes(encoded), range(31), [pooling])
    vectors = pooled[pooling]
    assert counter.calls == 1
    spans = torch.tensor([item.span for item in encoded])
    expected = torch.stack(
        [pool_subtokens(layer, spans, pooling) for layer in full_hidden], dim=1
    ).numpy()
    assert set(counts[: len(WORDS)]) == {1, 2, 3}
    np.testing.assert_array_equal(counts, (spans[:, 1] - spans[:, 0]).numpy())
    assert_close_per_layer(vectors, expected)


def test_switched_off_runs_full_passes(
    smollm2: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words alone share only BOS: reused by default, not when switched off; same vectors."""
    counter = PrefixPassCounter(monkeypatch)
    reused = smollm2.embed_words(WORDS, layers=[0, 1, 15, 30])
    assert counter.calls == 1
    monkeypatch.setattr(smollm2, "prefix_reuse", False)
    full = smollm2.embed_words(WORDS, layers=[0, 1, 15, 30])
    assert counter.calls == 1
    assert_close_per_layer(reused.vectors, full.vectors)


def test_independent_of_batch_composition(
    smollm2: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    targets = mixed_targets()
    together = smollm2.embed(targets, layers=[4, 30], pooling="last")
    counter = PrefixPassCounter(monkeypatch)
    monkeypatch.setattr(smollm2, "token_budget", 24)  # many small batches
    apart = smollm2.embed(targets, layers=[4, 30], pooling="last")
    assert counter.calls > 3
    assert_close_per_layer(apart.vectors, together.vectors)


def test_resume_is_bit_identical(
    smollm2: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch is one shard: with a shard lost, the rerun computes exactly that batch again."""
    monkeypatch.setattr(smollm2, "token_budget", 40)
    targets = mixed_targets()
    cache = ActivationCache(tmp_path)
    first = smollm2.embed(targets, layers=[0, 9, 30], cache=cache)
    (store,) = cache.stores()
    shards = sorted(store.path.glob("shard-*.safetensors"))
    assert len(shards) > 2
    shards[1].unlink()
    computed: list[int] = []
    original = smollm2.forward

    def counted(items, layers, pooling):  # type: ignore[no-untyped-def]
        computed.append(len(items))
        return original(items, layers, pooling)

    monkeypatch.setattr(smollm2, "forward", counted)
    again = smollm2.embed(targets, layers=[0, 9, 30], cache=ActivationCache(tmp_path))
    assert len(computed) == 1 and 0 < computed[0] < len(targets)
    np.testing.assert_array_equal(again.vectors, first.vectors)
    np.testing.assert_array_equal(again.n_subtokens, first.n_subtokens)
