"""Word-in-context vectors from any Hugging Face transformer (causal, masked, encoder, T5 encoder).

One forward pass per batch of texts returns every hidden state; each target's subtokens come from
the tokenizer's offset mapping (:mod:`wordlens.models.align`) and are pooled per layer. Batches are
formed from texts sorted by token length under a token budget (``batch * longest <= budget``),
right-padded with the padding masked, under ``torch.inference_mode``. With right padding and an
attention mask, a row's hidden states do not depend on the other rows, so batched vectors equal
one-at-a-time vectors (to float32 rounding; tested to 1e-5).

Causal models see a BOS token first when their tokenizer adds none (GPT-2, GGUF tokenizers in
transformers 5): otherwise the first word of every text is processed with no context at all and its
vectors are dominated by the first-position "attention sink". ``bos="auto"`` does this, ``"always"``
and ``"never"`` force it; the choice is part of the model fingerprint.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
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
from wordlens.progress import progress_bar

BosPolicy = Literal["auto", "always", "never"]

#: Outputs larger than this are written to a memory-mapped temporary file instead of RAM.
MEMMAP_THRESHOLD_BYTES = 1 << 30


@dataclass(frozen=True)
class Encoded:
    """A tokenized target: token ids (BOS included) and the target's token range."""

    input_ids: list[int]
    span: tuple[int, int]


def batches_by_token_budget(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Group item indices into batches, longest first, with ``len(batch) * longest <= budget``.

    Sorting by length keeps padding small; a single item longer than the budget gets a batch of
    its own.
    """
    order = sorted(range(len(lengths)), key=lambda index: (-lengths[index], index))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for index in order:
        candidate_longest = max(longest, lengths[index])
        if current and candidate_longest * (len(current) + 1) > token_budget:
            batches.append(current)
            current, longest = [], 0
            candidate_longest = lengths[index]
        current.append(index)
        longest = candidate_longest
    if current:
        batches.append(current)
    return batches


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

    @property
    def info(self) -> ModelInfo:
        return self._info

    def encode(self, targets: Sequence[Target]) -> list[Encoded]:
        """Tokenize the targets' texts once and locate each target's subtokens."""
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
            encoded.append(Encoded(ids, subtoken_span(target, offsets)))
        return encoded

    @torch.inference_mode()
    def forward(
        self, items: Sequence[Encoded], layers: Sequence[int], pooling: Pooling
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """One padded forward pass: pooled ``[batch, len(layers), dim]`` vectors and counts."""
        longest = max(len(item.input_ids) for item in items)
        input_ids = torch.full((len(items), longest), self.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((len(items), longest), dtype=torch.long)
        for row, item in enumerate(items):
            input_ids[row, : len(item.input_ids)] = torch.tensor(item.input_ids)
            attention_mask[row, : len(item.input_ids)] = 1
        kwargs: dict[str, Any] = {"output_hidden_states": True}
        if self.info.kind == "causal":
            kwargs["use_cache"] = False
        outputs = self.model(
            input_ids=input_ids.to(self.device),
            attention_mask=attention_mask.to(self.device),
            **kwargs,
        )
        spans = torch.tensor([item.span for item in items], dtype=torch.long, device=self.device)
        pooled = torch.stack(  # pooled layer by layer: no [layers, batch, seq, dim] copy
            [pool_subtokens(outputs.hidden_states[layer], spans, pooling) for layer in layers],
            dim=1,
        )
        counts = (spans[:, 1] - spans[:, 0]).cpu().numpy().astype(np.int64)
        return pooled.float().cpu().numpy(), counts

    def embed(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None = None,
        pooling: Pooling = "mean",
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> Embeddings:
        if not targets:
            raise EmptyInputError("no targets to embed")
        layer_ids = self.resolve_layers(layers)
        pooling = check_pooling(pooling)
        info = self.info
        vectors = allocate_output((len(targets), len(layer_ids), info.hidden_size))
        n_subtokens = np.zeros(len(targets), dtype=np.int64)

        keys = [target_key(target) for target in targets]
        first_of_key: dict[str, int] = {}
        for position, key in enumerate(keys):
            first_of_key.setdefault(key, position)
        unique = sorted(first_of_key.values())
        done = np.zeros(len(targets), dtype=bool)
        store = None
        if cache is not None:
            store = cache.store(
                model=info.name,
                fingerprint=info.fingerprint,
                pooling=pooling,
                layers=layer_ids,
                hidden_size=info.hidden_size,
            )
            unique_keys = [keys[i] for i in unique]
            unique_vectors = allocate_output((len(unique), len(layer_ids), info.hidden_size))
            unique_counts = np.zeros(len(unique), dtype=np.int64)
            found = store.read_into(unique_keys, unique_vectors, unique_counts)
            for slot in np.flatnonzero(found):
                vectors[unique[slot]] = unique_vectors[slot]
                n_subtokens[unique[slot]] = unique_counts[slot]
                done[unique[slot]] = True
            del unique_vectors
        # Batches are formed over all unique targets, cached or not, and a batch is written to
        # the cache as one shard. So after an interrupted run every batch is either wholly cached
        # or wholly missing, the rerun computes exactly the missing batches with the same
        # composition, and its vectors are bit-identical to an uninterrupted run's.
        encoded = self.encode([targets[position] for position in unique])
        lengths = [len(item.input_ids) for item in encoded]
        batches = batches_by_token_budget(lengths, self.token_budget)
        n_todo = int((~done[unique]).sum())
        with progress_bar(progress and n_todo > 0, n_todo, info.name) as advance:
            for batch in batches:
                need = [slot for slot in batch if not done[unique[slot]]]
                if not need:
                    continue
                batch_vectors, batch_counts = self.forward(
                    [encoded[slot] for slot in need], layer_ids, pooling
                )
                positions = [unique[slot] for slot in need]
                vectors[positions] = batch_vectors
                n_subtokens[positions] = batch_counts
                if store is not None:
                    store.write([keys[p] for p in positions], batch_vectors, batch_counts)
                advance(len(need))
        for position, key in enumerate(keys):
            source = first_of_key[key]
            if source != position:
                vectors[position] = vectors[source]
                n_subtokens[position] = n_subtokens[source]
        return Embeddings(vectors, n_subtokens, layer_ids, pooling)
