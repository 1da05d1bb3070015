"""Word-in-context vectors from any Hugging Face transformer (causal, masked, encoder, T5 encoder).

Forward passes over batches of texts return every hidden state; each target's subtokens come from
the tokenizer's offset mapping (:mod:`wordlens.models.align`) and are pooled per layer on the pass's
own tensors (:class:`~wordlens.models.align.SubtokenPooling`); finished rows go to the output as
each batch ends, a large output to a temporary file (:mod:`wordlens.models.output`). Batches are
planned under a token budget (the padded tokens of a batch's passes, ``rows * longest row`` each)
and hold at most :attr:`HFEmbedder.max_batch_targets` targets (the work an interruption can
lose); they are right-padded with the padding masked, under ``torch.inference_mode``. On an
accelerator the token budget is sized from the device's free memory (:mod:`wordlens.models.budget`)
and the batches run as a two-stage pipeline: the host plans and starts batch i + 1 before it
stores batch i, and only the pooled vectors cross to the host, through pinned memory
(:mod:`wordlens.models.transfer`, :func:`~wordlens.models.batch_runs.run_batches`). The host's
work per target is vectorized: one call of the Rust tokenizer (:func:`tokenize`), the alignment
of every target at once (:func:`~wordlens.models.align.subtoken_spans`). With right
padding and an attention mask, a row's hidden states do not depend on the other rows, so batched
vectors equal one-at-a-time vectors (to float32 rounding; tested to 1e-5).

Causal models compute each head that several texts of a batch share ("This is" in "This is
{word}", "a young thin" in "a young thin tall ... person") once: the batch's texts form a prefix
tree, computed one depth per pass, each pass reading its ancestors' keys and values
(:mod:`wordlens.models.prefix`); ``prefix_reuse=False`` turns this off. Encoders see every token
from both sides and never reuse: their batch is one plain padded pass.

Causal models see a BOS token first when their tokenizer adds none (GPT-2, GGUF tokenizers in
transformers 5): otherwise the first word of every text is processed with no context at all and its
vectors are dominated by the first-position "attention sink". ``bos="auto"`` does this, ``"always"``
and ``"never"`` force it; the choice is part of the model fingerprint.
"""

from __future__ import annotations

import gc
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from wordlens.contexts import Target, normalized_target
from wordlens.errors import AlignmentError, EmptyInputError, TargetError
from wordlens.models.align import SubtokenPooling, inside_tokens, subtoken_spans
from wordlens.models.base import (
    Embeddings,
    ModelInfo,
    Pooling,
    WordEmbedder,
    check_pooling,
)
from wordlens.models.batch_runs import BatchWork, run_batches
from wordlens.models.budget import (
    default_max_batch_targets,
    default_pass_cost,
    default_token_budget,
)
from wordlens.models.cache import ActivationCache, CacheStore, Claim, batch_name, target_key
from wordlens.models.output import OutputRows
from wordlens.models.prefix import (
    MIN_PREFIX_TOKENS,
    PASS_COST_TOKENS,
    KeyValuePool,
    PrefixTree,
    TreePass,
    cache_keyword,
    concatenated_ranges,
    padded_rows,
    subtoken_locations,
    supports_prefix_reuse,
    token_batches,
    tree_cache,
    tree_passes,
)
from wordlens.models.readable import unread_reasons
from wordlens.models.spec import ModelSpec
from wordlens.models.transfer import to_host
from wordlens.models.tree_shape import width_groups
from wordlens.progress import progress_bar
from wordlens.stages import count_pass

#: A batch of texts that form a prefix tree holds up to this many token budgets over its passes
#: (each pass within one budget): 4. A tree's tokens are spread over one pass per level, so at one
#: budget a batch's passes are small and many. Measured on the 4,096 intersectional phrases
#: (smollm2-135m, top layer, 2 CPU threads, budget 1,024): 1 budget, 16 batches of 172 passes in
#: all, 41.8 s; 4 budgets, 4 batches, 68 passes, 34.7 s; 16 budgets (one batch, 24 passes) gained
#: nothing more (35.4 s). The 3,840 permutation phrases: 28.9 s against 22.9 s.
TREE_BATCH_BUDGETS = 4


@dataclass(frozen=True)
class Encoded:
    """A tokenized target: token ids (BOS included) and the target's token range."""

    input_ids: list[int]
    span: tuple[int, int]


