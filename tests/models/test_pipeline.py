"""The host side of the extraction pipeline: vectorized alignment and planning, the pipelined batch
loop, the device-sized token budget. Real tokenizers and models (smollm2-135m, minilm-l6).

Oracles: the per-target alignment :func:`~wordlens.models.align.subtoken_span`; the tokenizer's own
call; the prefix tree's accounting of padded tokens (:class:`~wordlens.models.prefix.PrefixTree`)
for the batch plan; and the plain transformers loop (one text per forward pass, the target's
subtokens read from the offset mapping) for the vectors.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.models.prefix_oracle import tree_own_lengths
from wordlens.contexts import Target, target_from_word, targets_from_template
from wordlens.errors import AlignmentError
from wordlens.models.align import subtoken_span, subtoken_spans
from wordlens.models.budget import (
    ACCELERATOR_TOKEN_BUDGET,
    CPU_TOKEN_BUDGET,
    accelerator_token_budget,
    bytes_per_token,
    default_token_budget,
)
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder, WordVectors, tokenize
from wordlens.models.prefix import (
    PASS_COST_TOKENS,
    PrefixTree,
    concatenated_ranges,
    padded_rows,
    token_batches,
)
from wordlens.models.transfer import to_host
from wordlens.resources import load_lexicon

SENTENCES = [
    ("The cat saw the cat.", "cat", 1),
    ("Well, hello there!", "hello", 0),
    ("I met Lakisha yesterday at the unpleasantness", "unpleasantness", 0),
    ("Zoë said: naïveté? Never.", "naïveté", 0),
    ("Pleasant it was", "Pleasant", 0),
    ("He was extraordinarily kind to the neighbours", "extraordinarily", 0),
]


def warriner_targets(n: int, seed: int = 0) -> list[Target]:
    """``n`` Warriner words drawn with ``seed``, in "This is {word}"."""
    words = list(load_lexicon("warriner").data["word"].astype(str))
    return targets_from_template(random.Random(seed).sample(words, n))


def mixed_targets(n_words: int) -> list[Target]:
    """Template targets, then words in sentences (several per sentence, repeated words)."""
    in_context = [target_from_word(text, word, k) for text, word, k in SENTENCES]
    in_context += [target_from_word("The cat saw the cat.", "saw", 0)]
    return warriner_targets(n_words) + in_context


@pytest.mark.parametrize("model_name", ["smollm2", "minilm"])
def test_vectorized_spans_equal_per_target_alignment(
    model_name: str, request: pytest.FixtureRequest
) -> None:
    model: HFEmbedder = request.getfixturevalue(model_name)
    targets = mixed_targets(300)
    batch = model.tokenizer(
        [t.text for t in targets], add_special_tokens=True, return_offsets_mapping=True
    )
    expected = [subtoken_span(t, o) for t, o in zip(targets, batch["offset_mapping"], strict=True)]
    spans = subtoken_spans(targets, batch["offset_mapping"])
    assert spans.tolist() == [list(span) for span in expected]
    assert spans.dtype == np.int64 and spans.shape == (len(targets), 2)


def test_vectorized_spans_raise_the_targets_own_error() -> None:
    target = Target("ab cd", 3, 5)
    fine = Target("ab", 0, 2)
    # no token overlaps "cd"
    offsets_none = [[(0, 2)], [(0, 0), (0, 2), (2, 2)]]
    with pytest.raises(AlignmentError, match="no subtoken covers 'cd'") as caught:
        subtoken_spans([fine, target], offsets_none)
    with pytest.raises(AlignmentError) as direct:
        subtoken_span(target, offsets_none[1])
    assert str(caught.value) == str(direct.value)
    # overlapping tokens 1 and 3, not 2: not contiguous
    gap = [[(0, 2)], [(0, 2), (3, 4), (2, 3), (4, 5)]]
    with pytest.raises(AlignmentError, match="not contiguous"):
        subtoken_spans([fine, target], gap)
    # an empty text list and a text with no tokens at all
    assert subtoken_spans([], []).shape == (0, 2)
    with pytest.raises(AlignmentError, match="no subtoken covers"):
        subtoken_spans([fine, target], [[(0, 2)], []])


@pytest.mark.parametrize("model_name", ["smollm2", "minilm"])
def test_fast_tokenization_equals_the_tokenizers_call(
    model_name: str, request: pytest.FixtureRequest
) -> None:
    model: HFEmbedder = request.getfixturevalue(model_name)
    texts = [t.text for t in mixed_targets(200)]
    batch = model.tokenizer(texts, add_special_tokens=True, return_offsets_mapping=True)
    ids, offsets = tokenize(model.tokenizer, texts)
    assert ids == batch["input_ids"]
    assert [list(map(tuple, o)) for o in offsets] == [
        list(map(tuple, o)) for o in batch["offset_mapping"]
    ]


def test_a_truncating_backend_falls_back_to_the_tokenizers_call(minilm: HFEmbedder) -> None:
    backend = minilm.tokenizer.backend_tokenizer
    texts = ["a long sentence with many words in it"] * 3
    backend.enable_truncation(4)
    try:
        ids, _ = tokenize(minilm.tokenizer, texts)
    finally:
        backend.no_truncation()
    assert ids == minilm.tokenizer(texts)["input_ids"]  # not cut to 4 tokens
    assert len(ids[0]) > 4


def reference_batches(
    sequences: Sequence[Sequence[int]], budget: int, max_texts: int | None, shared: int | None
) -> list[list[int]]:
    """:func:`token_batches`' rule spelled out on fresh trees: in the plan's order (longest own
    leaf first), the longest run whose tokens without padding fit, if its padded tokens fit too,
    else the boundary below it found by bisection on the padded tokens; without shared heads
    (``shared=None``) the tree is one padded pass and the run the longest that fits."""
    cost = None if shared is None else PASS_COST_TOKENS
    everything = PrefixTree(shared, cost)
    for sequence in sequences:
        everything.add(sequence)
    keys = everything.sequences
    own = tree_own_lengths(everything)
    order = sorted(range(len(keys)), key=lambda i: (-own[i], keys[i], i))
    batches, start = [], 0
    while start < len(order):
        end = len(order) if max_texts is None else min(len(order), start + max_texts)

        def tokens(size: int, start: int = start) -> tuple[int, int]:
            tree = PrefixTree(shared, cost)
            for index in order[start : start + size]:
                tree.add(keys[index])
            return tree.real_tokens, tree.padded_tokens

        sizes = range(1, end - start + 1)
        fitting = [size for size in sizes if tokens(size)[0] <= budget]  # a prefix of sizes
        size = max(fitting, default=1)
        if shared is None:
            size = max([s for s in sizes if tokens(s)[1] <= budget], default=1)
        elif size > 1 and tokens(size)[1] > budget:
            low, high = 1, size
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if tokens(middle)[1] <= budget else (low, middle)
            size = low
        batches.append(order[start : start + size])
        start += size
    return batches


@pytest.mark.parametrize("seed", range(6))
def test_padded_batches_follow_the_trees_accounting(seed: int) -> None:
    rng = random.Random(seed)
    pool = [[rng.randrange(50) for _ in range(rng.randint(1, 9))] for _ in range(40)]
    sequences = [rng.choice(pool) for _ in range(120)]  # duplicates share a row
    for budget, max_texts in ((8, None), (30, None), (30, 7), (200, 50), (5, 3)):
        assert token_batches(sequences, budget, None, max_texts=max_texts) == (
            reference_batches(sequences, budget, max_texts, None)
        )


def test_padding_helpers_on_ragged_rows() -> None:
    ids, mask = padded_rows(np.array([5, 6, 7, 8, 9, 10]), np.array([3, 1, 2]), 0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0], [9, 10, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0], [1, 1, 0]]
    assert ids.dtype == mask.dtype == torch.int64
    starts, lengths = np.array([4, 0, 9]), np.array([2, 0, 3])
    expected = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths, strict=True)])
    np.testing.assert_array_equal(concatenated_ranges(starts, lengths), expected)


@torch.inference_mode()
def one_text_per_pass(model: HFEmbedder, targets: Sequence[Target]) -> np.ndarray:
    """The plain loop: each target's text alone in a forward pass (BOS first for a causal
    model), every hidden state, the target's last subtoken read through the offset mapping."""
    vectors = []
    for target in targets:
        encoded = model.tokenizer(target.text, return_offsets_mapping=True)
        bos = [] if model.bos_token_id is None else [model.bos_token_id]
        hidden = model.model(
            input_ids=torch.tensor([[*bos, *encoded["input_ids"]]]), output_hidden_states=True
        ).hidden_states
        columns = [
            index + len(bos)
            for index, (start, end) in enumerate(encoded["offset_mapping"])
            if end > start and start < target.end and end > target.start
        ]
        vectors.append(torch.stack([layer[0, columns[-1]] for layer in hidden]).float().numpy())
    return np.stack(vectors)


