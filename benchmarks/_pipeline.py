"""What the pipeline benchmarks share (``bench_gpu.py`` on an accelerator, ``bench_host.py`` on the
CPU): random-initialised models of real shapes with the real tokenizers, the workloads, and the
plain transformers loops they are measured against.

No weights can be downloaded where these benchmarks run, and none are needed: a random-initialised
model of a real shape costs the compute and memory of the real model, and the tokenizers are the
real ones (the BERT tokenizer of the ``minilm-l6-mlm`` fixture, BERT-base's vocabulary, and the
tokenizer of the ``smollm2-135m`` alias). ``prepare`` writes the tokenizers, the targets and the
sentences to one folder, so the run needs neither the data registry nor the alias packages.

Shapes (``SHAPES``):

- ``bert-base``: ``BertConfig()``'s defaults, BERT-base (12 layers, 768 wide, 110 M parameters);
- ``smollm2-135m``: the config of the ``smollm2-135m`` alias (30 layers, 576 wide);
- ``smollm2-1.7b``: SmolLM2-1.7B's shape (24 layers, 2,048 wide, 32 heads, feed-forward 8,192);
- ``tiny-bert``, ``tiny-llama``: 2 layers, 64 wide, for the host's cost (compute is negligible).

The peers are what a careful user writes with transformers alone, doing the same work as wordlens:

- **fair word-vector peer** (:func:`fair_vectors`): all texts in one tokenizer call (ids and
  offsets as numpy arrays, :func:`tokenized_arrays`), padded by array indexing; each target's
  subtokens located by array operations on the offsets; each distinct text computed once, for a
  causal model cut after the last subtoken of its last target (no target's hidden states see later
  tokens: wordlens drops them too), for an encoder in full; rows sorted longest first and grouped
  so that ``rows * longest <= token_budget`` with at most ``max_batch_targets`` rows, the
  embedder's own two numbers (:attr:`HFEmbedder.token_budget`: 1,024 on the CPU, sized from free
  memory on an accelerator); ``output_hidden_states=True`` under ``torch.inference_mode``, the
  pooled rows gathered on the device and copied to the host once a pass;
- **fair PLL peer** (:func:`batched_pll`): all sentences in one tokenizer call; sentences sorted
  longest first and grouped so that all masked copies of a group fit one padded pass of
  ``copies * longest <= pll_token_budget(token_budget)`` tokens (wordlens' PLL budget); the copies
  built by indexing, the encoder run on them and the masked-LM head only at each copy's masked
  position;
- **old peers**, kept as extra rows so that the change in the ratios shows:
  :func:`plain_last_subtoken_vectors` (full texts even for a causal model, ``PLAIN_BATCH`` texts a
  pass padded row by row) and :func:`plain_pll` (``PLAIN_PLL_BATCH`` copies a pass).

Differences are checked, not only printed (:func:`check_limits`): vectors within
:data:`VECTOR_LIMIT` of each layer's scale, scores within :data:`SCORE_LIMIT` (float32; the looser
bfloat16 limits catch a wrong row, not rounding).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from _harness import right_padded

#: Texts per pass of the old plain loop (:func:`plain_last_subtoken_vectors`).
PLAIN_BATCH = 256

#: Masked copies per pass of the old careful PLL loop (:func:`plain_pll`).
PLAIN_PLL_BATCH = 256

#: Largest ``max |ours - peer| / max |peer|`` of a layer (float32) a benchmark accepts.
VECTOR_LIMIT = 1e-5

#: Largest absolute difference of a log-probability score (float32) a benchmark accepts.
SCORE_LIMIT = 1e-4

#: The limits in bfloat16 (vectors relative to each layer's scale, scores absolute): passes of
#: other shapes round differently, so these catch a wrong row or position, not rounding.
BF16_LIMITS = (5e-2, 5e-2)

TINY = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 128,
}

#: name -> (architecture, tokenizer folder, config overrides)
SHAPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "bert-base": ("bert", "bert", {}),
    "smollm2-135m": ("llama", "smollm2", {}),
    "smollm2-1.7b": (
        "llama",
        "smollm2",
        {
            "hidden_size": 2048,
            "intermediate_size": 8192,
            "num_hidden_layers": 24,
            "num_attention_heads": 32,
            "num_key_value_heads": 32,
            "rope_theta": 130000.0,
        },
    ),
    "tiny-bert": ("bert", "bert", TINY),
    "tiny-llama": ("llama", "smollm2", {**TINY, "num_key_value_heads": 1}),
}

Vectors = npt.NDArray[np.float32]
"""Word vectors ``[targets, layers, dim]``."""


# ---------------------------------------------------------------- prepare (where the data is)


def prepare(folder: Path, n_sentences: int) -> None:
    """Write the tokenizers, the smollm2 config, the targets and the CrowS-Pairs sentences."""
    from transformers import AutoTokenizer

    from wordlens.contexts import targets_from_template
    from wordlens.methods.vast.experiments import setting_targets
    from wordlens.models.loading import load_model
    from wordlens.resources import load_bias_pairs, load_lexicon

    folder.mkdir(parents=True, exist_ok=True)
    shared = Path(os.environ.get("WORDLENS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    fixture = shared / "models" / "minilm-l6-mlm"
    AutoTokenizer.from_pretrained(fixture).save_pretrained(folder / "bert")
    smollm2 = load_model("smollm2-135m")
    smollm2.tokenizer.save_pretrained(folder / "smollm2")  # type: ignore[attr-defined]
    smollm2.model.config.to_json_file(folder / "smollm2" / "model_config.json")  # type: ignore[attr-defined]
    words = list(load_lexicon("warriner").data["word"].astype(str))
    template = targets_from_template(words)
    by_word, report = setting_targets("random", words, {}, seed=0)
    without = set(report["without_corpus_context"])
    corpus = [target for word, target in by_word.items() if word not in without]
    pairs = load_bias_pairs("crows").head((n_sentences + 1) // 2)
    sentences = [
        s
        for pair in zip(pairs["sentence_stereo"], pairs["sentence_anti"], strict=True)
        for s in pair
    ]
    for name, targets in (("template", template), ("corpus", corpus)):
        rows = [[t.text, t.start, t.end] for t in targets]
        (folder / f"{name}.json").write_text(json.dumps(rows))
    (folder / "crows.json").write_text(json.dumps(sentences[:n_sentences]))


def read_targets(folder: Path, name: str) -> list[Any]:
    """The targets ``prepare`` wrote (``template`` or ``corpus``)."""
    from wordlens.contexts import Target

    rows = json.loads((folder / f"{name}.json").read_text())
    return [Target(text, start, end) for text, start, end in rows]


# ---------------------------------------------------------------- models


def make_model_dir(
    folder: Path, shape: str, out: Path, *, masked_head: bool = False, device: str = "cpu"
) -> Path:
    """A random-initialised model of ``shape`` (seed 0) saved with its real tokenizer in
    ``out``; ``masked_head``: BERT with its masked-LM head (for PLL and eq. 6)."""
    from transformers import (
        AutoTokenizer,
        BertConfig,
        BertForMaskedLM,
        BertModel,
        LlamaConfig,
        LlamaForCausalLM,
    )

    architecture, tokenizer_dir, overrides = SHAPES[shape]
    tokenizer = AutoTokenizer.from_pretrained(folder / tokenizer_dir)
    torch.manual_seed(0)
    with torch.device(device):
        if architecture == "bert":
            config = BertConfig(vocab_size=len(tokenizer), **overrides)
            model: Any = BertForMaskedLM(config) if masked_head else BertModel(config)
        else:
            values = json.loads((folder / tokenizer_dir / "model_config.json").read_text())
            values.update(overrides)
            config = LlamaConfig(**{k: v for k, v in values.items() if k != "architectures"})
            config.architectures = ["LlamaForCausalLM"]
            model = LlamaForCausalLM(config)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def parameter_count(model: Any) -> int:
    """Parameters that are multiplied per token (the embedding tables are looked up)."""
    embedding = sum(
        module.weight.numel()
        for module in model.modules()
        if isinstance(module, torch.nn.Embedding)
    )
    return sum(parameter.numel() for parameter in model.parameters()) - embedding


# ---------------------------------------------------------------- the plain loops


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (nothing to wait for on the CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def reset_peak_memory(device: torch.device) -> None:
    """Start counting the device's peak memory afresh (CUDA only)."""
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory(device: torch.device) -> int:
    """Peak bytes allocated on the device since :func:`reset_peak_memory` (0 off CUDA)."""
    return int(torch.cuda.max_memory_allocated(device)) if device.type == "cuda" else 0


