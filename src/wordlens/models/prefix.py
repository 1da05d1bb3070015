"""Prefix key/value reuse for causal language models.

In a causal LM the hidden states of a token depend only on the tokens before it, so texts that
begin with the same token ids ("This is {word}", the words of a template before its slot) share the
keys and values of that prefix at every layer. :class:`~wordlens.models.hf.HFEmbedder` computes
them once per batch:

1. **Plan** (:func:`shared_prefix_lengths`, over all texts of an ``embed`` call). A text's context
   is its tokens before the target; its reusable prefix is the longest head of that context which
   the context of another text starts with too, or none when that is shorter than
   :data:`MIN_PREFIX_TOKENS`. The prefix ends before the target, so the target's own subtokens are
   always computed in the suffix pass and pooling is unchanged.
2. **Batches** (:func:`token_batches`). Texts ordered longest suffix first, then by prefix; a
   batch's cost is its padded suffix pass plus its padded prefix pass,
   ``n_texts * longest suffix + n_rows * longest row`` tokens, within the token budget.
3. **Prefix pass** (:func:`prefix_states`). The batch's distinct prefixes as rows, where a prefix
   that heads another needs no row of its own (:class:`PrefixRows`): a causal pass over the longer
   one computes its keys and values too. Prefixes are computed once per batch, not once per call:
   a batch stays self-contained, so its vectors do not depend on which other batches the
   activation cache already holds, and a resumed run is bit-identical to an uninterrupted one.
4. **Suffix pass** (:func:`prefix_cache`). The rest of each text, right-padded, at positions
   ``prefix length + arange``, reading its row's keys and values gathered per text, with the
   attention mask ``[row position < own prefix length | own suffix tokens]``.

Hidden states of the suffix tokens equal those of the full-text pass to float32 rounding (tested at
every layer of smollm2-135m). Only models whose every layer is plain full attention take part
(:func:`supports_prefix_reuse`); sliding-window, chunked and linear-attention layers keep the
full-text pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import torch
from transformers.cache_utils import Cache, CacheLayerMixin, DynamicCache, DynamicLayer

from wordlens.errors import WordlensError

#: Shortest shared prefix that is reused: 1. Measured with benchmarks/bench_prefix.py (smollm2-135m,
#: 2 CPU threads): BOS alone, all that words embedded alone share, made them 17% faster (21% fewer
#: tokens), and heads of 1-3 tokens before ~10-token suffixes ran as fast as without reuse;
#: nowhere was reuse slower. Raise ``HFEmbedder.min_prefix_tokens`` where an extra pass per batch
#: costs more than the tokens it saves.
MIN_PREFIX_TOKENS = 1

Prefix = tuple[int, ...]


def common_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """Number of leading token ids the two sequences share."""
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length


def shared_prefix_lengths(
    contexts: Sequence[Sequence[int]], min_tokens: int = MIN_PREFIX_TOKENS
) -> list[int]:
    """For each context, the longest head of it that another context starts with too.

    Sorted lexicographically, the context sharing the longest head with a given one is one of its
    two neighbours, so this is one sort and one pass.

    Parameters
    ----------
    contexts
        Token ids of each text before its target (BOS included).
    min_tokens
        Shared heads shorter than this count as none (0).

    Returns
    -------
    list[int]
        Per context, the reusable prefix length (0 when not shared or shorter than ``min_tokens``).
    """
    keys = [tuple(context) for context in contexts]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    lengths = [0] * len(keys)
    for first, second in pairwise(order):
        shared = common_prefix_length(keys[first], keys[second])
        lengths[first] = max(lengths[first], shared)
        lengths[second] = max(lengths[second], shared)
    return [length if length >= min_tokens else 0 for length in lengths]


def heads(prefix: Prefix) -> list[Prefix]:
    """The non-empty heads of ``prefix``, shortest first, ``prefix`` itself last."""
    return [prefix[:length] for length in range(1, len(prefix) + 1)]


class PrefixRows:
    """The rows of a prefix pass: the prefixes served that head no other one.

    A causal pass over a row computes the keys and values of every head of it, so a prefix that
    heads a row needs no row of its own, and a row that heads a new prefix gives way to it.
    """

    def __init__(self) -> None:
        self.rows: set[Prefix] = set()
        self.longest = 0
        self._served: set[Prefix] = set()  # every head of every row

    def tokens_with(self, prefix: Prefix) -> int:
        """Padded size ``n_rows * longest row`` of the pass once ``prefix`` is served too
        (``()``: nothing to serve)."""
        if not prefix or prefix in self._served:
            return len(self.rows) * self.longest
        replaced = sum(head in self.rows for head in heads(prefix))
        return (len(self.rows) + 1 - replaced) * max(self.longest, len(prefix))

    def add(self, prefix: Prefix) -> None:
        """Serve ``prefix`` (``()``: nothing to serve)."""
        if not prefix or prefix in self._served:
            return
        prefix_heads = heads(prefix)
        self.rows.difference_update(prefix_heads)
        self.rows.add(prefix)
        self._served.update(prefix_heads)
        self.longest = max(self.longest, len(prefix))


def assign_rows(prefixes: Sequence[Prefix]) -> tuple[list[Prefix], list[int]]:
    """The rows (sorted) of a prefix pass for ``prefixes``, and the index of the row serving each.

    An empty prefix is given row 0 but reads none of it (its attention mask hides the row).
    """
    rows = PrefixRows()
    for prefix in prefixes:
        rows.add(prefix)
    ordered = sorted(rows.rows)
    row_of_head = {head: index for index, row in enumerate(ordered) for head in heads(row)}
    return ordered, [row_of_head[prefix] if prefix else 0 for prefix in prefixes]


def token_batches(
    prefixes: Sequence[Prefix], suffix_lengths: Sequence[int], token_budget: int
) -> list[list[int]]:
    """Group texts into batches whose padded prefix and suffix passes fit ``token_budget``.

    Texts are ordered longest suffix first, then by prefix (then index), and filled greedily: a
    batch costs ``n_texts * longest suffix + n_rows * longest row`` tokens (rows as in
    :class:`PrefixRows`), and a text that would push it over the budget starts the next batch.
    Ordering by suffix length keeps padding as small as without prefixes (ordering by prefix first
    would mix long and short suffixes wherever small groups of texts share a short head, as
    sentences starting "The" do); texts sharing a prefix still meet within a batch. With no
    prefixes this is ``len(batch) * longest <= budget`` over texts sorted by length; a single text
    over the budget gets a batch of its own.

    Parameters
    ----------
    prefixes
        Per text, the token ids computed in the prefix pass (``()`` for none).
    suffix_lengths
        Per text, the number of tokens after its prefix.
    token_budget
        Upper bound on the tokens of a batch's passes.

    Returns
    -------
    list[list[int]]
        Text indices per batch.
    """
    order = sorted(
        range(len(prefixes)), key=lambda index: (-suffix_lengths[index], prefixes[index], index)
    )
    batches: list[list[int]] = []
    current: list[int] = []
    rows = PrefixRows()
    longest = 0
    for index in order:
        prefix, suffix = prefixes[index], suffix_lengths[index]
        cost = (len(current) + 1) * max(longest, suffix) + rows.tokens_with(prefix)
        if current and cost > token_budget:
            batches.append(current)
            current, rows, longest = [], PrefixRows(), 0
        current.append(index)
        longest = max(longest, suffix)
        rows.add(prefix)
    if current:
        batches.append(current)
    return batches


def supports_prefix_reuse(config: Any) -> bool:
    """Whether every layer of a causal model with this config caches plain full attention."""
    layers = DynamicCache(config=config).layers
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


def prefix_states(
    model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Keys and values of a right-padded prefix batch, one ``(keys, values)`` pair per layer.

    Parameters
    ----------
    model
        A causal transformer that accepts ``past_key_values``.
    input_ids, attention_mask
        ``[n_rows, width]``; padding on the right.

    Returns
    -------
    list[tuple[torch.Tensor, torch.Tensor]]
        Per layer, keys and values ``[n_rows, kv_heads, width, head_dim]``.
    """
    cache = DynamicCache(config=model.config)
    model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
    states = []
    for layer in cache.layers:
        keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
        if keys is None or values is None:
            raise WordlensError(
                f"{type(model).__name__} did not fill its key/value cache; load the model with "
                "prefix_reuse=False"
            )
        states.append((keys, values))
    return states


