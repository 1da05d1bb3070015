"""Prefix-tree key/value reuse for causal language models.

In a causal LM the hidden states of a token depend only on the tokens before it, so texts that
begin with the same token ids share the keys, values and hidden states of that head at every layer
("This is" in "This is {word}"; "a young thin" in "a young thin tall ... person"). Per batch,
:class:`~wordlens.models.hf.HFEmbedder` computes each distinct head once:

1. **Tree** (:class:`PrefixTree`). The batch's token sequences (BOS included, cut after the target:
   :meth:`~wordlens.models.hf.HFEmbedder.encode`) form a radix tree: a trie of token ids whose
   non-branching chains are merged into one :class:`Node`. A node's tokens are computed once, for
   every text through it; a text that is a head of another ends inside that text's nodes (two
   targets in one sentence cost one pass over the sentence's head). Texts share a head only when it
   has at least ``min_shared_tokens`` tokens.
2. **Passes** (:func:`tree_passes`). The branching nodes of depth 0, 1, ..., then the leaves; each
   level is one forward pass, or several passes of similar widths where padding would cost more
   than a pass (:func:`width_groups`, :data:`PASS_COST_TOKENS`). A pass's nodes are right-padded
   rows. The keys and values of branching nodes go to a :class:`KeyValuePool`, one slot per token;
   a node reads its ancestors' slots through a read-only cache (:func:`tree_cache`), with the
   attention mask ``[its ancestor tokens | its own tokens]`` and position ids
   ``tokens of its ancestors + arange``. Leaves go last, whatever their depth, so their padding
   follows their own lengths rather than that of the short branching nodes beside them (the words
   after "It is very unpleasant to think of" and after "It is pleasant to think of" share a pass).
   Hidden states of a target's subtokens are read from whichever node holds each position
   (:func:`subtoken_locations`).
3. **Batches** (:func:`token_batches`). Texts ordered by the length of their own leaf in the tree
   of all texts (longest first), then by token ids, so texts that share heads meet in a batch while
   texts that share almost nothing (corpus sentences: BOS and a first word) are still ordered by
   length, as without reuse. A batch costs the padded tokens of all its passes and is a run of
   that order, found by bisection, within the token budget and the limit on texts
   (:data:`~wordlens.models.hf.HFEmbedder.max_batch_targets`, which bounds the work an
   interruption loses). Planning builds no tree: the order and each run's tokens are read from
   the sorted token ids (:mod:`wordlens.models.tree_shape`), so a text enters a Python tree once,
   in its batch's passes. The pool lives until the batch's last pass, so memory is bounded by
   the budget.

A batch's tree depends only on the batch's texts, never on which other batches the activation
cache already holds: a resumed run is bit-identical to an uninterrupted one. Hidden states equal
those of the full-text pass to float32 rounding (tested at every layer of smollm2-135m). Only models
whose every layer is plain full attention take part (:func:`supports_prefix_reuse`); sliding-window,
chunked and linear-attention layers keep the full-text pass, as do encoders: a batch without reuse
builds no tree at all, its passes are plain padded passes over its distinct texts, split by width
(:func:`width_groups`) and built with arrays (:meth:`~wordlens.models.hf.HFEmbedder.
_plain_passes`).

Measured with ``benchmarks/bench_intersectional.py`` (smollm2-135m, 2 CPU threads, token budget
1,024, quiet machine): the 4,096 combination phrases cost 69,704 padded tokens flat and 14,796 in
the tree; the top layer took 104.5 s flat and 33.3 s in the tree (3.1x), all 31 layers 124.4 s
and 34.0 s (3.7x). The 3,840 permutation phrases, whose heads branch after "a" (36,498 against
13,312 tokens): 2.4x. The largest difference between flat and tree vectors was 2.1e-6 (combinations)
and 3.6e-6 (permutations) of the layer's largest absolute value. ``benchmarks/bench_prefix.py``
(1,000 Warriner words, all layers): "This is {word}" 130 words/s flat, 362 with the tree; the five
aligned templates 67 and 315; words alone after BOS 157 and 333; corpus-like texts that share
only their first tokens 52 and 65.
"""

from __future__ import annotations

import bisect
import inspect
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from transformers.cache_utils import Cache, CacheLayerMixin, DynamicCache, DynamicLayer

