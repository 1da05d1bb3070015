"""Mutation testing of the modules that compute wordlens's numbers (`make mutation`).

Runs mutmut (configured in ``[tool.mutmut]`` of pyproject.toml: the stats modules and the methods'
experiment modules, each mutant tested by the tests of tests/stats and tests/methods that call the
mutated function, slow model-loading tests left out) and writes two files:

- ``<out>/scores.md``: per module, the mutants generated and tested, killed, survived, with no
  covering test, timed out, other outcomes, and the score;
- ``<out>/survivors.md``: every surviving (or uncovered) mutant as ``file:line``, the mutant's name
  and the changed lines, so that each can be killed by a test or justified.

The score is ``(killed + timeout) / (killed + survived + no tests + timeout)``: a mutant that no
test runs counts as undetected; "other" (suspicious, segfault, skipped) is left out of both sides.

A full run is hours on 2 cores, so ``--sample N`` (the Makefile's default) tests at most N mutants
per module, drawn with a fixed seed from the sorted mutant names: the same source gives the same
sample. ``--sample 0`` tests every mutant. ``--report-only`` rebuilds the two files from the
``mutants/`` folder of the last run. Mutant generation calls mutmut's internals (the command line
has no generate-only step): pinned by the ``mutmut>=3.8`` of the dev extras.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
STATS = "src/wordlens/stats/"

#: mutmut's exit codes, grouped into the table's columns (mutmut.stats.status_by_exit_code)
KILLED = {1, 3}
SURVIVED = {0}
NO_TESTS = {5, 33}
TIMEOUT = {36, -24, 24, 152, 255}
CATEGORIES = ("killed", "survived", "no tests", "timeout", "other")


def category(exit_code: int | None) -> str | None:
    """The table column of a mutant's exit code; None when it was not tested."""
    if exit_code is None:
        return None
    if exit_code in KILLED:
        return "killed"
    if exit_code in SURVIVED:
        return "survived"
    if exit_code in NO_TESTS:
        return "no tests"
    if exit_code in TIMEOUT:
        return "timeout"
    return "other"


@dataclass
class ModuleResult:
    """The mutants of one source file and their outcomes."""

    path: str
    generated: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    undetected: list[str] = field(default_factory=list)

    @property
    def tested(self) -> int:
        return sum(self.counts.values())

    def score(self) -> float | None:
        detected = self.counts["killed"] + self.counts["timeout"]
        scored = detected + self.counts["survived"] + self.counts["no tests"]
        return 100.0 * detected / scored if scored else None


def mutatable_files() -> list[Path]:
    """The source files mutmut mutates, relative to the repository root."""
    from mutmut.utils.file_utils import walk_mutatable_files

    return sorted(walk_mutatable_files())


def load_meta(path: Path) -> dict[str, int | None]:
    """mutant name -> exit code (None: not tested) of one source file."""
    from mutmut.mutation.data import SourceFileMutationData

    data = SourceFileMutationData(path=path)
    data.load()
    return dict(data.exit_code_by_key)