def layer_relative_difference(ours: np.ndarray, reference: np.ndarray) -> float:
    scale = np.abs(reference).max(axis=(0, 2))
    return float((np.abs(ours - reference).max(axis=(0, 2)) / scale).max())


@pytest.fixture
def small_batches() -> Iterator[Callable[[HFEmbedder], HFEmbedder]]:
    """Switch a session model to the pipeline and small batches for one test (restored after)."""
    touched: list[tuple[HFEmbedder, tuple[int, int | None, bool]]] = []

    def switch(model: HFEmbedder) -> HFEmbedder:
        touched.append((model, (model.token_budget, model.max_batch_targets, model.pipelined)))
        model.token_budget, model.max_batch_targets, model.pipelined = 256, 12, True
        return model

    yield switch
    for model, (budget, most, pipelined) in touched:
        model.token_budget, model.max_batch_targets, model.pipelined = budget, most, pipelined


@pytest.mark.parametrize("model_name", ["smollm2", "minilm"])
def test_pipelined_vectors_equal_the_plain_loop(
    model_name: str, request: pytest.FixtureRequest, small_batches: Callable[..., HFEmbedder]
) -> None:
    model = small_batches(request.getfixturevalue(model_name))
    targets = mixed_targets(30)
    ours = model.embed(targets, layers=None, pooling="last").vectors
    assert layer_relative_difference(ours, one_text_per_pass(model, targets)) <= 1e-5
    model.pipelined = False
    np.testing.assert_array_equal(model.embed(targets, layers=None, pooling="last").vectors, ours)