def batches_by_token_budget(
    lengths: Sequence[int], token_budget: int, max_items: int | None = None
) -> list[list[int]]:
    """Group item indices into batches, longest first, with ``len(batch) * longest <= budget``
    and at most ``max_items`` items.

    Sorting by length keeps padding small; a single item longer than the budget gets a batch of
    its own. (:func:`wordlens.models.prefix.token_batches` of texts that share nothing.)
    """
    # item i as `length` copies of token i: no two items are the same text
    return token_batches(
        [[index] * length for index, length in enumerate(lengths)],
        token_budget,
        None,
        max_texts=max_items,
    )


def plan_batches(
    items: Sequence[Encoded],
    token_budget: int,
    min_shared_tokens: int | None = MIN_PREFIX_TOKENS,
    max_items: int | None = None,
    pass_cost: int = PASS_COST_TOKENS,
) -> list[list[int]]:
    """Batches of at most ``max_items`` item indices whose prefix-tree passes (a level split by
    width at ``pass_cost`` tokens a pass) fit the token budget
    (:func:`wordlens.models.prefix.token_batches`; ``None``: no reuse, no limit)."""
    return token_batches(
        [item.input_ids for item in items],
        token_budget,
        min_shared_tokens,
        pass_cost,
        max_texts=max_items,
    )


