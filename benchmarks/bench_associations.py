"""Benchmark: the association metrics on GloVe 6B 50d, wordlens against WEFE 1.0.1, per metric.

For each of Caliskan et al.'s ten WEAT tests, the query is its two target and two attribute
sets less the words GloVe lacks ("gladiola"), both target sets cut to the shorter one's length
(RIPA pairs them by position), the same words for both sides. Each metric runs:

- ``wordlens``: ``wordlens.run(metric, glove, query=..., bootstrap=0, permutations=0, **options)``
  per test, ``options`` WEFE's variant where it departs from the paper (RND: the mean over the
  attribute words of raw-vector distances; RIPA: per-pair normalised differences); the whole user
  call is timed (query checks, word lookup, the metric, the table), after one warm-up call
  (imports and first-call costs, for WEFE too): the bare call's fixed cost, in ms per call;
- ``wordlens+uncertainty``: the same with the defaults a user gets, a 1,000-resample bootstrap
  interval and (where the metric has one) a 10,000-relabelling permutation p, which WEFE does not
  compute: seconds per call, the mean over the tests and the slowest test, and the same on one
  WEAT-size query (``--size``: test 1's first 8 + 8 target and 8 + 8 attribute words);
- ``wefe``: ``metric.run_query(Query(...), model, preprocessors=[{}])`` per test and, for RND,
  ECT and RIPA (one attribute set each), per attribute set; RNSB with ``random_state=k`` for its
  ``k = 0..9`` (wordlens's 10 fits); the model a gensim ``KeyedVectors`` of the tests' words with
  wordlens's GloVe vectors (built before the clock starts: a WEFE user's model load).

SemAxis has no WEFE implementation (the R package sweater has one): its row prints wordlens alone.
Every configuration runs in its own process, 2 threads, interleaved over ``--repeats`` (medians
printed); the largest difference between the two sides' values is printed (they must agree to
1e-6, or the script fails).

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
TOLERANCE = 1e-6
"""Largest difference allowed between wordlens's values and WEFE's."""
SIZE = 8
"""Words per set of the WEAT-size query (test 1's first ones)."""


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


def weat_size_query(glove: Any) -> dict[str, Any]:
    """Test 1's first :data:`SIZE` words GloVe has of each set (flowers, insects, pleasant,
    unpleasant)."""
    from wordlens.resources import load_weat_tests

    (test,) = load_weat_tests([1])
    named = (test.x, test.y, test.a, test.b)
    words = [[w for w in s.words if w not in glove.missing_words(s.words)][:SIZE] for s in named]
    return {
        "targets": {test.x.name: words[0], test.y.name: words[1]},
        "attributes": {test.a.name: words[2], test.b.name: words[3]},
    }


def run_wordlens(metric: str, test_ids: list[int], uncertainty: bool) -> dict[str, Any]:
    """Seconds per call of each test's query (and, with ``uncertainty``, of the WEAT-size
    query), and the values."""
    import wordlens

    glove, found = queries(test_ids)
    options = dict(WEFE_OPTIONS.get(metric, {}))
    if not uncertainty:
        options.update(bootstrap=0, permutations=0)
    wordlens.run(metric, glove, query=found[0], **options)  # warm: imports, first-call costs
    calls, values = [], []
    for query in found:
        start = time.perf_counter()
        table = wordlens.run(metric, glove, query=query, **options).tables["scores"]
        calls.append(time.perf_counter() - start)
        values += [float(value) for value in table["value"]]
    sized = float("nan")
    if uncertainty:
        start = time.perf_counter()
        wordlens.run(metric, glove, query=weat_size_query(glove), **options)
        sized = time.perf_counter() - start
    return {"calls": calls, "values": values, "sized": sized}


def run_wefe(metric: str, test_ids: list[int]) -> dict[str, Any]:
    """Seconds per query (its calls, one per attribute set for RND, ECT and RIPA; RNSB's 10
    random states), and the values."""
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
    calls, values = [], []
    for query in found:
        start = time.perf_counter()
        targets = list(query["targets"].values())
        attributes = list(query["attributes"].values())
        if metric in PER_ATTRIBUTE_SET:
            asked_sets = [[attribute] for attribute in attributes]
        else:
            asked_sets = [attributes]
        for chosen in asked_sets:
            asked = Query(target_sets=targets, attribute_sets=chosen)
            if metric == "rnsb":
                runs = [
                    peer.run_query(asked, model, random_state=k, preprocessors=[{}])["result"]
                    for k in range(10)
                ]
                values.append(float(np.mean(runs)))
            else:
                values.append(float(peer.run_query(asked, model, preprocessors=[{}])["result"]))
        calls.append(time.perf_counter() - start)
    return {"calls": calls, "values": values}


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    torch.set_num_threads(THREADS)
    side, metric = args.child.split(":")
    if side == "wefe":
        measured = run_wefe(metric, args.tests)
    else:
        measured = run_wordlens(metric, args.tests, side == "wordlens+uncertainty")
    calls = measured["calls"]
    return {
        **measured,
        "per_call": sum(calls) / len(calls),
        "slowest": max(calls),
        "rss": peak_rss_mib(),
    }


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
          f"repetition(s), {THREADS} threads; medians over the repetitions")  # fmt: skip
    print(
        f"{'metric':<9}{'bare ms':>9}{'wefe ms':>9}{'wefe/ours':>11}{'default s':>11}"
        f"{'slowest s':>11}{f'{SIZE}+{SIZE} s':>9}{'max |diff|':>12}"
    )
    worst = 0.0
    for metric in args.metrics.split(","):
        sides = ["wordlens", "wordlens+uncertainty"] + (["wefe"] if metric != "semaxis" else [])
        results = interleaved(
            __file__, {side: [f"{side}:{metric}", *common] for side in sides},
            args.repeats,
        )  # fmt: skip
        bare = 1e3 * median(results["wordlens"], "per_call")
        full = results["wordlens+uncertainty"]
        if "wefe" in results:
            theirs = f"{1e3 * median(results['wefe'], 'per_call'):>9.2f}"
            ratio = f"{median_ratio(results['wefe'], results['wordlens'], 'per_call'):>10.2f}x"
            gap = max(
                abs(a - b)
                for first, second in zip(results["wordlens"], results["wefe"], strict=True)
                for a, b in zip(first["values"], second["values"], strict=True)
            )
            worst = max(worst, gap)
            difference = f"{gap:>12.1e}"
        else:
            theirs, ratio, difference = f"{'—':>9}", f"{'no peer':>11}", f"{'':>12}"
        print(
            f"{metric:<9}{bare:>9.2f}{theirs}{ratio}{median(full, 'per_call'):>11.3f}"
            f"{median(full, 'slowest'):>11.3f}{median(full, 'sized'):>9.3f}{difference}"
        )
    if worst > TOLERANCE:
        raise SystemExit(f"wordlens and WEFE differ by {worst:.1e}, more than {TOLERANCE:.0e}")


if __name__ == "__main__":
    main()
