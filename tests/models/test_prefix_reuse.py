"""Prefix-tree key/value reuse for causal models: the tree, the plan, and vectors equal to flat
(full-text) passes on smollm2-135m."""

from __future__ import annotations

import inspect
import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import wordlens.models.hf as hf_module
from tests.models.prefix_oracle import tree_own_lengths
from wordlens.contexts import (
    Target,
    decontextualized_targets,
    target_from_word,
    targets_from_template,
)
from wordlens.contexts.valence import load_templates
from wordlens.errors import WordlensError
from wordlens.models.base import POOLINGS, Pooling
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder, plan_batches
from wordlens.models.prefix import (
    PrefixTree,
    cache_keyword,
    common_prefix_length,
    subtoken_locations,
    token_batches,
    tree_passes,
)
from wordlens.models.tree_shape import LEAVES, SortedTexts, own_lengths, width_groups

WORDS = ["pleasant", "Lakisha", "unpleasantness"]  # 1, 2 and 3 subtokens after a space
#: Two categories of each of four biases of the intersectional study, in phrase order.
BIASES = (
    ("white", "black"),
    ("heterosexual", "homosexual"),
    ("christian", "muslim"),
    ("male", "female"),
)


def intersectional_targets() -> list[Target]:
    """ "a {c1} {c2} {c3} {c4} person" for every choice (16, fixed order) and every order of one
    choice (24): "person" at the end of phrases that share long heads."""
    chosen = itertools.product(*BIASES)
    orders = itertools.permutations(("black", "homosexual", "muslim", "female"))
    phrases = [" ".join(categories) for categories in [*chosen, *orders]]
    return [target_from_word(f"a {phrase} person", "person") for phrase in phrases]


def vast_targets() -> list[Target]:
    """The bleached template and the five aligned templates, each with the three words."""
    templates = ("This is {word}", *load_templates().templates)
    return [target for template in templates for target in targets_from_template(WORDS, template)]


def mixed_targets() -> list[Target]:
    """Targets inside shared nodes and across node boundaries, in one call."""
    return [
        *vast_targets(),
        *decontextualized_targets(WORDS),  # share BOS alone
        target_from_word("The cat saw the cat.", "cat", 0),  # a head of the next one
        target_from_word("The cat saw the cat.", "cat", 1),
        target_from_word("The cat saw the cat.", "saw"),  # a head of it, branching nowhere
        target_from_word("The cat ran.", "ran"),  # branches inside the sentences above
        Target("This is unpleasant", 8, 18),  # " unpleasant" = head of " unpleasantness"
        target_from_word("This is unpleasant stuff", "stuff"),  # branches after " unpleasant"
    ]


def counting_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one for every forward pass through a key/value pool."""
    calls: list[int] = []
    original = hf_module.tree_cache

    def counted(*args: object) -> object:
        calls.append(1)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(hf_module, "tree_cache", counted)
    return calls


def assert_close_per_layer(got: npt.NDArray[np.float32], expected: npt.NDArray[np.float32]) -> None:
    """Max |difference| per layer within 1e-5 of that layer's max |value| (float32 rounding)."""
    scale = np.abs(expected).max(axis=(0, 2))
    difference = np.abs(got - expected).max(axis=(0, 2))
    assert np.all(difference <= 1e-5 * scale), difference / scale


def reference_rows(sequences: Sequence[Sequence[int]], min_shared: int) -> dict[int, list[int]]:
    """Node lengths per pass level of the radix tree built from scratch, group by group: a node
    ends where the texts longer than it disagree on the next token (or at the longest text)."""
    rows: defaultdict[int, list[int]] = defaultdict(list)

    def visit(group: list[tuple[int, ...]], start: int, depth: int) -> None:
        end = start + 1
        while True:
            longer = [sequence for sequence in group if len(sequence) > end]
            if not longer:
                rows[LEAVES].append(end - start)
                return
            if len({sequence[end] for sequence in longer}) > 1:
                break
            end += 1
        rows[depth].append(end - start)
        for token in sorted({sequence[end] for sequence in longer}):
            visit([s for s in longer if s[end] == token], end, depth + 1)

    keys = [tuple(sequence) for sequence in sequences]
    shared_heads = {key[:min_shared] for key in keys if len(key) >= min_shared}
    for head in sorted(shared_heads):
        visit([key for key in keys if key[:min_shared] == head], 0, 0)
    for key in sorted({key for key in keys if len(key) < min_shared}):  # identical: one node
        visit([key], 0, 0)
    return rows


