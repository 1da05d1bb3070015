"""Running a study: every cell once, finished cells skipped, failures recorded, status."""

from __future__ import annotations

import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.results import Run
from wordlens.study.records import read_cell_record, write_cell_record
from wordlens.study.runner import CellProgress, run_study, study_records, study_status
from wordlens.study.spec import load_study

STUDY = """\
name: runner
cache_dir: cache
models:
  - glove-6b-50d
  - minilm-l6
  - name: missing
    model: NOT_A_MODEL
methods:
  weat: {context: bleached, tests: [1], permutations: 200}
"""


def study_text(folder: Path) -> str:
    """:data:`STUDY` whose third model is an empty folder: a local path, so the study is
    valid, but no model, so its cells fail when they load it."""
    (folder / "not-a-model").mkdir(exist_ok=True)
    return STUDY.replace("NOT_A_MODEL", str(folder / "not-a-model"))


@pytest.fixture(scope="module")
def study_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("study")
    path = folder / "study.yaml"
    path.write_text(study_text(folder))
    return path


@pytest.fixture(scope="module")
def first_run(study_file: Path) -> list[CellProgress]:
    seen: list[CellProgress] = []
    run_study(load_study(study_file), on_cell=seen.append)
    return seen


def test_every_cell_runs_once_and_failures_are_recorded(
    study_file: Path, first_run: list[CellProgress]
) -> None:
    assert [progress.state for progress in first_run] == ["pending"] * 3
    study = load_study(study_file)
    assert study.cache_dir == study_file.parent / "cache" and any(study.cache_dir.iterdir())
    states = {p.cell.model.slug: p for p in study_status(study)}
    assert {slug: p.state for slug, p in states.items()} == {
        "glove-6b-50d": "done",
        "minilm-l6": "done",
        "missing": "failed",
    }
    failed = states["missing"].record
    assert failed is not None and failed.error is not None
    assert f"{study_file.parent / 'not-a-model'} is not a model directory" in failed.error
    for slug in ("glove-6b-50d", "minilm-l6"):
        record = states[slug].record
        assert record is not None and record.seconds is not None and record.error is None
        table = pd.read_csv(study.out_dir / record.out_dir / "weat.csv")
        # the headline numbers are the cell's own results
        top = table[table["layer"] == table["layer"].max()]
        assert any(
            value == pytest.approx(float(top["effect_size"].iloc[0]), abs=1e-9)
            for value in record.headline.values()
        )


def test_a_second_run_skips_done_cells_and_retries_failed_ones(
    study_file: Path, first_run: list[CellProgress]
) -> None:
    study = load_study(study_file)
    before = {cell.model.slug: read_cell_record(cell.out_dir / "cell.json") for cell in study.cells}
    seen: list[CellProgress] = []
    records = run_study(study, on_cell=seen.append)
    assert [p.state for p in seen] == ["done", "done", "failed"]
    assert records[0] == before["glove-6b-50d"] and records[1] == before["minilm-l6"]
    assert records[2].status == "failed" and records[2].finished is not None
    # a changed option makes the done cells stale; `only` picks cells
    changed = load_study(Path(_rewrite(study_file, "permutations: 200", "permutations: 300")))
    assert [p.state for p in study_status(changed)] == ["stale", "stale", "failed"]
    rerun = run_study(changed, only=["glove-6b-50d/weat"])
    assert len(rerun) == 1 and rerun[0].status == "done"
    assert rerun[0].config_digest == changed.cells[0].digest()
    assert [p.state for p in study_status(changed)] == ["done", "stale", "failed"]
    with pytest.raises(Exception, match="no cell of study 'runner' matches nothing"):
        run_study(changed, only=["nothing"])


def test_a_running_record_of_a_dead_process_reads_as_interrupted(
    study_file: Path, first_run: list[CellProgress]
) -> None:
    study = load_study(study_file)
    cell = study.cells[2]
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    record = read_cell_record(cell.out_dir / "cell.json")
    write_cell_record(
        cell.out_dir / "cell.json",
        replace(record, status="running", pid=int(finished.stdout), host=socket.gethostname()),
    )
    assert study_status(study)[2].state == "interrupted"
    assert [r.status for r in study_records(study)] == ["done", "done", "running"]


