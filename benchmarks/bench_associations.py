"""Benchmark: the association metrics on GloVe 6B 50d, wordlens against WEFE 1.0.1, per metric.

For each of Caliskan et al.'s ten WEAT tests, the query is its two target and two attribute
sets less the words GloVe lacks ("gladiola"), both target sets cut to the shorter one's length
(RIPA pairs them by position), the same words for both sides. Each metric runs:

- ``wordlens``: ``wordlens.run(metric, glove, query=..., bootstrap=0, permutations=0, **options)``
  per test, ``options`` WEFE's variant where it departs from the paper (RND: the mean over the
  attribute words of raw-vector distances; RIPA: per-pair normalised differences); the whole user
  call is timed (query checks, word lookup, the metric, the table), after one warm-up call
  (imports and first-call costs, for WEFE too);
- ``wordlens+uncertainty``: the same with the defaults a user gets, a 1,000-resample bootstrap
  interval and (where the metric has one) a 10,000-partition permutation p, which WEFE does not
  compute: the price of the uncertainty;
- ``wefe``: ``metric.run_query(Query(...), model, preprocessors=[{}])`` per test and, for RND,
  ECT and RIPA (one attribute set each), per attribute set; RNSB with ``random_state=k`` for its
  ``k = 0..9`` (wordlens's 10 fits); the model a gensim ``KeyedVectors`` of the tests' words with
  wordlens's GloVe vectors (built before the clock starts: a WEFE user's model load).

SemAxis has no WEFE implementation (the R package sweater has one): its row prints wordlens alone.
Every configuration runs in its own process, 2 threads, interleaved over ``--repeats``; the
largest difference between the two sides' values is printed (they must agree to 1e-6).

Run: ``python benchmarks/bench_associations.py [--repeats 3] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import torch

from _harness import REPEATS, THREADS, interleaved, median, median_ratio, peak_rss_mib

METRICS = ("rnd", "ect", "mac", "rnsb", "ripa", "semaxis")
WEFE_OPTIONS: dict[str, dict[str, Any]] = {
    "rnd": {"normalize": False, "average": True},
    "ripa": {"relation": "pairs"},
    "rnsb": {"fits": 10},
}
"""wordlens options that give WEFE's variant of each metric (none: the paper's is WEFE's)."""
PER_ATTRIBUTE_SET = ("rnd", "ect", "ripa")


def queries(test_ids: list[int]) -> tuple[Any, list[dict[str, Any]]]:
    """GloVe and each test's query (words GloVe lacks left out, targets cut to one length)."""
    from wordlens.models.loading import load_model
    from wordlens.resources import load_weat_tests

    glove = load_model("glove-6b-50d")
    found = []
    for test in load_weat_tests(test_ids):
        sets = [[w for w in s.words if w not in glove.missing_words(s.words)] for s in
                (test.x, test.y, test.a, test.b)]  # fmt: skip
        length = min(len(sets[0]), len(sets[1]))
        found.append(
            {
                "targets": {test.x.name: sets[0][:length], test.y.name: sets[1][:length]},
                "attributes": {test.a.name: sets[2], test.b.name: sets[3]},
            }
        )
    return glove, found


def run_wordlens(metric: str, test_ids: list[int], uncertainty: bool) -> tuple[float, list[float]]:
    import wordlens

    glove, found = queries(test_ids)
    options = dict(WEFE_OPTIONS.get(metric, {}))
    if not uncertainty:
        options.update(bootstrap=0, permutations=0)
    wordlens.run(metric, glove, query=found[0], **options)  # warm: imports, first-call costs
    start = time.perf_counter()
    values = []
    for query in found:
        table = wordlens.run(metric, glove, query=query, **options).tables["scores"]
        values += [float(value) for value in table["value"]]
    return time.perf_counter() - start, values


