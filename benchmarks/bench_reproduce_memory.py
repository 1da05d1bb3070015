"""Benchmark: time and resident memory of ``wordlens reproduce <paper> --scale paper``.

Each paper runs on a demo model (:data:`DEMO_MODELS`; ``--models paper=model ...`` changes
them) as a user runs it: ``wordlens reproduce <paper> -m <model> --scale paper --out <tmp>``
in a child process of its own (its own session, so that the whole tree can be stopped). Every
``--interval`` seconds (1 by default) the benchmark samples the resident set size of the child
and of all its descendants (summed: pages shared between them count once per process, so the
sum is an upper bound), and keeps the child's progress bars (rich draws them into a log when
told it is an interactive terminal, ``TTY_COMPATIBLE=1 TTY_INTERACTIVE=1``) to say how far a
stopped run got.

A run stops when it exits, after ``--minutes`` (for runs that take hours on this machine: the
table then shows whether memory is flat, and projects the total time from the progress bar in
flight, when there is one: elapsed + that bar's remaining time, rich's estimate or else linear
in its count, a lower bound as later stages are not counted), or when the tree's RSS passes
``--max-rss-mib`` (a guard for shared machines: a run about to take all memory is stopped
instead of meeting the OOM killer).

Printed, one row per run: paper, model, how it ended (``finished``, ``failed (exit N)``,
``stopped at N min``, ``stopped at the RSS cap``), wall time, peak RSS in MiB, the RSS at 5, 10,
15 and 20 minutes, and the progress at the end with the projection. ``--json PATH`` also writes
every sample (seconds, MiB) and the child's last output lines per run.

Target (issue 27): every paper's paper-scale run on the demo models peaks at <= 4 GiB.

Run: ``python benchmarks/bench_reproduce_memory.py [sense-bias vast ...] [--minutes 20]
[--models sense-bias=minilm-l6] [--json rss.json] [--keep-out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs in the dev extra

from wordlens.reproduce.published import PAPERS

#: The model each paper runs on by default: the demo models (README, ``make demo``), the
#: sense-bias one as issue 27 ran it.
DEMO_MODELS = {
    "vast": "smollm2-135m",
    "sense-bias": "minilm-l6",
    "intersectional": "smollm2-135m",
    "asymmetry": "smollm2-135m",
    "probing": "smollm2-135m",
}

#: Minutes at which the table shows the RSS.
CHECKPOINTS = (5, 10, 15, 20)

#: How the child runs the command line (the ``wordlens`` entry point, on this interpreter's path).
CLI = "import sys; sys.argv[0] = 'wordlens'; from wordlens.cli import app; sys.exit(app())"

#: A rich progress bar as the child draws it: description, ``done/total``, elapsed, remaining.
BAR = re.compile(
    r"(?P<description>[^\r\n\x1b]*?)\s*[━╸╺ ]*\s(?P<done>\d+)/(?P<total>\d+)\s+"
    r"(?P<elapsed>[\d:]+|-:--:--)\s+(?P<remaining>[\d:]+|-:--:--)"
)

#: Terminal control sequences (cursor moves, styles) in the child's log.
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

#: Bytes of the child's log read back for its last progress bar and output lines.
LOG_TAIL = 64 << 10


@dataclass
class Outcome:
    """One run: its samples, how it ended and its progress when it ended."""

    paper: str
    model: str
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds, MiB)
    ended: str = ""
    seconds: float = 0.0
    progress: str = ""
    tail: list[str] = field(default_factory=list)

    @property
    def peak_mib(self) -> float:
        """Largest sample."""
        return max((mib for _, mib in self.samples), default=0.0)

    def at_minute(self, minute: int) -> float | None:
        """The last sample at or before ``minute`` minutes, None if the run ended earlier."""
        if self.seconds < minute * 60:
            return None
        before = [mib for seconds, mib in self.samples if seconds <= minute * 60]
        return before[-1] if before else None


def tree_rss_mib(process: psutil.Process) -> float:
    """RSS of ``process`` and all its descendants, in MiB (0 for those that are gone)."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**20


def _seconds(clock: str) -> float | None:
    """``H:MM:SS`` as seconds; None for rich's ``-:--:--``."""
    if "-" in clock:
        return None
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def progress_note(log_tail: str, elapsed: float) -> str:
    """The last progress bar of the log as ``description done/total``, and the projected total
    time: elapsed + the bar's remaining time (rich's estimate, else the bar's elapsed time
    scaled linearly to its total); empty without a bar."""
    bars = list(BAR.finditer(log_tail))
    if not bars:
        return ""
    last = bars[-1]
    done, total = int(last["done"]), int(last["total"])
    note = f"{last['description'].strip()} {done:,}/{total:,}"
    remaining = _seconds(last["remaining"])
    bar_elapsed = _seconds(last["elapsed"])
    if remaining is None and bar_elapsed is not None and done > 0:
        remaining = bar_elapsed * (total - done) / done
    if done < total and remaining is not None:
        note += f"; projected total >= {(elapsed + remaining) / 60:.0f} min (this stage's ETA)"
    return note


def _tail(path: Path) -> str:
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - LOG_TAIL))
        return CONTROL.sub("", handle.read().decode("utf-8", errors="replace"))