def test_study_commands(study_file: Path, first_run: list[CellProgress]) -> None:
    runner = CliRunner()
    status = runner.invoke(app, ["study", "status", str(study_file)])
    assert status.exit_code == 0, status.output
    assert "glove-6b-50d" in status.output and "interrupted" in status.output
    run = runner.invoke(app, ["study", "run", str(study_file), "--only", "weat"])
    assert run.exit_code == 1  # the missing model's cell failed again
    assert "skip (done) minilm-l6 / weat" in run.output
    assert (load_study(study_file).out_dir / "index.html").exists()
    bad = study_file.parent / "bad.yaml"
    bad.write_text("name: bad\nmodels: [glove-6b-50d]\nmethods:\n  weat: {tests: x, n: 1}\n")
    invalid = runner.invoke(app, ["study", "status", str(bad)])
    assert (
        invalid.exit_code == 2
        and f"{bad}:4: methods.weat.n: not an option of a study" in invalid.output
    )


def _rewrite(path: Path, old: str, new: str) -> str:
    changed = path.parent / "changed.yaml"
    changed.write_text(path.read_text().replace(old, new))
    return str(changed)


def test_the_index_is_titled_with_the_study_name(tmp_path: Path) -> None:
    """Not with the directory's name (``out:`` names another one here)."""
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        "name: my-study\nout: elsewhere\nmodels: [glove-6b-50d]\n"
        "methods:\n  weat: {tests: [1], permutations: 200}\n"
    )
    runner = CliRunner()
    run = runner.invoke(app, ["study", "run", str(study_file)])
    assert run.exit_code == 0, run.output
    page = (tmp_path / "elsewhere" / "index.html").read_text()
    assert "<title>Study my-study</title>" in page and "<h1>Study my-study</h1>" in page
    report = runner.invoke(app, ["study", "report", str(study_file)])
    assert (
        report.exit_code == 0
        and "<title>Study my-study</title>" in (tmp_path / "elsewhere" / "index.html").read_text()
    )


def test_an_unwritable_study_directory_fails_before_any_cell(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    study_file = tmp_path / "study.yaml"
    blocked = study_text(tmp_path).replace("name: runner", "name: blocked\nout: file/results")
    study_file.write_text(blocked)
    result = CliRunner().invoke(app, ["study", "run", str(study_file)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"cannot write results to {tmp_path / 'file' / 'results'} (" in result.output
    assert f"choose another out: in {study_file}" in result.output


def test_a_static_model_runs_layer_0_of_the_study_s_layers_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "study.yaml"
    path.write_text(
        "name: layers\nmodels: [glove-6b-50d]\n"
        "methods:\n  weat: {tests: [7], layers: [0, 6], permutations: 100}\n"
    )
    study = load_study(path)
    [record] = run_study(study)
    assert record.status == "done", record.error
    run = Run.read(study.cells[0].out_dir)
    assert run.tables["weat"]["layer"].tolist() == [0]
    [note] = run.metadata["layer_notes"]
    assert "static model with layer 0 only" in note and "0, 6" in note


def test_outside_a_study_a_static_model_refuses_a_layer_it_lacks() -> None:
    import wordlens
    from wordlens.errors import WordlensError

    with pytest.raises(WordlensError, match="layer 6 out of range for glove-6b-50d"):
        wordlens.weat("glove-6b-50d", tests=[7], layers=[0, 6], permutations=100)


def test_study_run_says_cells_on_stderr_and_the_folders_a_sweep_left_out(tmp_path: Path) -> None:
    from tests.conftest import REPO
    from tests.models.test_cache import worker_env

    from wordlens.models.loading import ALIASES

    checkpoints = tmp_path / "checkpoints"
    (checkpoints / "runs").mkdir(parents=True)  # a training run's logs: not a checkpoint
    (checkpoints / "step-0").symlink_to(ALIASES["minilm-l6"].package_dir() / "model")
    path = tmp_path / "study.yaml"
    path.write_text(
        "name: left\nmodels:\n  - glove-6b-50d\n"
        f"  - {{name: run, model: {checkpoints}, revisions: all}}\n"
        "methods:\n  weat: {tests: [7], permutations: 100}\n"
    )
    command = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]
    done = subprocess.run(
        [*command, "study", "run", str(path), "--only", "glove-6b-50d"],
        cwd=REPO, env=worker_env(), capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "run glove-6b-50d / weat" in done.stderr
    assert "run glove-6b-50d / weat" not in done.stdout
    said = "skipped runs of run: no config.json, so not a checkpoint folder"
    assert said in done.stdout