def tokenize(
    tokenizer: Any, texts: list[str], *, add_special_tokens: bool = True
) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
    """Token ids (special tokens added unless ``add_special_tokens`` is false) and offset
    mappings of ``texts``, in one call.

    The Rust tokenizer behind a fast tokenizer (``backend_tokenizer``) is called directly when it
    neither pads nor truncates: it gives the ids and offsets transformers would, without the
    Python conversion of each text's encoding that costs more than the tokenization itself
    (13,915 "This is {word}" texts: 0.08 s against 0.35 s for smollm2's tokenizer, 0.25 s
    against 0.40 s for BERT's, on one CPU thread). Otherwise, the tokenizer's own call.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.padding is None and backend.truncation is None:
        encodings = backend.encode_batch(texts, add_special_tokens=add_special_tokens)
        return [e.ids for e in encodings], [e.offsets for e in encodings]
    batch = tokenizer(texts, add_special_tokens=add_special_tokens, return_offsets_mapping=True)
    return batch["input_ids"], batch["offset_mapping"]


WordVectors = tuple[dict[Pooling, npt.NDArray[np.float32]], npt.NDArray[np.int64]]
"""What :func:`embed_batch` returns for a batch."""


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (restored on exit).

    An extraction makes several small objects per target (token lists, tree nodes, keys) and frees
    them when it ends; they hold no reference cycles, but their number sets off full collections
    that scan every object of the process again and again: a fifth to a third of the host's time
    on 13,915 targets (tiny models, one CPU thread). Reference counting still frees them.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class HFEmbedder(WordEmbedder):
    """A loaded Hugging Face model and tokenizer that embed targets layer by layer.

    Parameters
    ----------
    model
        The transformer returning ``hidden_states`` (for encoder-decoder models, the encoder).
    tokenizer
        A fast tokenizer (it must return offset mappings).
    info
        Identity and fingerprint (see :func:`wordlens.models.loading.load_model`).
    bos_token_id
        Token prepended to every text, or ``None``.
    token_budget
        Upper bound on the padded tokens (``rows * longest row``) of one forward pass, and of a
        batch without prefix reuse (one pass); a batch whose texts form a prefix tree holds up to
        :data:`TREE_BATCH_BUDGETS` times as many over its passes (:attr:`batch_token_budget`).
        ``None`` picks :func:`default_token_budget` for the device.
    device
        Torch device the model lives on.
    prefix_reuse
        Compute each head that several texts of a batch share once, through a prefix tree (causal
        models whose layers are all plain full attention; see :mod:`wordlens.models.prefix`). The
        attribute of the same name switches it later; the attribute ``min_prefix_tokens``
        (default :data:`~wordlens.models.prefix.MIN_PREFIX_TOKENS`) is the shortest head shared.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        info: ModelInfo,
        *,
        bos_token_id: int | None,
        token_budget: int | None = None,
        device: str = "cpu",
        prefix_reuse: bool = True,
    ) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise AlignmentError(
                f"the tokenizer of {info.name} is not a fast tokenizer, so it has no offset "
                "mapping; wordlens needs offsets to find a word's subtokens"
            )
        self.model = model
        self.tokenizer = tokenizer
        self._info = info
        #: What loading initialized or left unused, and whether it matters (one line; ``None``:
        #: every weight loaded and used); :func:`~wordlens.models.loading.load_model` warns it.
        self.load_note: str | None = None
        self.bos_token_id = bos_token_id
        self.device = torch.device(device)
        self.token_budget = token_budget or default_token_budget(self.device, model)
        info.details["token_budget"] = self.token_budget  # the one used, in the metadata
        #: Most targets in one batch (:func:`default_max_batch_targets`; ``None``: no limit):
        #: bounds the work an interruption loses, whatever the token budget.
        self.max_batch_targets: int | None = default_max_batch_targets(self.device)
        #: Overlap the host's work on one batch with the device's on the next
        #: (:func:`~wordlens.models.batch_runs.run_batches`): on by default on accelerators; on
        #: the CPU the host is the device, and a batch's result is written as soon as it is done.
        self.pipelined = self.device.type != "cpu"
        #: What one more forward pass costs, in tokens, when a level of a batch's passes is split
        #: by width (:func:`~wordlens.models.budget.default_pass_cost`).
        self.pass_cost_tokens = default_pass_cost(self.device)
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_token_id = int(pad)
        self.max_length = int(getattr(model.config, "max_position_embeddings", 0) or 0) or None
        self.prefix_reuse = prefix_reuse
        self.min_prefix_tokens = MIN_PREFIX_TOKENS
        self._can_reuse = info.kind == "causal" and supports_prefix_reuse(model.config)
        #: How the loader made this model (set by :func:`~wordlens.models.loading.load_model`):
        #: what a worker process of a distributed backend loads its own copy from.
        self.load_spec: ModelSpec | None = None

    @property
    def reuses_prefixes(self) -> bool:
        """Whether ``embed`` computes shared prefixes once (switched on and supported)."""
        return self.prefix_reuse and self._can_reuse

    @property
    def batch_token_budget(self) -> int:
        """Padded tokens of a batch's passes: the token budget, times :data:`TREE_BATCH_BUDGETS`
        when the batch's texts form a prefix tree."""
        return self.token_budget * (TREE_BATCH_BUDGETS if self.reuses_prefixes else 1)

    @property
    def min_shared_tokens(self) -> int | None:
        """Shortest head texts share in a batch's prefix tree; ``None`` when nothing is reused."""
        return self.min_prefix_tokens if self.reuses_prefixes else None

    @property
    def info(self) -> ModelInfo:
        return self._info

    def encode(self, targets: Sequence[Target]) -> list[Encoded]:
        """Tokenize the targets' texts once and locate each target's subtokens.

        For causal models the tokens after the target are dropped: they cannot influence its
        hidden states (causal attention), so computing them is waste — about half of a random
        corpus context.
        """
        rows, offsets = tokenize(self.tokenizer, [target.text for target in targets])
        spans = subtoken_spans(targets, offsets)  # [targets, 2], vectorized
        if self.bos_token_id is not None:
            rows = [[self.bos_token_id, *ids] for ids in rows]
            spans += 1
        if self.max_length is not None:
            too_long = [index for index, ids in enumerate(rows) if len(ids) > self.max_length]
            if too_long:
                text = targets[too_long[0]].text
                raise TargetError(
                    f"text of {len(rows[too_long[0]])} tokens exceeds {self.info.name}'s maximum "
                    f"of {self.max_length}: {text[:80]!r}..."
                )
        causal = self.info.kind == "causal"
        # A causal LM's hidden states at the target never see later tokens: they are dropped.
        encoded = [
            Encoded(ids[:stop] if causal else ids, (first, stop))
            for ids, (first, stop) in zip(rows, spans.tolist(), strict=True)
        ]
        return encoded

    def forward(
        self, items: Sequence[Encoded], layers: Sequence[int], poolings: Sequence[Pooling]
    ) -> WordVectors:
        """One batch: pooled ``[batch, len(layers), dim]`` vectors for each pooling (all from the
        same passes, pooled on the passes' tensors: :class:`~wordlens.models.align.SubtokenPooling`)
        and subtoken counts ``[batch]``."""
        return self.launch(items, layers, poolings)()

    @torch.inference_mode()
    def launch(
        self, items: Sequence[Encoded], layers: Sequence[int], poolings: Sequence[Pooling]
    ) -> Callable[[], WordVectors]:
        """Start one batch (:meth:`forward`) and return the function that waits for it.

        On an accelerator the passes and the pooling are queued on the device, and the pooled
        vectors, the only tensors that cross to the host, are copied to pinned memory without
        waiting (:func:`~wordlens.models.transfer.to_host`): the host is free to prepare the next
        batch while the device computes this one.
        """
        pooling = SubtokenPooling(
            [item.span for item in items], len(layers), self.info.hidden_size, poolings, self.device
        )
        for subtokens, layer_states in self._target_subtokens(items, layers):
            pooling.add(subtokens, layer_states)
        copies = {name: to_host(vectors) for name, vectors in pooling.result().items()}
        counts = pooling.counts.numpy()
        return lambda: ({name: wait() for name, wait in copies.items()}, counts)

    @torch.inference_mode()
    def hidden_states(
        self, items: Sequence[Encoded], layers: Sequence[int] | None = None
    ) -> torch.Tensor:
        """Hidden states of the items' target subtokens, from the passes over their prefix tree.

        Parameters
        ----------
        items
            The batch.
        layers
            Hidden-state layers to return (default: all).

        Returns
        -------
        torch.Tensor
            ``[len(layers), total subtokens, hidden]``: the subtokens of item 0, then item 1's, ...
            Without reuse (or with nothing shared) the tree is one padded pass over the whole
            texts; the same token's hidden states agree between passes to float32 rounding.
        """
        layer_ids = list(range(self.info.n_layers)) if layers is None else list(layers)
        n_subtokens = sum(stop - first for first, stop in (item.span for item in items))
        states = torch.zeros(
            (len(layer_ids), n_subtokens, self.info.hidden_size),
            dtype=self.model.dtype,
            device=self.device,
        )
        for subtokens, layer_states in self._target_subtokens(items, layer_ids):
            on_device = subtokens.to(self.device)
            for slot, subtoken_states in enumerate(layer_states):
                states[slot, on_device] = subtoken_states
        return states

    def _target_subtokens(
        self, items: Sequence[Encoded], layers: Sequence[int]
    ) -> Iterator[tuple[torch.Tensor, list[torch.Tensor]]]:
        """Run the passes over the items' prefix tree; for each pass that computes target
        subtokens, yield their numbers (int64 ``[k]``: item 0's subtokens first, then item 1's,
        ...; on the CPU) and their hidden states ``[k, dim]`` at each of ``layers`` (on the
        device). Without prefix reuse (encoders) the batch's passes are plain padded passes
        (:meth:`_plain_passes`), with no tree."""
        if not self.reuses_prefixes:
            yield from self._plain_passes(items, layers)
            return
        tree = PrefixTree(self.min_shared_tokens, self.pass_cost_tokens, count_padding=False)
        for item in items:
            tree.add(item.input_ids)
        passes, n_slots = tree_passes(tree, self.pad_token_id, self.token_budget)
        pool = KeyValuePool(self.model.config.num_hidden_layers, n_slots)
        locations = subtoken_locations(tree, passes, [item.span for item in items])
        for tree_pass, located in zip(passes, locations, strict=True):
            hidden = self._tree_pass(tree_pass.to(self.device), pool, len(passes) > 1, located)
            if hidden is not None and located is not None:
                subtokens, rows, columns = located
                rows, columns = rows.to(self.device), columns.to(self.device)
                yield subtokens, [hidden[layer][rows, columns] for layer in layers]

    def _plain_passes(
        self, items: Sequence[Encoded], layers: Sequence[int]
    ) -> Iterator[tuple[torch.Tensor, list[torch.Tensor]]]:
        """Right-padded passes over the batch's distinct texts (identical texts share a row),
        built and located with arrays, no prefix tree: the rows split into passes of similar
        widths where the padding saved is worth more than a pass
        (:func:`~wordlens.models.tree_shape.width_groups`, :attr:`pass_cost_tokens`), each of at
        most the token budget. Per pass, the numbers of the target subtokens it computes (item 0's
        first) and their hidden states ``[k, dim]`` at each of ``layers``."""
        row_of: dict[tuple[int, ...], int] = {}
        rows = [row_of.setdefault(tuple(item.input_ids), len(row_of)) for item in items]
        texts = list(row_of)
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))  # [distinct texts]
        spans = np.asarray([item.span for item in items], dtype=np.int64).reshape(-1, 2)
        counts = spans[:, 1] - spans[:, 0]  # [items]: each target's subtokens
        subtoken_row = np.repeat(np.asarray(rows, dtype=np.int64), counts)  # [subtokens]
        subtoken_column = concatenated_ranges(spans[:, 0], counts)  # [subtokens]
        bounds = [*width_groups(Counter(lengths.tolist()), self.pass_cost_tokens), 0]
        for widest, narrower in itertools.pairwise(bounds):
            group = np.flatnonzero((lengths > narrower) & (lengths <= widest))  # [rows]
            per_pass = max(1, self.token_budget // widest)
            for chunk in (
                group[first : first + per_pass] for first in range(0, len(group), per_pass)
            ):
                place = np.full(len(texts), -1, dtype=np.int64)
                place[chunk] = np.arange(len(chunk))  # distinct text -> its row in this pass
                subtokens = np.flatnonzero(place[subtoken_row] >= 0)
                flat = np.fromiter(
                    itertools.chain.from_iterable(texts[row] for row in chunk),
                    np.int64,
                    int(lengths[chunk].sum()),
                )
                input_ids, attention_mask = padded_rows(flat, lengths[chunk], self.pad_token_id)
                outputs = self._forward(
                    input_ids.to(self.device), attention_mask.to(self.device), {}, lengths[chunk]
                )
                row = torch.from_numpy(place[subtoken_row[subtokens]]).to(self.device)
                column = torch.from_numpy(subtoken_column[subtokens]).to(self.device)
                hidden = outputs.hidden_states
                yield torch.from_numpy(subtokens), [hidden[layer][row, column] for layer in layers]

    def _forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        kwargs: dict[str, Any],
        lengths: Sequence[int] | npt.NDArray[np.int64],
        *,
        hidden: bool = True,
    ) -> Any:
        """One forward pass and the model's outputs (with ``hidden``, every layer's hidden states
        ``[rows, width, dim]``; a pass that only fills a key/value pool needs none), its work
        counted in the open stage from the rows' own ``lengths`` (:func:`~wordlens.stages.
        count_pass`, padding apart). A causal model keeps no cache of its own unless ``kwargs``
        passes one."""
        if self.info.kind == "causal" and "use_cache" not in kwargs:
            kwargs = {**kwargs, "use_cache": False}
        outputs = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            output_hidden_states=hidden,
            **kwargs,
        )
        count_pass(lengths, input_ids.shape[1])
        return outputs

    def _tree_pass(
        self, tree_pass: TreePass, pool: KeyValuePool, through_pool: bool, located: object
    ) -> tuple[torch.Tensor, ...] | None:
        """One pass of a prefix tree (:meth:`_forward`): every layer's hidden states if it
        computes target subtokens (``located`` is not ``None``). A pass of a tree with several
        reads and writes keys and values through ``pool``."""
        kwargs: dict[str, Any] = {}
        if through_pool:
            kwargs[cache_keyword(self.model)] = tree_cache(pool, tree_pass)
            kwargs.update(use_cache=True, position_ids=tree_pass.position_ids)
        hidden = located is not None
        lengths = [node.length for node in tree_pass.nodes]
        outputs = self._forward(
            tree_pass.input_ids, tree_pass.attention_mask, kwargs, lengths, hidden=hidden
        )
        return tuple(outputs.hidden_states) if hidden else None

    def embed(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None = None,
        pooling: Pooling = "mean",
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> Embeddings:
        return self.embed_poolings(targets, layers, [pooling], cache=cache, progress=progress)[
            check_pooling(pooling)
        ]

    def embed_poolings(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None,
        poolings: Sequence[Pooling],
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> dict[Pooling, Embeddings]:
        """Vectors under several poolings from one forward pass per batch.

        Each pooling has its own cache store; a target is computed when any requested pooling
        lacks it, and every pooling of that batch is then taken from the same hidden states.
        """
        if not targets:
            raise EmptyInputError("no targets to embed")
        if not poolings:
            raise EmptyInputError("no pooling requested")
        read = [normalized_target(target, self.unicode_form) for target in targets]
        with collection_paused():
            return self._embed_poolings(read, layers, poolings, cache, progress)

    def inside_tokens(self, targets: Sequence[Target]) -> list[int]:
        read = [normalized_target(target, self.unicode_form) for target in targets]
        _, offsets = tokenize(self.tokenizer, [target.text for target in read])
        return np.flatnonzero(inside_tokens(read, offsets)).tolist()

    def missing_reasons(self, words: Sequence[str], *, tell_apart: bool = True) -> dict[str, str]:
        """The words the tokenizer reads only as unknown tokens, or (``tell_apart``) as the same
        subtokens as another word (:func:`~wordlens.models.readable.unread_reasons`)."""
        return unread_reasons(self.tokenizer, words, self.spelling, tell_apart=tell_apart)

    def _embed_poolings(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None,
        poolings: Sequence[Pooling],
        cache: ActivationCache | None,
        progress: bool,
    ) -> dict[Pooling, Embeddings]:
        layer_ids = self.resolve_layers(layers)
        chosen = tuple(dict.fromkeys(check_pooling(pooling) for pooling in poolings))
        work = _WordVectorWork(self, targets, layer_ids, chosen, cache)
        # Batches are formed over all unique targets, cached or not, and a batch is written to
        # the cache as one shard per pooling. So after an interrupted run every batch is either
        # wholly cached or wholly missing, the rerun computes exactly the missing batches with
        # the same composition, and its vectors are bit-identical to an uninterrupted run's.
        # A batch's prefix tree depends only on the batch's texts, so it does not depend on what
        # the cache holds either. The batches run on the current backend (in process by
        # default, see wordlens.models.backend), each claimed in the cache first so that a
        # concurrent run does not compute it too (wordlens.models.batch_runs); only this
        # process writes the cache.
        batches = plan_batches(
            work.encoded,
            self.batch_token_budget,
            self.min_shared_tokens,
            self.max_batch_targets,
            self.pass_cost_tokens,
        )
        complete = work.complete(np.arange(len(work.unique)))
        missing = [batch for batch in batches if not complete[batch].all()]
        n_todo = sum(int((~complete[batch]).sum()) for batch in missing)
        with progress_bar(progress and n_todo > 0, n_todo, self.info.name) as advance:
            work.advance = advance
            launch = launch_embed_batch if self.pipelined else None
            run_batches(embed_batch, self, missing, work, launch=launch)
        return work.result()


@dataclass(frozen=True)
class WordVectorBatch:
    """Targets of one batch (tokenized), the layers kept and the poolings applied: the payload of
    :func:`embed_batch`."""

    items: tuple[Encoded, ...]
    layers: tuple[int, ...]
    poolings: tuple[Pooling, ...]


def embed_batch(embedder: HFEmbedder, payload: WordVectorBatch) -> WordVectors:
    """The backend operation of word vectors (:mod:`wordlens.models.backend`): pooled vectors
    ``[batch, layers, dim]`` per pooling and subtoken counts ``[batch]``
    (:meth:`HFEmbedder.forward`)."""
    return embedder.forward(payload.items, payload.layers, payload.poolings)


def launch_embed_batch(embedder: HFEmbedder, payload: WordVectorBatch) -> Callable[[], WordVectors]:
    """:func:`embed_batch` started on the device; the returned function waits for its result
    (:meth:`HFEmbedder.launch`)."""
    return embedder.launch(payload.items, payload.layers, payload.poolings)


class _WordVectorWork(BatchWork[WordVectorBatch, WordVectors]):
    """The batches of :meth:`HFEmbedder.embed_poolings`: the output arrays, what the cache holds
    and what is left. A unit is a *slot*: an index into :attr:`unique`, the position of the first
    target of each key; duplicates are copied at the end."""

    def __init__(
        self,
        embedder: HFEmbedder,
        targets: Sequence[Target],
        layers: tuple[int, ...],
        poolings: tuple[Pooling, ...],
        cache: ActivationCache | None,
    ) -> None:
        info = embedder.info
        self.shape = (len(targets), len(layers), info.hidden_size)
        self.layers, self.poolings = layers, poolings
        self.vectors = {pooling: OutputRows(self.shape) for pooling in poolings}
        self.n_subtokens = np.zeros(len(targets), dtype=np.int64)
        # the cache's keys (a hash of each target) where there is a cache; else any unique text
        identify: Callable[[Target], str] = target_key if cache is not None else _plain_key
        self.keys = [identify(target) for target in targets]
        self.first_of_key: dict[str, int] = {}
        for position, key in enumerate(self.keys):
            self.first_of_key.setdefault(key, position)
        self.unique = np.array(sorted(self.first_of_key.values()), dtype=np.int64)
        self.done = {pooling: np.zeros(len(targets), dtype=bool) for pooling in poolings}
        self.stores: dict[Pooling, CacheStore] = {}
        if cache is not None:
            for pooling in poolings:
                self.stores[pooling] = cache.store(
                    model=info.name,
                    fingerprint=info.fingerprint,
                    pooling=pooling,
                    layers=layers,
                    hidden_size=info.hidden_size,
                )
        self.encoded = embedder.encode([targets[position] for position in self.unique])
        self.advance: Callable[[int], None] = lambda _n: None
        self.read(range(len(self.unique)))

    def complete(self, slots: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Per slot of ``slots``, whether every pooling of its target is in place."""
        positions = self.unique[np.asarray(slots, dtype=np.int64)]
        done = [self.done[pooling][positions] for pooling in self.poolings]
        complete: npt.NDArray[np.bool_] = np.logical_and.reduce(done)
        return complete

    def read(self, slots: Sequence[int]) -> None:
        """Fill, per pooling, the slots that pooling still lacks from its cache store (one shard
        at a time: :meth:`~wordlens.models.cache.CacheStore.read_shards`)."""
        for pooling, store in self.stores.items():
            positions = self.unique[list(slots)]
            positions = positions[~self.done[pooling][positions]]
            positions = positions[store.contains([self.keys[p] for p in positions])]
            shards = store.read_shards([self.keys[p] for p in positions], self.shape[1:])
            for found, vectors, counts in shards:
                self.vectors[pooling].write(positions[found], vectors)
                self.n_subtokens[positions[found]] = counts
                self.done[pooling][positions[found]] = True

    def result(self) -> dict[Pooling, Embeddings]:
        """The finished vectors per pooling, duplicates of a key copied from its first target."""
        duplicates = [
            (position, self.first_of_key[key])
            for position, key in enumerate(self.keys)
            if self.first_of_key[key] != position
        ]
        for position, source in duplicates:
            self.n_subtokens[position] = self.n_subtokens[source]
            for rows in self.vectors.values():
                rows.write([position], rows.read(source)[None])
        return {
            pooling: Embeddings(rows.array(), self.n_subtokens, self.layers, pooling)
            for pooling, rows in self.vectors.items()
        }

    def claim(self, batch: Sequence[int], *, wait: bool) -> Claim | None:
        if not self.stores:
            return Claim(None)
        first = min(self.stores.values(), key=lambda store: store.path)
        name = batch_name(
            [str(store.path) for store in self.stores.values()],
            [self.keys[self.unique[slot]] for slot in batch],
        )
        return first.claim(name, wait=wait)

    def todo(self, batch: Sequence[int]) -> list[int]:
        before = int((~self.complete(batch)).sum())
        for store in self.stores.values():
            store.refresh()
        self.read(batch)
        units = [slot for slot, done in zip(batch, self.complete(batch), strict=True) if not done]
        self.advance(before - len(units))
        return units

    def payload(self, units: Sequence[int]) -> WordVectorBatch:
        return WordVectorBatch(
            tuple(self.encoded[slot] for slot in units), self.layers, self.poolings
        )

    def finish(self, units: Sequence[int], result: WordVectors) -> None:
        """Keep the batch's vectors of each pooling that lacked them (a pooling already read from
        the cache keeps the cached rows, so the result always equals what a rerun reads) and
        write them to that pooling's cache store."""
        pooled, counts = result
        positions = self.unique[list(units)]
        self.n_subtokens[positions] = counts
        for pooling in self.poolings:
            fresh = np.flatnonzero(~self.done[pooling][positions])
            if len(fresh) == len(positions):  # (no copy of the whole batch)
                self.vectors[pooling].write(positions, pooled[pooling])
            else:
                self.vectors[pooling].write(positions[fresh], pooled[pooling][fresh])
            if pooling in self.stores and len(fresh):
                self.stores[pooling].write(
                    [self.keys[positions[i]] for i in fresh], pooled[pooling][fresh], counts[fresh]
                )
            self.done[pooling][positions] = True
        self.advance(len(units))


def _plain_key(target: Target) -> str:
    """A target's identity without hashing: its span and text."""
    return f"{target.start}:{target.end}:{target.text}"
