"""``wordlens probe``, run in-process with typer's CliRunner on minilm-l6 and UD EWT POS."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_probe_command_writes_scores_and_report(shared: Path, tmp_path: Path) -> None:
    args = ["probe", "-m", "minilm-l6", "--task", "pos", "--repr", "cat,cnn3"]
    args += ["--train-sentences", "80", "--eval-sentences", "30", "--max-steps", "60"]
    args += ["--validate-every", "30", "--cache-dir", str(tmp_path / "cache")]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "Edge probing: pos, minilm-l6" in result.output
    scores = pd.read_parquet(tmp_path / "out" / "probing_scores.parquet")
    assert list(scores["representation"]) == ["cat", "cnn3", "majority"]
    assert (scores["test_micro_f1"].between(0, 1)).all()
    meta = json.loads((tmp_path / "out" / "probing_scores.json").read_text())
    assert meta["config"]["train_sentences"] == 80 and meta["task"]["name"] == "pos"
    assert meta["train"]["validate_every"] == 30
    assert (tmp_path / "out" / "report.html").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--task", "ner"], "unknown"),
        (["--repr", "elmo"], "unknown representation"),
        (["--repr", "layer:12"], "layers 0 to 6"),
        (["--max-steps", "0"], "--max-steps: must be >= 1, not 0"),
    ],
)
def test_probe_command_refuses_bad_options(options: list[str], message: str) -> None:
    result = runner.invoke(app, ["probe", "-m", "minilm-l6", *options])
    assert result.exit_code == 2 and message in result.output, result.output


def test_probe_command_refuses_static_vectors() -> None:
    result = runner.invoke(app, ["probe", "-m", "glove-6b-50d", "--train-sentences", "2"])
    assert result.exit_code == 2 and "subtoken vectors in context" in result.output
