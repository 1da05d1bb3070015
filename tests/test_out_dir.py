"""Issue 41, items 2 and 6: a rerun into ``--out`` replaces the previous run as a whole or not at
all (a write that fails on a full file system leaves the previous run), and a folder that is
not safe to fill (a filesystem root, the home folder, somebody's files) is refused without
``--force``. Real ``wordlens`` processes on the real GloVe vectors; the full file system is a
real one, made with ``RLIMIT_FSIZE`` (a write past the limit fails with EFBIG)."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import wordlens
from tests.conftest import REPO
from tests.models.test_cache import worker_env
from tests.test_cli_edges import WORDLENS
from wordlens.cli import app

runner = CliRunner()
TABLES = tuple(
    f"{table}.{kind}" for table in ("weat", "words") for kind in ("csv", "json", "parquet")
)
FIGURE = tuple(f"figure_1_weat_effect_size_per_test.{kind}" for kind in ("png", "svg", "pdf"))


def weat(out: Path, tests: str, file_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``wordlens weat`` on GloVe into ``out``; with ``file_limit``, no file may grow past that
    many bytes (as on a file system with that much room left)."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(
        [*WORDLENS, "weat", "--model", "glove-6b-50d", "--tests", tests, "--out", str(out)],
        cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=120,
        preexec_fn=limited,
    )  # fmt: skip


def dead_pid() -> int:
    """The id of a process that has ended."""
    ended = subprocess.Popen(["true"])
    ended.wait()
    return ended.pid


def test_a_failed_rerun_leaves_the_previous_run_whole(tmp_path: Path) -> None:
    out = tmp_path / "weat"
    first = weat(out, "1")
    assert first.returncode == 0, first.stderr
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    kept = wordlens.read_run(out)
    assert kept.metadata["options"]["tests"] == [1]
    fits = max((out / name).stat().st_size for name in TABLES)
    largest = max((out / name).stat().st_size for name in ("report.html", *FIGURE))
    limit = (fits + largest) // 2
    assert fits < limit < largest
    # the tables fit, the report or a figure does not: the run fails half-way

    failed = weat(out, "7", file_limit=limit)
    assert failed.returncode == 2, failed.stderr
    said = f"error: cannot write results to {out}: File too large; it is left as it was"
    assert said in failed.stderr
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    run = wordlens.read_run(out)
    assert run.metadata["options"]["tests"] == [1]
    pd.testing.assert_frame_equal(run.tables["weat"], kept.tables["weat"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["weat"]  # no staging folder

    stale = tmp_path / f".weat.wordlens-new-{dead_pid()}-0a0b0c0d"  # a killed run's
    stale.mkdir()
    (stale / "weat.csv").write_text("half\n")
    again = weat(out, "7")
    assert again.returncode == 0, again.stderr
    assert wordlens.read_run(out).metadata["options"]["tests"] == [7]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["weat"]


def refused(args: list[str], out: Path | str, env: dict[str, str] | None = None) -> str:
    """The one error line of ``wordlens <args> --out <out>``, checked to exit 2."""
    result = runner.invoke(app, [*args, "--out", str(out)], env=env)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return " ".join(result.output.split())


WEAT = ["weat", "-m", "glove-6b-50d", "--tests", "1"]


def test_a_filesystem_root_and_the_home_folder_are_refused(tmp_path: Path) -> None:
    # the lexicon is missing: should the root not be refused, nothing is written there either
    root = refused(["vast", "-m", "glove-6b-50d", "--lexica", str(tmp_path / "no.csv")], "/")
    assert "--out / is a filesystem root" in root and "--force" in root
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text("")
    said = refused(WEAT, home, env={"HOME": str(home)})
    assert f"--out {home} is the home folder" in said and "--force" in said
    assert sorted(path.name for path in home.iterdir()) == [".profile"]
    forced = runner.invoke(app, [*WEAT, "--out", str(home), "--force"], env={"HOME": str(home)})
    assert forced.exit_code == 0, forced.output
    assert (home / "run.json").exists() and (home / ".profile").exists()


def test_a_folder_of_other_files_is_refused_without_force_and_kept_with_it(
    tmp_path: Path,
) -> None:
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.tex").write_text("my work\n")
    said = refused(WEAT, out)
    assert "holds files but no results of wordlens" in said and "--force" in said
    assert sorted(path.name for path in out.iterdir()) == ["chapter1.tex"]
    forced = runner.invoke(app, [*WEAT, "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (out / "run.json").exists()
    rerun = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--tests", "7", "--out", str(out)])
    assert rerun.exit_code == 0, rerun.output  # now a folder of results: replaced, theirs kept
    assert (out / "chapter1.tex").read_text() == "my work\n"
    assert wordlens.read_run(out).metadata["options"]["tests"] == [7]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("~", "out: Value error, is null (in YAML a bare ~ is null, not the home folder)"),
        ('"~"', "out: {home} is the home folder: give the study a folder of its own"),
        ("/", "out: / is a filesystem root: give the study a folder of its own"),
    ],
)
def test_a_study_out_that_is_null_the_home_folder_or_a_root_is_refused(
    tmp_path: Path, out: str, message: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    study = tmp_path / "study.yaml"
    study.write_text(f"name: s\nout: {out}\nmodels: [glove-6b-50d]\nmethods: {{weat: {{}}}}\n")
    # study status writes nothing: should the folder not be refused, nothing is written there
    result = runner.invoke(app, ["study", "status", str(study)], env={"HOME": str(home)})
    assert result.exit_code == 2, result.output
    assert f"{study}:2: {message.format(home=home)}" in " ".join(result.output.split())
    assert sorted(path.name for path in home.iterdir()) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["home", "study.yaml"]


def test_the_manifest_lists_the_runs_files(tmp_path: Path) -> None:
    out = tmp_path / "weat"
    result = runner.invoke(app, [*WEAT, "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = json.loads((out / "run.json").read_text())["files"]
    assert sorted(files) == sorted(path.name for path in out.iterdir())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["weat"]
