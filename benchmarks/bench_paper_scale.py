"""Benchmark: every paper's paper-scale reproduction on tiny random models — the host floor — and
its projected time on one H100.

Each paper runs as a user runs it, ``wordlens reproduce <paper> -m DIR --scale paper``, in a
child process whose resident memory is sampled (:func:`bench_reproduce_memory.run_paper`), on a
random-initialised model of 2 layers × 64 with a real tokenizer (``_pipeline.make_model_dir``):
a BERT with its masked-LM head where the paper scores masked passes (sense-bias's PLL/AUL,
asymmetry's eq. 6), the tiny Llama with the smollm2 tokenizer otherwise. Its compute is
negligible, so what is measured is wordlens' own work: planning, tokenization, statistics,
figures, writing — the floor no GPU removes.

Printed:

1. per paper and experiment, each top-level stage (``run.json``'s ``stages``,
   :mod:`wordlens.stages`): wall and CPU seconds, peak RSS, token positions computed;
2. per paper: how it ended, CPU seconds in the stages and of the whole process (imports and
   model loading included: the host floor), peak RSS of the process tree, token positions, and
   the projection on one H100: the host floor (the process's CPU seconds, on the assumption
   that the H100's host is as fast as this one per core and the stages do not overlap) plus
   the FLOP floor of the paper's own model (:data:`PAPER_MODELS`: ``2 × non-embedding
   parameters × token positions``, attention left out) at :data:`H100_SUSTAINED` of the
   H100's dense bf16 rate.

The token positions are those of the tiny models' tokenizers (BERT's vocabulary, smollm2's), not
of the paper's models: a projection, not a measurement.

Run: ``python benchmarks/bench_paper_scale.py [vast asymmetry ...] [--minutes 60]
[--work DIR] [--json PATH] [--scale smoke]``. ``--minutes`` stops a paper that runs longer
(its finished experiments are still read); ``--work`` keeps the tiny models and the activation
cache between runs (a rerun then resumes from the cache: measure on a fresh ``--work``).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _pipeline import make_model_dir, prepare
from bench_reproduce_memory import Outcome, run_paper
from wordlens.models.options import ModelOptions
from wordlens.plan import duration
from wordlens.reproduce.published import PAPERS
from wordlens.reproduce.runner import plan_reproduction

#: paper → the tiny model it runs on here (``_pipeline.SHAPES`` name, masked-LM head).
TINY_MODELS: dict[str, tuple[str, bool]] = {
    "vast": ("tiny-llama", False),
    "sense-bias": ("tiny-bert", True),
    "intersectional": ("tiny-llama", False),
    "asymmetry": ("tiny-bert", True),
    "probing": ("tiny-llama", False),
}

#: paper → (its main model, non-embedding parameters): GPT-2 small and BERT-base 12 layers ×
#: 12·768², BERT-large 24 × 12·1024², GPT-Neo 1.3B 24 × 12·2048².
PAPER_MODELS: dict[str, tuple[str, float]] = {
    "vast": ("gpt2", 85e6),
    "sense-bias": ("bert-base-uncased", 85e6),
    "intersectional": ("EleutherAI/gpt-neo-1.3B", 1.21e9),
    "asymmetry": ("bert-base-uncased", 85e6),
    "probing": ("bert-large-uncased", 302e6),
}

#: The H100 SXM's dense bf16 rate, FLOP/s, and the share of it a well-fed forward sustains
#: (an assumption: about what ``bench_gpu.py`` measures for large batches).
H100_BF16 = 989e12
H100_SUSTAINED = 0.5


@dataclass
class PaperRun:
    """One paper's run: the child's outcome and each experiment's recorded stages."""

    paper: str
    outcome: Outcome
    process_cpu_s: float
    stages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)

    def top_stages(self) -> list[tuple[str, dict[str, Any]]]:
        return [(e, s) for e, stages in self.stages.items() for s in stages if s["depth"] == 0]

    @property
    def cpu_s(self) -> float:
        """CPU seconds in the experiments' stages."""
        return sum(float(stage["cpu_s"]) for _, stage in self.top_stages())

    @property
    def token_positions(self) -> int:
        return sum(int(s["work"].get("token_positions", 0)) for _, s in self.top_stages())

    def h100_seconds(self) -> tuple[float, float]:
        """(FLOP floor of the paper's model, host floor + FLOP floor), seconds."""
        flops = 2 * PAPER_MODELS[self.paper][1] * self.token_positions
        compute = flops / (H100_BF16 * H100_SUSTAINED)
        return compute, self.process_cpu_s + compute


