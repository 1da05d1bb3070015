"""Benchmark: PLL sentence scores on CrowS-Pairs with minilm-l6-mlm, 2 CPU threads.

Pseudo-log-likelihood (Salazar et al. 2020), the mean over a sentence's tokens of
``log P(w_i | S with w_i masked)``, computed three ways on the same sentences (both sentences of
the first ``--sentences / 2`` pairs, CrowS-Pairs read through the data registry):

- ``wordlens``: ``LMScorer.score(sentences, "pll")`` (see ``wordlens.models.scoring``);
- ``batched`` (the fair peer, ``_pipeline.batched_pll``): what a careful user writes with
  transformers alone, sized by wordlens' own PLL budget. All sentences in one tokenizer call;
  sentences sorted longest first and grouped so that all masked copies of a group fit one padded
  pass of ``copies * longest <= pll_token_budget(token_budget)`` tokens (2,048 on the CPU, as
  wordlens' PLL batches); the copies built by indexing, the encoder (``model.bert``) run on them
  and the masked-LM head (``model.cls``) only at each copy's masked position, log-softmax in
  float32. Same sentences, same masked copies, full sentences on both sides;
- ``loop``: one masked copy per forward pass, full logits, log-softmax, pick (the papers'
  baseline, the direct implementation; the old peer, kept as a row);
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
the per-repetition ratios of seconds (``_harness.median_ratio``, peer / wordlens: above 1,
wordlens is faster), against the targets (>= 10x the loop, >= 4x minicons; none is set against
the batched peer: its row says where wordlens stands against careful plain code). Each row also
gives the CPU seconds of its child process (all threads) per scored token and their ratio. Model
loading is not timed; every configuration first scores two sentences outside the measured ones
(warm-up). The ``padding`` column is wordlens' padding waste, padded positions over all positions
its passes computed (the stage's work counts). The scores of wordlens must agree with every
peer's to ``_pipeline.SCORE_LIMIT`` (1e-4, absolute) on every sentence (checked; the script exits
non-zero otherwise, after the table).

``--budgets 512,1024,2048`` instead times wordlens' PLL at each token budget (interleaved,
medians; PLL batches hold ``PLL_BUDGET_SCALE`` times the budget), the measurement behind the
scorer's PLL batch size.

Run: ``make bench`` or ``python benchmarks/bench_pll.py [--sentences 40] [--repeats 3]
[--aul-sentences 600] [--minicons-batch 8] [--peers batched,loop,minicons]
[--budgets 512,1024,2048]`` (minicons' row is left out, with a note, where it is not installed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from _harness import THREADS, interleaved, median, median_ratio, peak_rss_mib
from _pipeline import SCORE_LIMIT, batched_pll, check_limits

N_SENTENCES = 3016  # CrowS-Pairs: 1,508 pairs
#: Speed-up over each peer (peer seconds / wordlens seconds) wordlens aims at; None: no target.
TARGETS: dict[str, float | None] = {"batched": None, "loop": 10.0, "minicons": 4.0}
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
    if mode == "batched":
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        from wordlens.models.budget import CPU_TOKEN_BUDGET
        from wordlens.models.scoring import pll_token_budget

        model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        budget = pll_token_budget(token_budget or CPU_TOKEN_BUDGET)  # wordlens' PLL batches
        device = torch.device("cpu")

        def batched(sentences: list[str]) -> tuple[list[float], int]:
            scores, counts = batched_pll(
                model, tokenizer, sentences, token_budget=budget, device=device
            )
            return scores.tolist(), int(counts.sum())

        return batched
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
    cpu, start = time.process_time(), time.perf_counter()
    with stages.recording(log), stages.Timings().stage("score"):
        scores, n_tokens = score(sentences)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    work = log.records[-1].work
    return {
        "sentences": len(sentences),
        "tokens": n_tokens,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_rss_mib": peak_rss_mib(),
        "scores": scores,
        # None where the build does not count its padding (one before issue 40, for a before/after)
        "padding": (
            work["padding_positions"] / work["token_positions"]
            if work and "padding_positions" in work
            else None
        ),
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
    """wordlens' PLL against the batched peer, the loop and minicons (and AUL as a row),
    interleaved; exits non-zero when a peer's scores differ by more than :data:`SCORE_LIMIT`."""
    peers = [peer for peer in args.peers.split(",") if peer]
    if "minicons" in peers and importlib.util.find_spec("minicons") is None:
        print("minicons is not installed (make bench installs it): its row is left out")
        peers.remove("minicons")
    configurations = {
        "pll wordlens": child_arguments("wordlens", args, args.sentences, args.token_budget),
        **{
            f"pll {peer}": child_arguments(
                peer, args, args.sentences, args.token_budget if peer == "batched" else None
            )
            for peer in peers
        },
        "aul wordlens": child_arguments("aul", args, args.aul_sentences, args.token_budget),
    }
    runs = interleaved(__file__, configurations, args.repeats)
    print(
        f"minilm-l6-mlm on CrowS-Pairs, {THREADS} threads, token budget "
        f"{args.token_budget or 'default'}, minicons {args.minicons_batch} sentences a call, "
        f"medians of {args.repeats} interleaved runs"
    )
    print_table(runs)
    check_limits(print_comparison(runs))


def print_comparison(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """wordlens against each peer: CPU µs per scored token, CPU and wall ratios (peer / ours),
    the target and the largest score difference; returns the peers past :data:`SCORE_LIMIT`."""
    ours = runs["pll wordlens"]
    scores = np.array(ours[0]["scores"])
    print(
        f"\nwordlens PLL against each peer ({len(scores)} sentences; texts: full sentences on both "
        "sides); ratios peer / ours, medians of the paired repetitions"
    )
    print(
        f"{'peer':<10}{'texts':<11}{'ours µs/tok':>12}{'peer µs/tok':>12}{'CPU x':>8}{'wall x':>8}"
        f"{'target':>8}{'max |diff|':>12}"
    )
    failures = []
    per_token = 1e6 / ours[0]["tokens"]
    for peer, target in TARGETS.items():
        if f"pll {peer}" not in runs:
            continue
        theirs = runs[f"pll {peer}"]
        difference = float(np.abs(scores - np.array(theirs[0]["scores"])).max())
        print(
            f"{peer:<10}{'full/full':<11}{median(ours, 'cpu_seconds') * per_token:>12.1f}"
            f"{median(theirs, 'cpu_seconds') * 1e6 / theirs[0]['tokens']:>12.1f}"
            f"{median_ratio(theirs, ours, 'cpu_seconds'):>8.2f}"
            f"{median_ratio(theirs, ours, 'seconds'):>8.2f}"
            f"{'-' if target is None else f'{target:.0f}x':>8}{difference:>12.1e}"
        )
        if not difference <= SCORE_LIMIT:
            failures.append(f"{peer}: {difference:.1e}")
    print(f"scores: limit {SCORE_LIMIT:.0e} (absolute, mean log-probability per token)")
    return failures


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
    parser.add_argument(
        "--peers", default="batched,loop,minicons", help="comma-separated peers to compare with"
    )
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