class _PrefixLayer(CacheLayerMixin):  # type: ignore[no-untyped-call]
    """One layer's prefix keys and values, gathered per suffix text, never extended.

    ``update`` hands attention the prefix followed by the suffix's own keys and values and keeps
    neither: a suffix pass needs no cache afterwards, and keeping the concatenation of every layer
    until the pass ends would cost more memory than the pass's hidden states.
    """

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, rows: torch.Tensor) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.prefix_keys, self.prefix_values, self.rows = keys, values, rows
        self.keys, self.values = keys, values  # what the base class reports and moves
        self.dtype, self.device = keys.dtype, keys.device
        self.is_initialized = True

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Nothing to do: the layer is built initialized."""

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The gathered prefix followed by the new ``[batch, kv_heads, seq, head_dim]`` states."""
        keys = torch.cat([self.prefix_keys[self.rows], key_states], dim=-2)
        values = torch.cat([self.prefix_values[self.rows], value_states], dim=-2)
        return keys, values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        """Keys seen by ``query_length`` new tokens (prefix width + queries), from index 0."""
        return self.get_seq_length() + query_length, 0

    def get_seq_length(self) -> int:
        """Width of the prefix rows."""
        return int(self.prefix_keys.shape[-2])

    def get_max_length(self) -> int:
        """No maximum (-1)."""
        return -1


def prefix_cache(states: Sequence[tuple[torch.Tensor, torch.Tensor]], rows: torch.Tensor) -> Cache:
    """A read-only cache for a suffix pass: text ``i`` sees the prefix row ``rows[i]``.

    Parameters
    ----------
    states
        Per layer, keys and values ``[n_rows, kv_heads, width, head_dim]`` from
        :func:`prefix_states`.
    rows
        int64 ``[batch]``: the row of each suffix text.
    """
    return Cache(layers=[_PrefixLayer(keys, values, rows) for keys, values in states])
