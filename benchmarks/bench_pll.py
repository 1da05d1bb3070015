"""Benchmark: AUL and PLL sentence scores on CrowS-Pairs with minilm-l6-mlm, 2 CPU threads.

Measures sentences/s, scored tokens/s and peak RSS, each configuration in its own process, for

- ``aul``: ``LMScorer.score(method="aul")`` on both sentences of the first ``--aul-pairs`` pairs
  (default all 1,508): one unmasked pass per sentence, sentences batched under the token budget;
- ``pll``: ``LMScorer.score(method="pll")`` on both sentences of the first ``--pll-pairs`` pairs
  (default 200: at the 2 sentences/s measured on 2 busy cores all 3,016 sentences would take
  ~25 min, so the table extrapolates): one masked copy per token, copies of many sentences
  batched together, sorted by length, the vocabulary projected only at the masked positions;
- ``pll-loop``: one masked copy per forward pass (full logits, log-softmax, pick), the direct
  implementation, on the first ``--loop-sentences`` sentences, extrapolated to the others.

The loop's scores and the batched PLL scores of the same sentences must agree to 1e-4 (checked).
CrowS-Pairs is read through the data registry (``load_bias_pairs("crows")``).

Run: ``python benchmarks/bench_pll.py [--aul-pairs 1508] [--pll-pairs 200] [--loop-sentences 40]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from _harness import THREADS, measure_in_child, peak_rss_mib

N_PAIRS = 1508
DEFAULT_MODEL = (
    Path(os.environ.get("WORDLENS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    / "models"
    / "minilm-l6-mlm"
)


def crows_pairs_sentences(n_pairs: int) -> list[str]:
    """Both sentences (stereotypical, then anti-stereotypical) of the first ``n_pairs`` pairs,
    read through the data registry."""
    from wordlens.resources import load_bias_pairs

    pairs = load_bias_pairs("crows").head(n_pairs)
    return [
        sentence
        for pair in zip(pairs["sentence_stereo"], pairs["sentence_anti"], strict=True)
        for sentence in pair
    ]


@torch.inference_mode()
def pll_one_copy_at_a_time(model: Any, tokenizer: Any, sentence: str) -> tuple[float, int]:
    """Mean PLL of one sentence with one forward pass per masked copy, and its token count."""
    ids = tokenizer(sentence)["input_ids"]
    picks = []
    for position in range(1, len(ids) - 1):
        copy = torch.tensor([ids])
        copy[0, position] = tokenizer.mask_token_id
        log_probs = torch.log_softmax(model(input_ids=copy).logits[0, position], dim=-1)
        picks.append(float(log_probs[ids[position]]))
    return float(np.mean(picks)), len(picks)


def run_mode(
    mode: str, model_dir: str, n_sentences: int, token_budget: int | None
) -> dict[str, Any]:
    """Run one configuration in this process and return its measurements."""
    torch.set_num_threads(THREADS)
    sentences = crows_pairs_sentences(N_PAIRS)[:n_sentences]
    if mode == "pll-loop":
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        start = time.perf_counter()
        scored = [pll_one_copy_at_a_time(model, tokenizer, s) for s in sentences]
        seconds = time.perf_counter() - start
        scores, n_tokens = [s for s, _ in scored], sum(n for _, n in scored)
    else:
        from wordlens.models.scoring import load_scorer

        scorer = load_scorer(model_dir, token_budget=token_budget)
        start = time.perf_counter()
        result = scorer.score(sentences, "pll" if mode == "pll" else "aul")
        seconds = time.perf_counter() - start
        scores, n_tokens = result.scores.tolist(), int(result.n_tokens.sum())
    return {
        "sentences": len(sentences),
        "tokens": n_tokens,
        "seconds": seconds,
        "sentences_per_s": len(sentences) / seconds,
        "tokens_per_s": n_tokens / seconds,
        "peak_rss_mib": peak_rss_mib(),
        "scores": scores,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=str(DEFAULT_MODEL), help="masked LM directory")
    parser.add_argument("--aul-pairs", type=int, default=N_PAIRS)
    parser.add_argument("--pll-pairs", type=int, default=200)
    parser.add_argument("--loop-sentences", type=int, default=40)
    parser.add_argument("--token-budget", type=int, default=None, help="default: the scorer's")
    parser.add_argument("--sentences", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_mode(args.child, args.model, args.sentences, args.token_budget)))
        return

    budget = [] if args.token_budget is None else ["--token-budget", str(args.token_budget)]
    sizes = {
        "aul": 2 * args.aul_pairs,
        "pll": 2 * args.pll_pairs,
        "pll-loop": min(args.loop_sentences, 2 * args.pll_pairs),
    }
    rows = {
        mode: measure_in_child(
            __file__, [mode, "--model", args.model, "--sentences", str(n), *budget]
        )
        for mode, n in sizes.items()
    }
    loop = rows["pll-loop"]
    agreement = np.abs(
        np.array(rows["pll"]["scores"][: loop["sentences"]]) - np.array(loop["scores"])
    ).max()
    print(
        f"minilm-l6-mlm on CrowS-Pairs, {THREADS} threads, token budget "
        f"{args.token_budget or 'default'}"
    )
    header = f"{'configuration':<12}{'sentences':>10}{'tokens':>8}{'seconds':>9}"
    print(f"{header}{'sent/s':>9}{'tokens/s':>10}{'all 3,016 (s)':>15}{'peak RSS MiB':>14}")
    for mode, row in rows.items():
        extrapolated = 2 * N_PAIRS / row["sentences_per_s"]
        print(
            f"{mode:<12}{row['sentences']:>10}{row['tokens']:>8}{row['seconds']:>9.1f}"
            f"{row['sentences_per_s']:>9.2f}{row['tokens_per_s']:>10.1f}{extrapolated:>15.0f}"
            f"{row['peak_rss_mib']:>14.0f}"
        )
    for mode, target in (("pll", " (target >= 10x)"), ("aul", "")):
        speedup = rows[mode]["sentences_per_s"] / loop["sentences_per_s"]
        print(f"{mode} / pll-loop speed-up (sentences/s): {speedup:.1f}x{target}")
    print(
        f"max |PLL batched - PLL loop| on the loop's {loop['sentences']} sentences: {agreement:.2e}"
    )
    if agreement > 1e-4:
        raise SystemExit("batched PLL disagrees with the one-copy-at-a-time loop")


if __name__ == "__main__":
    main()
