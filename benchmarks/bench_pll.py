"""Benchmark: PLL sentence scores on CrowS-Pairs with minilm-l6-mlm, 2 CPU threads.

Pseudo-log-likelihood (Salazar et al. 2020), the mean over a sentence's tokens of
``log P(w_i | S with w_i masked)``, computed three ways on the same sentences (both sentences of
the first ``--sentences / 2`` pairs, CrowS-Pairs read through the data registry):

- ``wordlens``: ``LMScorer.score(sentences, "pll")`` (see ``wordlens.models.scoring``);
- ``loop``: one masked copy per forward pass, full logits, log-softmax, pick (the papers'
  baseline, the direct implementation);
- ``minicons``: ``minicons.scorer.MaskedLMScorer(model_dir, "cpu").sequence_score(batch)``
  (minicons 0.3.39), ``--minicons-batch`` sentences per call in the input order: its plain token
  PLL (``PLL_metric="original"``, every token but [CLS], [SEP] and padding masked once) with its
  default reduction, the mean over the tokens — wordlens' convention, so the scores are compared
  as they are. minicons puts all masked copies of a call's sentences into one forward pass and
  computes full-vocabulary logits at every position. **Shim:** transformers 5 removed
  ``batch_encode_plus``, which minicons' ``encode`` calls; the tokenizer's ``__call__`` takes the
  same arguments, so the scorer's tokenizer gets ``batch_encode_plus = tokenizer`` (nothing else
  changes).

and ``aul`` (one unmasked pass per sentence, ``--aul-sentences``) as a row of its own: a different
method, so no ratio against PLL.

Each configuration runs in a fresh process, configurations interleaved over ``--repeats``
repetitions (``_harness.interleaved``); the table shows medians, and the speed-ups are medians of
the per-repetition ratios of seconds (``_harness.median_ratio``), against the targets (>= 10x the
loop, >= 4x minicons). Model loading is not timed; every configuration first scores two sentences
outside the measured ones (warm-up). The ``padding`` column is wordlens' padding waste, padded
positions over all positions its passes computed (the stage's work counts). The scores of
wordlens must agree with the loop's and with minicons' to 1e-4 on every sentence (checked; the
script exits non-zero otherwise).

``--budgets 512,1024,2048`` instead times wordlens' PLL at each token budget (interleaved,
medians; PLL batches hold ``PLL_BUDGET_SCALE`` times the budget), the measurement behind the
scorer's PLL batch size.

Run: ``make bench`` or ``python benchmarks/bench_pll.py [--sentences 40] [--repeats 3]
[--aul-sentences 600] [--minicons-batch 8] [--budgets 512,1024,2048]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from _harness import THREADS, interleaved, median, median_ratio, peak_rss_mib

N_SENTENCES = 3016  # CrowS-Pairs: 1,508 pairs
TOLERANCE = 1e-4
TARGETS = {"loop": 10.0, "minicons": 4.0}
DEFAULT_MODEL = (
    Path(os.environ.get("WORDLENS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    / "models"
    / "minilm-l6-mlm"
)


def crows_pairs_sentences(n_sentences: int) -> list[str]:
    """Both sentences (stereotypical, then anti-stereotypical) of the first pairs, read through
    the data registry: ``n_sentences`` sentences."""
    from wordlens.resources import load_bias_pairs

    pairs = load_bias_pairs("crows").head((n_sentences + 1) // 2)
    sentences = [
        sentence
        for pair in zip(pairs["sentence_stereo"], pairs["sentence_anti"], strict=True)
        for sentence in pair
    ]
    return sentences[:n_sentences]


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


def scoring_function(
    mode: str, model_dir: str, token_budget: int | None, minicons_batch: int
) -> Callable[[list[str]], tuple[list[float], int]]:
    """Load the model for ``mode`` and return what scores a list of sentences: their scores and
    the number of tokens scored."""
    if mode == "loop":
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
        tokenizer = AutoTokenizer.from_pretrained(model_dir)

        def loop(sentences: list[str]) -> tuple[list[float], int]:
            scored = [pll_one_copy_at_a_time(model, tokenizer, s) for s in sentences]
            return [score for score, _ in scored], sum(n for _, n in scored)

        return loop
    if mode == "minicons":
        from minicons import scorer as minicons_scorer

        peer = minicons_scorer.MaskedLMScorer(model_dir, "cpu")
        peer.tokenizer.batch_encode_plus = peer.tokenizer  # the shim (see the module docstring)

        def minicons(sentences: list[str]) -> tuple[list[float], int]:
            scores: list[float] = []
            for first in range(0, len(sentences), minicons_batch):
                scores.extend(peer.sequence_score(sentences[first : first + minicons_batch]))
            tokens = sum(len(ids) - 2 for ids in peer.tokenizer(sentences)["input_ids"])
            return scores, tokens

        return minicons
    from wordlens.models.scoring import load_scorer

    wordlens = load_scorer(model_dir, token_budget=token_budget)
    method = "aul" if mode == "aul" else "pll"

    def score(sentences: list[str]) -> tuple[list[float], int]:
        result = wordlens.score(sentences, method)
        return result.scores.tolist(), int(result.n_tokens.sum())

    return score


def run_mode(
    mode: str, model_dir: str, n_sentences: int, token_budget: int | None, minicons_batch: int
) -> dict[str, Any]:
    """Run one configuration in this process and return its measurements (``padding``: the
    padded share of the positions wordlens' passes computed, from the stage's work counts; None
    for the peers, which count none)."""
    from wordlens import stages

    torch.set_num_threads(THREADS)
    sentences = crows_pairs_sentences(n_sentences + 2)
    warm_up, sentences = sentences[-2:], sentences[:-2]
    score = scoring_function(mode, model_dir, token_budget, minicons_batch)
    score(warm_up)
    log = stages.StageLog()
    start = time.perf_counter()
    with stages.recording(log), stages.Timings().stage("score"):
        scores, n_tokens = score(sentences)
    seconds = time.perf_counter() - start
    work = log.records[-1].work
    return {
        "sentences": len(sentences),
        "tokens": n_tokens,
        "seconds": seconds,
        "peak_rss_mib": peak_rss_mib(),
        "scores": scores,
        "padding": work["padding_positions"] / work["token_positions"] if work else None,
    }


def child_arguments(
    mode: str, args: argparse.Namespace, n_sentences: int, token_budget: int | None
) -> list[str]:
    """The arguments of one configuration's child process."""
    arguments = [mode, "--model", args.model, "--sentences", str(n_sentences)]
    arguments += ["--minicons-batch", str(args.minicons_batch)]
    return arguments + ([] if token_budget is None else ["--token-budget", str(token_budget)])