def tree_rows(tree: PrefixTree) -> dict[int, list[int]]:
    """Node lengths per level of ``tree`` (depth of branching nodes, or :data:`LEAVES`)."""
    rows: defaultdict[int, list[int]] = defaultdict(list)
    for root in tree.roots:
        for node in root.subtree():
            rows[node.level].append(node.length)
    return rows


def padded(rows: dict[int, list[int]], pass_cost: int) -> int:
    """Padded tokens of the passes of each level's rows (split by :func:`width_groups`)."""
    total = 0
    for lengths in rows.values():
        bounds = [*width_groups(Counter(lengths), pass_cost), 0]
        for widest, lower in itertools.pairwise(bounds):
            total += widest * sum(lower < length <= widest for length in lengths)
    return total


def test_width_groups_split_a_level_where_padding_costs_more_than_a_pass() -> None:
    # one pass: 140 * 5 + 16 = 716 tokens; three: 30 * 5 + 50 * 3 + 60 * 2 + 3 * 16 = 468
    assert width_groups(Counter({5: 30, 3: 50, 2: 60}), 16) == [5, 3, 2]
    assert width_groups(Counter({5: 30, 3: 50, 2: 60}), None) == [5]
    assert width_groups(Counter({8: 1, 5: 1, 4: 1, 1: 1}), 16) == [8]  # 32 + 16 < 8 + 16 + ...
    assert width_groups(Counter({4: 1, 1: 100}), 16) == [4, 1]
    assert width_groups(Counter({4: 1, 1: 100}), 400) == [4]  # 404 + 400 < 4 + 100 + 800
    assert width_groups(Counter({3: 7}), 16) == [3]


def test_common_prefix_length() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([], [1]) == 0
    assert common_prefix_length([1, 2], [1, 2]) == 2


def test_tree_nodes_heads_and_duplicates() -> None:
    tree = PrefixTree()
    for sequence in ([1, 2, 3, 4], [1, 2, 3, 5, 6], [1, 2], [1, 2, 3, 5, 6], [7, 8], [1, 9]):
        tree.add(sequence)
    (root,), (middle,), leaves = tree.passes()
    assert (root.tokens, middle.tokens) == ((1,), (2, 3))  # [1, 9] split [1, 2] off [1, 2, 3]
    assert [node.tokens for node in leaves] == [(4,), (5, 6), (9,), (7, 8)]  # roots in order
    assert tree.node_at(2, 1) is middle  # [1, 2] ends inside a shared node
    assert tree.end_nodes[1] is tree.end_nodes[3]  # duplicates share every node
    assert tree.node_at(1, 0) is root and tree.node_at(1, 4).start == 3
    assert tree.padded_tokens == 1 * 1 + 1 * 2 + 4 * 2
    # passes of at most 4 padded tokens: the leaves (width 2) two rows at a time
    assert [len(nodes) for nodes in tree.passes(max_tokens=4)] == [1, 1, 2, 2]
    assert [len(nodes) for nodes in tree.passes(max_tokens=1)] == [1, 1, 1, 1, 1, 1]
    assert tree_own_lengths(tree) == [1, 2, 2, 2, 2, 1]  # [1, 2]: the longest leaf below it
    assert own_lengths(tree.sequences, 1) == [1, 2, 2, 2, 2, 1]