from wordlens.errors import WordlensError
from wordlens.models.tree_shape import (
    LEAVES,
    SortedTexts,
    TokenIds,
    padded_level_tokens,
    width_groups,
)

#: Shortest head that texts share: 1. Measured with benchmarks/bench_prefix.py (smollm2-135m,
#: 2 CPU threads): BOS alone, all that words embedded alone share, made them 17% faster (21% fewer
#: tokens), and heads of 1-3 tokens before ~10-token suffixes ran as fast as without reuse;
#: nowhere was reuse slower. Raise ``HFEmbedder.min_prefix_tokens`` where an extra pass per batch
#: costs more than the tokens it saves.
MIN_PREFIX_TOKENS = 1

#: What one more forward pass costs, in tokens: 64. Fitted on a busy machine to
#: benchmarks/bench_intersectional.py (smollm2-135m, 2 CPU threads): flat passes (69 passes,
#: 69,704 tokens: 117 s) and tree passes (220 passes, 14,869 tokens: 47-52 s) take 0.12 s a pass
#: plus 1.56 ms a token, so a pass costs as much as ~75 tokens (with 1 thread, 49 ms against 2.7 ms
#: a token: ~18). A level of the tree is split into passes of similar widths where that saves more
#: padded tokens than this (:func:`width_groups`).
PASS_COST_TOKENS = 64


def common_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """Number of leading token ids the two sequences share."""
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length


def padded_rows(
    flat: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], pad_id: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of ``lengths`` values taken in order from ``flat``, right-padded with ``pad_id``: the
    int64 values and the attention mask, both ``[len(lengths), longest]`` (one vectorized copy)."""
    longest = int(lengths.max()) if len(lengths) else 0
    mask = np.arange(longest)[None, :] < lengths[:, None]  # [rows, longest]
    values = np.full(mask.shape, pad_id, dtype=np.int64)
    values[mask] = flat  # row-major: row 0's values first
    return torch.from_numpy(values), torch.from_numpy(mask.astype(np.int64))


def concatenated_ranges(
    starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """``concatenate([arange(start, start + length) for each pair])``, without the loop."""
    total = int(lengths.sum())
    offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return offsets + np.arange(total, dtype=np.int64)


@dataclass(eq=False)
class Node:
    """A run of token positions ``[start, end)`` that every text through it shares (a radix-tree
    node).

    Attributes
    ----------
    source
        Token ids of a text through the node (its tokens are ``source[start:end]``).
    start, end
        Absolute positions: ``start`` is the number of tokens of the node's ancestors.
    depth
        Number of ancestors.
    parent, children
        Tree links (``parent`` is ``None`` for a root).
    texts
        Indices of the texts whose last token lies in this node.
    """

    source: TokenIds
    start: int
    end: int
    depth: int
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    texts: list[int] = field(default_factory=list)

    @property
    def tokens(self) -> TokenIds:
        return self.source[self.start : self.end]

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def level(self) -> int:
        """The pass computing the node: its depth if it branches, else :data:`LEAVES`."""
        return self.depth if self.children else LEAVES

    def ancestors(self) -> list[Node]:
        """The nodes above this one, its root first."""
        chain = []
        node = self.parent
        while node is not None:
            chain.append(node)
            node = node.parent
        return chain[::-1]

    def subtree(self) -> Iterator[Node]:
        """This node and every node below it, depth first, children in insertion order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def holder(node: Node, position: int) -> Node:
    """The node holding token ``position`` on the path from a root down to ``node``."""
    while position < node.start and node.parent is not None:
        node = node.parent
    return node


