"""What the benchmarks share: interleaved repetitions in child processes, median ratios, peak
RSS, the FLOP floor and the peers a user would write (a batched Hugging Face loop, the papers'
one-sentence-per-pass loop).

Every configuration runs in a fresh interpreter (``script --child ...``) so that peak RSS and warm
caches of one configuration do not leak into the next; the child prints its measurements as one
JSON line, the last line of its output. Configurations are *interleaved* — A, B, C, A, B, C, ... —
over several repetitions, and ratios are medians of the per-repetition ratios: a machine whose load
changes during the run (a shared VM, another job starting) slows A and B of the same repetition
alike, so the ratio holds where a single sequential run of each would not.

The FLOP floor of a forward computation is ``2 * parameters * computed tokens / matmul rate``:
every parameter takes part in one multiply-add per token, at the rate a large float32 matrix
product reaches on the same threads (:func:`matmul_rate`). It counts the embedding table (looked
up, not multiplied) and leaves out attention's score products, so it is a round reference rather
than a strict lower bound; the benchmarks print the measured time over it.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from wordlens.contexts import Target
    from wordlens.models.hf import HFEmbedder

#: CPU threads every benchmark runs torch with (the CI machine's cores).
THREADS = 2

#: Repetitions of each interleaved configuration (``--repeats`` in the scripts).
REPEATS = 3


def measure_in_child(script: str, arguments: list[str]) -> dict[str, Any]:
    """Run ``script --child ...arguments`` in a new interpreter and return its JSON result."""
    output = subprocess.run(
        [sys.executable, script, "--child", *arguments],
        check=True,
        stdout=subprocess.PIPE,  # the child's errors and warnings go straight to our stderr
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def interleaved(
    script: str, configurations: dict[str, list[str]], repeats: int = REPEATS
) -> dict[str, list[dict[str, Any]]]:
    """Run each configuration (name -> child arguments) ``repeats`` times, interleaved: every
    configuration once in order, then again, ... Returns each configuration's results in order."""
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in configurations}
    for repeat in range(repeats):
        for name, arguments in configurations.items():
            print(f"  [{repeat + 1}/{repeats}] {name}", file=sys.stderr, flush=True)
            results[name].append(measure_in_child(script, arguments))
    return results


def median(results: Sequence[dict[str, Any]], key: str) -> float:
    """Median of ``key`` over repetitions."""
    return float(statistics.median(float(result[key]) for result in results))


def median_ratio(
    numerators: Sequence[dict[str, Any]], denominators: Sequence[dict[str, Any]], key: str
) -> float:
    """Median over repetitions of ``numerator[key] / denominator[key]`` (paired by repetition:
    the pairs ran next to each other)."""
    return float(
        statistics.median(
            float(top[key]) / float(bottom[key])
            for top, bottom in zip(numerators, denominators, strict=True)
        )
    )


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def matmul_rate(size: int = 2048, repeats: int = 5) -> float:
    """FLOP/s of a ``size x size`` float32 matrix product on torch's current threads (the best
    of ``repeats``, after a warm-up)."""
    left, right = torch.randn(size, size), torch.randn(size, size)
    for _ in range(2):
        left @ right
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        left @ right
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def flop_floor_seconds(n_parameters: int, n_tokens: int, rate: float) -> float:
    """``2 * parameters * tokens / rate``: the seconds of a forward computation of ``n_tokens``
    at the measured matmul ``rate`` (see the module docstring)."""
    return 2 * n_parameters * n_tokens / rate


def timed(function: Callable[[], object]) -> float:
    """Wall-clock seconds of one call."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


@torch.inference_mode()
def naive_subtoken_states(model: HFEmbedder, target: Target) -> torch.Tensor:
    """The target's subtoken hidden states ``[layers, subtokens, dim]`` from one forward pass
    over its sentence alone, as the VAST authors' code computes them (the papers' baseline)."""
    encoded = model.tokenizer(target.text, return_offsets_mapping=True)
    bos = [] if model.bos_token_id is None else [model.bos_token_id]
    input_ids = torch.tensor([[*bos, *encoded["input_ids"]]])
    hidden = torch.stack(model.model(input_ids=input_ids, output_hidden_states=True).hidden_states)
    offsets = [(0, 0)] * len(bos) + list(encoded["offset_mapping"])
    rows = [
        index
        for index, (start, end) in enumerate(offsets)
        if end > start and start < target.end and end > target.start
    ]
    return hidden[:, 0, rows]


def right_padded(rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids right-padded with ``pad`` and the attention mask, both int64
    ``[len(rows), longest]``, row by row as a user's loop builds them."""
    longest = max(len(row) for row in rows)
    input_ids = torch.full((len(rows), longest), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), longest), dtype=torch.long)
    for number, row in enumerate(rows):
        input_ids[number, : len(row)] = torch.tensor(row)
        mask[number, : len(row)] = 1
    return input_ids, mask


@torch.inference_mode()
def batched_hf_mean_vectors(
    model: Any, tokenizer: Any, targets: Sequence[Target], batch_size: int, bos: int | None
) -> list[torch.Tensor]:
    """The strongest simple peer: what a user writes with transformers alone.

    Each distinct text once (targets that share a sentence, as in probing, share its pass),
    texts sorted by token length, ``batch_size`` per right-padded pass with the attention mask,
    ``output_hidden_states=True`` under ``torch.inference_mode``, each target's subtokens (from the
    offset mapping) mean-pooled per layer. Returns per target (in input order) ``[layers, dim]``.
    """
    texts = list(dict.fromkeys(target.text for target in targets))
    readers: dict[str, list[int]] = {text: [] for text in texts}  # text -> its targets
    for index, target in enumerate(targets):
        readers[target.text].append(index)
    encoded = tokenizer(texts, return_offsets_mapping=True)
    prefix = [] if bos is None else [bos]
    rows = [[*prefix, *ids] for ids in encoded["input_ids"]]
    offsets = [[(0, 0)] * len(prefix) + list(pairs) for pairs in encoded["offset_mapping"]]
    order = sorted(range(len(rows)), key=lambda index: len(rows[index]))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    vectors: list[torch.Tensor] = [torch.empty(0)] * len(targets)
    for first in range(0, len(order), batch_size):
        batch = order[first : first + batch_size]
        input_ids, mask = right_padded([rows[index] for index in batch], pad)
        hidden = torch.stack(
            model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states
        )  # [layers, batch, longest, dim]
        for row, index in enumerate(batch):
            for reader in readers[texts[index]]:
                target = targets[reader]
                columns = [
                    column
                    for column, (start, end) in enumerate(offsets[index])
                    if end > start and start < target.end and end > target.start
                ]
                vectors[reader] = hidden[:, row, columns].mean(dim=1)
    return vectors