def test_an_interrupted_pipeline_resumes_from_the_cache(
    minilm: HFEmbedder,
    small_batches: Callable[..., HFEmbedder],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = small_batches(minilm)
    targets = warriner_targets(100, seed=1)
    launched: list[int] = []
    launch = HFEmbedder.launch

    def counted(self: HFEmbedder, *args: object) -> Callable[[], WordVectors]:
        launched.append(len(args[0]))  # type: ignore[arg-type]
        if len(launched) == 3 and stop_at_third:
            raise KeyboardInterrupt
        return launch(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(HFEmbedder, "launch", counted)
    stop_at_third = True
    cache = ActivationCache(tmp_path / "cache")
    with pytest.raises(KeyboardInterrupt):
        model.embed(targets, layers=[0, 3, 6], cache=cache)
    # batch 1 landed before batch 3 was started; batch 2 was in flight and is lost
    stop_at_third, first_run = False, list(launched)
    launched.clear()
    resumed = model.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "cache"))
    assert sum(launched) == len(targets) - first_run[0]
    launched.clear()
    fresh = model.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "other"))
    np.testing.assert_array_equal(resumed.vectors, fresh.vectors)
    np.testing.assert_array_equal(resumed.n_subtokens, fresh.n_subtokens)


def test_token_budget_from_free_memory() -> None:
    from transformers import BertConfig

    per_token = bytes_per_token(BertConfig(), torch.float32)
    assert per_token == 4 * (13 * 768 + 4 * 3072 + 8 * 768)
    assert bytes_per_token(BertConfig(), torch.bfloat16) == per_token // 2
    low, high = ACCELERATOR_TOKEN_BUDGET
    # an H200's free memory: the upper bound; a small card: its quarter, in 1,024s
    assert accelerator_token_budget(139 * 2**30, per_token) == high
    assert accelerator_token_budget(8 * 2**30, per_token) == 2 * 2**30 // per_token // 1024 * 1024
    assert accelerator_token_budget(2**30, per_token) == low
    # a scorer's pass holds float32 logits and log-probabilities over the vocabulary per token:
    # BERT-base's 30,522 words triple a token's bytes; XLM-R's 250,002 bring an H200's budget
    # down near the floor
    with_logits = bytes_per_token(BertConfig(), torch.float32, logits=True)
    assert with_logits == per_token + 8 * 30522
    assert accelerator_token_budget(139 * 2**30, with_logits) == 103_424
    xlmr = bytes_per_token(BertConfig(vocab_size=250_002), torch.float32, logits=True)
    assert accelerator_token_budget(139 * 2**30, xlmr) == 17_408
    assert default_token_budget(torch.device("cpu")) == CPU_TOKEN_BUDGET
    assert default_token_budget(torch.device("meta")) == low  # free memory unknown


def test_host_copy_on_the_cpu_is_the_tensor() -> None:
    tensor = torch.randn(3, 4, 5)
    np.testing.assert_array_equal(to_host(tensor)(), tensor.numpy())


@pytest.mark.parametrize("seed", range(4))
def test_tree_batches_follow_the_trees_accounting(seed: int) -> None:
    rng = random.Random(seed)
    heads = [[rng.randrange(9) for _ in range(rng.randint(1, 4))] for _ in range(6)]
    sequences = [
        rng.choice(heads) + [rng.randrange(30) for _ in range(rng.randint(1, 5))] for _ in range(90)
    ]
    # budgets where the free bound decides the batches (the last) and where the tree must
    for budget, max_texts in ((12, None), (40, None), (40, 9), (2 * 16 * 9, 16)):
        assert token_batches(sequences, budget, max_texts=max_texts) == (
            reference_batches(sequences, budget, max_texts, 1)
        )


@pytest.mark.parametrize("seed", range(4))
def test_padding_counted_at_the_end_equals_padding_kept_up_to_date(seed: int) -> None:
    rng = random.Random(seed)
    heads = [[rng.randrange(9) for _ in range(rng.randint(1, 4))] for _ in range(5)]
    sequences = [
        rng.choice(heads) + [rng.randrange(20) for _ in range(rng.randint(0, 5))]
        for _ in range(150)
    ]
    for shared in (1, 2, None):
        kept, counted = PrefixTree(shared), PrefixTree(shared, count_padding=False)
        for sequence in sequences:
            kept.add(sequence)
            counted.add(sequence)
        assert counted.padded_tokens == kept.padded_tokens
        assert counted.real_tokens == kept.real_tokens
        for max_tokens in (None, 30):
            assert [
                [(n.start, n.end, n.tokens) for n in nodes] for nodes in counted.passes(max_tokens)
            ] == [[(n.start, n.end, n.tokens) for n in nodes] for nodes in kept.passes(max_tokens)]