@pytest.mark.parametrize("min_shared", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_own_lengths_on_sorted_arrays_equal_the_trees(min_shared: int, seed: int) -> None:
    """The own-leaf lengths computed on sorted arrays (no tree) equal those read from the built
    tree, on random texts over 3 token ids (many shared heads, heads of other texts, duplicates,
    one-token texts), for several shortest shared heads."""
    rng = np.random.default_rng(seed)
    sequences = [
        [int(token) for token in rng.integers(0, 3, rng.integers(1, 7))] for _ in range(300)
    ]
    tree = PrefixTree(min_shared, None, count_padding=False)
    for sequence in sequences:
        tree.add(sequence)
    assert own_lengths([tuple(s) for s in sequences], min_shared) == tree_own_lengths(tree)


@pytest.mark.parametrize("min_shared", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_tokens_on_sorted_arrays_equal_the_built_trees(min_shared: int, seed: int) -> None:
    """The tokens a subset's passes compute, without and with padding, read from sorted arrays
    (no tree), equal those of the tree built from the subset's texts, on random subsets of random
    texts over 3 token ids (heads of other texts, duplicates, one-token texts), with levels split
    by width (cheap passes) and kept whole."""
    rng = np.random.default_rng(seed)
    sequences = [
        [int(token) for token in rng.integers(0, 3, rng.integers(1, 7))] for _ in range(200)
    ]
    texts = SortedTexts.of(sequences)
    for size in (1, 2, 3, 7, 40, 200):
        chosen = rng.choice(len(sequences), size, replace=False)
        for pass_cost in (4, None):
            tree = PrefixTree(min_shared, pass_cost)
            for index in chosen:
                tree.add(sequences[index])
            rows = texts.rank[chosen]
            assert (
                texts.real_tokens(rows, min_shared),
                texts.padded_tokens(rows, min_shared, pass_cost),
            ) == (
                tree.real_tokens,
                tree.padded_tokens,
            )


def test_sorted_texts_shared_heads_are_range_minima() -> None:
    """The LCP of any two sorted texts (a sparse-table lookup) equals the pairwise count."""
    rng = np.random.default_rng(7)
    sequences = [[int(t) for t in rng.integers(0, 2, rng.integers(1, 9))] for _ in range(120)]
    texts = SortedTexts.of(sequences)
    first, second = np.triu_indices(len(texts.distinct), 1)
    expected = [
        common_prefix_length(texts.distinct[a], texts.distinct[b])
        for a, b in zip(first, second, strict=True)
    ]
    assert texts.shared(first, second).tolist() == expected
    with pytest.raises(WordlensError, match="no tokens"):
        SortedTexts.of([[1], []])


def test_growing_leaf_and_single_text() -> None:
    tree = PrefixTree()
    tree.add([5, 6])
    assert tree.passes() == [tree.roots] and tree.padded_tokens == 2
    tree.add([5, 6, 7, 8])  # the first text is a head of it: one node grows
    assert [node.tokens for node in tree.roots] == [(5, 6, 7, 8)] and tree.padded_tokens == 4
    assert tree.end_nodes[0] is tree.end_nodes[1]


@pytest.mark.parametrize("min_shared", [1, 2, 3])
def test_tree_equals_radix_tree_built_from_scratch(min_shared: int) -> None:
    """Any insertion order gives the tree of the same texts built group by group; ties,
    duplicates, heads and one-token texts included."""
    rng = np.random.default_rng(7)
    sequences = [rng.integers(0, 3, rng.integers(1, 7)).tolist() for _ in range(60)]
    sequences += [sequences[0], sequences[5][:2]]
    expected = reference_rows(sequences, min_shared)
    orders = [
        list(range(len(sequences))),
        rng.permutation(len(sequences)).tolist(),
        sorted(range(len(sequences)), key=sequences.__getitem__),
    ]
    for order in orders:
        tree = PrefixTree(min_shared, pass_cost=4)  # cheap passes: levels split by widths
        for index in order:
            tree.add(sequences[index])
        rows = tree_rows(tree)
        assert {level: sorted(lengths) for level, lengths in rows.items()} == {
            level: sorted(lengths) for level, lengths in expected.items()
        }
        assert tree.padded_tokens == padded(expected, pass_cost=4)
        passes = tree.passes()
        assert len(passes) > len(expected)  # some level is split by widths
        assert sum(len(nodes) * max(node.length for node in nodes) for nodes in passes) == (
            tree.padded_tokens
        )


def test_unshared_tree_is_one_padded_pass_with_a_row_per_distinct_text() -> None:
    """Two targets of one sentence (an encoder's identical texts) cost one row; a text that is a
    head of another is still a row of its own (an encoder's tokens see the whole text)."""
    tree = PrefixTree(None)
    for sequence in ([1, 2, 3], [1, 2, 3], [1, 2]):
        tree.add(sequence)
    assert len(tree.passes()) == 1 and len(tree.roots) == 2 and tree.padded_tokens == 6
    assert tree.end_nodes[0] is tree.end_nodes[1] is not tree.end_nodes[2]
    with pytest.raises(WordlensError, match="no tokens"):
        tree.add([])
    with pytest.raises(WordlensError, match="at least 1"):
        PrefixTree(0)


def test_passes_read_their_ancestors() -> None:
    tree = PrefixTree()
    for sequence in ([1, 2, 3, 4], [1, 2, 3, 5, 6], [1, 7], [8]):
        tree.add(sequence)
    (first, second, leaves), n_slots = tree_passes(tree, pad_token_id=0)
    assert [node.tokens for node in first.nodes] == [(1,)]
    assert [node.tokens for node in second.nodes] == [(2, 3)]
    assert [node.tokens for node in leaves.nodes] == [(4,), (5, 6), (7,), (8,)]
    # the branching nodes' tokens fill pool slots 0 ([1]) and 1-2 ([2, 3]); leaves fill none
    assert n_slots == 3 and first.ancestor_slots.shape == (1, 0)
    assert first.own_slots is not None and first.own_slots.tolist() == [0]
    assert second.own_slots is not None and second.own_slots.tolist() == [1, 2]
    assert second.ancestor_slots.tolist() == [[0]] and leaves.own_slots is None
    assert leaves.ancestor_slots.tolist() == [[0, 1, 2], [0, 1, 2], [0, 0, 0], [0, 0, 0]]
    # [ancestor tokens (3 at most) | own tokens (width 2)]
    assert leaves.attention_mask.tolist() == [
        [1, 1, 1, 1, 0],
        [1, 1, 1, 1, 1],
        [1, 0, 0, 1, 0],  # [1, 7]: one ancestor token
        [0, 0, 0, 1, 0],  # a root: no ancestor at all
    ]
    assert leaves.position_ids.tolist() == [[3, 0], [3, 4], [1, 0], [0, 0]]
    assert leaves.input_ids.tolist() == [[4, 0], [5, 6], [7, 0], [8, 0]]
    # a target spanning two nodes: token 2 in pass 1, token 3 in the leaves
    located = subtoken_locations(tree, [first, second, leaves], [(2, 4), (0, 1), (1, 2), (0, 1)])
    # per pass: subtoken among all (text by text), row, column
    as_lists = [None if found is None else [t.tolist() for t in found] for found in located]
    assert as_lists == [
        [[2], [0], [0]],
        [[0], [0], [1]],
        [[1, 3, 4], [0, 2, 3], [0, 0, 0]],
    ]
    assert subtoken_locations(tree, [first, second, leaves], [(3, 4), (4, 5), (1, 2), (0, 1)])[
        :2
    ] == [None, None]


def test_token_batches_group_shared_heads_within_budget() -> None:
    sequences = [[1, 2, 3, 4], [9, 8, 7, 6, 5, 4], [1, 2, 3, 5], [1, 2, 6], [9, 8], [1, 2, 3, 4, 4]]
    batches = token_batches(sequences, 10)
    assert sorted(index for batch in batches for index in batch) == list(range(6))
    for batch in batches:
        tree = PrefixTree()
        for index in batch:
            tree.add(sequences[index])
        assert len(batch) == 1 or tree.padded_tokens <= 10
    # longest own leaf first ([9, 8] is a head of its text), then by token ids; the second
    # batch is [1, 2] -> ([3] -> [4, 4], [5]), [6]: passes of 2, 1 and 3 * 2 tokens
    assert batches == [[4, 1], [0, 5, 2, 3]]
    assert token_batches([[1, 2, 3]], 2) == [[0]]  # over the budget alone
    # nothing shared: texts sorted by length, len(batch) * longest <= budget
    assert token_batches(sequences, 10, None) == [[1], [5, 0], [2, 3], [4]]


def test_batch_is_the_longest_run_that_fits() -> None:
    """The third text alone adds a leaf of 4 tokens (16 padded tokens > 12); the fourth splits
    it ([1] -> [2, 3, 4], [7, 7, 7] -> leaves of 1 token: 11), so all four make one batch."""
    sequences = [[1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [1, 7, 7, 7, 5], [1, 7, 7, 7, 6]]
    tree = PrefixTree()
    for sequence in sequences[:3]:
        tree.add(sequence)
    assert (tree.real_tokens, tree.padded_tokens) == (10, 16)
    tree.add(sequences[3])
    assert (tree.real_tokens, tree.padded_tokens) == (11, 11)
    assert token_batches(sequences, 12) == [[0, 1, 2, 3]]
    assert token_batches(sequences, 10) == [[0, 1], [2, 3]]  # 11 real tokens: over the budget


def test_only_causal_full_attention_models_reuse(
    smollm2: HFEmbedder, minilm: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert smollm2.reuses_prefixes and smollm2.min_shared_tokens == 1
    monkeypatch.setattr(smollm2, "prefix_reuse", False)
    assert not smollm2.reuses_prefixes and smollm2.min_shared_tokens is None
    assert minilm.prefix_reuse and not minilm.reuses_prefixes
    calls = counting_passes(monkeypatch)
    minilm.embed(targets_from_template(WORDS), layers=[0, 6])
    assert not calls


@pytest.fixture(scope="module")
def targets() -> list[Target]:
    """The mixed targets and the intersectional phrases."""
    return [*mixed_targets(), *intersectional_targets()]


@pytest.fixture(scope="module")
def flat(smollm2: HFEmbedder, targets: list[Target]) -> dict[Pooling, npt.NDArray[np.float32]]:
    """Vectors of all poolings at all 31 layers without reuse (one plain pass per batch)."""
    smollm2.prefix_reuse = False
    try:
        embeddings = smollm2.embed_poolings(targets, None, POOLINGS)
    finally:
        smollm2.prefix_reuse = True
    return {pooling: embeddings[pooling].vectors for pooling in POOLINGS}


def test_tree_equals_flat_pass(
    smollm2: HFEmbedder,
    targets: list[Target],
    flat: dict[Pooling, npt.NDArray[np.float32]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """All poolings at all 31 layers: targets inside shared nodes, spanning two nodes, after BOS
    alone, in a sentence another target's text is a head of, and at the end of the phrases."""
    items = smollm2.encode(targets)
    tree, unshared = PrefixTree(), PrefixTree(None, pass_cost=None)  # one padded pass
    for item in items:
        tree.add(item.input_ids)
        unshared.add(item.input_ids)
    spanning = {
        targets[text].text
        for text, item in enumerate(items)
        if tree.node_at(text, item.span[0]) is not tree.node_at(text, item.span[1] - 1)
    }
    inside = {targets[text].text for text, node in enumerate(tree.end_nodes) if node.children}
    assert spanning == {"This is unpleasantness"}
    assert {"This is unpleasant", "The cat saw the cat."} <= inside
    assert tree.padded_tokens < 0.6 * unshared.padded_tokens  # 415 and 871 tokens
    assert len(plan_batches(items, smollm2.batch_token_budget)) == 1
    calls = counting_passes(monkeypatch)
    reused = smollm2.embed_poolings(targets, None, POOLINGS)
    assert len(calls) == len(tree.passes()) > 5
    for pooling in POOLINGS:
        assert_close_per_layer(reused[pooling].vectors, flat[pooling])
    np.testing.assert_array_equal(reused["last"].vectors[:, 0], flat["last"][:, 0])  # embeddings


def test_switched_off_or_above_threshold_runs_flat_passes(
    smollm2: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words alone share only BOS: reused by default (a BOS pass, then the words), not when
    switched off nor when heads must be 2 tokens; same vectors."""
    calls = counting_passes(monkeypatch)
    reused = smollm2.embed_words(WORDS, layers=[0, 1, 15, 30])
    assert len(calls) == 2
    monkeypatch.setattr(smollm2, "min_prefix_tokens", 2)
    unshared = smollm2.embed_words(WORDS, layers=[0, 1, 15, 30])
    monkeypatch.setattr(smollm2, "prefix_reuse", False)
    full = smollm2.embed_words(WORDS, layers=[0, 1, 15, 30])
    assert len(calls) == 2
    np.testing.assert_array_equal(unshared.vectors, full.vectors)
    assert_close_per_layer(reused.vectors, full.vectors)


def test_resume_across_small_batches(
    smollm2: HFEmbedder,
    targets: list[Target],
    flat: dict[Pooling, npt.NDArray[np.float32]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tiny budget splits the tree over many batches and passes, each batch self-contained:
    vectors equal the flat pass's, and with a shard lost the rerun computes exactly that batch
    again and returns bit-identical vectors."""
    monkeypatch.setattr(smollm2, "token_budget", 32)  # batches of 128 tokens
    batches: list[int] = []
    original = smollm2.forward

    def counted(items, layers, pooling):  # type: ignore[no-untyped-def]
        batches.append(len(items))
        return original(items, layers, pooling)

    monkeypatch.setattr(smollm2, "forward", counted)
    layers = [0, 9, 30]
    cache = ActivationCache(tmp_path)
    first = smollm2.embed(targets, layers=layers, pooling="mean", cache=cache)
    assert len(batches) > 2 and sum(batches) == len(set(targets))  # a phrase is in both sets
    assert_close_per_layer(first.vectors, flat["mean"][:, layers])
    (store,) = cache.stores()
    shards = sorted(store.path.glob("shard-*.safetensors"))
    assert len(shards) == len(batches)
    shards[1].unlink()
    batches.clear()
    again = smollm2.embed(targets, layers=layers, pooling="mean", cache=ActivationCache(tmp_path))
    assert len(batches) == 1 and 0 < batches[0] < len(targets)
    np.testing.assert_array_equal(again.vectors, first.vectors)
    np.testing.assert_array_equal(again.n_subtokens, first.n_subtokens)


def test_an_encoder_computes_one_row_for_every_target_of_a_sentence(
    minilm: HFEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four targets of one sentence: one row of one pass, and each target's vectors equal its
    sentence embedded for that target alone."""
    text = "The nurse told the doctor that the patient was pleasant."
    targets = [target_from_word(text, word) for word in ("nurse", "doctor", "patient", "pleasant")]
    rows: list[int] = []
    original = minilm.model.forward

    def counted(*args: object, **kwargs: object) -> object:
        rows.append(int(kwargs["input_ids"].shape[0]))  # type: ignore[attr-defined]
        return original(*args, **kwargs)

    monkeypatch.setattr(minilm.model, "forward", counted)
    together = minilm.embed(targets, layers=[0, 3, 6], pooling="mean")
    assert rows == [1]
    for index, target in enumerate(targets):
        alone = minilm.embed([target], layers=[0, 3, 6], pooling="mean")
        assert_close_per_layer(together.vectors[[index]], alone.vectors)


@pytest.mark.filterwarnings("error::FutureWarning")
def test_passes_raise_no_deprecation_warning(smollm2: HFEmbedder, minilm: HFEmbedder) -> None:
    """The prefix path hands the tree cache under the keyword the installed transformers takes
    (``cache``, not the deprecated ``past_key_values``): no FutureWarning, and vectors still
    equal one plain pass; the encoder path warns neither."""
    targets = vast_targets()
    calls: list[int] = []
    original = hf_module.tree_cache

    def counted(*args: object) -> object:
        calls.append(1)
        return original(*args)  # type: ignore[arg-type]

    hf_module.tree_cache = counted  # type: ignore[assignment]
    try:
        reused = smollm2.embed(targets, layers=[0, 15, 30]).vectors
    finally:
        hf_module.tree_cache = original
    assert calls  # the tree path ran
    smollm2.prefix_reuse = False
    try:
        plain = smollm2.embed(targets, layers=[0, 15, 30]).vectors
    finally:
        smollm2.prefix_reuse = True
    assert_close_per_layer(reused, plain)
    minilm.embed(targets, layers=[0, 6])


def test_cache_keyword_follows_the_forward_signature(smollm2: HFEmbedder) -> None:
    class Older:
        def forward(self, input_ids: object = None, past_key_values: object = None) -> None:
            """A model of a transformers before ``cache``."""

    parameters = inspect.signature(type(smollm2.model).forward).parameters
    assert cache_keyword(smollm2.model) == ("cache" if "cache" in parameters else "past_key_values")
    assert cache_keyword(Older()) == "past_key_values"
