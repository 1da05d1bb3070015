"""Benchmark: the local backend against Ray with 2 workers on this machine, and a projection of
the papers' full experiments onto N GPUs.

The workload is a small study, 2 models x 2 methods, plus probing features:

- ``weat``: WEAT tests 1 and 2 at every layer in bleached contexts (word-vector passes) on
  minilm-l6 and smollm2-135m;
- ``aul``: likelihood bias on ``--pairs`` CrowS-Pairs pairs (scoring passes): AUL on
  minilm-l6-mlm, the causal sum/mean on smollm2-135m;
- ``features``: probing features of ``--sentences`` UD EWT dev sentences on minilm-l6.

Each backend runs in its own process (peak RSS of the driver from ``ru_maxrss``), with no
activation cache, so every batch is computed, and every model at ``--token-budget`` (small, so
that the small workload has several batches to spread). The local process runs torch on 2
threads; Ray starts in process (``RayBackend()``: a local Ray instance with 2 CPUs) with 2 actors
of one CPU (one torch thread) each. Measured: each cell's wall time and its seconds inside the
backend's ``map`` (forward passes, transfers, waiting); on the Ray side also the instance's
start, each model's actor start (worker processes, imports, model load: a first ``map``), the
round trip of an empty shard (a no-op operation over ``--noop-shards`` one-payload shards) and
the driver's seconds per item handed out (placing results: its serial share). The numbers of
both backends are compared (largest absolute difference).

The projection (printed with its assumptions) scales the measured cost per token on one CPU
worker to a GPU by ``--gpu-speedup`` (printing the GPU throughput it implies), adds the
measured per-shard overhead and actor start, and bounds the time from below by the driver's
serial share.

Run: ``python benchmarks/bench_ray.py [--pairs 24] [--sentences 60] [--gpu-speedup 1000]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from _harness import THREADS, measure_in_child, peak_rss_mib

SHARED = Path(__file__).resolve().parents[2] / "shared"
#: (cell, model spec, loader): the study's cells, in the order they run.
CELLS = (
    ("weat", "minilm-l6", "model"),
    ("features", "minilm-l6", "model"),
    ("weat", "smollm2-135m", "model"),
    ("aul", str(SHARED / "models" / "minilm-l6-mlm"), "scorer"),
    ("aul", "smollm2-135m", "scorer"),
)
WORKERS = 2

#: The papers' full experiments: (name, items, tokens per item, models, stage, description).
EXPERIMENTS = (
    (
        "VAST (Wolfe & Caliskan 2022)",
        13_915 * 4 * 8,
        24,
        8,
        "weat",
        "13,915 words x 4 settings x 8 models, ~24 tokens per context (word-vector passes)",
    ),
    (
        "asymmetry (Zhang et al. 2021)",
        100_000 * 1_000 * 2,
        128,
        1,
        "aul",
        "100K pairs x 1K contexts x 2 directions, one masked 128-token paragraph pass each",
    ),
    (
        "probing (Tenney et al. 2019)",
        16_622,
        30,
        1,
        "features",
        "UD EWT's 16,622 sentences, ~30 subtokens each, one pass per sentence",
    ),
)
GPU_COUNTS = (1, 8, 64, 350)


@dataclass
class Counting:
    """A backend wrapper that counts the payloads, items and tokens a cell runs, the seconds
    spent inside the backend (forward passes, transfers, waiting) and the seconds the driver
    spends on each result it hands out (placing it, writing the cache: its serial share)."""

    inner: Any
    payloads: int = 0
    items: int = 0
    tokens: int = 0
    backend_s: float = 0.0
    handling_s: float = 0.0

    def map(
        self, operation: Callable[..., Any], model: Any, payloads: Sequence[Any]
    ) -> Iterator[Any]:
        for payload in payloads:
            rows = getattr(payload, "items", None) or payload.rows
            self.items += len(rows)
            self.tokens += sum(len(row.input_ids) for row in rows)
        self.payloads += len(payloads)
        results = iter(self.inner.map(operation, model, payloads))
        while True:
            start = time.perf_counter()
            result = next(results, None)
            self.backend_s += time.perf_counter() - start
            if result is None:
                return
            start = time.perf_counter()
            yield result
            self.handling_s += time.perf_counter() - start


def noop(model: Any, payload: Any) -> None:
    """An operation that does nothing: its shards measure the round trip alone."""


def load(spec: str, loader: str, token_budget: int) -> Any:
    from wordlens.models.loading import load_model
    from wordlens.models.scoring import load_scorer

    if loader == "scorer":
        return load_scorer(spec, token_budget=token_budget)
    return load_model(spec, token_budget=token_budget)


def run_cell(cell: str, model: Any, args: argparse.Namespace) -> list[float]:
    """One cell of the study; its numbers (for comparing the backends)."""
    if cell == "weat":
        from wordlens.methods.weat import WeatConfig
        from wordlens.methods.weat.layers import run_weat
        from wordlens.resources import load_weat_tests

        table = run_weat(model, load_weat_tests([1, 2]), WeatConfig(n_samples=1000)).tables["weat"]
        return [float(x) for x in table["effect_size"]]
    if cell == "aul":
        from wordlens.methods.likelihood_bias import LikelihoodBiasConfig
        from wordlens.methods.likelihood_bias.compute import run_likelihood_bias

        config = LikelihoodBiasConfig(benchmark=("crows",), sample=args.pairs, bootstrap=0)
        run = run_likelihood_bias(model, config)
        scores = run.tables["pair_scores"]
        return [float(x) for x in np.concatenate([scores["score_stereo"], scores["score_anti"]])]
    from wordlens.probing.features import sentence_features
    from wordlens.resources.tagger import load_ewt

    sentences = [[form for form, _ in s] for s in load_ewt("dev")[: args.sentences]]
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as folder:
        features = sentence_features(model, sentences, folder=Path(folder))
        vectors = np.stack([file[:][:, :8] for file in features.files], axis=1).astype(np.float32)
    return [float(x) for x in vectors.ravel()]


def run_backend(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every cell on one backend, in this process; its measurements."""
    from wordlens.distributed import LocalBackend, RayBackend, use_backend

    torch.set_num_threads(THREADS)
    # no token authentication for the in-process instance: with it, Ray writes ~/.ray/auth_token,
    # which then makes `ray start` clusters of this machine demand tokens their nodes lack
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    result: dict[str, Any] = {"cells": []}
    start = time.perf_counter()
    backend: Any = LocalBackend() if name == "local" else RayBackend(workers=WORKERS)
    result["start_s"] = time.perf_counter() - start
    for cell, spec, loader in CELLS:
        model = load(spec, loader, args.token_budget)
        row: dict[str, Any] = {"cell": cell, "model": model.info.name}
        if name == "ray":
            row.update(warm_actors(backend, model, args.noop_shards))
        counting = Counting(backend)
        start = time.perf_counter()
        with use_backend(counting):
            row["numbers"] = run_cell(cell, model, args)
        row["seconds"] = time.perf_counter() - start
        row.update(
            payloads=counting.payloads,
            items=counting.items,
            tokens=counting.tokens,
            backend_s=counting.backend_s,
            handling_s=counting.handling_s,
        )
        row["parameters"] = sum(p.numel() for p in model.model.parameters())
        result["cells"].append(row)
    if name == "ray":
        backend.close()
    result["peak_rss_mib"] = peak_rss_mib()
    return result