def _stop(child: subprocess.Popen[bytes]) -> None:
    """End the child's session (it and every process it started): TERM, then KILL after 10 s."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sent)
        except ProcessLookupError:
            return
        try:
            child.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def run_paper(
    paper: str,
    model: str,
    out_dir: Path,
    *,
    minutes: float | None,
    max_rss_mib: float | None,
    interval: float,
    extra: list[str],
    scale: str = "paper",
) -> Outcome:
    """Run one paper's reproduction in a child and sample its tree's RSS until it ends."""
    outcome = Outcome(paper, model)
    log_path = out_dir / "child.log"
    command = [sys.executable, "-c", CLI, "reproduce", paper, "-m", model]
    command += ["--scale", scale, "--out", str(out_dir / "out"), *extra]
    environment = os.environ | {
        "TTY_COMPATIBLE": "1",
        "TTY_INTERACTIVE": "1",
        "NO_COLOR": "1",
        "COLUMNS": "160",
    }
    start = time.monotonic()
    with log_path.open("wb") as log:
        child = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=environment, start_new_session=True
        )
        process = psutil.Process(child.pid)
        while True:
            elapsed = time.monotonic() - start
            outcome.samples.append((round(elapsed, 1), round(tree_rss_mib(process), 1)))
            code = child.poll()
            if code is not None:
                outcome.ended = "finished" if code == 0 else f"failed (exit {code})"
                break
            if minutes is not None and elapsed >= minutes * 60:
                outcome.ended = f"stopped at {minutes:g} min"
                break
            if max_rss_mib is not None and outcome.samples[-1][1] > max_rss_mib:
                outcome.ended = f"stopped at the RSS cap ({max_rss_mib:,.0f} MiB)"
                break
            time.sleep(interval)
        outcome.seconds = time.monotonic() - start
        _stop(child)
    text = _tail(log_path)
    if not outcome.ended.startswith("finished"):
        outcome.progress = progress_note(text, outcome.seconds)
    lines = [line.strip() for line in re.split(r"[\r\n]", text) if line.strip()]
    outcome.tail = lines[-10:]
    return outcome


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def table(outcomes: list[Outcome]) -> str:
    """The printed table (Markdown)."""
    header = ["paper", "model", "ended", "wall", "peak RSS MiB"]
    header += [f"RSS {minute} min" for minute in CHECKPOINTS]
    header += ["progress at the end"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for outcome in outcomes:
        cells = [
            outcome.paper,
            outcome.model,
            outcome.ended,
            f"{outcome.seconds / 60:.1f} min",
            _cell(outcome.peak_mib),
            *(_cell(outcome.at_minute(minute)) for minute in CHECKPOINTS),
            outcome.progress or "–",
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _models(entries: list[str]) -> dict[str, str]:
    chosen = dict(DEMO_MODELS)
    for entry in entries:
        paper, _, model = entry.partition("=")
        if paper not in PAPERS or not model:
            raise SystemExit(f"--models takes PAPER=MODEL with a paper of {', '.join(PAPERS)}")
        chosen[paper] = model
    return chosen


def main() -> None:
    """Run the papers one after the other and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", nargs="*", help=f"papers [default: {' '.join(PAPERS)}]")
    parser.add_argument("--models", nargs="*", default=[], help="PAPER=MODEL entries")
    parser.add_argument("--minutes", type=float, default=None, help="stop a run after N minutes")
    parser.add_argument(
        "--max-rss-mib", type=float, default=None, help="stop a run whose tree RSS passes this"
    )
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--json", type=Path, default=None, help="write every sample here")
    parser.add_argument("--keep-out", type=Path, default=None, help="keep each run's output here")
    parser.add_argument(
        "--extra", default="", help="more reproduce options in one string, e.g. --extra=--no-cache"
    )
    arguments = parser.parse_args()
    models = _models(arguments.models)
    unknown = sorted(set(arguments.papers) - set(PAPERS))
    if unknown:
        raise SystemExit(f"unknown paper(s) {unknown}; known: {', '.join(PAPERS)}")
    outcomes = []
    for paper in arguments.papers or PAPERS:
        with tempfile.TemporaryDirectory(prefix=f"reproduce-{paper}-") as scratch:
            print(f"{paper} on {models[paper]} ...", file=sys.stderr, flush=True)
            outcome = run_paper(
                paper,
                models[paper],
                Path(scratch),
                minutes=arguments.minutes,
                max_rss_mib=arguments.max_rss_mib,
                interval=arguments.interval,
                extra=arguments.extra.split(),
            )
            if arguments.keep_out is not None:
                shutil.copytree(scratch, arguments.keep_out / paper, dirs_exist_ok=True)
        outcomes.append(outcome)
        print(
            f"  {outcome.ended} after {outcome.seconds / 60:.1f} min, peak "
            f"{outcome.peak_mib:,.0f} MiB",
            file=sys.stderr,
            flush=True,
        )
        if arguments.json is not None:
            records: list[dict[str, Any]] = [vars(each) for each in outcomes]
            arguments.json.write_text(json.dumps(records, indent=1))
    print(table(outcomes))


if __name__ == "__main__":
    main()