def children_cpu_s() -> float:
    """User + system CPU seconds of the finished child processes (their own children too)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_stages(out: Path) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Each experiment's stages and status: from ``reproduction.json`` when the run finished,
    else from the experiments' own ``run.json`` / ``failure.json`` (a stopped run)."""
    manifest = out / "reproduction.json"
    if manifest.exists():
        experiments = json.loads(manifest.read_text())["experiments"]
        return (
            {e["name"]: e["stages"] for e in experiments},
            {
                e["name"]: e["status"] + (f": {e['error']}" if e["error"] else "")
                for e in experiments
            },
        )
    stages: dict[str, list[dict[str, Any]]] = {}
    statuses: dict[str, str] = {}
    for folder in sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []:
        for name, status in (("run.json", "done"), ("failure.json", "failed")):
            path = folder / name
            if path.exists():
                data = json.loads(path.read_text())
                stages[folder.name] = data.get("metadata", data).get("stages", [])
                statuses[folder.name] = status
    return stages, statuses


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_EXPERIMENT = re.compile(r"^experiment \d+(?: \((?P<name>[^)]+)\))?: ")
_STAGE_DONE = re.compile(
    r"^(?P<indent> *)stage (?P<name>.+) done in (?P<wall>[\d.]+) s \(CPU (?P<cpu>[\d.]+) s, "
    r"peak RSS (?P<rss>[\d,]+) MiB"
)


def stages_from_log(log: str, method: str) -> dict[str, list[dict[str, Any]]]:
    """The stages each experiment finished, read from the child's console log (the lines
    ``experiment 2 (name): ...`` and ``stage X done in ...``): what a run stopped part-way
    finished of the experiment it was in (which has neither ``run.json`` nor ``failure.json``).
    An experiment announced without a name is the method's own (``method``)."""
    stages: dict[str, list[dict[str, Any]]] = {}
    experiment = None
    for line in _ANSI.sub("", log.replace("\r", "\n")).splitlines():
        if (announced := _EXPERIMENT.match(line)) is not None:
            experiment = announced["name"] or method
            stages[experiment] = []
        elif (done := _STAGE_DONE.match(line)) is not None and experiment is not None:
            stages[experiment].append(
                {
                    "name": done["name"],
                    "depth": len(done["indent"]) // 2,
                    "wall_s": float(done["wall"]),
                    "cpu_s": float(done["cpu"]),
                    "peak_rss_mib": float(done["rss"].replace(",", "")),
                    "work": {},
                }
            )
    return stages


def print_stages(runs: list[PaperRun]) -> None:
    print("\n| paper | experiment | stage | wall s | CPU s | peak RSS MiB | token positions |")
    print("|---|---|---|---:|---:|---:|---:|")
    for run in runs:
        for experiment, stage in run.top_stages():
            positions = stage["work"].get("token_positions", 0)
            print(
                f"| {run.paper} | {experiment} | {stage['name']} | {stage['wall_s']:.1f} | "
                f"{stage['cpu_s']:.1f} | {stage['peak_rss_mib']:,.0f} | {positions:,} |"
            )


def print_summary(runs: list[PaperRun]) -> None:
    print(
        "\n| paper | ended | experiments | CPU s in stages | CPU s of the process (host floor) | "
        "peak RSS MiB (tree) | "
        "token positions | paper's model | H100 FLOP floor s | H100 projection s |"
    )
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|")
    for run in runs:
        compute, total = run.h100_seconds()
        done = sum(status == "done" for status in run.statuses.values())
        skipped = sum(status.startswith("skipped") for status in run.statuses.values())
        print(
            f"| {run.paper} | {run.outcome.ended} | {done} of {len(run.statuses) - skipped} done"
            f"{f' ({skipped} skipped)' if skipped else ''} | "
            f"{run.cpu_s:.1f} | {run.process_cpu_s:.1f} | {run.outcome.peak_mib:,.0f} | "
            f"{run.token_positions:,} | "
            f"{PAPER_MODELS[run.paper][0]} | {compute:,.1f} | {total:,.1f} |"
        )
    for run in runs:
        for experiment, status in run.statuses.items():
            if status != "done":
                print(f"{run.paper} / {experiment}: {status}")