def warm_actors(backend: Any, model: Any, noop_shards: int) -> dict[str, float]:
    """Start the model's actors (timed), then time ``noop_shards`` empty one-payload shards."""
    start = time.perf_counter()
    list(backend.map(noop, model, [None]))
    actors_s = time.perf_counter() - start
    shard_size, backend.shard_size = backend.shard_size, 1
    start = time.perf_counter()
    list(backend.map(noop, model, [None] * noop_shards))
    round_trip_s = (time.perf_counter() - start) * backend.workers / noop_shards
    backend.shard_size = shard_size
    return {"actors_s": actors_s, "shard_overhead_s": round_trip_s}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=24, help="CrowS-Pairs pairs per scorer")
    parser.add_argument("--sentences", type=int, default=60, help="EWT sentences (features)")
    parser.add_argument("--noop-shards", type=int, default=40)
    parser.add_argument(
        "--token-budget",
        type=int,
        default=256,
        help="every model's token budget: small, so that a small workload has several batches",
    )
    parser.add_argument(
        "--gpu-speedup",
        type=float,
        default=1000.0,
        help="one GPU against one CPU worker, for the projection (see its assumptions)",
    )
    parser.add_argument("--shard-items", type=int, default=2048, help="items per shard on GPUs")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_backend(args.child, args)))
        return
    options = [f"--pairs={args.pairs}", f"--sentences={args.sentences}"]
    options += [f"--noop-shards={args.noop_shards}", f"--token-budget={args.token_budget}"]
    runs = {name: measure_in_child(__file__, [name, *options]) for name in ("local", "ray")}
    report(runs, args)