class PaddedPasses:
    """Padded tokens of the passes of each level (:func:`width_groups`), kept up to date as nodes
    change, and the tokens without padding."""

    def __init__(self, pass_cost: int | None) -> None:
        self.pass_cost = pass_cost
        self.real = 0
        self.rows = 0
        self._widths: defaultdict[int, Counter[int]] = defaultdict(Counter)
        self._padded: dict[int, int] = {}  # per level, while its widths are unchanged

    def add(self, level: int, width: int) -> None:
        """Count a row of ``width`` tokens at ``level``."""
        self._widths[level][width] += 1
        self._padded.pop(level, None)
        self.real += width
        self.rows += 1

    def remove(self, level: int, width: int) -> None:
        """Forget a row counted by :meth:`add`."""
        widths = self._widths[level]
        widths[width] -= 1
        if not widths[width]:
            del widths[width]
        if not widths:
            del self._widths[level]
        self._padded.pop(level, None)
        self.real -= width
        self.rows -= 1

    def groups(self, level: int) -> list[int]:
        """The widest row of each pass of ``level`` (:func:`width_groups`)."""
        return width_groups(self._widths[level], self.pass_cost)

    @property
    def total(self) -> int:
        """Padded tokens of all passes."""
        for level, widths in self._widths.items():
            if level not in self._padded:
                self._padded[level] = padded_level_tokens(widths, self.pass_cost)
        return sum(self._padded.values())


