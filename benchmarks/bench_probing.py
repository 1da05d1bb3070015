"""Benchmark: edge probing of POS on the full UD EWT train set with minilm-l6, 2 CPU threads.

Stages, each in its own process (peak RSS from ``ru_maxrss``), all with one fresh activation
cache:

- ``extract``: the subtoken vectors of every train, dev and test sentence at all 7 layers
  (computed, written to the cache and to layer files in the cache's folder,
  :mod:`wordlens.probing.layer_files`);
- ``reuse``: the same vectors again (the layer files are complete: nothing is recomputed or
  read from the cache);
- ``probe <repr>``: a whole :func:`wordlens.methods.probing.experiment.run_probing` of one
  representation (vectors from the layer files, built from the cache when the representation
  needs the lexical layer; probe trained with the Appendix C schedule, scored on test), with the
  dev micro-F1 along training.

Target (issue 7): extraction + training of POS under 20 minutes on 2 CPU cores. Training runs
30,000 steps by default (``--max-steps``; 0 for the task's own cap, jiant's 250 validations =
250,000 steps): on this data the Appendix C patience rules do not stop within any budget near
20 minutes, because dev F1 still creeps up (0.0004 per 3,000 steps at 30,000 steps, mix).

Run: ``python benchmarks/bench_probing.py [--repr mix,lex] [--max-steps N]
[--train-sentences N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from _harness import THREADS, measure_in_child, peak_rss_mib


def run_step(step: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run one stage in this process and return its measurements."""
    from wordlens.methods.probing import ProbeConfig
    from wordlens.methods.probing.experiment import SPLITS, run_probing, task_examples
    from wordlens.models.cache import ActivationCache
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model
    from wordlens.probing.features import sentence_features

    torch.set_num_threads(THREADS)
    model = load_model("minilm-l6")
    assert isinstance(model, HFEmbedder)
    cache = ActivationCache(Path(args.cache_dir))
    config = ProbeConfig(
        task="pos",
        representations=(step.removeprefix("probe "),),
        train_sentences=args.train_sentences,
        max_steps=args.max_steps or None,
        seed=args.seed,
    )
    start = time.perf_counter()
    if step in ("extract", "reuse"):
        examples = task_examples(config)
        counts = {}
        for split in SPLITS:
            features = sentence_features(
                model, [example.tokens for example in examples[split]], cache=cache
            )
            counts[split] = {
                "sentences": len(examples[split]),
                "subtokens": features.n_rows,
                "computed": features.computed,
            }
        result: dict[str, Any] = {"seconds": time.perf_counter() - start, "splits": counts}
    else:
        run = run_probing(config, model, cache=cache)
        scores = run.tables["scores"].set_index("representation")
        name = config.representations[0]
        result = {
            "seconds": time.perf_counter() - start,
            "stages": run.metadata["timings_s"],
            "test_micro_f1": float(scores.loc[name, "test_micro_f1"]),
            "majority": float(scores.loc["majority", "test_micro_f1"]),
            "steps": int(scores.loc[name, "steps"]),
            "best_step": int(scores.loc[name, "best_step"]),
            "stopped": str(scores.loc[name, "stopped"]),
            "history": run.tables["history"][["step", "dev_micro_f1", "learning_rate"]]
            .to_numpy()
            .tolist(),
            "targets": run.metadata["counts"]["train"]["targets"],
        }
    result["peak_rss_mib"] = peak_rss_mib()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repr", default="mix,lex", help="representations, one process each")
    parser.add_argument("--max-steps", type=int, default=30_000, help="0: the task's own cap")
    parser.add_argument("--train-sentences", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_step(args.child, args)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-probing-") as temporary:
        os.environ["WORDLENS_HOME"] = str(Path(temporary) / "home")
        options = [f"--seed={args.seed}", f"--cache-dir={temporary}/cache"]
        options.append(f"--max-steps={args.max_steps}")
        if args.train_sentences is not None:
            options.append(f"--train-sentences={args.train_sentences}")
        names = ["extract", "reuse", *(f"probe {name}" for name in args.repr.split(","))]
        steps = {name: measure_in_child(__file__, [name, *options]) for name in names}
        cache_mib = sum(f.stat().st_size for f in Path(temporary, "cache").rglob("*")) / 2**20
    report(steps, cache_mib, args.max_steps)


def report(steps: dict[str, dict[str, Any]], cache_mib: float, max_steps: int) -> None:
    extract, reuse = steps["extract"], steps["reuse"]
    subtokens = sum(split["subtokens"] for split in extract["splits"].values())
    sentences = sum(split["sentences"] for split in extract["splits"].values())
    print(f"Edge probing, POS on UD EWT, minilm-l6 (7 layers x 384), {THREADS} threads")
    print(
        f"  extraction: {sentences:,} sentences, {subtokens:,} subtokens, "
        f"{extract['seconds']:.1f} s ({sentences / extract['seconds']:.0f} sentences/s), "
        f"cache and layer files {cache_mib:.0f} MiB, peak RSS {extract['peak_rss_mib']:.0f} MiB"
    )
    recomputed = sum(split["computed"] for split in reuse["splits"].values())
    print(
        f"  reuse of the layer files: {reuse['seconds']:.1f} s, {recomputed} sentences recomputed, "
        f"peak RSS {reuse['peak_rss_mib']:.0f} MiB"
    )
    print(
        f"{'representation':<16}{'total s':>9}{'train s':>9}{'steps':>8}{'stopped':>16}"
        f"{'test F1':>9}{'majority':>10}{'peak RSS MiB':>14}"
    )
    for name, row in steps.items():
        if not name.startswith("probe "):
            continue
        representation = name.removeprefix("probe ")
        train_seconds = row["stages"].get(f"train {representation}", float("nan"))
        print(
            f"{representation:<16}{row['seconds']:>9.1f}{train_seconds:>9.1f}{row['steps']:>8}"
            f"{row['stopped']:>16}{row['test_micro_f1']:>9.4f}{row['majority']:>10.4f}"
            f"{row['peak_rss_mib']:>14.0f}"
        )
        history = row["history"]
        every = max(1, len(history) // 10)
        print(
            f"  dev micro-F1 by step (best at {row['best_step']}): "
            + ", ".join(f"{int(step)}: {f1:.4f}" for step, f1, _ in history[every - 1 :: every])
        )
        total = extract["seconds"] + row["seconds"]
        schedule = f"{max_steps} steps" if max_steps else "the task's cap"
        print(
            f"  extraction + {representation} ({schedule}): {total / 60:.1f} min (target < 20 min)"
        )


if __name__ == "__main__":
    main()