def generate() -> None:
    """Write mutants/ (the copied tree with every mutant of every mutatable file)."""
    from mutmut.__main__ import create_mutants
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir

    set_mutant_under_test("mutant_generation")
    MUTANTS.mkdir(exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    create_mutants(2)
    set_mutant_under_test(None)


def reset_results() -> None:
    """Forget the outcomes of an earlier run (``--keep`` reuses its mutants, not its results)."""
    from mutmut.mutation.data import SourceFileMutationData

    for path in mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        data.exit_code_by_key = dict.fromkeys(data.exit_code_by_key)
        data.durations_by_key = {}
        data.save()


def restrict_stats_tests() -> None:
    """Test the stats modules' mutants with tests/stats only.

    mutmut maps each function to every selected test that calls it, so a stats function would
    also be tested by the model-loading tests of tests/methods that reach it; the recorded map
    (mutants/mutmut-stats.json) keeps only tests/stats for the functions of wordlens.stats.
    """
    path = MUTANTS / "mutmut-stats.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    by_function: dict[str, list[str]] = data["tests_by_mangled_function_name"]
    for function, tests in by_function.items():
        if function.startswith("wordlens.stats."):
            by_function[function] = [test for test in tests if test.startswith("tests/stats/")]
    path.write_text(json.dumps(data, indent=4), encoding="utf-8")


def sample(names: list[str], size: int, seed: int, path: Path) -> list[str]:
    """At most `size` of a file's mutants (all when size is 0), the same for the same source."""
    ordered = sorted(names)
    if size <= 0 or len(ordered) <= size:
        return ordered
    return sorted(random.Random(f"{seed}:{path}").sample(ordered, size))


def changed_lines(diff: str) -> tuple[int | None, list[str]]:
    """The 0-based line (in the function's code) of the first removed or added line, and the
    removed and added lines of a unified diff."""
    first: int | None = None
    lines: list[str] = []
    position = 0
    for line in diff.splitlines():
        hunk = re.match(r"@@ -(\d+)", line)
        if hunk:
            position = int(hunk.group(1)) - 1
            continue
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            if first is None:
                first = position
            lines.append(line)
            position += 1
        elif line.startswith("+"):
            if first is None:
                first = max(position - 1, 0)
            lines.append(line)
        else:
            position += 1
    return first, lines


def function_lines(path: Path) -> dict[tuple[str | None, str], tuple[int, list[str]]]:
    """(class, function) -> (first line of its `def`, the file's lines) for a source file."""
    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    found: dict[tuple[str | None, str], tuple[int, list[str]]] = {}
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.setdefault((None, node.name), (node.lineno, source))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.setdefault((node.name, item.name), (item.lineno, source))
    return found


def locate(path: Path, name: str, diff: str) -> tuple[int | None, list[str]]:
    """The line of `path` a mutant changes, and its removed and added lines."""
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    function, klass = orig_function_and_class_names_from_key(name)
    offset, lines = changed_lines(diff)
    where = function_lines(ROOT / path).get((klass, function))
    if where is None or offset is None:
        return None, lines
    start, source = where
    line = start + offset
    removed = [text[1:].strip() for text in lines if text.startswith("-")]
    if removed and not (0 < line <= len(source) and source[line - 1].strip() == removed[0]):
        # decorators or a reformatted signature shift the offset: find the removed line nearby
        for candidate in range(start, min(len(source), start + 400) + 1):
            if source[candidate - 1].strip() == removed[0]:
                return candidate, lines
    return line, lines


def collect() -> list[ModuleResult]:
    results = []
    for path in mutatable_files():
        result = ModuleResult(path=str(path))
        for name, exit_code in sorted(load_meta(path).items()):
            result.generated += 1
            column = category(exit_code)
            if column is None:
                continue
            result.counts[column] += 1
            if column in ("survived", "no tests"):
                result.undetected.append(name)
        results.append(result)
    return results


def table(results: list[ModuleResult]) -> str:
    header = ["module", "generated", "mutants", *CATEGORIES, "score %"]
    rows = [header, ["---"] * len(header)]
    total = ModuleResult(path="total")
    for result in results:
        total.generated += result.generated
        total.counts.update(result.counts)
    for result in [*results, total]:
        score = result.score()
        module = result.path.removeprefix("src/wordlens/")
        rows.append(
            [
                module if result is not total else "**total**",
                str(result.generated),
                str(result.tested),
                *(str(result.counts[name]) for name in CATEGORIES),
                "–" if score is None else f"{score:.1f}",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(
        "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |"
        for row in rows
    )


def survivors(results: list[ModuleResult]) -> str:
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    out: list[str] = []
    for result in results:
        if not result.undetected:
            continue
        out.append(f"\n## {result.path} ({len(result.undetected)})\n")
        meta = load_meta(Path(result.path))
        for name in result.undetected:
            diff = get_diff_for_mutant(name, path=result.path)
            line, lines = locate(Path(result.path), name, diff)
            status = category(meta[name])
            where = f"{result.path}:{line}" if line else result.path
            out.append(f"- `{where}` `{name}` ({status})")
            out.append("  ```diff")
            out.extend(f"  {text}" for text in lines)
            out.append("  ```")
    return "\n".join(out)


def write_report(out: Path, args: argparse.Namespace, wall: float | None) -> str:
    results = collect()
    scores = table(results)

    def cap(size: int) -> str:
        return "every mutant" if size <= 0 else f"at most {size} mutants (seed {args.seed})"

    sampling = f"stats modules: {cap(args.sample_stats)}; methods modules: {cap(args.sample)}"
    head = [
        "# Mutation scores",
        "",
        f"`make mutation` (tools/mutation.py, mutmut): {sampling}. "
        "`generated`: every mutant of the module; `mutants`: those tested. "
        "Score: (killed + timeout) / (killed + survived + no tests + timeout).",
    ]
    if wall is not None:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        head.append(
            f"Wall time: {wall / 60:.1f} min with {args.max_children} workers, "
            f"source of commit {commit or 'unknown'} (mutant generation not counted)."
        )
    elif (out / "scores.md").exists():
        # --report-only: keep the measured wall time of the run the results come from
        earlier = (out / "scores.md").read_text(encoding="utf-8").splitlines()
        head += [line for line in earlier if line.startswith("Wall time:")]
    out.mkdir(parents=True, exist_ok=True)
    (out / "scores.md").write_text("\n".join([*head, "", scores, ""]), encoding="utf-8")
    (out / "survivors.md").write_text(
        "# Surviving mutants\n\nEach mutant no test caught (`survived`) or no test ran "
        "(`no tests`), as `file:line`, its mutmut name (`mutmut show <name>` in the "
        "repository root shows it whole) and the changed lines.\n" + survivors(results) + "\n",
        encoding="utf-8",
    )
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sample", type=int, default=0, help="mutants per methods module (0: all)")
    parser.add_argument(
        "--sample-stats", type=int, default=0, help="mutants per stats module (0: all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-children", type=int, default=2, help="mutmut's parallel workers")
    parser.add_argument("--out", type=Path, default=ROOT / "mutation", help="where the .md go")
    parser.add_argument(
        "--keep", action="store_true", help="reuse mutants/ and its test map (not its results)"
    )
    parser.add_argument("--report-only", action="store_true", help="only rewrite the .md files")
    args = parser.parse_args()

    os.chdir(ROOT)
    wall = None
    if not args.report_only:
        if not args.keep:
            shutil.rmtree(MUTANTS, ignore_errors=True)
        generate()
        mutmut = str(Path(sys.executable).parent / "mutmut")
        # the tests must import the mutated copy, ahead of an editable install or a PYTHONPATH
        # naming src/ (mutmut's run moves it first itself; its stats step does not)
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        paths = [p for p in paths if Path(p).resolve() != (ROOT / "src").resolve()]
        os.environ["PYTHONPATH"] = os.pathsep.join([str(MUTANTS / "src"), *paths])
        start = time.monotonic()
        # the clean run that records which tests call each function (its per-mutant estimates,
        # thousands of lines, go to a file)
        print("recording which tests call each function", flush=True)
        with (MUTANTS / "estimates.txt").open("w") as estimates:
            code = subprocess.call([mutmut, "print-time-estimates"], cwd=ROOT, stdout=estimates)
        if code != 0:
            print(f"mutmut print-time-estimates exited with {code}", file=sys.stderr)
            return code
        restrict_stats_tests()
        reset_results()
        names: list[str] = []
        for path in mutatable_files():
            size = args.sample_stats if str(path).startswith(STATS) else args.sample
            names += sample(list(load_meta(path)), size, args.seed, path)
        print(f"testing {len(names)} mutants", flush=True)
        command = [mutmut, "run", "--max-children", str(args.max_children), *names]
        code = subprocess.call(command, cwd=ROOT)
        wall = time.monotonic() - start
        if code != 0:
            print(f"mutmut run exited with {code}", file=sys.stderr)
            return code
    print(write_report(args.out, args, wall))
    print(f"\n{args.out / 'scores.md'}, {args.out / 'survivors.md'}")
    if wall is not None:
        print(f"wall time {wall / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
