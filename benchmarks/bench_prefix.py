"""Benchmark: prefix-tree key/value reuse on smollm2-135m, all layers, 2 CPU threads.

Measures words/s, CPU seconds, peak RSS and the tokens the forward passes compute (padding
included) for ``HFEmbedder.embed`` with prefix reuse on and off, on the first N Warriner words in

- ``bleached``: "This is {word}" (one shared head of 3 tokens, BOS included);
- ``aligned``: the five valence-aligned templates ("It is very unpleasant to think of {word}" ...),
  assigned round-robin (a tree of the five heads, 8-11 tokens);
- ``alone``: each word after BOS only (``embed_words``): the shared head is BOS alone;
- ``varied``: "{other} came to mind first, and then {word}", ``other`` another Warriner word (from
  the end of the list): texts that share only BOS and their first subtokens (1-3 tokens of ~12),
  as sentences from a corpus do.

The last two decide ``MIN_PREFIX_TOKENS``: the shortest heads, shared only if they pay there.

Each measurement runs in its own process; configurations are interleaved and repeated, and the
table shows the fastest and the median run (other processes on a shared machine slow some runs
down; the token counts do not depend on them).

Run: ``python benchmarks/bench_prefix.py [--words 1000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import TYPE_CHECKING

import torch

from _harness import THREADS, measure_in_child, peak_rss_mib

if TYPE_CHECKING:
    from wordlens.contexts import Target
    from wordlens.models.hf import HFEmbedder

ALIGNED_TEMPLATES = (
    "It is very unpleasant to think of {word}",
    "It is unpleasant to think of {word}",
    "It is neither pleasant nor unpleasant to think of {word}",
    "It is pleasant to think of {word}",
    "It is very pleasant to think of {word}",
)

VARIED_TEMPLATE = "{other} came to mind first, and then {word}"

#: (workload, prefix reuse)
CONFIGURATIONS = tuple(
    (workload, reuse)
    for workload in ("bleached", "aligned", "alone", "varied")
    for reuse in (False, True)
)


def warriner_words() -> list[str]:
    from wordlens.resources import load_lexicon

    return list(load_lexicon("warriner").data["word"].astype(str))


def varied_target(other: str, word: str) -> Target:
    """``word`` at the end of the varied template, after ``other``."""
    from wordlens.contexts import Target

    text = VARIED_TEMPLATE.format(other=other.capitalize(), word=word)
    return Target(text, len(text) - len(word), len(text))


def workload_targets(workload: str, n_words: int) -> list[Target]:
    """The targets of one workload."""
    from wordlens.contexts import decontextualized_targets, targets_from_template

    everything = warriner_words()
    chosen = everything[:n_words]
    if workload == "bleached":
        return list(targets_from_template(chosen))
    if workload == "aligned":
        return [
            target
            for offset, template in enumerate(ALIGNED_TEMPLATES)
            for target in targets_from_template(chosen[offset :: len(ALIGNED_TEMPLATES)], template)
        ]
    if workload == "alone":
        return list(decontextualized_targets(chosen))
    if workload == "varied":
        others = everything[::-1][:n_words]
        return [varied_target(other, word) for other, word in zip(others, chosen, strict=True)]
    raise SystemExit(f"unknown workload {workload}")


def padded_tokens(model: HFEmbedder, targets: list[Target]) -> int:
    """Tokens the forward passes of ``embed`` compute, padding included: the padded tokens of
    each planned batch's prefix tree (one plain pass per batch without reuse)."""
    from wordlens.models.hf import plan_batches
    from wordlens.models.prefix import PrefixTree

    encoded = model.encode(targets)
    total = 0
    for batch in plan_batches(encoded, model.batch_token_budget, model.min_shared_tokens):
        tree = PrefixTree(model.min_shared_tokens)
        for index in batch:
            tree.add(encoded[index].input_ids)
        total += tree.padded_tokens
    return total


def run_config(workload: str, reuse: bool, n_words: int, token_budget: int) -> dict[str, float]:
    """Run one configuration in this process and return its measurements."""
    torch.set_num_threads(THREADS)
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m", token_budget=token_budget)
    assert isinstance(model, HFEmbedder)
    model.prefix_reuse = reuse
    targets = workload_targets(workload, n_words)
    wall, cpu = time.perf_counter(), time.process_time()
    model.embed(targets, layers=None, pooling="mean")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "seconds": wall,
        "cpu_seconds": cpu,
        "peak_rss_mib": peak_rss_mib(),
        "tokens": padded_tokens(model, targets),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--token-budget", type=int, default=1024)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        workload, reuse = json.loads(args.child)
        print(json.dumps(run_config(workload, reuse, args.words, args.token_budget)))
        return

    runs: dict[tuple[str, bool], list[dict[str, float]]] = {c: [] for c in CONFIGURATIONS}
    options = ["--words", str(args.words), "--token-budget", str(args.token_budget)]
    for _ in range(args.repeats):
        for configuration in CONFIGURATIONS:
            runs[configuration].append(
                measure_in_child(__file__, [json.dumps(configuration), *options])
            )
    print(
        f"smollm2-135m, all 31 layers, mean pooling, {THREADS} threads, token budget "
        f"{args.token_budget}, {args.words} words, best and median of {args.repeats} runs"
    )
    header = (
        f"{'workload':<10}{'prefix reuse':<14}{'words/s best':>13}{'median':>8}"
        f"{'CPU s':>8}{'peak RSS MiB':>14}{'tokens':>9}"
    )
    print(header)
    for (workload, reuse), results in runs.items():
        seconds = [result["seconds"] for result in results]
        label = "on" if reuse else "off"
        print(
            f"{workload:<10}{label:<14}{args.words / min(seconds):>13.1f}"
            f"{args.words / statistics.median(seconds):>8.1f}"
            f"{min(result['cpu_seconds'] for result in results):>8.1f}"
            f"{max(result['peak_rss_mib'] for result in results):>14.0f}"
            f"{int(results[0]['tokens']):>9}"
        )


if __name__ == "__main__":
    main()
