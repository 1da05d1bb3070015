"""Benchmark: whole-process seconds of the command line's quick paths, and what they import.

Three commands, each run as a user runs it (a new interpreter, ``wordlens.cli:app`` as the
``wordlens`` entry point calls it), timed from start to exit:

- ``help``: ``wordlens --help`` (the command line is generated from every method's config);
- ``weat``: ``wordlens weat --model glove-6b-50d --out <temporary folder>`` (all ten WEAT tests on
  the static GloVe vectors, results and report written);
- ``import``: ``python -c "import wordlens"``.

Configurations are interleaved over ``--repeats`` repetitions (help, weat, import, help, ...; see
``_harness.interleaved``), each in a fresh process, and the table gives the median seconds and the
median CPU seconds (user + system, which a busy shared machine inflates less than wall time),
with the targets of issue 20 item 5: the GloVe WEAT in at most 1.5 s, importing neither torch nor
transformers (``sys.modules`` at the WEAT process's exit, every repetition).

Run: ``python benchmarks/bench_startup.py [--repeats 5] [--model glove-6b-50d]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CONFIGURATIONS = ("help", "weat", "import")
WEAT_TARGET_SECONDS = 1.5
HEAVY = ("torch", "transformers")
"""Packages a static model's WEAT must not import."""

_CLI = "from wordlens.cli import app; app()"  # what the `wordlens` entry point runs
_RECORD_MODULES = (
    "import atexit, json, os, sys\n"
    "atexit.register(lambda: open(os.environ['BENCH_MODULES_FILE'], 'w').write(json.dumps("
    f"[name for name in {HEAVY!r} if name in sys.modules])))\n"
)
"""Prepended to the WEAT process: at exit it writes which of :data:`HEAVY` it imported."""


def command(which: str, model: str, out_dir: Path) -> list[str]:
    """The command line of one configuration."""
    if which == "help":
        return [sys.executable, "-c", _CLI, "--help"]
    if which == "weat":
        weat = ["weat", "--model", model, "--out", str(out_dir)]
        return [sys.executable, "-c", _RECORD_MODULES + _CLI, *weat]
    return [sys.executable, "-c", "import wordlens"]


def run_child(which: str, model: str) -> dict[str, Any]:
    """Run one configuration in a new process: its wall and CPU seconds, and for ``weat`` the
    heavy packages it imported."""
    with tempfile.TemporaryDirectory() as scratch:
        modules_file = Path(scratch) / "modules.json"
        environment = {**os.environ, "BENCH_MODULES_FILE": str(modules_file)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            command(which, model, Path(scratch) / "out"),
            check=True,
            env=environment,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        imported = json.loads(modules_file.read_text()) if which == "weat" else []
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": seconds, "cpu_seconds": cpu, "heavy_imported": imported}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--model", default="glove-6b-50d")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, args.model)))
        return

    # Here, not at the top: the harness imports torch, and the children must not pay for it.
    from _harness import interleaved, median

    configurations = {which: [which, "--model", args.model] for which in CONFIGURATIONS}
    runs = interleaved(__file__, configurations, repeats=args.repeats)
    heavy = sorted({name for run in runs["weat"] for name in run["heavy_imported"]})
    targets = {"help": "", "weat": f"<= {WEAT_TARGET_SECONDS} s", "import": ""}
    print(
        f"whole-process seconds, median of {args.repeats} interleaved runs ({os.cpu_count()} CPUs)"
    )
    print(f"{'command':<44}{'seconds':>9}{'CPU s':>8}{'min':>8}{'max':>8}  target")
    labels = {
        "help": "wordlens --help",
        "weat": f"wordlens weat --model {args.model} --out TMP",
        "import": 'python -c "import wordlens"',
    }
    for which in CONFIGURATIONS:
        seconds = [run["seconds"] for run in runs[which]]
        verdict = ""
        if which == "weat":
            met = median(runs[which], "seconds") <= WEAT_TARGET_SECONDS
            verdict = " (met)" if met else " (NOT met)"
        print(
            f"{labels[which]:<44}{median(runs[which], 'seconds'):>9.2f}"
            f"{median(runs[which], 'cpu_seconds'):>8.2f}{min(seconds):>8.2f}{max(seconds):>8.2f}"
            f"  {targets[which]}{verdict}"
        )
    print(
        f"torch or transformers imported by the WEAT: {', '.join(heavy) if heavy else 'no'} "
        f"(target: no){'' if not heavy else ' (NOT met)'}"
    )
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
