"""Benchmark: the masked passes of eq. 6 (Zhang et al. 2021) on an existing work list, CPU seconds
per pass split into the model's forward passes and the host's work around them.

Scores shard 0 of ``--shards`` of a work list (e.g. ``<out>/evocation/work/worklist`` of
``wordlens reproduce asymmetry --scale paper``: 250,905 passes over 21,737 paragraphs) with
:func:`~wordlens.models.contextual_conditionals.run_shard`, on one torch thread, and prints the
passes, batches, passes per batch, the padding waste (padded positions over all positions
computed, from the stage's work counts: ``padding_positions / token_positions``), process CPU
seconds (user + system) in all, in :meth:`~wordlens.models.scoring.LMScorer.batch_log_probs` (the
forward passes) and outside it (host: tokenizing the paragraphs, building rows and batches,
writing chunks), each per pass, and peak RSS. ``--host-only`` replaces the forward passes by
zeros, to see the host's work alone (the padding is then counted by the benchmark itself);
``--token-budget`` sets the scorer's budget (masked passes are batched at ``PLL_BUDGET_SCALE``
times it).

Run: ``python benchmarks/bench_masked_passes.py WORKLIST --model DIR [--shards 50]
[--host-only] [--token-budget 1024]``.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("worklist", type=Path, help="a work list directory")
    parser.add_argument("--model", required=True, help="masked LM (a directory or an alias)")
    parser.add_argument("--shards", type=int, default=1, help="score shard 0 of this many")
    parser.add_argument("--host-only", action="store_true", help="no model compute")
    parser.add_argument("--token-budget", type=int, default=None, help="default: the scorer's")
    args = parser.parse_args()
    torch.set_num_threads(1)

    from wordlens import stages
    from wordlens.models.contextual_conditionals import load_worklist, run_shard
    from wordlens.models.scoring import (
        PLL_BUDGET_SCALE,
        LMScorer,
        ReadBatch,
        count_pass,
        load_scorer,
    )

    work = load_worklist(args.worklist)
    scorer = load_scorer(args.model, token_budget=args.token_budget)
    forward = [0.0]
    real = LMScorer.batch_log_probs

    def timed(self: LMScorer, batch: ReadBatch) -> npt.NDArray[np.float64]:
        start = time.process_time()
        if args.host_only:
            count_pass(batch.lengths, batch.input_ids.shape[1])
            values = np.zeros(len(batch.targets))
        else:
            values = real(self, batch)
        forward[0] += time.process_time() - start
        return values

    LMScorer.batch_log_probs = timed  # type: ignore[method-assign]
    log = stages.StageLog()
    with tempfile.TemporaryDirectory() as out:
        start = time.process_time()
        with stages.recording(log), stages.Timings().stage("eq6"):
            run = run_shard(work, 0, args.shards, scorer, Path(out))
        total = time.process_time() - start
    counts = log.records[-1].work
    waste = counts["padding_positions"] / counts["token_positions"]
    n = run.n_passes
    host = total - forward[0]
    print(
        f"{n:,} passes, {run.batches_computed:,} batches ({n / run.batches_computed:.1f} passes "
        f"a batch, budget {scorer.token_budget} x {PLL_BUDGET_SCALE}), padding "
        f"{counts['padding_positions']:,} of {counts['token_positions']:,} positions "
        f"({waste:.2%}): CPU {total:.1f} s = forward {forward[0]:.1f} s + host {host:.1f} s; per "
        f"pass {total / n * 1e6:.0f} us = forward {forward[0] / n * 1e6:.0f} us + host "
        f"{host / n * 1e6:.1f} us; peak RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
