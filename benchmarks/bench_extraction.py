"""Benchmark: word-in-context extraction on smollm2-135m, all layers, 2 CPU threads.

Measures words/s and peak RSS (each configuration in its own process) for

- (a) ``naive``: one sentence per forward pass, as the VAST paper's code does;
- (b) ``wordlens``: ``HFEmbedder.embed`` (sorted token-budget batches, prefix key/value reuse, no
  activation cache);
- (c) ``floor``: the same plan's forward passes alone (``HFEmbedder.hidden_states`` on the
  batches of ``plan_batches``, inputs encoded beforehand, no pooling, no output assembly): the
  cost wordlens cannot go below with this plan;
- (d) ``cached``: a rerun that finds every vector in the activation cache, with the shards'
  checksums verified (the default) and without (``ActivationCache(verify=False)``): what
  verification costs, where it costs most (each timed 3 times in one process, fastest kept);
- (e) ``limit``: (b) on ``--limit-words`` words with at most 1,024 targets a batch (the default,
  ``HFEmbedder.max_batch_targets``) and without a limit: what bounding the work an interruption
  loses costs;

on the first N Warriner words in "This is {word}", and the peak RSS of (b) at all 13,915 words.

Run: ``make bench`` or ``python benchmarks/bench_extraction.py [--words 1000] [--full 13915]
[--limit-words 3000]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from _harness import THREADS, measure_in_child, naive_subtoken_states, peak_rss_mib

if TYPE_CHECKING:
    from wordlens.contexts import Target
    from wordlens.models.hf import HFEmbedder


def words(n: int) -> list[str]:
    from wordlens.resources import load_lexicon

    return list(load_lexicon("warriner").data["word"].astype(str))[:n]


def cached_reruns(model: HFEmbedder, targets: list[Target]) -> dict[str, float]:
    """Fill a cache, then time reruns that read everything from it, verified and not."""
    from wordlens.models.cache import ActivationCache

    with tempfile.TemporaryDirectory() as root:
        model.embed(targets, layers=None, pooling="mean", cache=ActivationCache(Path(root)))
        best = {True: float("inf"), False: float("inf")}
        for verify in (False, True) * 3:
            start = time.perf_counter()
            model.embed(
                targets,
                layers=None,
                pooling="mean",
                cache=ActivationCache(Path(root), verify=verify),
            )
            best[verify] = min(best[verify], time.perf_counter() - start)
        size = sum(path.stat().st_size for path in Path(root).rglob("shard-*"))
    return {"verified_s": best[True], "unverified_s": best[False], "cache_mib": size / 2**20}


def run_mode(mode: str, n_words: int, token_budget: int) -> dict[str, float]:
    """Run one configuration in this process and return its measurements."""
    torch.set_num_threads(THREADS)
    from wordlens.contexts import targets_from_template
    from wordlens.models.hf import HFEmbedder, plan_batches
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m", token_budget=token_budget)
    assert isinstance(model, HFEmbedder)
    targets = targets_from_template(words(n_words))
    if mode == "cached":
        return {"words": n_words, **cached_reruns(model, targets)}
    if mode == "no-limit":
        model.max_batch_targets = None
    start = time.perf_counter()
    if mode == "naive":
        for target in targets:
            naive_subtoken_states(model, target).mean(dim=1).numpy()
    elif mode in ("wordlens", "no-limit"):
        model.embed(targets, layers=None, pooling="mean")
    elif mode == "floor":
        encoded = model.encode(targets)
        plan = plan_batches(encoded, model.batch_token_budget, model.min_shared_tokens)
        batches = [[encoded[index] for index in batch] for batch in plan]
        start = time.perf_counter()
        for batch in batches:
            model.hidden_states(batch)
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - start
    return {
        "words": n_words,
        "seconds": seconds,
        "words_per_s": n_words / seconds,
        "peak_rss_mib": peak_rss_mib(),
    }


def measure(mode: str, n_words: int, token_budget: int) -> dict[str, float]:
    return measure_in_child(
        __file__, [mode, "--words", str(n_words), "--token-budget", str(token_budget)]
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument(
        "--full", type=int, default=13915, help="words for the RSS scaling run (0 skips)"
    )
    parser.add_argument("--token-budget", type=int, default=1024)
    parser.add_argument(
        "--limit-words", type=int, default=3000, help="words for the batch-limit run (0 skips)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_mode(args.child, args.words, args.token_budget)))
        return

    rows = [
        (mode, measure(mode, args.words, args.token_budget))
        for mode in ("naive", "wordlens", "floor")
    ]
    if args.full:
        rows.append(("wordlens (all Warriner)", measure("wordlens", args.full, args.token_budget)))
    if args.limit_words:
        for mode, label in (("wordlens", "<= 1,024 a batch"), ("no-limit", "no batch limit")):
            rows.append((label, measure(mode, args.limit_words, args.token_budget)))
    cached = measure("cached", args.words, args.token_budget)
    by_mode = dict(rows)
    print(
        f"smollm2-135m, all 31 layers, mean pooling, {THREADS} threads, "
        f"token budget {args.token_budget}"
    )
    print(f"{'configuration':<26}{'words':>7}{'seconds':>10}{'words/s':>10}{'peak RSS MiB':>14}")
    for mode, row in rows:
        print(
            f"{mode:<26}{row['words']:>7.0f}{row['seconds']:>10.1f}{row['words_per_s']:>10.1f}"
            f"{row['peak_rss_mib']:>14.0f}"
        )
    for verify, key in (("verified", "verified_s"), ("not verified", "unverified_s")):
        print(
            f"{'cached rerun, ' + verify:<26}{cached['words']:>7.0f}{cached[key]:>10.2f}"
            f"{cached['words'] / cached[key]:>10.0f}"
        )
    share = 1 - cached["unverified_s"] / cached["verified_s"]
    print(
        f"checksum verification: {cached['verified_s'] - cached['unverified_s']:.2f} s for "
        f"{cached['cache_mib']:.0f} MiB of shards, {share:.0%} of a cached rerun"
    )
    speedup = by_mode["wordlens"]["words_per_s"] / by_mode["naive"]["words_per_s"]
    overhead = by_mode["floor"]["words_per_s"] / by_mode["wordlens"]["words_per_s"]
    print(f"wordlens / naive speed-up: {speedup:.1f}x (target >= 8x)")
    print(f"floor / wordlens time ratio: {overhead:.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