class PrefixTree:
    """Radix tree of token sequences, and the padded tokens of the passes that compute it.

    Texts may be added in any order; the tree (and so :attr:`padded_tokens`) depends only on the
    set of texts added, the order of nodes within a pass on the order of addition.

    Parameters
    ----------
    min_shared_tokens
        A text shares the longest head it has in common with a text already in the tree only if
        that head has at least this many tokens; ``None``: texts share no head (as an encoder's
        must: each token sees the whole text), each distinct text is a root, and the tree is one
        level of leaves. Identical texts always share their node: several targets of one sentence
        cost one row.
    pass_cost
        Cost of one more pass in tokens, for splitting a level into passes of similar widths
        (:func:`width_groups`); ``None``: one pass per level.
    count_padding
        Keep the padded tokens up to date as texts are added (what batch planning reads after
        every text); ``False`` counts them only when asked, from the finished tree — half the
        cost of building a tree whose passes are read once.
    """

    def __init__(
        self,
        min_shared_tokens: int | None = MIN_PREFIX_TOKENS,
        pass_cost: int | None = PASS_COST_TOKENS,
        *,
        count_padding: bool = True,
    ) -> None:
        if min_shared_tokens is not None and min_shared_tokens < 1:
            raise WordlensError(f"min_shared_tokens must be at least 1, not {min_shared_tokens}")
        self.min_shared_tokens = min_shared_tokens
        self.sequences: list[TokenIds] = []
        self.end_nodes: list[Node] = []  # per text, the node holding its last token
        self.roots: list[Node] = []
        self._sorted: list[tuple[TokenIds, int]] = []  # (sequence, text), for the neighbours
        self._roots_by_tokens: dict[TokenIds, Node] = {}  # without shared heads: identical texts
        self._pass_cost = pass_cost
        self._passes = PaddedPasses(pass_cost) if count_padding else None

    @property
    def padded_tokens(self) -> int:
        """Tokens the passes compute, padding included: ``sum over passes of rows * widest``."""
        return self._padding().total

    @property
    def real_tokens(self) -> int:
        """Tokens of the tree's nodes, without padding (never more than :attr:`padded_tokens`)."""
        return self._padding().real

    def add(self, ids: Sequence[int]) -> None:
        """Add the text with token ids ``ids`` (it becomes text ``len(self.sequences)``)."""
        sequence = tuple(ids)
        if not sequence:
            raise WordlensError("a text of the prefix tree has no tokens")
        text = len(self.sequences)
        self.sequences.append(sequence)
        if self.min_shared_tokens is None:
            if sequence not in self._roots_by_tokens:
                self._roots_by_tokens[sequence] = self._new_node(sequence, 0, None)
            self._place(text, self._roots_by_tokens[sequence])
            return
        shared, neighbour = self._longest_shared_head(sequence, text)
        if neighbour is None:
            self._place(text, self._new_node(sequence, 0, None))
        else:
            self._branch(text, holder(self.end_nodes[neighbour], shared - 1), shared)

    def node_at(self, text: int, position: int) -> Node:
        """The node holding token ``position`` of ``text``."""
        return holder(self.end_nodes[text], position)

    def passes(self, max_tokens: int | None = None) -> list[list[Node]]:
        """The nodes of each forward pass in order: the branching nodes of depth 0, 1, ..., then
        the leaves (only leaves when nothing branches), each level split into passes of similar
        widths, widest first (:func:`width_groups`), and those into passes of at most
        ``max_tokens`` padded tokens (at least one row each; same padded tokens in all)."""
        levels: defaultdict[int, list[Node]] = defaultdict(list)
        for root in self.roots:
            for node in root.subtree():
                levels[node.level].append(node)
        passes: list[list[Node]] = []
        padding = self._padding()
        for level in [*sorted(set(levels) - {LEAVES}), LEAVES]:
            bounds = [*padding.groups(level), 0]
            for widest, lower in itertools.pairwise(bounds):
                group = [node for node in levels[level] if lower < node.length <= widest]
                rows = len(group) if max_tokens is None else max(1, max_tokens // widest)
                passes.extend(group[start : start + rows] for start in range(0, len(group), rows))
        return passes

    def _padding(self) -> PaddedPasses:
        """The rows of each level: kept up to date, or counted now from the tree's nodes."""
        if self._passes is not None:
            return self._passes
        counted = PaddedPasses(self._pass_cost)
        for root in self.roots:
            for node in root.subtree():
                counted.add(node.level, node.length)
        return counted

    def _longest_shared_head(self, sequence: TokenIds, text: int) -> tuple[int, int | None]:
        """The longest head ``sequence`` shares with a text already in the tree, and that text
        (``(0, None)`` when below ``min_shared_tokens``). In sorted order the text sharing the
        longest head with a new one is one of its two neighbours; an identical text, the one
        before it, shares its node whatever its length."""
        assert self.min_shared_tokens is not None
        slot = bisect.bisect(self._sorted, (sequence, text))
        neighbours = self._sorted[max(slot - 1, 0) : slot + 1]
        self._sorted.insert(slot, (sequence, text))
        if neighbours and neighbours[0][0] == sequence:
            return len(sequence), neighbours[0][1]
        shared, neighbour = max(
            ((common_prefix_length(sequence, other), index) for other, index in neighbours),
            default=(0, -1),
        )
        if shared < self.min_shared_tokens:
            return 0, None
        return shared, neighbour

    def _branch(self, text: int, node: Node, shared: int) -> None:
        """Place ``text``, whose first ``shared`` tokens end inside ``node`` (or at its end)."""
        sequence = self.sequences[text]
        if shared == len(sequence):  # a head of texts already in the tree
            self._place(text, node)
            return
        if shared < node.end:
            self._split(node, shared)
        if node.children:
            self._place(text, self._new_node(sequence, shared, node))
        else:  # the texts ending in this leaf are heads of the new one: it grows
            if self._passes is not None:
                self._passes.remove(node.level, node.length)
                self._passes.add(node.level, len(sequence) - node.start)
            node.source, node.end = sequence, len(sequence)
            self._place(text, node)

    def _new_node(self, sequence: TokenIds, start: int, parent: Node | None) -> Node:
        """A new leaf holding ``sequence[start:]``, below ``parent`` (a root if ``None``)."""
        if parent is None:
            node = Node(sequence, start, len(sequence), 0)
            self.roots.append(node)
        else:
            node = Node(sequence, start, len(sequence), parent.depth + 1, parent)
            if self._passes is not None:  # the parent may move from the leaves to its depth
                self._passes.remove(parent.level, parent.length)
                self._passes.add(parent.depth, parent.length)
            parent.children.append(node)
        if self._passes is not None:
            self._passes.add(node.level, node.length)
        return node

    def _split(self, node: Node, at: int) -> None:
        """Cut ``node`` before position ``at``; the tail (with the node's children and the texts
        ending in it) becomes its only child, and everything below moves one level down."""
        if self._passes is not None:
            for below in node.subtree():
                self._passes.remove(below.level, below.length)
        tail = Node(node.source, at, node.end, node.depth + 1, node, node.children)
        for child in tail.children:
            child.parent = tail
        for below in tail.subtree():
            if below is not tail:
                below.depth += 1
        tail.texts = [text for text in node.texts if len(self.sequences[text]) > at]
        node.texts = [text for text in node.texts if len(self.sequences[text]) <= at]
        for text in tail.texts:
            self.end_nodes[text] = tail
        node.end, node.children = at, [tail]
        if self._passes is not None:
            for below in node.subtree():
                self._passes.add(below.level, below.length)

    def _place(self, text: int, node: Node) -> None:
        """Record that the last token of ``text`` (just added) lies in ``node``."""
        node.texts.append(text)
        self.end_nodes.append(node)


def token_batches(
    sequences: Sequence[Sequence[int]],
    token_budget: int,
    min_shared_tokens: int | None = MIN_PREFIX_TOKENS,
    pass_cost: int | None = PASS_COST_TOKENS,
    max_texts: int | None = None,
) -> list[list[int]]:
    """Group texts into batches whose passes (:class:`PrefixTree`) fit ``token_budget``, at most
    ``max_texts`` texts each, planned on sorted arrays (:class:`~wordlens.models.tree_shape.
    SortedTexts`): no tree is built.

    Texts are ordered longest own leaf first (:func:`~wordlens.models.tree_shape.own_lengths` in
    the tree of all texts), then by token ids (then index). Ordering by leaf length keeps padding
    as small as without reuse where texts share little (ordering by token ids alone would mix long
    and short sentences wherever groups of them share a first word); ordering by token ids next
    makes texts that share heads meet. Each batch is a run of that order found by bisection
    (:func:`_fitting_run`): the longest run whose tokens without padding fit the budget (they grow
    with the run), or, where its padded tokens do not fit, a run whose padded tokens fit and one
    text more would not. (The padded tokens of a growing run are not monotone: a text that shares
    little adds a long leaf, its siblings then split it; the bisection takes one boundary of
    several.) With ``min_shared_tokens=None`` a batch is the longest run with
    ``len(batch) * longest <= budget`` over texts sorted by length. A single text over the budget
    gets a batch of its own.

    Parameters
    ----------
    sequences
        Token ids of each text.
    token_budget
        Upper bound on the padded tokens of a batch's passes.
    min_shared_tokens, pass_cost
        See :class:`PrefixTree`.
    max_texts
        Most texts in a batch (``None``: no limit); bounds the work an interrupted batch loses
        (:data:`wordlens.models.budget.MAX_BATCH_TARGETS`).

    Returns
    -------
    list[list[int]]
        Text indices per batch.
    """
    if min_shared_tokens is None:
        return _padded_batches([tuple(sequence) for sequence in sequences], token_budget, max_texts)
    texts = SortedTexts.of(sequences)
    own = texts.own_lengths(min_shared_tokens)[texts.rank]  # [N]
    order = np.lexsort((np.arange(len(own)), texts.rank, -own))  # [N]: the last key first
    ranks = texts.rank[order]  # [N]
    lengths = texts.lengths[ranks]  # [N]
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        end = len(order) if max_texts is None else min(len(order), start + max_texts)
        if 2 * (end - start) * int(lengths[start:end].max()) <= token_budget:
            # a text adds at most two nodes, each a row no wider than the longest text: the whole
            # run fits (the budget of an accelerator, where the limit on texts binds first)
            stop = end
        else:
            run = ranks[start:end]
            stop = start + _fitting_run(texts, run, min_shared_tokens, pass_cost, token_budget)
        batches.append(order[start:stop].tolist())
        start = stop
    return batches


def _fitting_run(
    texts: SortedTexts,
    run: npt.NDArray[np.int64],
    min_shared_tokens: int,
    pass_cost: int | None,
    token_budget: int,
) -> int:
    """The size of a batch (:func:`token_batches`) that begins ``run`` (rows of
    ``texts.distinct``, in the plan's order): the largest size whose tokens without padding fit
    the budget (they grow with the size), if its padded tokens fit too; else, by bisection below
    it, a size whose padded tokens fit and whose next size's do not. At least 1."""

    def tokens(size: int, padded: bool) -> int:
        if padded:
            return texts.padded_tokens(run[:size], min_shared_tokens, pass_cost)
        return texts.real_tokens(run[:size], min_shared_tokens)

    fits, over = 0, len(run) + 1  # size 0 fits, past the run is out
    while over - fits > 1:
        middle = (fits + over) // 2
        fits, over = (middle, over) if tokens(middle, False) <= token_budget else (fits, middle)
    if fits <= 1 or tokens(fits, True) <= token_budget:
        return max(fits, 1)
    fits, over = 1, fits  # a text alone is a batch; ``over`` does not fit
    while over - fits > 1:
        middle = (fits + over) // 2
        fits, over = (middle, over) if tokens(middle, True) <= token_budget else (fits, middle)
    return fits


def _padded_batches(
    keys: Sequence[TokenIds], token_budget: int, max_texts: int | None
) -> list[list[int]]:
    """:func:`token_batches` of texts that share no head, in one pass over the sorted texts.

    Texts sorted longest first (then by token ids, then index); a batch grows while its distinct
    texts padded to the widest fit, ``widest * distinct texts <= token_budget`` (identical texts
    are neighbours in this order and share a row): the padded tokens of the tree with
    ``min_shared_tokens=None`` in one pass, an upper bound of its passes split by width.
    """
    order = sorted(range(len(keys)), key=lambda index: (-len(keys[index]), keys[index], index))
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        widest, distinct, stop = len(keys[order[start]]), 1, start + 1
        end = len(order) if max_texts is None else min(len(order), start + max_texts)
        for position in range(start + 1, end):
            distinct += keys[order[position]] != keys[order[position - 1]]
            if widest * distinct > token_budget:
                break
            stop = position + 1
        batches.append(order[start:stop])
        start = stop
    return batches


def supports_prefix_reuse(config: Any) -> bool:
    """Whether every layer of a causal model with this config caches plain full attention."""
    layers = DynamicCache(config=config).layers
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


@dataclass(frozen=True)
class TreePass:
    """The inputs of one forward pass over a prefix tree's nodes.

    Attributes
    ----------
    nodes
        The pass's nodes, one row each.
    input_ids
        int64 ``[rows, width]``, right-padded.
    attention_mask
        int64 ``[rows, ancestors + width]``: each row's ancestor tokens (left-aligned, as many as
        the row's start position), then its own tokens.
    position_ids
        int64 ``[rows, width]``: tokens of the row's ancestors + ``arange`` (0 on padding).
    ancestor_slots
        int64 ``[rows, ancestors]``: the :class:`KeyValuePool` slots of each row's ancestor tokens,
        in order (0 past them: the mask hides those).
    own_slots
        int64 ``[real tokens]``: the pool slots this pass fills with its own tokens (row by row,
        padding left out), for a pass of branching nodes; ``None`` for a pass of leaves.
    own_positions
        int64 ``[real tokens]``: where those tokens are in the pass, as ``row * width + column``
        (computed on the CPU, so that gathering them on an accelerator needs no synchronization);
        ``None`` for a pass of leaves.
    """

    nodes: list[Node]
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    ancestor_slots: torch.Tensor
    own_slots: torch.Tensor | None
    own_positions: torch.Tensor | None

    def to(self, device: torch.device) -> TreePass:
        """The same pass with its tensors on ``device``."""
        return replace(
            self,
            input_ids=self.input_ids.to(device),
            attention_mask=self.attention_mask.to(device),
            position_ids=self.position_ids.to(device),
            ancestor_slots=self.ancestor_slots.to(device),
            own_slots=None if self.own_slots is None else self.own_slots.to(device),
            own_positions=None if self.own_positions is None else self.own_positions.to(device),
        )


def node_rows(passes: Sequence[Sequence[Node]]) -> dict[Node, tuple[int, int]]:
    """The pass and row of each node."""
    return {
        node: (index, row) for index, nodes in enumerate(passes) for row, node in enumerate(nodes)
    }


def tree_passes(
    tree: PrefixTree, pad_token_id: int, max_pass_tokens: int | None = None
) -> tuple[list[TreePass], int]:
    """The forward passes that compute ``tree``, in order (see the module docstring), each of at
    most ``max_pass_tokens`` padded tokens (:meth:`PrefixTree.passes`), and the number of
    :class:`KeyValuePool` slots they use (the tokens of the branching nodes)."""
    passes = tree.passes(max_pass_tokens)
    first_slot: dict[Node, int] = {}
    n_slots = 0
    for node in (node for nodes in passes for node in nodes if node.children):
        first_slot[node] = n_slots
        n_slots += node.length
    result = []
    for nodes in passes:
        widths = np.fromiter((node.length for node in nodes), np.int64, len(nodes))
        flat_ids = np.fromiter(
            itertools.chain.from_iterable(node.tokens for node in nodes), np.int64, widths.sum()
        )
        input_ids, own_mask = padded_rows(flat_ids, widths, pad_token_id)
        # per row, the pool slots of its ancestors' tokens: each ancestor's run of slots in order
        chains = [node.ancestors() for node in nodes]
        ancestor_lengths = np.fromiter((node.start for node in nodes), np.int64, len(nodes))
        runs = [(first_slot[a], a.length) for chain in chains for a in chain]
        run_starts = np.fromiter((slot for slot, _ in runs), np.int64, len(runs))
        run_lengths = np.fromiter((length for _, length in runs), np.int64, len(runs))
        ancestor_slots, ancestor_mask = padded_rows(
            concatenated_ranges(run_starts, run_lengths), ancestor_lengths, 0
        )
        starts = torch.from_numpy(ancestor_lengths)
        positions = (starts[:, None] + torch.arange(input_ids.shape[1])[None, :]) * own_mask
        own_slots = own_positions = None
        if nodes[0].children:  # a pass of branching nodes: later passes read its keys and values
            node_slots = np.fromiter((first_slot[node] for node in nodes), np.int64, len(nodes))
            own_slots = torch.from_numpy(concatenated_ranges(node_slots, widths))
            own_positions = own_mask.flatten().nonzero().squeeze(1)
        result.append(
            TreePass(
                nodes=nodes,
                input_ids=input_ids,
                attention_mask=torch.cat([ancestor_mask, own_mask], dim=1),
                position_ids=positions,
                ancestor_slots=ancestor_slots,
                own_slots=own_slots,
                own_positions=own_positions,
            )
        )
    return result, n_slots


def subtoken_locations(
    tree: PrefixTree, passes: Sequence[TreePass], spans: Sequence[tuple[int, int]]
) -> list[tuple[torch.Tensor, ...] | None]:
    """Where the targets' subtokens are computed, per pass.

    Parameters
    ----------
    tree
        The tree of the texts.
    passes
        Its passes (:func:`tree_passes`).
    spans
        Per text, its target's token range ``[first, stop)``.

    Returns
    -------
    list[tuple[torch.Tensor, ...] | None]
        Per pass, ``None`` if it computes no target subtoken, else three int64 ``[k]`` tensors:
        the subtoken's index among all targets' subtokens (text by text, in order), and its row and
        column in the pass.
    """
    rows_of = node_rows([tree_pass.nodes for tree_pass in passes])
    bounds = np.asarray(spans, dtype=np.int64).reshape(-1, 2)  # [texts, 2]
    counts = bounds[:, 1] - bounds[:, 0]
    text_of = np.repeat(np.arange(len(bounds)), counts)  # [subtokens]
    position = concatenated_ranges(bounds[:, 0], counts)
    # Mostly a target lies in the node holding its text's last token; the others are looked up
    ends = tree.end_nodes
    end_start = np.fromiter((node.start for node in ends), np.int64, len(ends))
    end_place = np.array([rows_of[node] for node in ends], dtype=np.int64).reshape(-1, 2)
    place = end_place[text_of]  # [subtokens, 2]: pass and row
    column = position - end_start[text_of]
    for subtoken in np.flatnonzero(column < 0):
        node = tree.node_at(int(text_of[subtoken]), int(position[subtoken]))
        place[subtoken] = rows_of[node]
        column[subtoken] = position[subtoken] - node.start
    order = np.argsort(place[:, 0], kind="stable")  # by pass, subtokens in order within one
    splits = np.searchsorted(place[order, 0], np.arange(len(passes) + 1))
    found: list[tuple[torch.Tensor, ...] | None] = []
    for first, stop in itertools.pairwise(splits.tolist()):
        chosen = order[first:stop]
        found.append(
            (
                torch.from_numpy(chosen),
                torch.from_numpy(place[chosen, 1]),
                torch.from_numpy(column[chosen]),
            )
            if len(chosen)
            else None
        )
    return found


class KeyValuePool:
    """Keys and values of a batch's branching nodes, one slot per token, per attention layer.

    Each layer's keys and values are ``[kv_heads, slots, head_dim]``, allocated when a pass first
    writes them (their shape and dtype are the attention's own).
    """

    def __init__(self, n_layers: int, n_slots: int) -> None:
        self.n_slots = n_slots
        self.keys: list[torch.Tensor | None] = [None] * n_layers
        self.values: list[torch.Tensor | None] = [None] * n_layers

    def write(
        self, layer: int, slots: torch.Tensor, keys: torch.Tensor, values: torch.Tensor
    ) -> None:
        """Store ``[kv_heads, len(slots), head_dim]`` keys and values at ``slots``."""
        for stored, new in ((self.keys, keys), (self.values, values)):
            target = stored[layer]
            if target is None:
                target = stored[layer] = new.new_zeros((new.shape[0], self.n_slots, new.shape[-1]))
            target[:, slots] = new

    def read(self, layer: int, slots: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values ``[rows, kv_heads, ancestors, head_dim]`` at ``slots``
        ``[rows, ancestors]``."""
        keys, values = self.keys[layer], self.values[layer]
        if keys is None or values is None:
            raise WordlensError(
                "the model did not fill its key/value cache; load the model with prefix_reuse=False"
            )
        return keys[:, slots].transpose(0, 1), values[:, slots].transpose(0, 1)


class _TreeLayer(CacheLayerMixin):  # type: ignore[no-untyped-call]
    """One layer's view of the pool for one pass: the rows' ancestors, read-only, then their own.

    ``update`` hands attention each row's ancestor keys and values (gathered from the pool) followed
    by the pass's own, and writes the pass's own real tokens into the pool when later passes read
    them; it keeps no concatenation (that would cost more memory than the pass's hidden states).
    """

    def __init__(self, pool: KeyValuePool, layer: int, tree_pass: TreePass) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.pool, self.layer, self.tree_pass = pool, layer, tree_pass
        self.is_initialized = True

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Nothing to do: the layer is built initialized."""

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The ancestors followed by the new ``[rows, kv_heads, width, head_dim]`` states."""
        own_slots, own_positions = self.tree_pass.own_slots, self.tree_pass.own_positions
        if own_slots is not None and own_positions is not None:
            # [kv_heads, rows * width, head_dim] -> the real tokens, row by row
            real_keys = key_states.transpose(0, 1).flatten(1, 2)[:, own_positions]
            real_values = value_states.transpose(0, 1).flatten(1, 2)[:, own_positions]
            self.pool.write(self.layer, own_slots, real_keys, real_values)
        if not self.get_seq_length():
            return key_states, value_states
        keys, values = self.pool.read(self.layer, self.tree_pass.ancestor_slots)
        return torch.cat([keys, key_states], dim=-2), torch.cat([values, value_states], dim=-2)

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        """Keys seen by ``query_length`` new tokens (ancestors + queries), from index 0."""
        return self.get_seq_length() + query_length, 0

    def get_seq_length(self) -> int:
        """Ancestor tokens of the longest row's path."""
        return int(self.tree_pass.ancestor_slots.shape[1])

    def get_max_length(self) -> int:
        """No maximum (-1)."""
        return -1


def cache_keyword(model: Any) -> str:
    """The keyword argument by which ``model``'s forward takes a key/value cache: ``cache`` where
    the installed transformers has it (it deprecates ``past_key_values``, to be removed in 5.40),
    else ``past_key_values``. Read once per model class from its forward signature."""
    model_class = type(model)
    keyword = _CACHE_KEYWORDS.get(model_class)
    if keyword is None:
        try:
            parameters = inspect.signature(model_class.forward).parameters
        except (TypeError, ValueError):  # no readable signature: the older name
            parameters = {}  # type: ignore[assignment]
        keyword = "cache" if "cache" in parameters else "past_key_values"
        _CACHE_KEYWORDS[model_class] = keyword
    return keyword


_CACHE_KEYWORDS: dict[type, str] = {}


def tree_cache(pool: KeyValuePool, tree_pass: TreePass) -> Cache:
    """A cache for one pass over a prefix tree's nodes: reads the rows' ancestors from ``pool``
    and writes the pass's own keys and values there (branching nodes only). The pass's tensors
    must be on the model's device."""
    return Cache(layers=[_TreeLayer(pool, layer, tree_pass) for layer in range(len(pool.keys))])