def timed(function: Callable[[], Any], device: torch.device) -> tuple[float, Any]:
    """Wall-clock seconds of one call (the device synchronized before and after) and its
    result."""
    synchronize(device)
    start = time.perf_counter()
    result = function()
    synchronize(device)
    return time.perf_counter() - start, result


@torch.inference_mode()
def plain_last_subtoken_vectors(
    model: Any, tokenizer: Any, targets: Sequence[Any], bos: int | None, device: torch.device
) -> Vectors:
    """Each target's last subtoken at every layer, ``[targets, layers, dim]`` float32, from
    the plain loop (module notes; causal models see the whole text, as a user's loop would)."""
    encoded = tokenizer([t.text for t in targets], return_offsets_mapping=True)
    prefix = [] if bos is None else [bos]
    rows = [[*prefix, *ids] for ids in encoded["input_ids"]]
    last = []
    for target, offsets in zip(targets, encoded["offset_mapping"], strict=True):
        hits = [
            index
            for index, (start, end) in enumerate(offsets)
            if end > start and start < target.end and end > target.start
        ]
        last.append(hits[-1] + len(prefix))
    order = sorted(range(len(rows)), key=lambda index: len(rows[index]))
    n_layers = model.config.num_hidden_layers + 1
    out = np.empty((len(targets), n_layers, model.config.hidden_size), dtype=np.float32)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    for first in range(0, len(order), PLAIN_BATCH):
        batch = order[first : first + PLAIN_BATCH]
        input_ids, mask = right_padded([rows[index] for index in batch], pad)
        hidden = model(
            input_ids=input_ids.to(device),
            attention_mask=mask.to(device),
            output_hidden_states=True,
        ).hidden_states
        picked = torch.tensor([last[index] for index in batch], device=device)
        batch_rows = torch.arange(len(batch), device=device)
        gathered = torch.stack([layer[batch_rows, picked] for layer in hidden], dim=1)
        out[batch] = gathered.float().cpu().numpy()
    return out


