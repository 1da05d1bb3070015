"""What the benchmarks share: a child process per measurement, peak RSS, the naive loop.

Each benchmark script runs every configuration in a fresh interpreter (``script --child ...``)
so that peak RSS and warm caches of one configuration do not leak into the next; the child prints
its measurements as one JSON line, the last line of its output.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from wordlens.contexts import Target
    from wordlens.models.hf import HFEmbedder

#: CPU threads every benchmark runs torch with (the CI machine's cores).
THREADS = 2


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


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@torch.inference_mode()
def naive_subtoken_states(model: HFEmbedder, target: Target) -> torch.Tensor:
    """The target's subtoken hidden states ``[layers, subtokens, dim]`` from one forward pass
    over its sentence alone, as the VAST authors' code computes them (the naive baseline)."""
    encoded = model.tokenizer(target.text, return_offsets_mapping=True)
    input_ids = torch.tensor([[model.bos_token_id, *encoded["input_ids"]]])
    hidden = torch.stack(model.model(input_ids=input_ids, output_hidden_states=True).hidden_states)
    offsets = [(0, 0), *encoded["offset_mapping"]]
    rows = [
        index
        for index, (start, end) in enumerate(offsets)
        if end > start and start < target.end and end > target.start
    ]
    return hidden[:, 0, rows]
