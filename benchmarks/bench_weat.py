"""Benchmark: WEAT on GloVe 6B 50d, wordlens against WEFE 1.0.1, same words, same permutations.

Both run the Caliskan et al. (2017) tests through their user-facing entry points on the same
vectors:

- ``wordlens``: :func:`wordlens.methods.weat.layers.run_weat` on ``load_model("glove-6b-50d")``
  with ``WeatConfig(n_samples=P, ddof=0)`` (word lookup, statistic, effect size, permutation
  p-values; ``ddof=0`` is WEFE's population std, so the effect sizes must agree);
- ``wefe``: ``wefe.metrics.WEAT().run_query(query, model, calculate_p_value=True,
  p_value_iterations=P, return_effect_size=True, preprocessors=[{}])`` per test, the model a
  gensim ``KeyedVectors`` holding the tests' words with wordlens's GloVe vectors as float64 (built
  before the clock starts: a WEFE user's model load).

Same word sets: wordlens's packaged tests (``load_weat_tests``) less the words GloVe lacks
("gladiola"), given as such to WEFE. Same number of permutations ``P`` for both, but not the same
permutations: WEFE draws ``P`` distinct random orderings of the target words *with replacement*
(``rng.choice(pool, size=n)``, unseeded; ``WEAT.py`` ``_calc_p_value``) and recomputes every
cosine similarity for each; wordlens draws ``P`` random partitions (seeded) of per-word scores
computed once, or enumerates all partitions when there are at most ``P`` (test 9 at 10,000:
924). The p-values are therefore not comparable (``tests/stats/test_weat_vs_peers.py``), only
the times and the effect sizes (the largest difference over the tests is printed).

Runs: the ten tests at ``--permutations`` (default the audit's 200), and ``--large-tests``
(default test 6: 8 + 8 targets, 8 + 8 attributes) at ``--large-permutations`` (10,000), each pair
interleaved over ``--repeats`` (the large run over ``--large-repeats``, default 1: WEFE needs
minutes for it). Every configuration in its own process, 2 threads.

Run: ``python benchmarks/bench_weat.py [--permutations 200] [--large-permutations 10000]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from _harness import REPEATS, THREADS, interleaved, median, median_ratio, peak_rss_mib


def word_sets(test_ids: Sequence[int]) -> tuple[Any, dict[int, list[list[str]]], list[str]]:
    """GloVe, each test's X, Y, A, B without the words GloVe lacks, and those words."""
    from wordlens.models.loading import load_model
    from wordlens.resources import load_weat_tests

    glove = load_model("glove-6b-50d")
    tests = load_weat_tests(test_ids)
    everything = [w for t in tests for s in (t.x, t.y, t.a, t.b) for w in s.words]
    missing = glove.missing_words(everything)
    sets = {
        test.id: [
            [w for w in s.words if w not in missing] for s in (test.x, test.y, test.a, test.b)
        ]
        for test in tests
    }
    return glove, sets, missing


def run_wordlens(test_ids: Sequence[int], permutations: int) -> tuple[float, list[float]]:
    from wordlens.methods.weat.config import WeatConfig
    from wordlens.methods.weat.layers import run_weat
    from wordlens.resources import load_weat_tests

    glove, _, _ = word_sets(test_ids)
    tests = load_weat_tests(test_ids)
    config = WeatConfig(n_samples=permutations, ddof=0)
    start = time.perf_counter()
    table = run_weat(glove, tests, config).tables["weat"]
    seconds = time.perf_counter() - start
    by_test = table.set_index("test")["effect_size"]
    return seconds, [float(by_test[test_id]) for test_id in test_ids]


def run_wefe(test_ids: Sequence[int], permutations: int) -> tuple[float, list[float]]:
    from gensim.models import KeyedVectors  # type: ignore[import-untyped]
    from wefe.metrics import WEAT
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    from wordlens.contexts import decontextualized_targets

    glove, sets, _ = word_sets(test_ids)
    words = sorted({word for four in sets.values() for group in four for word in group})
    vectors = glove.embed(decontextualized_targets(words)).vectors[:, 0]  # [words, 50]
    keyed = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float64)
    keyed.add_vectors(words, np.asarray(vectors, dtype=np.float64))
    model = WordEmbeddingModel(keyed, "glove-6b-50d")
    metric = WEAT()
    start = time.perf_counter()
    effect_sizes = [
        float(
            metric.run_query(
                Query(target_sets=sets[test_id][:2], attribute_sets=sets[test_id][2:]),
                model,
                calculate_p_value=True,
                p_value_iterations=permutations,
                return_effect_size=True,
                preprocessors=[{}],
            )["effect_size"]
        )
        for test_id in test_ids
    ]
    return time.perf_counter() - start, effect_sizes


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    torch.set_num_threads(THREADS)
    run = run_wordlens if args.child == "wordlens" else run_wefe
    seconds, effect_sizes = run(args.tests, args.permutations)
    return {"seconds": seconds, "effect_sizes": effect_sizes, "rss": peak_rss_mib()}


def compare(test_ids: list[int], permutations: int, repeats: int) -> None:
    """Interleave wordlens and WEFE on ``test_ids`` and print times, ratio and agreement."""
    common = ["--tests", ",".join(map(str, test_ids)), "--permutations", str(permutations)]
    results = interleaved(
        __file__, {"wordlens": ["wordlens", *common], "wefe": ["wefe", *common]}, repeats
    )
    print(
        f"\nWEAT tests {', '.join(map(str, test_ids))}, {permutations:,} permutations, "
        f"{repeats} interleaved repetition(s), {THREADS} threads"
    )
    print(f"{'':<10}{'median s':>10}{'min s':>9}{'max s':>9}{'peak RSS MiB':>14}")
    for name, rows in results.items():
        seconds = [row["seconds"] for row in rows]
        print(
            f"{name:<10}{median(rows, 'seconds'):>10.3f}{min(seconds):>9.3f}{max(seconds):>9.3f}"
            f"{median(rows, 'rss'):>14.0f}"
        )
    ratio = median_ratio(results["wefe"], results["wordlens"], "seconds")
    gap = max(
        abs(ours - theirs)
        for first, second in zip(results["wordlens"], results["wefe"], strict=True)
        for ours, theirs in zip(first["effect_sizes"], second["effect_sizes"], strict=True)
    )
    print(f"median time ratio wefe / wordlens: {ratio:.0f}x")
    print(f"effect sizes (ddof 0): max |wordlens - wefe| over the tests {gap:.1e}")


def parse_arguments() -> argparse.Namespace:
    def numbers(text: str) -> list[int]:
        return [int(n) for n in text.split(",") if n]

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--permutations", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--large-tests", type=numbers, default=[6], help="empty: skip")
    parser.add_argument("--large-permutations", type=int, default=10_000)
    parser.add_argument("--large-repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tiny run that checks the script")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tests", type=numbers, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.permutations, args.repeats, args.large_permutations = 20, 1, 100
    return args


def main() -> None:
    args = parse_arguments()
    if args.child:
        print(json.dumps(run_child(args)))
        return
    _, _, missing = word_sets(list(range(1, 11)))
    print(f"GloVe 6B 50d; words GloVe lacks, left out of both: {', '.join(missing) or 'none'}")
    compare(list(range(1, 11)), args.permutations, args.repeats)
    if args.large_tests:
        compare(args.large_tests, args.large_permutations, args.large_repeats)


if __name__ == "__main__":
    main()
