"""Benchmark: a method across training checkpoints, a wordlens sweep against the loops users write.

The checkpoints are minilm-l6's weights interpolated from a random initialisation to the trained
model (``tests/checkpoints.py``), ``--checkpoints`` folders written once before the clock starts.
Each configuration runs WEAT (tests 1-10, 1,000 permutations, no activation cache, every run's
tables, figures and report written) on every checkpoint:

- ``sweep``: ``wordlens.weat(folder_of_checkpoints, revisions="all", out=...)``: one process, the
  word sets read once, one tokenizer, then the sweep's table, figures and report;
- ``loop``: the strongest simple peer, a Python loop of ``wordlens.weat(checkpoint, out=...)`` in
  one process (what a user's script does);
- ``processes``: one ``wordlens weat -m <checkpoint>`` command per checkpoint, one after the
  other (a shell loop: every process imports torch and transformers again);
- ``ray``: the sweep with ``--backend ray``: a Ray started in the child, each checkpoint one task
  in a fresh worker process, as many side by side as the machine has CPUs.

Every configuration runs in its own process with 2 torch threads, interleaved over
``--repeats``; the table prints the median total seconds, the seconds outside the checkpoints'
runs (sweeps: the sweep's table, figures and report, Ray's start), the median seconds and peak
memory per
checkpoint (the sweeps: each checkpoint's own, from ``sweep_revisions``; the loops: the total over
the checkpoints, and the process's peak, for ``processes`` its largest command's), the
ratio to ``loop``, and the largest difference of any effect size from ``loop``'s (they must agree
to 1e-5).

Run: ``python benchmarks/bench_sweep.py [--checkpoints 4] [--repeats 3] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from _harness import REPEATS, THREADS, interleaved, median, median_ratio, peak_rss_mib

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATIONS = ("loop", "sweep", "processes", "ray")
WEAT = {"tests": list(range(1, 11)), "permutations": 1000, "no_cache": True}


def effect_sizes(tables: list[Any]) -> list[float]:
    """Every effect size of the runs' ``weat`` tables, in test and layer order."""
    values: list[float] = []
    for table in tables:
        values += table.sort_values(["test", "layer"])["effect_size"].tolist()
    return values


def run_child(configuration: str, folder: Path) -> dict[str, Any]:
    """One configuration on every checkpoint in ``folder``; its time, memory and numbers."""
    import wordlens
    from wordlens.results import Run

    torch.set_num_threads(THREADS)
    names = sorted((p.name for p in folder.iterdir()), key=lambda name: int(name.split("-")[1]))
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        started = time.perf_counter()
        if configuration == "loop":
            tables = [
                wordlens.weat(str(folder / name), **WEAT, out=out / name).tables["weat"]
                for name in names
            ]
        elif configuration == "processes":
            for name in names:
                command = [sys.executable, "-m", "wordlens", "weat", "-m", str(folder / name),
                           "--tests", ",".join(map(str, WEAT["tests"])), "--permutations", "1000",
                           "--no-cache", "--out", str(out / name)]  # fmt: skip
                subprocess.run(command, check=True, capture_output=True)
            tables = [Run.read(out / name).tables["weat"] for name in names]
        else:
            backend = "ray" if configuration == "ray" else "local"
            sweep = wordlens.weat(
                str(folder), revisions="all", **WEAT, out=out / "sweep", backend=backend
            )
            tables = [sweep.runs[name].tables["weat"] for name in names]
            revisions = sweep.tables["revisions"]
        seconds = time.perf_counter() - started
    measured = {
        "per_checkpoint_seconds": seconds / len(names),
        "memory": peak_rss_mib(),
        "outside_seconds": 0.0,
    }
    if configuration == "processes":  # the largest peak of the commands, not this process's
        measured["memory"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if configuration in ("sweep", "ray"):  # each checkpoint's own time and peak
        measured = {
            "per_checkpoint_seconds": float(revisions["seconds"].median()),
            "memory": float(revisions["peak_memory_mib"].max()),
            # the sweep's own work (its table, figures, report; Ray's start) and imports
            "outside_seconds": seconds - float(revisions["seconds"].sum()),
        }
    return {"seconds": seconds, "values": effect_sizes(tables), **measured}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkpoints", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--configurations", default=",".join(CONFIGURATIONS))
    parser.add_argument("--quick", action="store_true", help="2 checkpoints, one repeat")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, Path(args.folder))))
        return
    if args.quick:
        args.checkpoints, args.repeats = 2, 1
    sys.path.insert(0, str(ROOT))
    from tests.checkpoints import interpolated_checkpoints

    from wordlens.models.loading import ALIASES

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        fractions = [index / max(1, args.checkpoints - 1) for index in range(args.checkpoints)]
        interpolated_checkpoints(ALIASES["minilm-l6"].package_dir() / "model", folder, fractions)
        chosen = args.configurations.split(",")
        results = interleaved(
            __file__, {name: [name, "--folder", str(folder)] for name in chosen}, args.repeats
        )
    print(f"minilm-l6, {args.checkpoints} checkpoints, WEAT tests 1-10 x 7 layers, 1,000 "
          f"permutations, no cache; {args.repeats} interleaved repetition(s), "
          f"{THREADS} threads")  # fmt: skip
    print(f"{'configuration':<14}{'total s':>9}{'s / checkpoint':>16}{'outside s':>11}"
          f"{'peak MiB':>10}{'loop / this':>13}{'max |diff|':>12}")  # fmt: skip
    for name in chosen:
        ratio = median_ratio(results["loop"], results[name], "seconds") if "loop" in results else 1
        gap = 0.0
        if "loop" in results:
            gap = max(
                abs(a - b)
                for ours, theirs in zip(results[name], results["loop"], strict=True)
                for a, b in zip(ours["values"], theirs["values"], strict=True)
            )
        print(f"{name:<14}{median(results[name], 'seconds'):>9.1f}"
              f"{median(results[name], 'per_checkpoint_seconds'):>16.2f}"
              f"{median(results[name], 'outside_seconds'):>11.1f}"
              f"{median(results[name], 'memory'):>10.0f}{ratio:>12.2f}x{gap:>12.1e}")  # fmt: skip


if __name__ == "__main__":
    main()
