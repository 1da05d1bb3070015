"""Benchmark: the full Warriner VAST extraction in the four settings on smollm2-135m.

All 13,915 Warriner words plus the 150 polar words (valence, dominance, arousal) in the random,
bleached, aligned and misaligned settings, every layer, the four poolings, 2 CPU threads:

- ``naive``: one sentence per forward pass, as the VAST authors' code does (all layers' vectors of
  the word's subtokens kept, pooled four ways), timed on a seeded sample of each setting's
  contexts and extrapolated to the full counts;
- ``wordlens``: :func:`wordlens.methods.vast.experiments.embed_bank` per setting (batching,
  prefix reuse, duplicate contexts computed once, a fresh activation cache);
- ``wordlens, no prefix reuse``: the same with ``HFEmbedder.prefix_reuse = False`` (the gain of
  prefix reuse alone).

Each configuration runs in its own process; peak RSS is ``ru_maxrss``. The table gives targets/s
per setting and in total, the mean tokens of a setting's texts, and the speed-up per setting.
Run: ``python benchmarks/bench_vast.py [--sample 150]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from _harness import THREADS, measure_in_child, naive_subtoken_states, peak_rss_mib

SETTINGS = ("random", "bleached", "aligned", "misaligned")
POOLINGS = ("first", "last", "mean", "max")


def setting_targets(n_words: int, seed: int = 0) -> dict[str, dict[str, object]]:
    """Every setting's word → target for the first ``n_words`` Warriner words and the polar
    words, as ``wordlens vast`` builds them."""
    from wordlens.methods.vast.experiments import (
        _polar_pairs,
        _valence_reference,
        setting_targets,
        term_valences,
    )
    from wordlens.resources import load_lexicon

    warriner = load_lexicon("warriner")
    warriner = type(warriner)(
        warriner.name, warriner.language, warriner.scale, warriner.data.iloc[:n_words]
    )
    polar = _polar_pairs(["valence", "dominance", "arousal"])
    words = list(
        dict.fromkeys(
            [*warriner.data["word"].astype(str), *(w for p in polar.values() for w in p.words)]
        )
    )
    valence = polar["valence"]
    valence9 = term_valences(
        words, _valence_reference([warriner]), set(valence.positive), set(valence.negative)
    )
    return {
        setting: setting_targets(setting, words, valence9, seed=seed)[0]  # type: ignore[arg-type]
        for setting in SETTINGS
    }


def run_mode(mode: str, sample: int, n_words: int) -> dict[str, Any]:
    """Seconds per setting (naive: extrapolated from ``sample`` contexts) and peak RSS."""
    torch.set_num_threads(THREADS)
    import numpy as np

    from wordlens.methods.vast.experiments import embed_bank
    from wordlens.models.cache import ActivationCache
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m")
    assert isinstance(model, HFEmbedder)
    by_setting = setting_targets(n_words)
    seconds: dict[str, float] = {}
    text_tokens: dict[str, float] = {}
    if mode == "naive":
        rng = np.random.default_rng(0)
        for setting, targets in by_setting.items():
            everything = list(targets.values())
            chosen = [everything[i] for i in rng.choice(len(everything), sample, replace=False)]
            text_tokens[setting] = float(
                np.mean([len(model.tokenizer(target.text)["input_ids"]) for target in chosen])
            )
            start = time.perf_counter()
            for target in chosen:
                pieces = naive_subtoken_states(model, target)  # [layers, subtokens, dim]
                for pooled in (pieces[:, 0], pieces[:, -1], pieces.mean(1), pieces.amax(1)):
                    pooled.numpy()
            seconds[setting] = (time.perf_counter() - start) * len(everything) / sample
    else:
        model.prefix_reuse = mode != "no-prefix"
        with tempfile.TemporaryDirectory() as root:
            cache = ActivationCache(Path(root))  # shared: settings reuse each other's contexts
            for setting, targets in by_setting.items():
                start = time.perf_counter()
                embed_bank(
                    model,
                    setting,  # type: ignore[arg-type]
                    targets,  # type: ignore[arg-type]
                    layers=None,
                    poolings=POOLINGS,
                    cache=cache,
                    progress=False,
                )
                seconds[setting] = time.perf_counter() - start
    return {
        "targets": {setting: len(targets) for setting, targets in by_setting.items()},
        "seconds": seconds,
        "text_tokens": text_tokens,
        "peak_rss_mib": peak_rss_mib(),
    }


def measure(mode: str, sample: int, n_words: int) -> dict[str, Any]:
    return measure_in_child(__file__, [mode, "--sample", str(sample), "--words", str(n_words)])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sample", type=int, default=150, help="naive-loop contexts timed per setting"
    )
    parser.add_argument("--words", type=int, default=13915, help="Warriner words (all: 13915)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_mode(args.child, args.sample, args.words)))
        return
    labels = {
        "naive": "naive loop (extrapolated)",
        "wordlens": "wordlens",
        "no-prefix": "wordlens, no prefix reuse",
    }
    rows = {mode: measure(mode, args.sample, args.words) for mode in labels}
    print(
        f"smollm2-135m, {args.words} Warriner words + polar words x 4 settings, all 31 layers, "
        f"4 poolings, {THREADS} threads; targets/s per setting and in total"
    )
    counts = rows["naive"]["targets"]
    columns = [*SETTINGS, "total"]
    print(f"{'configuration':<28}" + "".join(f"{c:>12}" for c in columns) + f"{'peak RSS MiB':>14}")
    print(
        f"{'targets':<28}"
        + "".join(f"{counts[s]:>12}" for s in SETTINGS)
        + f"{sum(counts.values()):>12}"
    )
    tokens = rows["naive"]["text_tokens"]
    print(f"{'tokens per text (mean)':<28}" + "".join(f"{tokens[s]:>12.1f}" for s in SETTINGS))
    totals = {mode: sum(row["seconds"].values()) for mode, row in rows.items()}
    for mode, label in labels.items():
        per_setting = [counts[s] / rows[mode]["seconds"][s] for s in SETTINGS]
        total_rate = sum(counts.values()) / totals[mode]
        print(
            f"{label:<28}"
            + "".join(f"{rate:>12.1f}" for rate in [*per_setting, total_rate])
            + f"{rows[mode]['peak_rss_mib']:>14.0f}"
        )
    speedups = [rows["naive"]["seconds"][s] / rows["wordlens"]["seconds"][s] for s in SETTINGS]
    print(
        f"{'speed-up over naive':<28}"
        + "".join(f"{x:>11.1f}x" for x in [*speedups, totals["naive"] / totals["wordlens"]])
    )
    prefix_gain = totals["no-prefix"] / totals["wordlens"]
    print(
        f"wall time: naive {totals['naive']:.0f} s (extrapolated), wordlens "
        f"{totals['wordlens']:.0f} s; gain from prefix reuse alone: {prefix_gain:.2f}x"
    )


if __name__ == "__main__":
    main()
