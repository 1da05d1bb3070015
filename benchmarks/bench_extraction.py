"""Benchmark: word-in-context extraction on smollm2-135m against real peers, 2 CPU threads.

All 31 hidden-state layers (embeddings + 30 blocks), mean pooling of the word's subtokens, float32,
``torch.set_num_threads(2)``. Every configuration runs in a fresh interpreter (peak RSS is the
child's ``ru_maxrss``); the timed configurations are interleaved over ``--repeats`` repetitions
and compared by the median of per-repetition ratios (``benchmarks/_harness.py``). Only the
extraction is timed: model loading, tokenizing the lexicon and building contexts are not.

Sections:

1. **Speed** on the first ``--words`` Warriner words in "This is {word}":

   - ``wordlens``: ``model.embed(targets, layers=None)`` (token-budget batches, prefix key/value
     reuse, the target's later tokens dropped);
   - ``hf-fair``: the fair peer (:func:`_pipeline.fair_vectors`, mean pooling): the same work
     as wordlens with transformers alone: all texts in one tokenizer call, each text cut after
     the last subtoken of its last target (a causal model: wordlens drops later tokens too), passes
     sized by the embedder's own token budget (``rows * longest <= token_budget``, at most
     ``max_batch_targets`` rows), with the same BOS token wordlens adds;
   - ``hf-batched``: the old peer, kept as a row so that the change in the ratios shows
     (:func:`_harness.batched_hf_mean_vectors`: full texts, length-sorted, 64 texts a pass padded
     row by row, attention mask, ``inference_mode``), with the same BOS token.

     Both peers' vectors must equal wordlens's: the largest per-layer relative difference
     (``max |ours - peer| / max |peer|`` of a layer) is checked against
     ``_pipeline.VECTOR_LIMIT`` (1e-5), and the script exits non-zero past it (after all
     sections); the largest relative difference of a word's layer vector is printed too;
   - ``minicons``: minicons 0.3.39's ``cwe.CWE(model_dir).extract_representation(pairs,
     layer="all")`` on the same (sentence, character span) pairs, 64 a call in input order. It
     loads the local directory wordlens converted the GGUF file into (offline, no shim needed on
     transformers 5). Two departures from calling it bare, both in its favour or neutral: the calls
     run under ``torch.inference_mode()`` (minicons itself runs the model with autograd on), and
     minicons adds no BOS token (the SmolLM2 tokenizer adds none), so its vectors are those of the
     BOS-less texts: one token fewer a text. To show it computes the same thing, its first batch
     is compared with the hf peer run without BOS (printed);
   - ``naive``: one sentence per forward pass, as the VAST authors' code does
     (:func:`_harness.naive_subtoken_states`), timed on the first ``--naive-words`` words only
     and **extrapolated** linearly to ``--words``.

   Also the **FLOP floor** of wordlens's own plan: ``2 * P * T / R`` with ``T`` the tokens its
   passes compute (the sum over the batches of ``plan_batches(model.encode(targets), ...)`` of
   ``PrefixTree.real_tokens``: no padding), ``P`` the parameters that multiply a token (all
   parameters less the input embedding table, which is looked up) and ``R`` the FLOP/s of a
   2048 x 2048 float32 matrix product measured in the same child on the same 2 threads
   (:func:`_harness.matmul_rate`). Attention's score products are left out (for these 5-token
   texts they are under 0.2% of the FLOPs). Printed: wordlens seconds / floor (target <= 1.15),
   and the same with ``P`` = all parameters, as ``_harness``'s docstring defines it (a looser
   floor: the embedding table is about a fifth of smollm2-135m).

2. **Cached rerun**: the ``--words`` vectors filled into an activation cache, then read back
   with the shards' checksums verified (the default) and not (``ActivationCache(verify=False)``),
   each timed 3 times in one process, fastest kept: what verification costs.

3. **Memory scaling**: peak RSS of ``wordlens`` at each of ``--rss-words`` (one child each) next
   to a child that only loads the model (and then embeds one word: loading leaves the weights
   memory-mapped, partly not resident, so loading alone understates the model's RSS) and the
   output's size (``words x 31 x 576 x 4`` bytes). Target: at 13,915 words <= 1.5 GiB, and flat
   beyond model + one batch.

4. **Corpus-like texts**, interleaved like section 1: the VAST random-setting contexts
   (:func:`wordlens.methods.vast.experiments.setting_targets` over all of Warriner, seed 0: a
   random corpus sentence containing the word, trimmed to 10 words either side) of
   ``--corpus-words`` words spread evenly over those that have a corpus sentence (the others get
   "This is {word}" in VAST, section 1's texts; their number is printed), wordlens against the hf
   peers (target >= 1.5x against the fair one); and probing-like texts: every word (``\\w+``) of
   those same sentences is a target, so a sentence carries many targets. The old peer runs each
   distinct whole sentence once and pools every target from it; the fair peer, like wordlens,
   computes each distinct text cut after a target once (a causal model's target never sees later
   tokens). Printed with the tokens each computes, and checked like section 1.

Run: ``python benchmarks/bench_extraction.py [--words 1000] [--repeats 3] [--quick]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import torch

from _harness import (
    REPEATS,
    THREADS,
    batched_hf_mean_vectors,
    flop_floor_seconds,
    interleaved,
    matmul_rate,
    measure_in_child,
    median,
    median_ratio,
    naive_subtoken_states,
    peak_rss_mib,
)
from _pipeline import VECTOR_LIMIT, check_limits, fair_vectors, peer_batches, peer_rows
from _pipeline import layer_relative_difference as layer_difference

if TYPE_CHECKING:
    from wordlens.contexts import Target
    from wordlens.models.hf import HFEmbedder

#: Texts a pass of the hf and minicons peers.
PEER_BATCH = 64

#: Hidden-state layers and width of smollm2-135m (for the output sizes).
LAYERS, WIDTH = 31, 576

Vectors = npt.NDArray[np.float32]
"""Word vectors ``[words, layers, dim]``."""


# ---------------------------------------------------------------- targets (built by the parent)


def warriner_words(n: int | None = None, spread: bool = False) -> list[str]:
    """The first ``n`` Warriner words, or ``n`` spread evenly over the lexicon (all if None)."""
    from wordlens.resources import load_lexicon

    words = list(load_lexicon("warriner").data["word"].astype(str))
    if n is None or n >= len(words):
        return words
    if spread:
        return [words[index] for index in np.linspace(0, len(words) - 1, n).astype(int)]
    return words[:n]


def template_targets(n: int) -> list[Target]:
    """The first ``n`` Warriner words in "This is {word}"."""
    from wordlens.contexts import targets_from_template

    return targets_from_template(warriner_words(n))


def random_setting_targets(n: int) -> tuple[list[Target], int]:
    """``n`` corpus contexts of the VAST random setting, as ``wordlens vast`` draws them for the
    whole Warriner lexicon (seed 0), spread evenly over the words that have a corpus sentence;
    and how many words have none (VAST gives those "This is {word}", section 1's texts)."""
    from wordlens.methods.vast.experiments import setting_targets

    by_word, report = setting_targets("random", warriner_words(), {}, seed=0)
    without = set(report["without_corpus_context"])
    corpus = [target for word, target in by_word.items() if word not in without]
    chosen = np.linspace(0, len(corpus) - 1, min(n, len(corpus))).astype(int)
    return [corpus[index] for index in chosen], len(without)


def every_word_targets(texts: Sequence[str]) -> list[Target]:
    """Probing-like targets: every ``\\w+`` word of each distinct text."""
    from wordlens.contexts import Target

    return [
        Target(text, match.start(), match.end())
        for text in dict.fromkeys(texts)
        for match in re.finditer(r"(?<![\w'’])\w+", text)  # not the "s" of "'s"
    ]


def write_targets(targets: Sequence[Target], path: Path) -> str:
    path.write_text(json.dumps([[t.text, t.start, t.end] for t in targets]))
    return str(path)


def read_targets(path: str) -> list[Target]:
    from wordlens.contexts import Target

    return [Target(text, start, end) for text, start, end in json.loads(Path(path).read_text())]


# ---------------------------------------------------------------- child measurements


def load_smollm2() -> HFEmbedder:
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model

    model = load_model("smollm2-135m")
    assert isinstance(model, HFEmbedder)
    return model


def plan_tokens(model: HFEmbedder, targets: Sequence[Target]) -> int:
    """Tokens wordlens's passes compute for ``targets`` (no padding): the sum over the batches
    of its plan of the batch's ``PrefixTree.real_tokens``."""
    from wordlens.models.hf import plan_batches
    from wordlens.models.prefix import PrefixTree

    encoded = model.encode(list(dict.fromkeys(targets)))
    total = 0
    for batch in plan_batches(
        encoded, model.batch_token_budget, model.min_shared_tokens, model.max_batch_targets
    ):
        tree = PrefixTree(model.min_shared_tokens)
        for index in batch:
            tree.add(encoded[index].input_ids)
        total += tree.real_tokens
    return total


def peer_tokens(model: HFEmbedder, targets: Sequence[Target]) -> dict[str, int]:
    """Tokens the hf peer computes: each distinct text with BOS, without and with padding."""
    texts = list(dict.fromkeys(target.text for target in targets))
    bos = 0 if model.bos_token_id is None else 1
    lengths = sorted(len(ids) + bos for ids in model.tokenizer(texts)["input_ids"])
    padded = sum(
        len(lengths[first : first + PEER_BATCH])
        * lengths[min(first + PEER_BATCH, len(lengths)) - 1]
        for first in range(0, len(lengths), PEER_BATCH)
    )
    return {"peer_tokens": sum(lengths), "peer_padded_tokens": padded}


def fair_peer_tokens(model: HFEmbedder, targets: Sequence[Target]) -> dict[str, int]:
    """Tokens the fair peer computes: each distinct row (cut after the target for a causal
    model), without and with padding."""
    rows = peer_rows(model.tokenizer, targets, model.bos_token_id, model.info.kind == "causal")
    batches = peer_batches(rows.lengths, model.token_budget, model.max_batch_targets)
    padded = sum(len(batch) * int(rows.lengths[batch[0]]) for batch in batches)
    return {"peer_tokens": int(rows.lengths.sum()), "peer_padded_tokens": padded}


def parameter_counts(model: HFEmbedder) -> dict[str, int]:
    """All parameters, and those that multiply a token (less the input embedding table)."""
    everything = sum(parameter.numel() for parameter in model.model.parameters())
    table = model.model.get_input_embeddings().weight.numel()
    return {"parameters": everything, "multiplied_parameters": everything - table}


def floor_measurements(model: HFEmbedder, targets: Sequence[Target]) -> dict[str, float]:
    """The plan's tokens, the measured matmul rate and both FLOP floors (seconds)."""
    tokens, rate, counts = plan_tokens(model, targets), matmul_rate(), parameter_counts(model)
    return {
        "tokens": tokens,
        "matmul_flops": rate,
        "floor_s": flop_floor_seconds(counts["multiplied_parameters"], tokens, rate),
        "floor_all_parameters_s": flop_floor_seconds(counts["parameters"], tokens, rate),
    }


def cached_reruns(model: HFEmbedder, targets: list[Target]) -> dict[str, float]:
    """Fill a cache, then time reruns that read everything from it, verified and not."""
    from wordlens.models.cache import ActivationCache

    with tempfile.TemporaryDirectory() as root:
        model.embed(targets, layers=None, pooling="mean", cache=ActivationCache(Path(root)))
        best = {True: float("inf"), False: float("inf")}
        for verify in (False, True) * 3:
            start = time.perf_counter()
            model.embed(
                targets,
                layers=None,
                pooling="mean",
                cache=ActivationCache(Path(root), verify=verify),
            )
            best[verify] = min(best[verify], time.perf_counter() - start)
        size = sum(path.stat().st_size for path in Path(root).rglob("shard-*"))
    return {
        "words": len(targets),
        "verified_s": best[True],
        "unverified_s": best[False],
        "cache_mib": size / 2**20,
    }


def run_minicons(targets: list[Target], model_dir: str) -> dict[str, Any]:
    """minicons' CWE over all layers, 64 pairs a call; its first batch against the hf peer
    without BOS (the peer on minicons's own model and tokenizer)."""
    from minicons import cwe  # type: ignore[import-untyped]

    extractor = cwe.CWE(model_dir)
    pairs = [(target.text, (target.start, target.end)) for target in targets]
    start = time.perf_counter()
    with torch.inference_mode():
        batches = [
            extractor.extract_representation(pairs[first : first + PEER_BATCH], layer="all")
            for first in range(0, len(pairs), PEER_BATCH)
        ]  # per batch, per layer [batch, dim]
    seconds = time.perf_counter() - start
    rss = peak_rss_mib()
    ours = torch.stack(batches[0], dim=1)  # [batch, layers, dim]
    peer = torch.stack(
        batched_hf_mean_vectors(
            extractor.model, extractor.tokenizer, targets[:PEER_BATCH], PEER_BATCH, None
        )
    )
    return {
        **speed(len(targets), seconds, rss),
        "vs_peer_no_bos": relative_difference(ours.numpy(), peer.numpy()),
    }


def speed(n_words: int, seconds: float, rss: float) -> dict[str, float]:
    return {"words": n_words, "seconds": seconds, "words_per_s": n_words / seconds, "rss": rss}


def extract(
    mode: str, model: HFEmbedder, targets: list[Target], naive_words: int
) -> tuple[float, Vectors | None]:
    """Run one timed configuration: its seconds (naive: extrapolated from ``naive_words``) and
    vectors ``[words, layers, dim]`` (naive: none)."""
    start = time.perf_counter()
    if mode == "wordlens":
        vectors = model.embed(targets, layers=None, pooling="mean").vectors
        return time.perf_counter() - start, vectors
    if mode == "hf-fair":
        pooled_fair = fair_vectors(
            model.model,
            model.tokenizer,
            targets,
            bos=model.bos_token_id,
            cut=model.info.kind == "causal",
            token_budget=model.token_budget,
            max_rows=model.max_batch_targets,
            device=model.device,
            pooling="mean",
        )
        return time.perf_counter() - start, pooled_fair
    if mode == "hf-batched":
        pooled = batched_hf_mean_vectors(
            model.model, model.tokenizer, targets, PEER_BATCH, model.bos_token_id
        )
        seconds = time.perf_counter() - start
        return seconds, torch.stack(pooled).numpy()
    if mode == "naive":
        sample = targets[:naive_words]
        for target in sample:
            naive_subtoken_states(model, target).mean(dim=1).numpy()
        return (time.perf_counter() - start) * len(targets) / len(sample), None
    raise SystemExit(f"unknown mode {mode}")


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    """One configuration in this process: its measurements (and vectors in ``args.save``)."""
    torch.set_num_threads(THREADS)
    targets = read_targets(args.targets) if args.targets else []
    if args.child == "minicons":
        return run_minicons(targets, args.model_dir)
    model = load_smollm2()
    if args.child == "model-only":
        loaded = peak_rss_mib()  # the weights are memory-mapped: not all resident yet
        from wordlens.contexts import targets_from_template

        model.embed(targets_from_template(["word"]), layers=None)  # no lexicon read: no pandas
        return {"loaded_rss": loaded, "rss": peak_rss_mib(), "model_dir": model.model.name_or_path}
    if args.child == "cached":
        return cached_reruns(model, targets)
    cpu = time.process_time()
    seconds, vectors = extract(args.child, model, targets, args.naive_words)
    result: dict[str, Any] = speed(len(targets), seconds, peak_rss_mib())
    result["cpu_s"] = time.process_time() - cpu  # not extrapolated (naive)
    if args.child == "wordlens" and args.floor:
        result.update(floor_measurements(model, targets))
    if args.child == "hf-batched":
        result.update(peer_tokens(model, targets))
    if args.child == "hf-fair":
        result.update(fair_peer_tokens(model, targets))
    if args.save and vectors is not None:
        np.save(args.save, vectors)
    return result


# ---------------------------------------------------------------- parent: the sections


def relative_difference(ours: Vectors, reference: Vectors) -> float:
    """Largest ``|a - b| / |b|`` over words and layers (vectors ``[words, layers, dim]``)."""
    gap = np.linalg.norm(ours - reference, axis=-1)
    return float((gap / np.linalg.norm(reference, axis=-1)).max())


def saved_difference(work: Path, first: str, second: str) -> float:
    return relative_difference(np.load(work / f"{first}.npy"), np.load(work / f"{second}.npy"))


def checked_difference(work: Path, ours: str, peer: str, failures: list[str]) -> float:
    """The largest per-layer relative difference of two saved runs' vectors; past
    :data:`VECTOR_LIMIT`, noted in ``failures``."""
    difference = layer_difference(np.load(work / f"{ours}.npy"), np.load(work / f"{peer}.npy"))
    if not difference <= VECTOR_LIMIT:
        failures.append(f"{ours} vs {peer}: {difference:.1e}")
    return difference


def print_table(results: dict[str, list[dict[str, Any]]], unit: str = "words") -> None:
    print(
        f"{'configuration':<22}{unit:>8}{'median s':>10}{'min s':>8}{'max s':>8}"
        f"{unit + '/s':>12}{'peak RSS MiB':>14}"
    )
    for name, rows in results.items():
        seconds = [row["seconds"] for row in rows]
        print(
            f"{name:<22}{rows[0]['words']:>8.0f}{median(rows, 'seconds'):>10.2f}"
            f"{min(seconds):>8.2f}{max(seconds):>8.2f}{median(rows, 'words_per_s'):>12.1f}"
            f"{median(rows, 'rss'):>14.0f}"
        )


def speed_section(
    args: argparse.Namespace, work: Path, model_dir: str, failures: list[str]
) -> None:
    targets = write_targets(template_targets(args.words), work / "template.json")
    common = ["--targets", targets]
    configurations = {
        "wordlens": ["wordlens", *common, "--floor", "--save", str(work / "wordlens.npy")],
        "hf-fair": ["hf-fair", *common, "--save", str(work / "hf-fair.npy")],
        "hf-batched": ["hf-batched", *common, "--save", str(work / "hf-batched.npy")],
        "minicons": ["minicons", *common, "--model-dir", model_dir],
        "naive": ["naive", *common, "--naive-words", str(args.naive_words)],
    }
    if importlib.util.find_spec("minicons") is None:
        print("minicons is not installed (make bench installs it): its row is left out")
        del configurations["minicons"]
    results = interleaved(__file__, configurations, args.repeats)
    ours = results["wordlens"]
    print(
        f"\n== 1. Speed: first {args.words:,} Warriner words in 'This is {{word}}', smollm2-135m, "
        f"all {LAYERS} layers, mean pooling, {THREADS} threads, {args.repeats} interleaved "
        "repetitions"
    )
    print(f"(naive: {args.naive_words} words timed, extrapolated to {args.words:,})")
    print_table(results)
    labels = {"hf-fair": "fair, cut/cut", "hf-batched": "old, cut/full"}
    for peer in [name for name in results if name != "wordlens"]:
        ratio = median_ratio(results[peer], ours, "seconds")
        cpu = f", CPU {median_ratio(results[peer], ours, 'cpu_s'):.2f}x" if peer in labels else ""
        print(f"median time ratio {peer} / wordlens: {ratio:.2f}x{cpu}")
    for peer, label in labels.items():
        tokens = results[peer][0]
        difference = checked_difference(work, "wordlens", peer, failures)
        print(
            f"{peer} ({label}): tokens computed {tokens['peer_tokens']:,} "
            f"({tokens['peer_padded_tokens']:,} with padding), wordlens {ours[0]['tokens']:,}; "
            f"vectors max |ours - peer| / max |peer| of a layer {difference:.1e} "
            f"(limit {VECTOR_LIMIT:.0e})"
        )
    versus_minicons = (
        f"; minicons vs the hf peer without BOS (first {PEER_BATCH} words) "
        f"{max(row['vs_peer_no_bos'] for row in results['minicons']):.2e}"
        if "minicons" in results
        else ""
    )
    print(
        "vectors, max |a - b| / |b| over words and layers: wordlens vs hf-fair "
        f"{saved_difference(work, 'wordlens', 'hf-fair'):.2e}{versus_minicons}"
    )
    print(
        "FLOP floor = 2 x multiplied parameters (all but the input embedding table) x tokens of "
        "wordlens's plan (no padding) / float32 2048^2 matmul FLOP/s on the same threads"
    )
    print(
        f"  matmul rate {median(ours, 'matmul_flops') / 1e9:.1f} GFLOP/s, floor "
        f"{median(ours, 'floor_s'):.2f} s; wordlens / floor {_floor_ratio(ours, 'floor_s'):.2f} "
        "(target <= 1.15); with all parameters in P (the embedding table too) "
        f"{_floor_ratio(ours, 'floor_all_parameters_s'):.2f}"
    )


def _floor_ratio(rows: Sequence[dict[str, Any]], key: str) -> float:
    """Median over repetitions of wordlens seconds / its floor (both from the same child)."""
    return float(np.median([row["seconds"] / row[key] for row in rows]))


def cached_section(args: argparse.Namespace, work: Path) -> None:
    targets = write_targets(template_targets(args.words), work / "template.json")
    cached = measure_in_child(__file__, ["cached", "--targets", targets])
    print(f"\n== 2. Cached rerun of {cached['words']:,} words (fastest of 3)")
    for verify, key in (("verified", "verified_s"), ("not verified", "unverified_s")):
        print(f"  {verify:<14}{cached[key]:>8.2f} s{cached['words'] / cached[key]:>10.0f} words/s")
    share = 1 - cached["unverified_s"] / cached["verified_s"]
    print(
        f"  checksum verification: {cached['verified_s'] - cached['unverified_s']:.2f} s for "
        f"{cached['cache_mib']:.0f} MiB of shards, {share:.0%} of a cached rerun"
    )


def memory_section(args: argparse.Namespace, work: Path, model_only: dict[str, Any]) -> None:
    model_rss = model_only["rss"]
    print(f"\n== 3. Memory scaling: wordlens, all {LAYERS} layers (one child each)")
    print(
        f"{'words':>8}{'seconds':>9}{'peak RSS MiB':>14}{'- model':>9}{'output MiB':>12}"
        f"{'- model - output':>18}"
    )
    print(f"{'model':>8}{'loaded':>9}{model_only['loaded_rss']:>14.0f}")
    print(
        f"{'model':>8}{'+1 word':>9}{model_rss:>14.0f}   (the reference of the '- model' columns)"
    )
    for n in args.rss_words:
        targets = template_targets(n)
        path = write_targets(targets, work / f"rss-{n}.json")
        row = measure_in_child(__file__, ["wordlens", "--targets", path])
        output = len(targets) * LAYERS * WIDTH * 4 / 2**20
        beyond = row["rss"] - model_rss
        print(
            f"{len(targets):>8,}{row['seconds']:>9.1f}{row['rss']:>14.0f}{beyond:>9.0f}"
            f"{output:>12.0f}{beyond - output:>18.0f}"
        )
    print("target: peak RSS at 13,915 words <= 1,536 MiB, flat beyond model + one batch")


def corpus_section(args: argparse.Namespace, work: Path, failures: list[str]) -> None:
    random_targets, n_without = random_setting_targets(args.corpus_words)
    probing = every_word_targets([target.text for target in random_targets])
    kinds = {"random": random_targets, "probing": probing}
    configurations = {}
    for kind, targets in kinds.items():
        path = write_targets(targets, work / f"{kind}.json")
        for mode in ("wordlens", "hf-fair", "hf-batched"):
            save = str(work / f"{kind}-{mode}.npy")
            floor = ["--floor"] if mode == "wordlens" else []
            configurations[f"{mode} {kind}"] = [mode, "--targets", path, "--save", save, *floor]
    results = interleaved(__file__, configurations, args.repeats)
    print(
        f"\n== 4. Corpus-like texts, {args.repeats} interleaved repetitions: random = "
        f"{len(random_targets)} Warriner words in their VAST random-setting corpus contexts "
        f"(seed 0), spread over the {len(warriner_words()) - n_without:,} words that have one "
        f"({n_without:,} have none and get 'This is {{word}}' in VAST: section 1's texts); "
        f"probing = every word of those {len({t.text for t in probing})} sentences a target"
    )
    print_table(results, "targets")
    for kind in kinds:
        ours = results[f"wordlens {kind}"]
        print(
            f"{kind}: tokens computed by wordlens {ours[0]['tokens']:,}; wordlens / FLOP floor "
            f"{_floor_ratio(ours, 'floor_s'):.2f}"
        )
        for peer, label in (("hf-fair", "fair, cut/cut"), ("hf-batched", "old, cut/full")):
            theirs = results[f"{peer} {kind}"]
            difference = checked_difference(work, f"{kind}-wordlens", f"{kind}-{peer}", failures)
            target = " (target >= 1.5x)" if peer == "hf-fair" else ""
            print(
                f"  {peer} ({label}): time ratio {peer} / wordlens "
                f"{median_ratio(theirs, ours, 'seconds'):.2f}x{target}, CPU "
                f"{median_ratio(theirs, ours, 'cpu_s'):.2f}x; tokens "
                f"{theirs[0]['peer_tokens']:,} ({theirs[0]['peer_padded_tokens']:,} with "
                f"padding); max |ours - peer| / max |peer| of a layer {difference:.1e} "
                f"(limit {VECTOR_LIMIT:.0e})"
            )


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--naive-words", type=int, default=100, help="naive: words timed")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument(
        "--rss-words",
        type=lambda text: [int(n) for n in text.split(",") if n],
        default=[250, 1000, 4000, 13915],
        help="comma-separated word counts of the memory section (empty: skip it)",
    )
    parser.add_argument("--corpus-words", type=int, default=300, help="0 skips section 4")
    parser.add_argument("--no-cached", action="store_true", help="skip section 2")
    parser.add_argument("--quick", action="store_true", help="a tiny run that checks the script")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--targets", help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.words, args.naive_words, args.repeats = 48, 4, 1
        args.rss_words, args.corpus_words = [16, 48], 24
    return args


def main() -> None:
    args = parse_arguments()
    if args.child:
        print(json.dumps(run_child(args)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-extraction-") as directory:
        work = Path(directory)
        model_only = measure_in_child(__file__, ["model-only"])
        failures: list[str] = []
        speed_section(args, work, model_only["model_dir"], failures)
        if not args.no_cached:
            cached_section(args, work)
        if args.rss_words:
            memory_section(args, work, model_only)
        if args.corpus_words:
            corpus_section(args, work, failures)
    check_limits(failures)


if __name__ == "__main__":
    main()
