"""Benchmark: wordlens against the plain transformers loops on one GPU, at paper scale.

Anyone with one GPU and no hub access can run it: the models are random-initialised at real
shapes with the real tokenizers (``_pipeline.py``), so compute and memory are the real models'.
Two steps:

``python benchmarks/bench_gpu.py prepare --folder F`` (where the data registry and the alias
packages are) writes the tokenizers, the 13,915 Warriner targets in "This is {word}", the 10,144
corpus contexts of the VAST random setting (seed 0), 1,000 CrowS-Pairs sentences and the eq. 6
work list of ``--eat-pairs`` EAT pairs (single tokens of the BERT tokenizer that co-occur in the
registered paragraphs, seeded; at most 20 contexts each) to ``F``; ``--data`` also copies the
data the VAST reproduction reads.

``python benchmarks/bench_gpu.py run --folder F`` (on the GPU) measures, each wordlens run side
by side with its peer in one process, interleaved over ``--repeats`` (medians; the first
repetition of each pair is preceded by a warm-up on 64 targets):

1. word vectors, all layers, last-subtoken pooling, no cache: ``HFEmbedder.embed`` against the
   fair peer (``_pipeline.fair_vectors``: one tokenizer call, texts cut after the target for the
   causal shapes as wordlens cuts them and full for BERT, passes sized by the embedder's own
   free-memory token budget and ``max_batch_targets``, ``output_hidden_states=True``, target rows
   gathered on the device) and the old plain loop (full texts, 256 a pass, padded row by row; an
   extra row, so the change in the ratio shows) for BERT-base and SmolLM2-135M in float32 and
   bfloat16 and the 1.7B shape in bfloat16, on both context sets: words/s, the ratio (peer /
   ours), the texts each side computes, the largest per-layer relative difference of the vectors
   (checked: float32 within 1e-5 of each layer's scale, bfloat16 within 5e-2), peak device memory,
   and the achieved FLOP/s (2 x multiplied parameters x tokens the texts need) as a share of the
   measured matrix rate in that dtype;
2. PLL of the CrowS-Pairs sentences with BERT-base: ``LMScorer.score(..., "pll")`` against the
   fair batched peer (``_pipeline.batched_pll``: all masked copies of a sentence group in one
   padded pass of wordlens' PLL token budget, the head only at the masked positions) and the old
   careful loop (every masked copy, sorted, 256 a pass), float32 and bfloat16: masked rows/s, the
   ratio, the largest score difference (checked: 1e-4 in float32, 5e-2 in bfloat16);
3. eq. 6 of Zhang et al. (2021): every masked pass of the work list with BERT-base
   (``run_shard``), bfloat16 and float32 at the default (free-memory) token budget: passes/s, and
   the projection to the paper's SWOW workload (about 2 x 10^8 passes on paragraphs like these);
4. ``wordlens reproduce vast --scale paper`` on the SmolLM2-135M shape (``--data``), wall time;
5. ``--profile``: torch.profiler over one wordlens run (SmolLM2-135M, float32, template) — the
   top operators by host and by device time — and where the host's time goes (cProfile).

It prints a table per section and writes everything to ``--out`` as JSON, then exits non-zero if
a vector or score difference was past its limit (or a section failed).

``run --tiny`` is a dry run on whatever device there is (the CPU here): each shape's tiny
stand-in, the same code paths and checks; its numbers are no GPU figures.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from _pipeline import (
    batched_pll,
    check_limits,
    embed_last,
    fair_for,
    is_causal,
    layer_relative_difference,
    limits_for,
    make_model_dir,
    matmul_rate,
    paired_ratio,
    parameter_count,
    plain_for,
    plain_pll,
    prepare,
    read_targets,
    side_by_side,
    synchronize,
    text_tokens,
    timed,
)

#: (shape, dtype) of the word-vector section.
WORD_CONFIGS = [
    ("bert-base", "float32"),
    ("smollm2-135m", "float32"),
    ("smollm2-135m", "bfloat16"),
    ("smollm2-1.7b", "bfloat16"),
]
CONTEXTS = ("template", "corpus")
#: Passes of the paper's SWOW workload: 105,581 pairs x about 1,000 contexts x 2 directions
#: (Zhang et al. 2021; the issue's estimate).
SWOW_PASSES = 2e8
#: ``--tiny`` (a dry run on the CPU): each shape's tiny stand-in.
TINY = {"bert-base": "tiny-bert", "smollm2-135m": "tiny-llama", "smollm2-1.7b": "tiny-llama"}
TARGETS = {"template": 5.0, "corpus": 2.0, "pll": 3.0, "eq6_bf16": 14_000, "vast_seconds": 90}
#: The peers' row names: the fair peer, the old word-vector loop, the old PLL loop.
FAIR, OLD, OLD_PLL = "fair", "old: full texts, 256", "old: 256 copies"


def word_vector_section(
    folder: Path,
    work: Path,
    device: torch.device,
    repeats: int,
    shapes: set[str],
    tiny: bool,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    from wordlens.models.loading import load_model

    rows = []
    rates = {dtype: matmul_rate(device, getattr(torch, dtype)) for dtype in ("float32", "bfloat16")}
    print(f"matrix rate: {', '.join(f'{k} {v / 1e12:.1f} TFLOP/s' for k, v in rates.items())}")
    for shape, dtype in WORD_CONFIGS:
        if shape not in shapes:
            continue
        built = TINY[shape] if tiny else shape
        model_dir = make_model_dir(folder, built, work / built, device=str(device))
        model = load_model(str(model_dir), device=str(device), dtype=dtype)
        hf: Any = model
        causal = is_causal(hf)
        parameters = parameter_count(hf.model)
        runs: dict[str, Callable[[Sequence[Any]], Any]] = {
            "wordlens": partial(embed_last, model),
            FAIR: fair_for(model, device),
            OLD: plain_for(model, device),
        }
        texts = {
            FAIR: "cut/cut" if causal else "full/full",
            OLD: f"{'cut' if causal else 'full'}/full",
        }
        for context in CONTEXTS:
            targets = read_targets(folder, context)[:limit]
            needed = text_tokens(hf.tokenizer, targets, hf.bos_token_id is not None, causal)
            measured = side_by_side(runs, targets, repeats, device)
            ours = measured["wordlens"]
            for peer in (FAIR, OLD):
                plain = measured[peer]
                row = {
                    "shape": shape,
                    "dtype": dtype,
                    "context": context,
                    "peer": peer,
                    "texts": texts[peer],
                    "targets": len(targets),
                    "plain_s": plain.median,
                    "wordlens_s": ours.median,
                    "plain_words_s": len(targets) / plain.median,
                    "wordlens_words_s": len(targets) / ours.median,
                    "ratio": paired_ratio(plain, ours),
                    "max_layer_rel_diff": layer_relative_difference(ours.result, plain.result),
                    "limit": limits_for(dtype)[0],
                    "plain_peak_gib": plain.peak_bytes / 2**30,
                    "wordlens_peak_gib": ours.peak_bytes / 2**30,
                    "needed_tokens": needed,
                    "flop_share": 2 * parameters * needed / ours.median / rates[dtype],
                    "token_budget": hf.token_budget,
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        del model, hf
        empty_cache(device)
        shutil.rmtree(model_dir)
    return rows


def pll_section(
    folder: Path, work: Path, device: torch.device, repeats: int, bert: str
) -> list[dict[str, Any]]:
    from wordlens.models.scoring import load_scorer, pll_token_budget

    sentences = json.loads((folder / "crows.json").read_text())
    model_dir = make_model_dir(folder, bert, work / "bert-mlm", masked_head=True)
    rows = []
    for dtype in ("float32", "bfloat16"):
        scorer = load_scorer(str(model_dir), device=str(device), dtype=dtype)
        budget = pll_token_budget(scorer.token_budget)  # wordlens' PLL batches
        fair = partial(batched_pll, scorer.model, scorer.tokenizer, token_budget=budget)
        runs: dict[str, Callable[[Sequence[Any]], Any]] = {
            "wordlens": partial(scorer.score, method="pll"),
            FAIR: partial(first_of, partial(fair, device=device)),
            OLD_PLL: partial(plain_pll, scorer.model, scorer.tokenizer, device=device),
        }
        measured = side_by_side(runs, sentences, repeats, device, warm_up=8)
        ours = measured["wordlens"]
        masked_rows = int(ours.result.n_tokens.sum())
        for peer in (FAIR, OLD_PLL):
            plain = measured[peer]
            row = {
                "dtype": dtype,
                "peer": peer,
                "sentences": len(sentences),
                "masked_rows": masked_rows,
                "plain_rows_s": masked_rows / plain.median,
                "wordlens_rows_s": masked_rows / ours.median,
                "ratio": paired_ratio(plain, ours),
                "max_score_diff": float(np.abs(ours.result.scores - plain.result).max()),
                "limit": limits_for(dtype)[1],
                "fast_path": scorer.pll_fast_path,
                "token_budget": scorer.token_budget,
                "peer_budget": budget if peer == FAIR else None,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        del scorer
        empty_cache(device)
    return rows


def first_of(function: Callable[[Sequence[Any]], tuple[Any, ...]], items: Sequence[Any]) -> Any:
    """The first value ``function(items)`` returns (the fair PLL peer's scores)."""
    return function(items)[0]


def eq6_section(
    folder: Path, work: Path, device: torch.device, bert: str, n_shards: int
) -> list[dict[str, Any]]:
    from wordlens.models.contextual_conditionals import load_worklist, run_shard
    from wordlens.models.scoring import load_scorer

    worklist = load_worklist(folder / "worklist")
    model_dir = work / "bert-mlm"
    if not model_dir.exists():
        make_model_dir(folder, bert, model_dir, masked_head=True)
    rows = []
    for dtype in ("bfloat16", "float32"):
        scorer = load_scorer(str(model_dir), device=str(device), dtype=dtype)
        out = Path(tempfile.mkdtemp(dir=work))
        seconds, run = timed(partial(run_shard, worklist, 0, n_shards, scorer, out), device)
        rate = run.n_passes / seconds
        row = {
            "dtype": dtype,
            "passes": run.n_passes,
            "seconds": seconds,
            "passes_s": rate,
            "token_budget": scorer.token_budget,
            "swow_hours": SWOW_PASSES / rate / 3600,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
        del scorer
        empty_cache(device)
    return rows


def vast_section(
    folder: Path, work: Path, device: torch.device, timeout: int, llama: str
) -> dict[str, Any]:
    model_dir = work / llama
    if not model_dir.exists():
        make_model_dir(folder, llama, model_dir, device=str(device))
    env = {**os.environ, "WORDLENS_DATA_PATH": str(folder / "data"), "WORDLENS_HOME": str(work)}
    command = [
        sys.executable,
        "-c",
        "import sys; from wordlens.cli import app; sys.argv[0] = 'wordlens'; sys.exit(app())",
        "reproduce",
        "vast",
        "-m",
        str(model_dir),
        "--device",
        str(device),
        "--scale",
        "paper",
        "--out",
        str(work / "reproduce-vast"),
    ]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        finished, tail = done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    except subprocess.TimeoutExpired as stopped:
        output = stopped.stdout or b""
        text = output.decode(errors="replace") if isinstance(output, bytes) else output
        finished, tail = False, text[-3000:]
    result = {"seconds": time.perf_counter() - start, "finished": finished, "tail": tail}
    print(json.dumps({k: v for k, v in result.items() if k != "tail"}), flush=True)
    print(tail)
    return result


def profile_section(folder: Path, work: Path, device: torch.device, llama: str) -> dict[str, str]:
    from torch.profiler import ProfilerActivity, profile

    from wordlens.models.loading import load_model

    model_dir = work / llama
    if not model_dir.exists():
        make_model_dir(folder, llama, model_dir, device=str(device))
    model = load_model(str(model_dir), device=str(device))
    targets = read_targets(folder, "template")
    model.embed(targets[:64], layers=None, pooling="last")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as traced:
        model.embed(targets, layers=None, pooling="last")
    by_host = traced.key_averages().table(sort_by="self_cpu_time_total", row_limit=20)
    by_device = traced.key_averages().table(sort_by="self_cuda_time_total", row_limit=15)
    host = cProfile.Profile()
    host.enable()
    model.embed(targets, layers=None, pooling="last")
    synchronize(device)
    host.disable()
    text = io.StringIO()
    pstats.Stats(host, stream=text).sort_stats("cumulative").print_stats(30)
    print(by_host, by_device, text.getvalue()[:6000], sep="\n")
    return {"by_host": by_host, "by_device": by_device, "host_functions": text.getvalue()}


def empty_cache(device: torch.device) -> None:
    """Return the allocator's cached blocks to the device (CUDA only)."""
    if device.type == "cuda":
        torch.cuda.empty_cache()


def print_tables(report: dict[str, Any]) -> None:
    print(
        "\n== word vectors: 13,915 Warriner words (template) / 10,144 corpus contexts; texts: "
        "ours/peer (cut after the target, or full); ratio peer time / ours"
    )
    print(
        f"{'shape':<14}{'dtype':<10}{'context':<10}{'peer':<22}{'texts':<10}{'peer w/s':>11}"
        f"{'ours w/s':>11}{'ratio':>8}{'target':>8}{'rel diff':>10}{'limit':>8}{'GiB ours':>10}"
        f"{'FLOP %':>8}"
    )
    for row in report.get("words", []):
        target = TARGETS[row["context"]] if row["dtype"] == "float32" else 2.0
        print(
            f"{row['shape']:<14}{row['dtype']:<10}{row['context']:<10}{row['peer']:<22}"
            f"{row['texts']:<10}{row['plain_words_s']:>11,.0f}{row['wordlens_words_s']:>11,.0f}"
            f"{row['ratio']:>7.2f}x{target:>7.0f}x{row['max_layer_rel_diff']:>10.1e}"
            f"{row['limit']:>8.0e}{row['wordlens_peak_gib']:>10.2f}"
            f"{100 * row['flop_share']:>7.1f}%"
        )
    print("\n== PLL, CrowS-Pairs, BERT-base (target >= 3x the careful loop)")
    for row in report.get("pll", []):
        print(
            f"{row['dtype']:<10}{row['peer']:<17}{row['masked_rows']:>8} rows  peer "
            f"{row['plain_rows_s']:>9,.0f}/s  ours {row['wordlens_rows_s']:>9,.0f}/s  "
            f"{row['ratio']:.2f}x  max diff {row['max_score_diff']:.1e} (limit "
            f"{row['limit']:.0e})  budget {row['token_budget']}"
        )
    print("\n== eq. 6 masked passes, BERT-base (target >= 14,000/s in bfloat16)")
    for row in report.get("eq6", []):
        print(
            f"{row['dtype']:<10}{row['passes']:>8} passes {row['passes_s']:>9,.0f}/s"
            f"  budget {row['token_budget']}  SWOW ({SWOW_PASSES:.0e} passes): "
            f"{row['swow_hours']:.1f} h"
        )
    if "vast" in report:
        vast = report["vast"]
        print(
            f"\n== reproduce vast --scale paper, 135M shape: {vast['seconds']:.0f} s, "
            f"finished: {vast['finished']} (target <= 90 s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "run"])
    parser.add_argument("--folder", type=Path, default=Path(".gpu/prepared"))
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--eat-pairs", type=int, default=3000, help="0: no eq. 6 work list")
    parser.add_argument("--data", action="store_true", help="prepare: copy the data for VAST")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--sections", default="words,pll,eq6,vast,profile")
    parser.add_argument("--shapes", default=",".join(dict.fromkeys(s for s, _ in WORD_CONFIGS)))
    parser.add_argument("--vast-timeout", type=int, default=150)
    parser.add_argument("--tiny", action="store_true", help="tiny stand-ins: a dry run")
    parser.add_argument("--limit", type=int, default=None, help="first N targets of each set")
    parser.add_argument("--eq6-shards", type=int, default=1, help="score the first of N shards")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.folder, args.sentences)
        if args.eat_pairs:
            prepare_worklist(args.folder, args.eat_pairs)
        if args.data:
            source = Path(os.environ["WORDLENS_DATA_PATH"])
            shutil.copytree(source, args.folder / "data", dirs_exist_ok=True)
        return
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"device: {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}")
    sections = set(args.sections.split(","))
    work = Path(tempfile.mkdtemp(prefix="bench-gpu-"))
    report: dict[str, Any] = {"device": str(device)}
    bert, llama = (TINY[name] if args.tiny else name for name in ("bert-base", "smollm2-135m"))
    steps: dict[str, Callable[[], Any]] = {
        "words": partial(
            word_vector_section,
            args.folder,
            work,
            device,
            args.repeats,
            set(args.shapes.split(",")),
            args.tiny,
            args.limit,
        ),
        "pll": partial(pll_section, args.folder, work, device, args.repeats, bert),
        "eq6": partial(eq6_section, args.folder, work, device, bert, args.eq6_shards),
        "profile": partial(profile_section, args.folder, work, device, llama),
        "vast": partial(vast_section, args.folder, work, device, args.vast_timeout, llama),
    }
    for name, step in steps.items():
        if name not in sections or (name == "vast" and not (args.folder / "data").exists()):
            continue
        try:  # a failed section is reported; the others still run
            report[name] = step()
        except Exception:
            report[f"{name}_error"] = traceback.format_exc()
            print(report[f"{name}_error"], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_gpu.json").write_text(json.dumps(report, indent=1))
    print_tables(report)
    check_limits(failures(report))


def failures(report: dict[str, Any]) -> list[str]:
    """The failed sections and the comparisons past their limits."""
    failed = [key for key in report if key.endswith("_error")]
    for row in report.get("words", []):
        if not row["max_layer_rel_diff"] <= row["limit"]:
            failed.append(
                f"{row['shape']} {row['dtype']} {row['context']} {row['peer']}: "
                f"{row['max_layer_rel_diff']:.1e}"
            )
    for row in report.get("pll", []):
        if not row["max_score_diff"] <= row["limit"]:
            failed.append(f"PLL {row['dtype']} {row['peer']}: {row['max_score_diff']:.1e}")
    return failed


def prepare_worklist(folder: Path, n_pairs: int) -> None:
    """The eq. 6 work list of ``n_pairs`` EAT pairs (``bench_asymmetry.sample_pairs``, seed 0,
    at most 20 contexts a pair) in ``folder / "worklist"``."""
    from bench_asymmetry import DEFAULT_MODEL, sample_pairs
    from wordlens.contexts.paragraphs import load_paragraph_index
    from wordlens.models.contextual_conditionals import build_worklist

    pairs, _tested = sample_pairs(str(DEFAULT_MODEL), n_pairs, 0)
    work = build_worklist(pairs, load_paragraph_index(), folder / "worklist", max_contexts=20)
    print(f"work list: {len(pairs)} pairs, {len(work.passes)} passes")


if __name__ == "__main__":
    main()
