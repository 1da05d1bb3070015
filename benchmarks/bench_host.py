"""Benchmark: the host's cost per target, which a GPU hides nothing of (no GPU needed).

The pipeline of ``bench_gpu.py`` with tiny random models (2 layers, 64 wide: ``tiny-bert`` with
the BERT tokenizer of the fixture, ``tiny-llama`` with the smollm2 tokenizer), where the model's
compute is negligible, so what is measured is the host's work: tokenizing, aligning, planning,
padding, gathering and copying. For each model and context set (the 13,915 Warriner words in
"This is {word}", the 10,144 corpus contexts of the VAST random setting), all layers,
last-subtoken pooling, no cache, wordlens' ``embed`` and the plain loop run side by side in one
process, interleaved over ``--repeats`` (medians), after a warm-up. It prints microseconds per
target for both, their ratio against the targets (wordlens <= 1/5 of the plain loop on the
template, <= 1/2 on corpus sentences), and the vectors' largest per-layer relative difference.

``--threads`` sets torch's CPU threads (default 1: the host's work is single-threaded, and one
thread keeps the tiny models' compute out of the contention of a shared machine); ``--profile`` adds
cProfile's account of one wordlens run per model and context set.

Run: ``python benchmarks/bench_host.py --folder F`` after
``python benchmarks/bench_gpu.py prepare --folder F``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import torch

from _pipeline import (
    embed_last,
    layer_relative_difference,
    make_model_dir,
    paired_ratio,
    plain_for,
    read_targets,
    side_by_side,
)

TARGETS = {"template": 1 / 5, "corpus": 1 / 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path(".gpu/prepared"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from wordlens.models.loading import load_model

    device = torch.device("cpu")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for shape in ("tiny-bert", "tiny-llama"):
            model: Any = load_model(str(make_model_dir(args.folder, shape, Path(work) / shape)))
            runs = {"plain": plain_for(model, device), "wordlens": partial(embed_last, model)}
            for context in ("template", "corpus"):
                targets = read_targets(args.folder, context)
                measured = side_by_side(runs, targets, args.repeats, device)
                plain, ours = measured["plain"], measured["wordlens"]
                rows.append(
                    {
                        "shape": shape,
                        "context": context,
                        "targets": len(targets),
                        "plain_us": 1e6 * plain.median / len(targets),
                        "wordlens_us": 1e6 * ours.median / len(targets),
                        "ratio": paired_ratio(ours, plain),
                        "diff": layer_relative_difference(ours.result, plain.result),
                    }
                )
                print(rows[-1], flush=True)
                if args.profile:
                    traced = cProfile.Profile()
                    traced.runcall(embed_last, model, targets)
                    text = io.StringIO()
                    pstats.Stats(traced, stream=text).sort_stats("cumulative").print_stats(25)
                    print(text.getvalue())
    print(f"\nhost cost per target, {args.threads} CPU threads, medians of {args.repeats}")
    print(
        f"{'model':<12}{'context':<10}{'targets':>8}{'plain µs':>10}{'ours µs':>10}"
        f"{'ours/plain':>12}{'target':>8}{'rel diff':>10}"
    )
    for row in rows:
        print(
            f"{row['shape']:<12}{row['context']:<10}{row['targets']:>8,}{row['plain_us']:>10.1f}"
            f"{row['wordlens_us']:>10.1f}{row['ratio']:>12.2f}{TARGETS[row['context']]:>8.2f}"
            f"{row['diff']:>10.1e}"
        )


if __name__ == "__main__":
    main()
