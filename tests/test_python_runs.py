"""What a Python user gets back from a run: :meth:`Run.write` writes the same files as ``out=``
(report.html included), a sweep shows itself in one line and reads back with its checkpoints'
runs (issue 42 §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import wordlens
from wordlens.models.base import WordEmbedder
from wordlens.models.revisions import Checkpoint
from wordlens.results import Run
from wordlens.study.records import CellRecord
from wordlens.sweep.runner import SWEEP, Sweep, write_sweep
from wordlens.sweep.table import revisions_table, sweep_definitions, sweep_table


def test_run_write_writes_the_files_of_out_report_included(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    run = wordlens.weat(glove, tests=[7], permutations=100, out=tmp_path / "out")
    run.write(tmp_path / "written")
    by_out = sorted(path.name for path in (tmp_path / "out").iterdir())
    by_write = sorted(path.name for path in (tmp_path / "written").iterdir())
    assert "report.html" in by_write
    assert by_write == by_out
    manifest = json.loads((tmp_path / "written" / "run.json").read_text())
    assert manifest["files"] == by_write
    assert "<html" in (tmp_path / "written" / "report.html").read_text()


def _record(name: str, status: str) -> CellRecord:
    return CellRecord(
        model=name, model_slug=name, method="weat", status=status, out_dir=f"revisions/{name}",
        headline={}, seconds=1.0, error=None if status == "done" else "boom", config_digest="x",
    )  # fmt: skip


def _sweep(run: Run, root: Path) -> Sweep:
    """A sweep of three checkpoints (the same GloVe run for the two that finished, written into
    ``root/revisions/<name>``), as :func:`~wordlens.sweep.runner.gathered` builds one."""
    method = wordlens.list_methods()["weat"]
    points = [Checkpoint(f"step-{step}", step, f"/m/step-{step}") for step in (0, 10, 20)]
    records = [_record(point.name, "done" if point.step else "failed") for point in points]
    runs = {point.name: run for point in points if point.step}
    for name, each in runs.items():
        each.write(root / "revisions" / name)
    summaries = {name: method.summary(each) for name, each in runs.items()}
    tables = {
        "table": sweep_table([point for point in points if point.name in runs], summaries),
        "revisions": revisions_table(points, records, [f"revisions/{p.name}" for p in points]),
    }
    metadata = {
        "method": "weat", "method_title": method.title, "model": "/m", "revisions": ["all"],
        "checkpoints": [], "left_out": [], "definitions": sweep_definitions(summaries),
        "options": {}, "backend": "local",
    }  # fmt: skip
    return Sweep(SWEEP, tables, metadata, runs=runs)


def test_a_sweep_shows_itself_in_one_short_line(glove: WordEmbedder, tmp_path: Path) -> None:
    sweep = _sweep(wordlens.weat(glove, tests=[7], permutations=100), tmp_path)
    shown = repr(sweep)
    assert shown == "Sweep(method='weat', model='/m', checkpoints=3, runs=['step-10', 'step-20'])"
    assert "effect_size" not in shown and "\n" not in shown


def test_read_run_of_a_sweep_folder_gives_the_sweep_with_its_runs_and_model(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    sweep = _sweep(wordlens.weat(glove, tests=[7], permutations=100), tmp_path)
    write_sweep(sweep, tmp_path)
    read = wordlens.read_run(tmp_path)
    assert isinstance(read, Sweep) and read.method == "sweep"
    assert read.model == "/m" and list(read.runs) == ["step-10", "step-20"]
    for name, run in read.runs.items():
        assert run.method == "weat"
        pd.testing.assert_frame_equal(run.tables["weat"], sweep.runs[name].tables["weat"])
    pd.testing.assert_frame_equal(read.tables["table"], sweep.tables["table"])
    assert read.failed == {"step-0": "boom"}


def test_a_sweep_written_by_run_write_has_its_report_page(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    sweep = _sweep(wordlens.weat(glove, tests=[7], permutations=100), tmp_path)
    written = sweep.write(tmp_path)
    assert tmp_path / "report.html" in written


QUERY = {
    "targets": {"a": ["he", "him", "gladiolax"], "b": ["she", "her", "xqzzy"]},
    "attributes": {"c": ["doctor", "nurse"], "d": ["good", "bad"]},
}


def test_a_python_run_stores_its_reasons_with_keywords_not_flags(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    run = wordlens.rnsb(glove, query=QUERY, max_missing=0.1, out=tmp_path / "py")
    assert "more than max_missing 0.1" in run.metadata["skipped"]
    stored = (tmp_path / "py" / "run.json").read_text()
    assert "max_missing 0.1" in stored and "--max-missing" not in stored
    assert "--max-missing" not in (tmp_path / "py" / "report.html").read_text()


def test_the_command_line_stores_its_reasons_with_flags(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from wordlens.cli import app

    query = tmp_path / "query.json"
    query.write_text(json.dumps(QUERY))
    out = tmp_path / "cli"
    flags = ["--model", "glove-6b-50d", "--query", str(query), "--max-missing", "0.1"]
    result = CliRunner().invoke(app, ["rnsb", *flags, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "more than --max-missing 0.1" in Run.read(out).metadata["skipped"]


def test_keywords_in_metadata() -> None:
    from wordlens.options import keywords_in_metadata

    names = {"--max-missing": "max_missing", "--no-weat": "weat=False"}
    metadata = {"skipped": ["over --max-missing"], "note": ("--no-weat", 1), "n": 2}
    assert keywords_in_metadata(metadata, names) == {
        "skipped": ["over max_missing"], "note": ("weat=False", 1), "n": 2,
    }  # fmt: skip
    # a text that names the keyword already says both forms on purpose
    both = "pass --max-missing (max_missing in Python)"
    assert keywords_in_metadata(both, names) == both