def run_wefe(metric: str, test_ids: list[int]) -> tuple[float, list[float]]:
    from gensim.models import KeyedVectors  # type: ignore[import-untyped]
    from wefe import metrics
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    from wordlens.contexts import decontextualized_targets

    glove, found = queries(test_ids)
    words = sorted(
        {w for q in found for sets in (q["targets"], q["attributes"]) for s in sets.values()
         for w in s}
    )  # fmt: skip
    vectors = glove.embed(decontextualized_targets(words)).vectors[:, 0]
    keyed = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float64)
    keyed.add_vectors(words, np.asarray(vectors, dtype=np.float64))
    model = WordEmbeddingModel(keyed, "glove-6b-50d")
    peer = getattr(metrics, metric.upper())()
    first = found[0]
    warm = Query(
        target_sets=list(first["targets"].values()),
        attribute_sets=list(first["attributes"].values())[
            : 1 if metric in PER_ATTRIBUTE_SET else 2
        ],
    )
    peer.run_query(warm, model, preprocessors=[{}])  # warm, as wordlens
    start = time.perf_counter()
    values = []
    for query in found:
        targets = list(query["targets"].values())
        attributes = list(query["attributes"].values())
        if metric in PER_ATTRIBUTE_SET:
            calls = [[attribute] for attribute in attributes]
        else:
            calls = [attributes]
        for chosen in calls:
            asked = Query(target_sets=targets, attribute_sets=chosen)
            if metric == "rnsb":
                runs = [
                    peer.run_query(asked, model, random_state=k, preprocessors=[{}])["result"]
                    for k in range(10)
                ]
                values.append(float(np.mean(runs)))
            else:
                values.append(float(peer.run_query(asked, model, preprocessors=[{}])["result"]))
    return time.perf_counter() - start, values


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    torch.set_num_threads(THREADS)
    side, metric = args.child.split(":")
    if side == "wefe":
        seconds, values = run_wefe(metric, args.tests)
    else:
        seconds, values = run_wordlens(metric, args.tests, side == "wordlens+uncertainty")
    return {"seconds": seconds, "values": values, "rss": peak_rss_mib()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--quick", action="store_true", help="tests 7-8, one repeat")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tests", default="1,2,3,4,5,6,7,8,9,10", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.tests = 1, "7,8"
    args.tests = [int(n) for n in str(args.tests).split(",")]
    if args.child:
        print(json.dumps(run_child(args)))
        return
    common = ["--tests", ",".join(map(str, args.tests))]
    print(f"GloVe 6B 50d, WEAT tests {args.tests} as queries, {args.repeats} interleaved "
          f"repetition(s), {THREADS} threads")  # fmt: skip
    header = f"{'metric':<9}{'wordlens s':>12}{'+ uncertainty s':>17}{'wefe s':>9}"
    print(f"{header}{'wefe / wordlens':>17}{'max |diff|':>12}")
    for metric in args.metrics.split(","):
        sides = ["wordlens", "wordlens+uncertainty"] + (["wefe"] if metric != "semaxis" else [])
        results = interleaved(
            __file__, {side: [f"{side}:{metric}", *common] for side in sides},
            args.repeats,
        )  # fmt: skip
        ours = median(results["wordlens"], "seconds")
        with_uncertainty = median(results["wordlens+uncertainty"], "seconds")
        if "wefe" in results:
            theirs = f"{median(results['wefe'], 'seconds'):>9.3f}"
            ratio = f"{median_ratio(results['wefe'], results['wordlens'], 'seconds'):>16.1f}x"
            gap = max(
                abs(a - b)
                for first, second in zip(results["wordlens"], results["wefe"], strict=True)
                for a, b in zip(first["values"], second["values"], strict=True)
            )
            difference = f"{gap:>12.1e}"
        else:
            theirs, ratio, difference = f"{'—':>9}", f"{'no WEFE peer':>17}", f"{'':>12}"
        print(f"{metric:<9}{ours:>12.3f}{with_uncertainty:>17.3f}{theirs}{ratio}{difference}")


if __name__ == "__main__":
    main()
