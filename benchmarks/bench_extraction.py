"""Benchmark: word-in-context extraction on smollm2-135m, all layers, 2 CPU threads.

Measures words/s and peak RSS (each configuration in its own process) for

- (a) ``naive``: one sentence per forward pass, as the VAST paper's code does;
- (b) ``wordlens``: ``HFEmbedder.embed`` (sorted, token-budget batches, no activation cache);
- (c) ``floor``: the same batches' forward passes alone (inputs built beforehand, no pooling,
  no output assembly) — the cost wordlens cannot go below;

on the first N Warriner words in "This is {word}", and the peak RSS of (b) at all 13,915 words.

Run: ``make bench`` or ``python benchmarks/bench_extraction.py [--words 1000] [--full 13915]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import torch

THREADS = 2


def words(n: int) -> list[str]:
    from wordlens.resources import load_lexicon

    return list(load_lexicon("warriner").data["word"].astype(str))[:n]


def run_mode(mode: str, n_words: int, token_budget: int) -> dict[str, float]:
    """Run one configuration in this process and return its measurements."""
    torch.set_num_threads(THREADS)
    from wordlens.contexts import targets_from_template
    from wordlens.models.hf import HFEmbedder, batches_by_token_budget
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m", token_budget=token_budget)
    assert isinstance(model, HFEmbedder)
    targets = targets_from_template(words(n_words))
    start = time.perf_counter()
    if mode == "naive":
        with torch.inference_mode():
            for target in targets:
                encoded = model.tokenizer(target.text, return_offsets_mapping=True)
                ids = torch.tensor([[model.bos_token_id, *encoded["input_ids"]]])
                hidden = model.model(input_ids=ids, output_hidden_states=True).hidden_states
                stacked = torch.stack(hidden)[:, 0]  # [layers, seq, dim]
                offsets = [(0, 0), *encoded["offset_mapping"]]
                rows = [
                    i
                    for i, (s, e) in enumerate(offsets)
                    if e > s and s < target.end and e > target.start
                ]
                stacked[:, rows].mean(dim=1).numpy()
    elif mode == "wordlens":
        model.embed(targets, layers=None, pooling="mean")
    elif mode == "floor":
        encoded = model.encode(targets)
        batches = batches_by_token_budget([len(e.input_ids) for e in encoded], token_budget)
        inputs = []
        for batch in batches:
            longest = max(len(encoded[i].input_ids) for i in batch)
            ids = torch.full((len(batch), longest), model.pad_token_id)
            mask = torch.zeros((len(batch), longest), dtype=torch.long)
            for row, i in enumerate(batch):
                ids[row, : len(encoded[i].input_ids)] = torch.tensor(encoded[i].input_ids)
                mask[row, : len(encoded[i].input_ids)] = 1
            inputs.append((ids, mask))
        start = time.perf_counter()
        with torch.inference_mode():
            for ids, mask in inputs:
                model.model(
                    input_ids=ids, attention_mask=mask, output_hidden_states=True, use_cache=False
                )
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "words": n_words,
        "seconds": seconds,
        "words_per_s": n_words / seconds,
        "peak_rss_mib": peak_mib,
    }


def measure(mode: str, n_words: int, token_budget: int) -> dict[str, float]:
    output = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            mode,
            "--words",
            str(n_words),
            "--token-budget",
            str(token_budget),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


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
            f"{mode:<26}{row['words']:>7}{row['seconds']:>10.1f}{row['words_per_s']:>10.1f}{row['peak_rss_mib']:>14.0f}"
        )
    speedup = by_mode["wordlens"]["words_per_s"] / by_mode["naive"]["words_per_s"]
    overhead = by_mode["floor"]["words_per_s"] / by_mode["wordlens"]["words_per_s"]
    print(f"wordlens / naive speed-up: {speedup:.1f}x (target >= 8x)")
    print(f"floor / wordlens time ratio: {overhead:.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