def print_projection(run: PaperRun, plans: dict[str, dict[str, Any] | str]) -> None:
    """For a run stopped part-way: its resident memory over time (flat or growing) and its
    projected wall time on this machine, the measured stages of the experiments that finished
    plus the plan's estimates (``reproduce --plan``: for probing, the most its training can
    take) of the others."""
    samples = run.outcome.samples
    print(f"\n{run.paper}: stopped after {run.outcome.seconds / 60:.0f} min")
    print("| minute | RSS MiB (tree) |\n|---:|---:|")
    for minute in range(1, int(run.outcome.seconds // 60) + 1):
        rss = run.outcome.at_minute(minute)
        if rss is not None and (minute <= 5 or minute % 5 == 0):
            print(f"| {minute} | {rss:,.0f} |")
    later = [mib for seconds, mib in samples if seconds >= 300]
    if later:
        print(f"RSS after minute 5: {min(later):,.0f} to {max(later):,.0f} MiB")
    print("| experiment | stage | measured s | plan's estimate s |\n|---|---|---:|---:|")
    for experiment, plan in plans.items():
        estimates = (
            {}
            if isinstance(plan, str)
            else {stage["name"]: stage["estimate_s"] for stage in plan["stages"]}
        )
        for stage in run.stages.get(experiment, []):
            if stage["depth"] == 0:
                estimate = estimates.get(stage["name"])
                shown = "–" if estimate is None else f"{estimate:,.1f}"
                print(f"| {experiment} | {stage['name']} | {stage['wall_s']:,.1f} | {shown} |")
    print("| experiment | status | measured s | plan's estimate s (rest) |\n|---|---|---:|---:|")
    projected = 0.0
    for experiment, plan in plans.items():
        status = run.statuses.get(experiment, "not started")
        top = [s for s in run.stages.get(experiment, []) if s["depth"] == 0]
        measured = sum(float(s["wall_s"]) for s in top)
        finished = {s["name"] for s in top}
        rest = (
            0.0
            if status == "done" or isinstance(plan, str)
            else sum(
                float(stage["estimate_s"] or 0.0)
                for stage in plan["stages"]
                if stage["name"] not in finished
            )
        )
        projected += measured + rest
        print(f"| {experiment} | {status} | {measured:,.0f} | {rest:,.0f} |")
    print(f"projected wall time of {run.paper} on this machine: {duration(projected)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", nargs="*", default=list(PAPERS))
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--scale", default="paper", help="smoke: a dry run of the benchmark")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-paper-scale-"))
    prepared = work / "prepared"
    if not (prepared / "crows.json").exists():
        prepare(prepared, 16)
    runs = []
    for paper in args.papers:
        shape, masked = TINY_MODELS[paper]
        model = work / f"{shape}{'-mlm' if masked else ''}"
        if not (model / "config.json").exists():
            make_model_dir(prepared, shape, model, masked_head=masked)
        out_dir = work / paper
        out_dir.mkdir(parents=True, exist_ok=True)
        before = children_cpu_s()
        outcome = run_paper(
            paper,
            str(model),
            out_dir,
            minutes=args.minutes,
            max_rss_mib=None,
            interval=1.0,
            extra=["--cache-dir", str(work / "cache")],
            scale=args.scale,
        )
        stages, statuses = read_stages(out_dir / "out")
        logged = stages_from_log((out_dir / "child.log").read_text(errors="replace"), paper)
        for experiment, finished in logged.items():  # the experiment a stopped run was in
            if experiment not in statuses:
                stages[experiment], statuses[experiment] = finished, "stopped"
        runs.append(PaperRun(paper, outcome, children_cpu_s() - before, stages, statuses))
        print(f"{paper}: {outcome.ended} in {outcome.seconds:.0f} s", flush=True)
    print_stages(runs)
    print_summary(runs)
    stopped = [run for run in runs if run.outcome.ended.startswith("stopped")]
    for run in stopped:
        shape, masked = TINY_MODELS[run.paper]
        model = work / f"{shape}{'-mlm' if masked else ''}"
        print_projection(
            run, plan_reproduction(run.paper, ModelOptions(str(model)), scale=args.scale)
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "paper": r.paper,
                        "ended": r.outcome.ended,
                        "rss_samples": r.outcome.samples,
                        "stages": r.stages,
                    }
                    for r in runs
                ]
            )
        )


if __name__ == "__main__":
    main()
