"""Benchmark: word-in-context extraction on smollm2-135m, all layers, 2 CPU threads.

Measures words/s and peak RSS (each configuration in its own process) for

- (a) ``naive``: one sentence per forward pass, as the VAST paper's code does;
- (b) ``wordlens``: ``HFEmbedder.embed`` (sorted token-budget batches, prefix key/value reuse, no
  activation cache);
- (c) ``floor``: the same plan's forward passes alone (``HFEmbedder.hidden_states`` on the
  batches of ``plan_batches``, inputs encoded beforehand, no pooling, no output assembly): the
  cost wordlens cannot go below with this plan;

on the first N Warriner words in "This is {word}", and the peak RSS of (b) at all 13,915 words.

Run: ``make bench`` or ``python benchmarks/bench_extraction.py [--words 1000] [--full 13915]``.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from _harness import THREADS, measure_in_child, naive_subtoken_states, peak_rss_mib


def words(n: int) -> list[str]:
    from wordlens.resources import load_lexicon

    return list(load_lexicon("warriner").data["word"].astype(str))[:n]


def run_mode(mode: str, n_words: int, token_budget: int) -> dict[str, float]:
    """Run one configuration in this process and return its measurements."""
    torch.set_num_threads(THREADS)
    from wordlens.contexts import targets_from_template
    from wordlens.models.hf import HFEmbedder, plan_batches
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m", token_budget=token_budget)
    assert isinstance(model, HFEmbedder)
    targets = targets_from_template(words(n_words))
    start = time.perf_counter()
    if mode == "naive":
        for target in targets:
            naive_subtoken_states(model, target).mean(dim=1).numpy()
    elif mode == "wordlens":
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
    speedup = by_mode["wordlens"]["words_per_s"] / by_mode["naive"]["words_per_s"]
    overhead = by_mode["floor"]["words_per_s"] / by_mode["wordlens"]["words_per_s"]
    print(f"wordlens / naive speed-up: {speedup:.1f}x (target >= 8x)")
    print(f"floor / wordlens time ratio: {overhead:.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