@torch.inference_mode()
def plain_pll(
    model: Any, tokenizer: Any, sentences: Sequence[str], device: torch.device
) -> npt.NDArray[np.float64]:
    """Mean PLL per sentence from the careful loop: every masked copy of every sentence, sorted
    by length, :data:`PLAIN_PLL_BATCH` copies per pass through the encoder, the masked-LM head
    run only at each copy's masked position."""
    encoded = tokenizer(list(sentences))["input_ids"]
    copies = [
        (sentence, position, ids)
        for sentence, ids in enumerate(encoded)
        for position in range(1, len(ids) - 1)
    ]
    copies.sort(key=lambda copy: len(copy[2]))
    totals = np.zeros(len(sentences))
    counts = np.zeros(len(sentences))
    pad = tokenizer.pad_token_id or 0
    for first in range(0, len(copies), PLAIN_PLL_BATCH):
        batch = copies[first : first + PLAIN_PLL_BATCH]
        input_ids, mask = right_padded([ids for _, _, ids in batch], pad)
        for row, (_, position, _) in enumerate(batch):
            input_ids[row, position] = tokenizer.mask_token_id
        states = model.bert(
            input_ids=input_ids.to(device), attention_mask=mask.to(device)
        ).last_hidden_state
        positions = torch.tensor([position for _, position, _ in batch], device=device)
        picked = states[torch.arange(len(batch), device=device), positions]
        log_probs = torch.log_softmax(model.cls(picked).float(), dim=-1)
        truth = torch.tensor([ids[position] for _, position, ids in batch], device=device)
        chosen = log_probs[torch.arange(len(batch), device=device), truth].double().cpu().numpy()
        for (sentence, _, _), value in zip(batch, chosen, strict=True):
            totals[sentence] += value
            counts[sentence] += 1
    result: npt.NDArray[np.float64] = totals / counts
    return result


