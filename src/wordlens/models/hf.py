"""Word-in-context vectors from any Hugging Face transformer (causal, masked, encoder, T5 encoder).

One forward pass per batch of texts returns every hidden state; each target's subtokens come from
the tokenizer's offset mapping (:mod:`wordlens.models.align`) and are pooled per layer. Batches are
formed from texts sorted by token length under a token budget (``batch * longest <= budget``),
right-padded with the padding masked, under ``torch.inference_mode``. With right padding and an
attention mask, a row's hidden states do not depend on the other rows, so batched vectors equal
one-at-a-time vectors (to float32 rounding; tested to 1e-5).

Causal models compute a prefix that several texts share ("This is" in "This is {word}") once per
batch and run only the rest of each text against its keys and values
(:mod:`wordlens.models.prefix`); ``prefix_reuse=False`` turns this off. Encoders see every token
from both sides and never reuse.

Causal models see a BOS token first when their tokenizer adds none (GPT-2, GGUF tokenizers in
transformers 5): otherwise the first word of every text is processed with no context at all and its
vectors are dominated by the first-position "attention sink". ``bos="auto"`` does this, ``"always"``
and ``"never"`` force it; the choice is part of the model fingerprint.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import torch

from wordlens._files import user_home
from wordlens.contexts import Target
from wordlens.errors import AlignmentError, EmptyInputError, TargetError
from wordlens.models.align import pool_subtokens, subtoken_span
from wordlens.models.base import Embeddings, ModelInfo, Pooling, WordEmbedder, check_pooling
from wordlens.models.cache import ActivationCache, target_key
from wordlens.models.prefix import (
    MIN_PREFIX_TOKENS,
    assign_rows,
    prefix_cache,
    prefix_states,
    shared_prefix_lengths,
    supports_prefix_reuse,
    token_batches,
)
from wordlens.progress import progress_bar

BosPolicy = Literal["auto", "always", "never"]

#: Outputs larger than this are written to a memory-mapped temporary file instead of RAM.
MEMMAP_THRESHOLD_BYTES = 1 << 30


@dataclass(frozen=True)
class Encoded:
    """A tokenized target: token ids (BOS included), the target's token range, and how many
    leading tokens a shared prefix pass computes (0: none; always ``<= span[0]``)."""

    input_ids: list[int]
    span: tuple[int, int]
    prefix_len: int = 0

    @property
    def prefix(self) -> tuple[int, ...]:
        """The token ids computed in the prefix pass."""
        return tuple(self.input_ids[: self.prefix_len])

    @property
    def suffix(self) -> list[int]:
        """The token ids computed in the item's own pass."""
        return self.input_ids[self.prefix_len :]

    @property
    def suffix_span(self) -> tuple[int, int]:
        """The target's token range within the suffix."""
        return self.span[0] - self.prefix_len, self.span[1] - self.prefix_len