def report(runs: dict[str, dict[str, Any]], args: argparse.Namespace) -> None:
    local, ray = runs["local"], runs["ray"]
    print(
        f"Local backend ({THREADS} torch threads) vs Ray ({WORKERS} actors x 1 CPU, 1 thread "
        f"each) on this machine; token budget {args.token_budget}"
    )
    print(f"  Ray instance start (ray.init in process): {ray['start_s']:.1f} s")
    print(
        f"{'cell':<9}{'model':<15}{'batches':>8}{'items':>7}{'tokens':>8}{'local s':>9}"
        f"{'ray s':>8}{'passes local':>13}{'passes ray':>11}{'actors s':>9}{'shard ms':>9}"
        f"{'driver us/item':>15}{'max |diff|':>11}"
    )
    for mine, theirs in zip(local["cells"], ray["cells"], strict=True):
        difference = np.max(np.abs(np.subtract(mine["numbers"], theirs["numbers"])))
        print(
            f"{mine['cell']:<9}{mine['model'][:14]:<15}{mine['payloads']:>8}{mine['items']:>7}"
            f"{mine['tokens']:>8}{mine['seconds']:>9.2f}{theirs['seconds']:>8.2f}"
            f"{mine['backend_s']:>13.2f}{theirs['backend_s']:>11.2f}{theirs['actors_s']:>9.1f}"
            f"{theirs['shard_overhead_s'] * 1e3:>9.1f}"
            f"{theirs['handling_s'] / theirs['items'] * 1e6:>15.0f}{difference:>11.1e}"
        )
    print(
        "  (s: the whole cell; passes: inside the backend's map, i.e. forward passes, transfers "
        "and waiting; actors: worker processes start and load the model, once per model; "
        "shard: round trip of an empty one-batch shard per worker; driver: placing a result "
        "and writing the cache, per item)"
    )
    totals = {name: sum(cell["seconds"] for cell in run["cells"]) for name, run in runs.items()}
    actors = sum(cell["actors_s"] for cell in ray["cells"])
    print(
        f"  all cells: local {totals['local']:.1f} s, Ray {totals['ray']:.1f} s "
        f"(x{totals['ray'] / totals['local']:.2f}), plus Ray start {ray['start_s']:.1f} s and "
        f"actor starts {actors:.1f} s in all"
    )
    print(
        f"  driver peak RSS: local {local['peak_rss_mib']:.0f} MiB (models and passes), "
        f"Ray {ray['peak_rss_mib']:.0f} MiB (the driver still loads each model to plan)"
    )
    project(ray, args)


def project(ray: dict[str, Any], args: argparse.Namespace) -> None:
    """The papers' full experiments on N GPUs, from the Ray run's measured costs."""
    by_stage: dict[str, dict[str, Any]] = {}
    for cell in ray["cells"]:  # the costlier model of each stage stands for the papers' models
        known = by_stage.get(cell["cell"])
        if known is None or _per_token(cell) > _per_token(known):
            by_stage[cell["cell"]] = cell
    overhead = float(np.median([cell["shard_overhead_s"] for cell in ray["cells"]]))
    actors = max(cell["actors_s"] for cell in ray["cells"])
    print()
    print("Projection of the papers' full experiments on N GPUs. Assumptions:")
    print(
        f"  - cost per token on one CPU worker: the Ray cell's seconds inside the backend x "
        f"{WORKERS} workers / tokens computed, of the costlier model of each stage; one GPU is "
        f"{args.gpu_speedup:.0f}x one CPU worker (--gpu-speedup; the implied GPU throughput, "
        "2 FLOPs per parameter per token, is printed: ~50 TFLOP/s is 5% of an H100's dense "
        "bf16 peak or 75% of its fp32 peak, what small models on short inputs sustain);"
    )
    print(
        f"  - {args.shard_items} items per shard, {overhead * 1e3:.1f} ms round trip per shard "
        f"(measured here; a network adds to it); actors start in {actors:.0f} s (measured) once "
        "per model, all GPUs at once; models of the measured sizes (larger models cost "
        "proportionally more per token); no activation cache;"
    )
    print(
        "  - one driver places every result serially: a run takes at least items x its measured "
        "seconds per item (beyond that, split the work list over several drivers, as "
        "`wordlens asymmetry --shards` does)."
    )
    header = "".join(f"{f'{n} GPU':>10}" for n in GPU_COUNTS)
    print(f"{'experiment':<30}{'items':>13}{'GPU TFLOP/s':>13}{header}{'driver floor':>14}")
    for name, items, tokens_per_item, models, stage, what in EXPERIMENTS:
        cell = by_stage[stage]
        gpu_per_token = _per_token(cell) / args.gpu_speedup
        gpu_tflops = 2 * cell["parameters"] / gpu_per_token / 1e12
        compute = (
            items * tokens_per_item * gpu_per_token + math.ceil(items / args.shard_items) * overhead
        )
        driver = items * cell["handling_s"] / cell["items"]
        seconds = [models * actors + max(compute / n, driver) for n in GPU_COUNTS]
        print(
            f"{name:<30}{items:>13,}{gpu_tflops:>13.0f}"
            + "".join(f"{duration(t):>10}" for t in seconds)
            + f"{duration(driver):>14}"
        )
        print(f"    {what}")


def duration(seconds: float) -> str:
    """``42 s``, ``12.5 min`` or ``3.1 h``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _per_token(cell: dict[str, Any]) -> float:
    """Seconds per token on one CPU worker (both workers busy inside the backend)."""
    seconds: float = cell["backend_s"] * WORKERS / cell["tokens"]
    return seconds


if __name__ == "__main__":
    main()