def peer_batches(
    lengths: npt.NDArray[np.int64], token_budget: int, max_rows: int | None = None
) -> list[npt.NDArray[np.intp]]:
    """Row indices per pass: rows sorted longest first (stable), each pass as many as fit
    ``rows * longest <= token_budget`` (at least one), at most ``max_rows``."""
    order = np.argsort(-lengths, kind="stable")
    batches, start = [], 0
    while start < len(order):
        size = max(1, token_budget // int(lengths[order[start]]))
        size = size if max_rows is None else min(size, max_rows)
        batches.append(order[start : start + size])
        start += size
    return batches


@dataclass(frozen=True)
class PeerRows:
    """The fair peer's rows, from one tokenizer call.

    Attributes
    ----------
    input_ids
        One row a distinct text, right-padded ``[rows, width]`` (BOS first where the model has
        one).
    lengths
        Tokens of each row ``[rows]``.
    target_rows
        Each target's row ``[targets]``.
    first, stop
        Each target's subtoken columns ``first:stop`` in its row ``[targets]``.
    """

    input_ids: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    target_rows: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]
    stop: npt.NDArray[np.int64]


def tokenized_arrays(
    tokenizer: Any, texts: list[str]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """One tokenizer call over ``texts`` (special tokens added): the tokens of each text
    ``[texts]``, and every token's id ``[tokens]`` and character offsets ``[tokens, 2]``, text
    after text.

    A fast tokenizer's Rust tokenizer (``backend_tokenizer``, public transformers API) is called
    directly when it neither pads nor truncates, as a tuned user would: it gives the ids and
    offsets of the tokenizer's own call without converting each text's encoding to Python lists
    (about 1.5x faster on these texts); otherwise the tokenizer's own call.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.padding is None and backend.truncation is None:
        encodings = backend.encode_batch(texts)
        ids_of, offsets_of = [e.ids for e in encodings], [e.offsets for e in encodings]
    else:
        encoded = tokenizer(texts, return_offsets_mapping=True)
        ids_of, offsets_of = encoded["input_ids"], encoded["offset_mapping"]
    lengths = np.fromiter(map(len, ids_of), np.int64, len(ids_of))
    total = int(lengths.sum())
    ids = np.fromiter(chain.from_iterable(ids_of), np.int64, total)
    pairs = chain.from_iterable(chain.from_iterable(offsets_of))
    offsets = np.fromiter(pairs, np.int64, 2 * total).reshape(total, 2)
    return lengths, ids, offsets


def peer_rows(tokenizer: Any, targets: Sequence[Any], bos: int | None, cut: bool) -> PeerRows:
    """Tokenize the targets' distinct texts in one call (:func:`tokenized_arrays`) and locate
    each target's subtokens by array operations on the offsets. One row a distinct text, shared by
    its targets; ``cut``: it ends at the last subtoken of its last target (a causal model: later
    tokens change no target's hidden states), otherwise it is the full text."""
    index: dict[str, int] = {}
    text_of = np.fromiter(
        (index.setdefault(t.text, len(index)) for t in targets), np.int64, len(targets)
    )
    starts = np.fromiter((t.start for t in targets), np.int64, len(targets))
    ends = np.fromiter((t.end for t in targets), np.int64, len(targets))
    text_lengths, flat_ids, flat_offsets = tokenized_arrays(tokenizer, list(index))
    width = int(text_lengths.max())
    columns = np.arange(width)
    present = columns < text_lengths[:, None]  # [texts, width]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    ids = np.full((len(text_lengths), width), pad, dtype=np.int64)
    ids[present] = flat_ids  # right-padded, row-major: text after text
    first_token = np.cumsum(text_lengths) - text_lengths
    token = np.minimum(first_token[text_of, None] + columns, len(flat_ids) - 1)
    offsets = flat_offsets[token]  # [targets, width, 2]
    hits = (
        present[text_of]
        & (offsets[..., 1] > offsets[..., 0])
        & (offsets[..., 0] < ends[:, None])
        & (offsets[..., 1] > starts[:, None])
    )
    if not hits.any(axis=1).all():
        raise ValueError("a target covers no subtoken")
    shift = 0 if bos is None else 1
    first = hits.argmax(axis=1) + shift
    stop = width - hits[:, ::-1].argmax(axis=1) + shift
    if bos is not None:
        ids = np.concatenate([np.full((len(ids), 1), bos, dtype=np.int64), ids], axis=1)
    if cut:  # each text once, up to the last subtoken of its last target
        lengths = np.zeros(len(text_lengths), dtype=np.int64)
        np.maximum.at(lengths, text_of, stop)
    else:
        lengths = text_lengths + shift
    rows = ids.copy()
    rows[np.arange(rows.shape[1]) >= lengths[:, None]] = pad
    return PeerRows(rows, lengths, text_of, first, stop)


@torch.inference_mode()
def fair_vectors(
    model: Any,
    tokenizer: Any,
    targets: Sequence[Any],
    *,
    bos: int | None,
    cut: bool,
    token_budget: int,
    max_rows: int | None,
    device: torch.device,
    pooling: str = "last",
) -> Vectors:
    """Each target's vector at every layer, ``[targets, layers, dim]`` float32, from the fair
    peer (module notes): ``pooling`` ``"last"`` (the last subtoken) or ``"mean"`` (of its
    subtokens); ``cut``: rows end at the target (causal models), otherwise full texts."""
    rows = peer_rows(tokenizer, targets, bos, cut)
    batches = peer_batches(rows.lengths, token_budget, max_rows)
    rank = np.empty(len(rows.lengths), dtype=np.int64)  # row -> position in the pass order
    rank[np.concatenate(batches)] = np.arange(len(rows.lengths))
    target_rank = rank[rows.target_rows]
    by_rank = np.argsort(target_rank, kind="stable")  # targets in pass order
    starts = np.cumsum([0, *map(len, batches)])  # each pass's first rank
    bounds = np.searchsorted(target_rank[by_rank], starts)  # each pass's targets in by_rank
    n_layers = model.config.num_hidden_layers + 1
    out = np.empty((len(targets), n_layers, model.config.hidden_size), dtype=np.float32)
    for number, batch in enumerate(batches):
        longest = int(rows.lengths[batch[0]])
        input_ids = torch.from_numpy(rows.input_ids[batch, :longest]).to(device)
        mask = torch.from_numpy(np.arange(longest) < rows.lengths[batch, None]).to(device)
        hidden = model(
            input_ids=input_ids, attention_mask=mask.long(), output_hidden_states=True
        ).hidden_states
        readers = by_rank[bounds[number] : bounds[number + 1]]
        local = torch.from_numpy(target_rank[readers] - starts[number]).to(device)
        if pooling == "last":
            column = torch.from_numpy(rows.stop[readers] - 1).to(device)
            pooled = torch.stack([layer[local, column] for layer in hidden], dim=1)
        else:
            columns = np.arange(longest)
            weights = (columns >= rows.first[readers, None]) & (columns < rows.stop[readers, None])
            weights = weights / weights.sum(axis=1, keepdims=True)
            share = torch.from_numpy(weights).to(device, hidden[0].dtype)
            pooled = torch.stack(
                [torch.einsum("nsd,ns->nd", layer[local], share) for layer in hidden], dim=1
            )
        out[readers] = pooled.float().cpu().numpy()
    return out


def masked_lm_parts(model: Any) -> tuple[Any, Any | None]:
    """A masked LM's encoder and its head (BERT's ``cls``, RoBERTa's ``lm_head``: transform and
    output embedding), or ``None`` for the head where it has neither (then the full logits are
    read)."""
    head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
    return (model.base_model, head) if head is not None else (model, None)


@torch.inference_mode()
def batched_pll(
    model: Any,
    tokenizer: Any,
    sentences: Sequence[str],
    *,
    token_budget: int,
    device: torch.device,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Mean PLL per sentence from the fair peer (module notes), and the tokens scored in each
    ``[sentences]``: every non-special token of every
    sentence masked once, all copies of a group of sentences in one padded pass of
    ``copies * longest <= token_budget`` tokens (``token_budget``: wordlens' PLL budget,
    :func:`wordlens.models.scoring.pll_token_budget`), the head only at the masked positions,
    log-softmax in float32."""
    encoded = tokenizer(
        list(sentences),
        padding=True,
        padding_side="right",
        return_special_tokens_mask=True,
        return_tensors="np",
    )
    ids = encoded["input_ids"].astype(np.int64)
    present = encoded["attention_mask"].astype(bool)
    scored = present & (encoded["special_tokens_mask"] == 0)  # [sentences, width]
    lengths = present.sum(axis=1)
    copies = scored.sum(axis=1)
    encoder, head = masked_lm_parts(model)
    totals = np.zeros(len(sentences))
    order = np.argsort(-lengths, kind="stable")
    start = 0
    while start < len(order):  # a group: as many sentences as fit, longest first
        longest, stop, held = int(lengths[order[start]]), start + 1, int(copies[order[start]])
        while stop < len(order) and (held + copies[order[stop]]) * longest <= token_budget:
            held += int(copies[order[stop]])
            stop += 1
        group = order[start:stop]
        start = stop
        owner, position = np.nonzero(scored[group, :longest])  # each copy's sentence, position
        input_ids = torch.from_numpy(ids[group, :longest][owner]).to(device)
        mask = torch.from_numpy(present[group, :longest][owner]).to(device).long()
        rows = torch.arange(len(owner), device=device)
        columns = torch.from_numpy(position).to(device)
        truth = input_ids[rows, columns].clone()
        input_ids[rows, columns] = tokenizer.mask_token_id
        if head is None:
            logits = model(input_ids=input_ids, attention_mask=mask).logits[rows, columns]
        else:
            states = encoder(input_ids=input_ids, attention_mask=mask).last_hidden_state
            logits = head(states[rows, columns])
        chosen = torch.log_softmax(logits.float(), dim=-1)[rows, truth]
        totals[group] += np.bincount(owner, chosen.double().cpu().numpy(), minlength=len(group))
    return totals / copies, copies.astype(np.int64)


# ---------------------------------------------------------------- measures


def layer_relative_difference(ours: Vectors, reference: Vectors) -> float:
    """Largest ``max |ours - reference| / max |reference|`` over the layers."""
    scale = np.abs(reference).max(axis=(0, 2))
    difference = np.abs(np.asarray(ours) - reference).max(axis=(0, 2))
    return float((difference / np.maximum(scale, 1e-30)).max())


def text_tokens(tokenizer: Any, targets: Sequence[Any], bos: bool, causal: bool) -> int:
    """Tokens a computation of the targets needs, no padding and each text once: the whole text
    (an encoder), or up to the target's last subtoken (a causal model)."""
    texts: dict[str, int] = {}
    for target in targets:
        head = target.text[: target.end] if causal else target.text
        texts[head] = 0
    counts = tokenizer(list(texts))["input_ids"]
    return sum(len(ids) + bos for ids in counts)


def matmul_rate(device: torch.device, dtype: torch.dtype, size: int = 8192) -> float:
    """FLOP/s of a ``size``-square matrix product on ``device`` in ``dtype`` (the best of five
    after two warm-ups; random data)."""
    if device.type == "cpu":
        size = min(size, 2048)
    left = torch.randn(size, size, device=device, dtype=dtype)
    right = torch.randn(size, size, device=device, dtype=dtype)
    best = float("inf")
    for repeat in range(7):
        seconds, _ = timed(lambda: left @ right, device)
        if repeat >= 2:
            best = min(best, seconds)
    return 2 * size**3 / best


@dataclass
class Measured:
    """One side of :func:`side_by_side`: seconds per repetition, the last result, the peak device
    memory of the last repetition."""

    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    result: Any = None
    peak_bytes: int = 0

    @property
    def median(self) -> float:
        return float(statistics.median(self.seconds))

    @property
    def cpu_median(self) -> float:
        """Median CPU seconds of this process (all threads) per repetition."""
        return float(statistics.median(self.cpu_seconds))


def side_by_side(
    runs: dict[str, Callable[[Sequence[Any]], Any]],
    items: Sequence[Any],
    repeats: int,
    device: torch.device,
    warm_up: int = 64,
) -> dict[str, Measured]:
    """Run each function on ``items``, interleaved over ``repeats`` (A, B, A, B, ...), after one
    warm-up call each on the first ``warm_up`` items."""
    for run in runs.values():
        run(items[:warm_up])
    measured = {name: Measured() for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            reset_peak_memory(device)
            cpu = time.process_time()
            seconds, measured[name].result = timed(partial(run, items), device)
            measured[name].cpu_seconds.append(time.process_time() - cpu)
            measured[name].seconds.append(seconds)
            measured[name].peak_bytes = peak_memory(device)
    return measured


def paired_ratio(numerator: Measured, denominator: Measured) -> float:
    """Median over repetitions of ``numerator / denominator`` seconds (paired: they ran side by
    side)."""
    pairs = zip(numerator.seconds, denominator.seconds, strict=True)
    return float(statistics.median(top / bottom for top, bottom in pairs))


def embed_last(model: Any, targets: Sequence[Any]) -> Vectors:
    """wordlens' vectors: every layer, last subtoken, no cache."""
    return np.asarray(model.embed(targets, layers=None, pooling="last").vectors)


def plain_for(model: Any, device: torch.device) -> Callable[[Sequence[Any]], Vectors]:
    """The old plain loop (full texts, :data:`PLAIN_BATCH` a pass) over a wordlens model's own
    transformers model and tokenizer."""
    return lambda targets: plain_last_subtoken_vectors(
        model.model, model.tokenizer, targets, model.bos_token_id, device
    )


def is_causal(model: Any) -> bool:
    """Whether a wordlens embedder's model is causal (the fair peer then cuts its texts)."""
    return bool(model.info.kind == "causal")


def fair_for(
    model: Any, device: torch.device, pooling: str = "last"
) -> Callable[[Sequence[Any]], Vectors]:
    """The fair peer (:func:`fair_vectors`) over a wordlens embedder's own transformers model and
    tokenizer, with its BOS token, token budget and most rows a batch; texts cut after the
    target for a causal model, full for an encoder."""
    return lambda targets: fair_vectors(
        model.model,
        model.tokenizer,
        targets,
        bos=model.bos_token_id,
        cut=is_causal(model),
        token_budget=model.token_budget,
        max_rows=model.max_batch_targets,
        device=device,
        pooling=pooling,
    )


def limits_for(dtype: str) -> tuple[float, float]:
    """(vector limit relative to each layer's scale, absolute score limit) for ``dtype``."""
    return (VECTOR_LIMIT, SCORE_LIMIT) if dtype == "float32" else BF16_LIMITS


def check_limits(failures: Sequence[str]) -> None:
    """Exit non-zero, naming them, if any comparison was past its limit (after the tables)."""
    if failures:
        raise SystemExit("past the limit: " + "; ".join(failures))
