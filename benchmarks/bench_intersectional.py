"""Benchmark: prefix-tree reuse on the intersectional phrases, smollm2-135m, 2 CPU threads.

The phrases of Omrani Sabbaghi, Wolfe & Caliskan (2023, sections 5.2-5.3), target "person" (the
last word), "last" pooling:

- ``combinations``: "a {c1} {c2} ... {c12} person", one category of each of the 12 biases in the
  fixed order, all 4,096 choices;
- ``permutations``: "a {w1} ... {w5} person", one category of each of race, sex, religion, gender
  and sexual orientation, every choice in all 120 orders: 3,840 phrases.

Each set is embedded at the top layer only and at all 31 layers, with a flat pass per batch
(``prefix_reuse=False``) and with the prefix tree, each configuration in its own process,
configurations interleaved and repeated (the fastest run is shown). The table gives seconds,
phrases/s, peak RSS, the tokens the forward passes compute (padding included) and the tree's
speed-up over flat batching; then the largest difference between the flat and the tree vectors,
absolute and relative to the layer's largest |value| (the check: <= 1e-5).

Run: ``python benchmarks/bench_intersectional.py [--repeats 2] [--token-budget 1024]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from _harness import THREADS, measure_in_child, peak_rss_mib
from bench_prefix import padded_tokens

if TYPE_CHECKING:
    from wordlens.contexts import Target

SETS = ("combinations", "permutations")
LAYER_CHOICES = ("top", "all")
MODES = ("flat", "tree")


def phrase_targets(which: str) -> list[Target]:
    """The phrases of one design of the paper's default study, target "person" at the end."""
    from wordlens.contexts.intersectional import (
        combination_phrases,
        default_study,
        permutation_phrases,
    )

    study = default_study()
    designs = {"combinations": combination_phrases, "permutations": permutation_phrases}
    return [phrase.target for phrase in designs[which](study)]


def run_config(
    which: str, layers: str, mode: str, token_budget: int, out: Path
) -> dict[str, float]:
    """Embed one set in this process, save the vectors to ``out`` and return measurements."""
    torch.set_num_threads(THREADS)
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m", token_budget=token_budget)
    assert isinstance(model, HFEmbedder)
    model.prefix_reuse = mode == "tree"
    targets = phrase_targets(which)
    start = time.perf_counter()
    vectors = model.embed(targets, layers=[-1] if layers == "top" else None, pooling="last").vectors
    seconds = time.perf_counter() - start
    np.save(out, vectors)
    return {
        "phrases": len(targets),
        "seconds": seconds,
        "peak_rss_mib": peak_rss_mib(),
        "tokens": padded_tokens(model, targets),
    }


def differences(flat: Path, tree: Path) -> tuple[float, float]:
    """Largest |flat - tree| over the vectors, absolute and relative to each layer's max |flat|."""
    expected, got = np.load(flat, mmap_mode="r"), np.load(tree, mmap_mode="r")
    difference = np.abs(got - expected).max(axis=(0, 2))
    scale = np.abs(expected).max(axis=(0, 2))
    return float(difference.max()), float((difference / scale).max())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--token-budget", type=int, default=1024)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        which, layers, mode = json.loads(args.child)
        print(json.dumps(run_config(which, layers, mode, args.token_budget, args.out)))
        return

    configurations = list(itertools.product(SETS, LAYER_CHOICES, MODES))
    runs: dict[tuple[str, str, str], list[dict[str, float]]] = {c: [] for c in configurations}
    with tempfile.TemporaryDirectory() as scratch:
        files = {c: Path(scratch) / f"{'-'.join(c).replace(' ', '_')}.npy" for c in configurations}
        for _ in range(args.repeats):
            for configuration in configurations:
                arguments = [json.dumps(configuration), "--out", str(files[configuration])]
                arguments += ["--token-budget", str(args.token_budget)]
                runs[configuration].append(measure_in_child(__file__, arguments))
        checks = {
            (which, layers): differences(
                files[(which, layers, "flat")], files[(which, layers, "tree")]
            )
            for which, layers, _ in configurations
        }
    print(
        f"smollm2-135m, target 'person', last pooling, {THREADS} threads, token budget "
        f"{args.token_budget}, fastest of {args.repeats} runs"
    )
    print(
        f"{'set':<14}{'layers':<8}{'mode':<6}{'phrases':>8}{'seconds':>9}{'phrases/s':>11}"
        f"{'peak RSS MiB':>14}{'tokens':>9}{'speed-up':>10}"
    )
    for which, layers, mode in configurations:
        best = min(runs[(which, layers, mode)], key=lambda result: result["seconds"])
        flat = min(result["seconds"] for result in runs[(which, layers, "flat")])
        print(
            f"{which:<14}{layers:<8}{mode:<6}{best['phrases']:>8.0f}{best['seconds']:>9.1f}"
            f"{best['phrases'] / best['seconds']:>11.1f}{best['peak_rss_mib']:>14.0f}"
            f"{best['tokens']:>9.0f}{flat / best['seconds']:>9.2f}x"
        )
    for (which, layers), (absolute, relative) in checks.items():
        verdict = "ok" if relative <= 1e-5 else "FAILS"
        print(
            f"{which} {layers}: max |flat - tree| = {absolute:.2e}, relative to the layer's max "
            f"|value| {relative:.2e} ({verdict}: <= 1e-5)"
        )


if __name__ == "__main__":
    main()
