"""``wordlens asymmetry``, run in-process with typer's CliRunner on real models."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.conceptnet5_sample import write_sample
from tests.conftest import shared_dir
from wordlens.cli import app

runner = CliRunner()
MLM_DIR = shared_dir() / "models" / "minilm-l6-mlm"


def test_asymmetry_command_on_glove(shared: Path, tmp_path: Path) -> None:
    args = ["asymmetry", "-m", "glove-6b-50d", "--norms", "usf", "--similarity", "ws353-rel"]
    options = ["--pairs", "500", "--seed", "2", "--thresholds", "0,1", "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    assert "Asymmetry (Zhang et al. 2021) of glove-6b-50d" in result.output
    cam = pd.read_parquet(tmp_path / "asymmetry_cam.parquet")
    overall = cam[cam["relation"] == "all"]
    assert list(overall["norm"]) == ["usf"] and overall["n"].iloc[0] == 500
    assert 0.2 < overall["cam"].iloc[0] < 0.5  # 0.334 on all 4,915 pairs
    accuracy = pd.read_parquet(tmp_path / "asymmetry_direction_accuracy.parquet")
    assert sorted(set(accuracy["threshold"])) == [0.0, 1.0]
    meta = json.loads((tmp_path / "asymmetry_cam.json").read_text())
    assert meta["config"]["pairs"] == "500" and meta["config"]["seed"] == 2
    assert meta["model"]["name"] == "glove-6b-50d"
    assert (tmp_path / "report.html").stat().st_size > 10_000
    assert not (tmp_path / "work").exists()  # static vectors need no work list


def test_asymmetry_command_with_a_conceptnet5_file(shared: Path, tmp_path: Path) -> None:
    sample = write_sample(tmp_path / "assertions.csv.gz")
    args = ["asymmetry", "-m", "glove-6b-50d", "--norms", "usf", "--similarity", "none"]
    options = ["--conceptnet", str(sample), "--out", str(tmp_path / "out")]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    alar = pd.read_parquet(tmp_path / "out" / "asymmetry_alar.parquet")
    assert {"antonym", "synonym", "distinctFrom"} <= set(alar["relation"])
    relations = pd.read_parquet(tmp_path / "out" / "asymmetry_relations.parquet")
    assert int(relations.loc[relations["relation"] == "antonym", "n_pairs"].iloc[0]) == 3
    meta = json.loads((tmp_path / "out" / "asymmetry_alar.json").read_text())
    assert meta["config"]["conceptnet"] == str(sample)
    assert (
        meta["conceptnet"]["source"] == "ConceptNet 5 assertions, English edges (assertions.csv.gz)"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--norms", "eat,nelson"], "unknown evocation data"),
        (["--norms", "swow"], "--swow-file"),
        (["--shards", "2", "--shard", "2"], "out of range"),
        (["--pairs", "many"], "--pairs: a number"),
        (["--thresholds", "0,high"], "--thresholds: not a number: 'high'"),
        (["--pairs", "0"], "--pairs: at least 1"),
        (["--max-contexts", "-1"], "--max-contexts: must be >= 0, not -1"),
        (["--conceptnet", "no/such/file.csv.gz"], "no ConceptNet 'no/such/file.csv.gz'"),
    ],
)
def test_asymmetry_command_refuses_bad_options(options: list[str], message: str) -> None:
    result = runner.invoke(app, ["asymmetry", "-m", "glove-6b-50d", *options])
    assert result.exit_code == 2 and message in result.output


def test_asymmetry_command_checks_the_workdir_before_loading(tmp_path: Path) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("")
    args = ["asymmetry", "-m", "no-such-model", "--workdir", str(taken / "work")]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "choose another --workdir" in result.output


def test_asymmetry_command_refuses_an_encoder_without_lm_head(tmp_path: Path) -> None:
    result = runner.invoke(app, ["asymmetry", "-m", "minilm-l6", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "initialized 6 weight(s)" in result.output


@pytest.mark.slow
def test_asymmetry_command_runs_one_shard_and_stops(shared: Path, tmp_path: Path) -> None:
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    args = ["asymmetry", "-m", str(MLM_DIR), "--pairs", "3", "--max-contexts", "1"]
    args += ["--similarity", "none", "--shards", "3", "--shard", "2", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "shard 2 of 3 finished" in result.output and "without --shard" in result.output
    assert not (tmp_path / "report.html").exists()  # nothing measured before the merge
    scores = next((tmp_path / "work").glob("scores-*"))
    assert [path.name for path in scores.iterdir()] == ["shard-00002-of-00003.parquet"]
    assert (tmp_path / "work" / "worklist" / "manifest.json").is_file()