def print_table(runs: dict[str, list[dict[str, Any]]]) -> None:
    """Median seconds, rates and peak RSS of each configuration, and wordlens' padding waste."""
    print(
        f"{'configuration':<16}{'sentences':>10}{'tokens':>8}{'seconds':>9}{'sent/s':>9}"
        f"{'tokens/s':>10}{'all 3,016 (s)':>15}{'peak RSS MiB':>14}{'padding':>9}"
    )
    for name, results in runs.items():
        first, seconds = results[0], median(results, "seconds")
        padding = "-" if first["padding"] is None else f"{first['padding']:.2%}"
        print(
            f"{name:<16}{first['sentences']:>10}{first['tokens']:>8}{seconds:>9.2f}"
            f"{first['sentences'] / seconds:>9.2f}{first['tokens'] / seconds:>10.1f}"
            f"{N_SENTENCES * seconds / first['sentences']:>15.0f}"
            f"{median(results, 'peak_rss_mib'):>14.0f}{padding:>9}"
        )


def compare(args: argparse.Namespace) -> None:
    """wordlens' PLL against the loop and minicons (and AUL as a row), interleaved."""
    configurations = {
        "pll wordlens": child_arguments("wordlens", args, args.sentences, args.token_budget),
        "pll loop": child_arguments("loop", args, args.sentences, None),
        "pll minicons": child_arguments("minicons", args, args.sentences, None),
        "aul wordlens": child_arguments("aul", args, args.aul_sentences, args.token_budget),
    }
    runs = interleaved(__file__, configurations, args.repeats)
    print(
        f"minilm-l6-mlm on CrowS-Pairs, {THREADS} threads, token budget "
        f"{args.token_budget or 'default'}, minicons {args.minicons_batch} sentences a call, "
        f"medians of {args.repeats} interleaved runs"
    )
    print_table(runs)
    ours = np.array(runs["pll wordlens"][0]["scores"])
    failures = []
    for peer, target in TARGETS.items():
        speedup = median_ratio(runs[f"pll {peer}"], runs["pll wordlens"], "seconds")
        difference = float(np.abs(ours - np.array(runs[f"pll {peer}"][0]["scores"])).max())
        print(
            f"wordlens PLL speed-up over {peer}: {speedup:.2f}x (median ratio; target >= "
            f"{target:.0f}x); max |wordlens - {peer}| over {len(ours)} sentences: {difference:.1e}"
        )
        if difference > TOLERANCE:
            failures.append(peer)
    if failures:
        raise SystemExit(f"wordlens' PLL disagrees with {', '.join(failures)} (> {TOLERANCE})")


def budget_sweep(args: argparse.Namespace, budgets: list[int]) -> None:
    """wordlens' PLL at each token budget, interleaved: median seconds and the ratio to the
    first budget."""
    from wordlens.models.scoring import PLL_BUDGET_SCALE

    configurations = {
        str(budget): child_arguments("wordlens", args, args.sentences, budget) for budget in budgets
    }
    runs = interleaved(__file__, configurations, args.repeats)
    print(
        f"wordlens PLL, minilm-l6-mlm, {args.sentences} CrowS-Pairs sentences, {THREADS} threads, "
        f"medians of {args.repeats} interleaved runs"
    )
    print(
        f"{'token budget':>12}{'PLL batch':>10}{'seconds':>9}{'sent/s':>9}{'peak RSS MiB':>14}"
        f"{'speed-up':>10}"
    )
    first = runs[str(budgets[0])]
    for budget, results in runs.items():
        seconds = median(results, "seconds")
        print(
            f"{budget:>12}{int(budget) * PLL_BUDGET_SCALE:>10}{seconds:>9.2f}"
            f"{results[0]['sentences'] / seconds:>9.2f}"
            f"{median(results, 'peak_rss_mib'):>14.0f}"
            f"{median_ratio(first, results, 'seconds'):>9.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=str(DEFAULT_MODEL), help="masked LM directory")
    parser.add_argument("--sentences", type=int, default=40, help="PLL sentences (all three)")
    parser.add_argument("--aul-sentences", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--minicons-batch", type=int, default=8, help="sentences a minicons call")
    parser.add_argument("--token-budget", type=int, default=None, help="default: the scorer's")
    parser.add_argument("--budgets", help="comma-separated token budgets to sweep instead")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = run_mode(
            args.child, args.model, args.sentences, args.token_budget, args.minicons_batch
        )
        print(json.dumps(result))
    elif args.budgets:
        budget_sweep(args, [int(budget) for budget in args.budgets.split(",")])
    else:
        compare(args)


if __name__ == "__main__":
    main()