def batches_by_token_budget(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Group item indices into batches, longest first, with ``len(batch) * longest <= budget``.

    Sorting by length keeps padding small; a single item longer than the budget gets a batch of
    its own. (:func:`wordlens.models.prefix.token_batches` with no prefixes.)
    """
    return token_batches([()] * len(lengths), lengths, token_budget)


def plan_batches(items: Sequence[Encoded], token_budget: int) -> list[list[int]]:
    """Batches of item indices under the token budget, prefix and suffix passes counted."""
    return token_batches(
        [item.prefix for item in items], [len(item.suffix) for item in items], token_budget
    )


def pad_right(sequences: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded int64 ids and attention mask, both ``[len(sequences), longest]``."""
    longest = max(len(sequence) for sequence in sequences)
    input_ids = torch.full((len(sequences), longest), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(sequences), longest), dtype=torch.long)
    for row, sequence in enumerate(sequences):
        input_ids[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
        attention_mask[row, : len(sequence)] = 1
    return input_ids, attention_mask


def allocate_output(shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """A zeroed float32 array; memory-mapped to an anonymous temp file when it is large."""
    n_bytes = int(np.prod(shape)) * 4
    if n_bytes <= MEMMAP_THRESHOLD_BYTES:
        return np.zeros(shape, dtype=np.float32)
    spill_dir = user_home() / "tmp"
    spill_dir.mkdir(parents=True, exist_ok=True)
    # unlinked at once; the file lives as long as the mapping does
    backing = tempfile.TemporaryFile(dir=spill_dir)  # noqa: SIM115
    return np.memmap(backing, dtype=np.float32, mode="w+", shape=shape)


def default_token_budget(device: torch.device) -> int:
    """Tokens per forward pass: 1,024 on CPU, 16,384 on accelerators.

    On CPU small batches keep activations in cache: measured on 2 cores with smollm2-135m,
    1,024 tokens per pass ran at 140 words/s against 104 at 4,096 and 62 at 8,192, with a third
    less peak memory (benchmarks/bench_extraction.py). GPUs want large batches.
    """
    return 1024 if device.type == "cpu" else 16384


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
        Upper bound on ``batch size * padded length`` per forward pass; ``None`` picks
        :func:`default_token_budget` for the device.
    device
        Torch device the model lives on.
    prefix_reuse
        Compute a prefix that several texts share once per batch (causal models whose layers are
        all plain full attention; see :mod:`wordlens.models.prefix`). The attribute of the same
        name switches it later; ``min_prefix_tokens`` is the shortest prefix reused.
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
        self.bos_token_id = bos_token_id
        self.device = torch.device(device)
        self.token_budget = token_budget or default_token_budget(self.device)
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_token_id = int(pad)
        self.max_length = int(getattr(model.config, "max_position_embeddings", 0) or 0) or None
        self.prefix_reuse = prefix_reuse
        self.min_prefix_tokens = MIN_PREFIX_TOKENS
        self._can_reuse = info.kind == "causal" and supports_prefix_reuse(model.config)

    @property
    def reuses_prefixes(self) -> bool:
        """Whether ``embed`` computes shared prefixes once (switched on and supported)."""
        return self.prefix_reuse and self._can_reuse

    @property
    def info(self) -> ModelInfo:
        return self._info

    def encode(self, targets: Sequence[Target]) -> list[Encoded]:
        """Tokenize the targets' texts once and locate each target's subtokens.

        For causal models the tokens after the target are dropped: they cannot influence its
        hidden states (causal attention), so computing them is waste — about half of a random
        corpus context.
        """
        texts = [target.text for target in targets]
        batch = self.tokenizer(texts, add_special_tokens=True, return_offsets_mapping=True)
        encoded = []
        for target, ids, offsets in zip(
            targets, batch["input_ids"], batch["offset_mapping"], strict=True
        ):
            ids, offsets = list(ids), [tuple(pair) for pair in offsets]
            if self.bos_token_id is not None:
                ids, offsets = [self.bos_token_id, *ids], [(0, 0), *offsets]
            if self.max_length is not None and len(ids) > self.max_length:
                raise TargetError(
                    f"text of {len(ids)} tokens exceeds {self.info.name}'s maximum of "
                    f"{self.max_length}: {target.text[:80]!r}..."
                )
            span = subtoken_span(target, offsets)
            if self.info.kind == "causal":
                # A causal LM's hidden states at the target never see later tokens: drop them.
                ids = ids[: span[1]]
            encoded.append(Encoded(ids, span))
        return encoded

    def with_shared_prefixes(self, items: Sequence[Encoded]) -> list[Encoded]:
        """The items with ``prefix_len`` set to the head of their context (tokens before the
        target) that another item's context shares too
        (:func:`wordlens.models.prefix.shared_prefix_lengths`)."""
        lengths = shared_prefix_lengths(
            [item.input_ids[: item.span[0]] for item in items], self.min_prefix_tokens
        )
        return [
            replace(item, prefix_len=length) for item, length in zip(items, lengths, strict=True)
        ]

    @torch.inference_mode()
    def forward(
        self, items: Sequence[Encoded], layers: Sequence[int], poolings: Sequence[Pooling]
    ) -> tuple[dict[Pooling, npt.NDArray[np.float32]], npt.NDArray[np.int64]]:
        """One batch: pooled ``[batch, len(layers), dim]`` vectors for each pooling (all from the
        same hidden states, see :meth:`hidden_states`) and subtoken counts ``[batch]``."""
        hidden_states = self.hidden_states(items)
        spans = torch.tensor(
            [item.suffix_span for item in items], dtype=torch.long, device=self.device
        )
        pooled = {
            pooling: torch.stack(  # pooled layer by layer: no [layers, batch, seq, dim] copy
                [pool_subtokens(hidden_states[layer], spans, pooling) for layer in layers],
                dim=1,
            )
            .float()
            .cpu()
            .numpy()
            for pooling in poolings
        }
        counts = (spans[:, 1] - spans[:, 0]).cpu().numpy().astype(np.int64)
        return pooled, counts

    @torch.inference_mode()
    def hidden_states(self, items: Sequence[Encoded]) -> tuple[torch.Tensor, ...]:
        """Every layer's hidden states ``[batch, longest suffix, dim]`` of the items' suffixes.

        One padded pass over the whole texts when no item has a prefix (the suffix is the text);
        else one pass over the items' prefix rows and one over their suffixes. Hidden states of
        the same token agree between the two to float32 rounding.
        """
        if any(item.prefix_len for item in items):
            return self._suffix_pass(items)
        return self._full_pass(items)

    def _full_pass(self, items: Sequence[Encoded]) -> tuple[torch.Tensor, ...]:
        """Hidden states (one ``[batch, longest, dim]`` per layer) of the whole texts."""
        input_ids, attention_mask = pad_right([item.input_ids for item in items], self.pad_token_id)
        kwargs: dict[str, Any] = {"output_hidden_states": True}
        if self.info.kind == "causal":
            kwargs["use_cache"] = False
        outputs = self.model(
            input_ids=input_ids.to(self.device),
            attention_mask=attention_mask.to(self.device),
            **kwargs,
        )
        return tuple(outputs.hidden_states)

    def _suffix_pass(self, items: Sequence[Encoded]) -> tuple[torch.Tensor, ...]:
        """Hidden states (one ``[batch, longest suffix, dim]`` per layer) of the items' suffixes,
        after one pass over their prefixes."""
        rows, row_of = assign_rows([item.prefix for item in items])
        row_ids, row_mask = pad_right(rows, self.pad_token_id)
        states = prefix_states(self.model, row_ids.to(self.device), row_mask.to(self.device))
        suffix_ids, suffix_mask = pad_right([item.suffix for item in items], self.pad_token_id)
        prefix_lens = torch.tensor([item.prefix_len for item in items], dtype=torch.long)
        visible = torch.arange(row_ids.shape[1])[None, :] < prefix_lens[:, None]
        positions = (
            prefix_lens[:, None] + torch.arange(suffix_ids.shape[1])[None, :]
        ) * suffix_mask
        outputs = self.model(
            input_ids=suffix_ids.to(self.device),
            attention_mask=torch.cat([visible.long(), suffix_mask], dim=1).to(self.device),
            position_ids=positions.to(self.device),
            past_key_values=prefix_cache(states, torch.tensor(row_of, device=self.device)),
            use_cache=True,
            output_hidden_states=True,
        )
        return tuple(outputs.hidden_states)

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
        layer_ids = self.resolve_layers(layers)
        chosen = tuple(dict.fromkeys(check_pooling(pooling) for pooling in poolings))
        info = self.info
        shape = (len(targets), len(layer_ids), info.hidden_size)
        vectors = {pooling: allocate_output(shape) for pooling in chosen}
        n_subtokens = np.zeros(len(targets), dtype=np.int64)

        keys = [target_key(target) for target in targets]
        first_of_key: dict[str, int] = {}
        for position, key in enumerate(keys):
            first_of_key.setdefault(key, position)
        unique = sorted(first_of_key.values())
        done = {pooling: np.zeros(len(targets), dtype=bool) for pooling in chosen}
        stores = {}
        if cache is not None:
            unique_keys = [keys[i] for i in unique]
            for pooling in chosen:
                stores[pooling] = cache.store(
                    model=info.name,
                    fingerprint=info.fingerprint,
                    pooling=pooling,
                    layers=layer_ids,
                    hidden_size=info.hidden_size,
                )
                unique_vectors = allocate_output((len(unique), *shape[1:]))
                unique_counts = np.zeros(len(unique), dtype=np.int64)
                found = stores[pooling].read_into(unique_keys, unique_vectors, unique_counts)
                for slot in np.flatnonzero(found):
                    vectors[pooling][unique[slot]] = unique_vectors[slot]
                    n_subtokens[unique[slot]] = unique_counts[slot]
                    done[pooling][unique[slot]] = True
                del unique_vectors
        complete = np.logical_and.reduce([done[pooling] for pooling in chosen])
        # Batches are formed over all unique targets, cached or not, and a batch is written to
        # the cache as one shard per pooling. So after an interrupted run every batch is either
        # wholly cached or wholly missing, the rerun computes exactly the missing batches with
        # the same composition, and its vectors are bit-identical to an uninterrupted run's.
        # Shared prefixes are planned over the same set, so batches and prefixes do not depend on
        # what the cache holds either.
        encoded = self.encode([targets[position] for position in unique])
        if self.reuses_prefixes:
            encoded = self.with_shared_prefixes(encoded)
        batches = plan_batches(encoded, self.token_budget)
        n_todo = int((~complete[unique]).sum())
        with progress_bar(progress and n_todo > 0, n_todo, info.name) as advance:
            for batch in batches:
                need = [slot for slot in batch if not complete[unique[slot]]]
                if not need:
                    continue
                pooled, batch_counts = self.forward(
                    [encoded[slot] for slot in need], layer_ids, chosen
                )
                positions = [unique[slot] for slot in need]
                n_subtokens[positions] = batch_counts
                for pooling in chosen:
                    vectors[pooling][positions] = pooled[pooling]
                    fresh = [i for i, p in enumerate(positions) if not done[pooling][p]]
                    if pooling in stores and fresh:
                        stores[pooling].write(
                            [keys[positions[i]] for i in fresh],
                            pooled[pooling][fresh],
                            batch_counts[fresh],
                        )
                advance(len(need))
        duplicates = [
            (position, first_of_key[key])
            for position, key in enumerate(keys)
            if first_of_key[key] != position
        ]
        for position, source in duplicates:
            n_subtokens[position] = n_subtokens[source]
            for pooling in chosen:
                vectors[pooling][position] = vectors[pooling][source]
        return {
            pooling: Embeddings(vectors[pooling], n_subtokens, layer_ids, pooling)
            for pooling in chosen
        }
