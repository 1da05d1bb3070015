"""Benchmark: the host's cost per target, which a GPU hides nothing of (no GPU needed).

What is measured
----------------
The pipeline of ``bench_gpu.py`` with tiny random models (2 layers, 64 wide: ``tiny-bert`` with
the BERT tokenizer of the fixture, ``tiny-llama`` with the smollm2 tokenizer), where the model's
compute is negligible, so what is measured is the host's work: tokenizing, aligning, planning,
padding, gathering and copying. For each model and context set (the 13,915 Warriner words in
"This is {word}", the 10,144 corpus contexts of the VAST random setting), all layers,
last-subtoken pooling, no cache, wordlens' ``embed`` and its peers run side by side in one
process, interleaved over ``--repeats`` (medians), after a warm-up on 64 targets.

How the peer is made fair
-------------------------
The fair peer (``_pipeline.fair_vectors``, "loop (fair)") does the same work as wordlens: for the
causal ``tiny-llama`` both sides compute texts cut after the target's last subtoken (later tokens
cannot change its hidden states), for the encoder both compute full texts (the ``texts`` column
says which, ours/peer); it tokenizes all texts in one call, builds each pass by array indexing, and
sizes its passes by the embedder's own token budget (``rows * longest <= token_budget``, at most
``max_batch_targets`` rows; 1,024 tokens on the CPU). The old peer ("loop (old: full texts)":
full texts even for the causal model, 256 texts a pass padded row by row) stays as an extra row so
that the change in the ratios shows.

Printed: CPU microseconds per target of this process (all threads) for wordlens and each peer,
the CPU ratio and the wall ratio (peer / ours: above 1, wordlens is faster; medians of the paired
repetitions) against issue 40's targets (>= 2x on the template, >= 1.5x on corpus sentences,
against the fair peer), and each peer's largest per-layer relative difference from wordlens'
vectors, checked against ``_pipeline.VECTOR_LIMIT`` (1e-5 of each layer's scale): the script exits
non-zero past it, after the table.

``--threads`` sets torch's CPU threads (default 1: the host's work is single-threaded, and one
thread keeps the tiny models' compute out of the contention of a shared machine); ``--limit N``
measures the first N targets of each context set only (a quick run); ``--profile`` adds
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
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import torch

from _pipeline import (
    VECTOR_LIMIT,
    check_limits,
    embed_last,
    fair_for,
    is_causal,
    layer_relative_difference,
    make_model_dir,
    paired_ratio,
    plain_for,
    read_targets,
    side_by_side,
)

#: Wall speed-up over the fair peer (peer / ours) issue 40 asks for.
TARGETS = {"template": 2.0, "corpus": 1.5}

#: The peers' row names.
FAIR, OLD = "loop (fair)", "loop (old: full texts)"


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each model and context set, wordlens and both peers side by side: one row per peer."""
    from wordlens.models.loading import load_model

    device = torch.device("cpu")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for shape in ("tiny-bert", "tiny-llama"):
            model: Any = load_model(str(make_model_dir(args.folder, shape, Path(work) / shape)))
            ours_texts = "cut" if is_causal(model) else "full"
            runs: dict[str, Callable[[Sequence[Any]], Any]] = {
                "wordlens": partial(embed_last, model),
                FAIR: fair_for(model, device),
                OLD: plain_for(model, device),
            }
            for context in ("template", "corpus"):
                targets = read_targets(args.folder, context)[: args.limit]
                measured = side_by_side(runs, targets, args.repeats, device)
                ours = measured["wordlens"]
                for peer, peer_texts in ((FAIR, ours_texts), (OLD, "full")):
                    theirs = measured[peer]
                    rows.append(
                        {
                            "shape": shape,
                            "context": context,
                            "targets": len(targets),
                            "peer": peer,
                            "texts": f"{ours_texts}/{peer_texts}",
                            "ours_cpu_us": 1e6 * ours.cpu_median / len(targets),
                            "peer_cpu_us": 1e6 * theirs.cpu_median / len(targets),
                            "cpu_ratio": theirs.cpu_median / ours.cpu_median,
                            "wall_ratio": paired_ratio(theirs, ours),
                            "diff": layer_relative_difference(ours.result, theirs.result),
                        }
                    )
                    print(rows[-1], flush=True)
                if args.profile:
                    traced = cProfile.Profile()
                    traced.runcall(embed_last, model, targets)
                    text = io.StringIO()
                    pstats.Stats(traced, stream=text).sort_stats("cumulative").print_stats(25)
                    print(text.getvalue())
    return rows


def print_table(rows: list[dict[str, Any]], threads: int, repeats: int) -> list[str]:
    """The table; returns the comparisons past :data:`VECTOR_LIMIT`."""
    print(
        f"\nhost cost per target, {threads} CPU thread(s), medians of {repeats} interleaved "
        "repetitions; texts: ours/peer (cut after the target, or full); ratios peer / ours"
    )
    print(
        f"{'model':<11}{'context':<9}{'targets':>8}  {'peer':<24}{'texts':<10}"
        f"{'ours µs':>8}{'peer µs':>9}{'CPU x':>7}{'wall x':>8}{'target':>8}{'rel diff':>10}"
    )
    failures = []
    for row in rows:
        target = f"{TARGETS[row['context']]:.1f}x" if row["peer"] == FAIR else "-"
        print(
            f"{row['shape']:<11}{row['context']:<9}{row['targets']:>8,}  {row['peer']:<24}"
            f"{row['texts']:<10}{row['ours_cpu_us']:>8.1f}{row['peer_cpu_us']:>9.1f}"
            f"{row['cpu_ratio']:>7.2f}{row['wall_ratio']:>8.2f}{target:>8}{row['diff']:>10.1e}"
        )
        if not row["diff"] <= VECTOR_LIMIT:
            failures.append(f"{row['shape']} {row['context']} {row['peer']}: {row['diff']:.1e}")
    print(f"vectors: limit {VECTOR_LIMIT:.0e} of each layer's scale: max |ours-peer| / max |peer|")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path(".gpu/prepared"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None, help="first N targets of each set")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = measure(args)
    check_limits(print_table(rows, args.threads, args.repeats))


if __name__ == "__main__":
    main()
