"""How much work one forward pass and one batch hold on a device.

On the CPU small passes keep activations in cache (:data:`CPU_TOKEN_BUDGET`). On an accelerator
the token budget is sized from the device's free memory and the model's shape
(:func:`accelerator_token_budget`), so a large card runs few, full passes and a small one does not
run out of memory; the padded tokens of each pass stay within it.
"""

from __future__ import annotations

from typing import Any

import torch

from wordlens.models.prefix import PASS_COST_TOKENS

#: Padded tokens per forward pass on the CPU: 1,024. Measured on 2 cores with smollm2-135m,
#: 1,024 tokens per pass ran at 140 words/s against 104 at 4,096 and 62 at 8,192, with a third
#: less peak memory (benchmarks/bench_extraction.py).
CPU_TOKEN_BUDGET = 1024

#: Bounds of an accelerator's token budget: at least 16,384 (the former fixed budget), at most
#: 262,144 (beyond it a pass of BERT-base already runs for a tenth of a second on an H200, so
#: launch costs are amortized, and an interruption loses little).
ACCELERATOR_TOKEN_BUDGET = (16_384, 262_144)

#: Share of the device's free memory a pass's activations may take: a quarter, leaving room for
#: the allocator's fragmentation, the next batch's inputs and attention's work space.
FREE_MEMORY_SHARE = 0.25

#: What a forward pass costs on an accelerator, in tokens: 8,192. A pass's cost there is the
#: host's work of launching it (measured on an H200 with ``benchmarks/bench_gpu.py --profile``:
#: about 35 ms of host time a pass for SmolLM2-135M's 30 layers, 12 ms for BERT-base's 12), in
#: which the device computes some 4,000 (BERT-base) to 8,000 (SmolLM2-135M) float32 tokens.
ACCELERATOR_PASS_COST = 8192

#: Targets (or sentences) per batch on the CPU: 1,024; on accelerators: 4,096. A batch is the unit
#: of work an interruption loses (it is written to the activation cache when it finishes), and on an
#: accelerator the unit of the pipeline: the host prepares batch i + 1 and stores batch i - 1 while
#: the device computes batch i, so a run needs several (13,915 words: four).
MAX_BATCH_TARGETS = {"cpu": 1024, "accelerator": 4096}


def bytes_per_token(config: Any, dtype: torch.dtype, *, logits: bool = False) -> int:
    """Device memory a token of a pass takes: every layer's hidden state (all are returned), the
    feed-forward block's widest activations (4 x its width) and the attention's projections
    (8 x the hidden size), at the weights' dtype; with ``logits``, also its logits over the
    vocabulary and their log-softmax in float32 (8 x the vocabulary: a scorer that reads every
    position).

    Parameters
    ----------
    config
        The model's transformers config (``hidden_size``, ``num_hidden_layers``,
        ``intermediate_size``; their T5 and GPT-2 names are read too).
    dtype
        The weights' dtype.
    logits
        Count the logits of every position (``vocab_size``; 0 when the config has none).
    """
    hidden = int(_first(config, ("hidden_size", "d_model", "n_embd"), 768))
    layers = int(_first(config, ("num_hidden_layers", "num_layers", "n_layer"), 12))
    feed_forward = int(_first(config, ("intermediate_size", "d_ff", "n_inner"), 0) or 4 * hidden)
    item = torch.empty((), dtype=dtype).element_size()
    vocabulary = int(getattr(config, "vocab_size", 0) or 0) if logits else 0
    return item * ((layers + 1) * hidden + 4 * feed_forward + 8 * hidden) + 8 * vocabulary


def accelerator_token_budget(free_bytes: int, per_token: int) -> int:
    """Padded tokens of a pass whose activations take at most :data:`FREE_MEMORY_SHARE` of
    ``free_bytes`` at ``per_token`` bytes each, within :data:`ACCELERATOR_TOKEN_BUDGET`, rounded
    down to a multiple of 1,024."""
    low, high = ACCELERATOR_TOKEN_BUDGET
    fitted = int(free_bytes * FREE_MEMORY_SHARE) // max(1, per_token)
    return max(low, min(high, fitted // 1024 * 1024))


def default_token_budget(
    device: torch.device, model: Any | None = None, *, logits: bool = False
) -> int:
    """Tokens per forward pass: :data:`CPU_TOKEN_BUDGET` on the CPU; on an accelerator, sized
    from its free memory and ``model``'s shape (:func:`accelerator_token_budget`; ``logits``: a
    scorer's pass, whose logits over the vocabulary count too), or the lower bound of
    :data:`ACCELERATOR_TOKEN_BUDGET` when either is unknown."""
    if device.type == "cpu":
        return CPU_TOKEN_BUDGET
    free = free_memory(device)
    if model is None or free is None:
        return ACCELERATOR_TOKEN_BUDGET[0]
    per_token = bytes_per_token(model.config, model.dtype, logits=logits)
    return accelerator_token_budget(free, per_token)


def default_pass_cost(device: torch.device) -> int:
    """What one more forward pass costs, in tokens, when a level of a batch's prefix tree is split
    into passes of similar widths (:func:`~wordlens.models.tree_shape.width_groups`):
    :data:`~wordlens.models.prefix.PASS_COST_TOKENS` on the CPU, :data:`ACCELERATOR_PASS_COST`
    on an accelerator."""
    return PASS_COST_TOKENS if device.type == "cpu" else ACCELERATOR_PASS_COST


def default_max_batch_targets(device: torch.device) -> int:
    """Most targets (or sentences) in one batch (:data:`MAX_BATCH_TARGETS`).

    On the CPU, under the token budget alone, a tree batch of short texts held 3,335 words ("This
    is {word}", smollm2-135m, budget 1,024 x ``TREE_BATCH_BUDGETS``) and took 8.5 s on 2 threads;
    at most 1,024 targets it takes about 3 s, at the same throughput (3,000 words, one thread:
    259 and 249 words per CPU-second; 512 targets cost 3-9 %, 256 13-15 %). The limit is a number
    of targets, not of seconds, so it holds whatever ``--token-budget`` says.
    """
    return MAX_BATCH_TARGETS["cpu" if device.type == "cpu" else "accelerator"]


def free_memory(device: torch.device) -> int | None:
    """Free bytes on a CUDA device (``torch.cuda.mem_get_info``); ``None`` for other devices."""
    if device.type != "cuda":
        return None
    free, _total = torch.cuda.mem_get_info(device)
    return int(free)


def _first(config: Any, names: tuple[str, ...], default: int) -> Any:
    """The first of ``names`` the config has (not ``None``), else ``default``."""
    for name in names:
        value = getattr(config, name, None)
        if value is not None:
            return value
    return default
