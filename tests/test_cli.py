"""The wordlens command line, run in-process with typer's CliRunner on real models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app, parse_layers
from wordlens.contexts import targets_from_template
from wordlens.errors import WordlensError
from wordlens.models.base import WordEmbedder

runner = CliRunner()


def test_weat_command_writes_results(tmp_path: Path) -> None:
    out = tmp_path / "weat"
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--tests", "1,7", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "T1" in result.output and "T7" in result.output
    table = pd.read_parquet(out / "weat.parquet")
    assert list(table["test"]) == [1, 7]
    meta = json.loads((out / "weat.json").read_text())
    assert meta["model"]["name"] == "glove-6b-50d" and meta["dropped_words"] == {"1": ["gladiola"]}


def test_weat_command_on_causal_model(tmp_path: Path) -> None:
    args = [
        "weat",
        "-m",
        "smollm2-135m",
        "--layers",
        "0,-1",
        "--tests",
        "6",
        "--out",
        str(tmp_path),
    ]
    result = runner.invoke(app, [*args, "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert list(pd.read_parquet(tmp_path / "weat.parquet")["layer"]) == [0, 30]
    assert json.loads((tmp_path / "weat.json").read_text())["model"]["bos_token"] == "<|im_start|>"
    no_bos = runner.invoke(app, [*args, "--no-cache", "--bos", "never"])
    assert no_bos.exit_code == 0, no_bos.output
    assert json.loads((tmp_path / "weat.json").read_text())["model"]["bos_token"] is None
    info = runner.invoke(app, ["cache", "info", "--cache-dir", str(tmp_path / "cache")])
    assert "smollm2-135m" in info.output and "32" in info.output  # 8+8+8+8 words
    cleared = runner.invoke(app, ["cache", "clear", "--cache-dir", str(tmp_path / "cache")])
    assert cleared.exit_code == 0 and "freed" in cleared.output


def test_embed_npy_and_parquet(tmp_path: Path, minilm: WordEmbedder) -> None:
    npy = tmp_path / "v.npy"
    result = runner.invoke(
        app, ["embed", "-m", "minilm-l6", "--layers", "0,6", "--out", str(npy), "happy", "sad"]
    )
    assert result.exit_code == 0, result.output
    vectors = np.load(npy)
    expected = minilm.embed(targets_from_template(["happy", "sad"]), layers=[0, 6]).vectors
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    sidecar = json.loads(npy.with_suffix(".json").read_text())
    assert [t["word"] for t in sidecar["targets"]] == ["happy", "sad"]
    words = tmp_path / "words.txt"
    words.write_text("happy\n\nsad\n")
    parquet = tmp_path / "v.parquet"
    args = ["embed", "-m", "minilm-l6", "--context", "none", "--words-file", str(words)]
    result = runner.invoke(app, [*args, "--no-cache", "--out", str(parquet)])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(parquet)
    assert len(table) == 2 * 7 and set(table["text"]) == {"happy", "sad"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["weat", "-m", "glove-6b-50d", "--layers", "x"], "cannot read layers"),
        (["weat", "-m", "glove-6b-50d", "--layers", "3"], "out of range"),
        (["weat", "-m", "glove-6b-50d", "--tests", "11"], "no WEAT test"),
        (["weat", "-m", "glove-6b-50d", "--context", "random"], "unknown context"),
        (["weat", "-m", "minilm-l6", "--pooling", "median"], "unknown pooling"),
        (["weat", "-m", "minilm-l6", "--bos", "sometimes"], "unknown BOS policy"),
        (["weat", "-m", "no-org/no-model"], "Known aliases"),
        (["embed", "-m", "minilm-l6", "--out", "x.npy"], "no words given"),
        (["embed", "-m", "minilm-l6", "--out", "x.txt", "cat"], "unsupported output format"),
        (["data", "show", "warriners"], "warriner"),
    ],
)
def test_bad_input_exits_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unwritable_output_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--out", str(blocker / "out")])
    assert result.exit_code == 2 and "cannot write results" in result.output


def test_data_commands(shared: Path) -> None:
    listed = runner.invoke(app, ["data", "list"])
    assert listed.exit_code == 0 and "warriner" in listed.output and "simlex999" in listed.output
    shown = runner.invoke(app, ["data", "show", "bellezza"])
    assert shown.exit_code == 0 and "Bellezza" in shown.output and "sha256" in shown.output
    fetched = runner.invoke(app, ["data", "fetch", "bellezza"])
    assert fetched.exit_code == 0 and "bellezza.csv" in fetched.output


def test_models_command() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    assert all(alias in result.output for alias in ("smollm2-135m", "minilm-l6", "glove-6b-50d"))


def test_parse_layers() -> None:
    assert parse_layers("all") is None
    assert parse_layers("0, 6,-1") == [0, 6, -1]
    assert parse_layers("2-4") == [2, 3, 4]
    with pytest.raises(WordlensError):
        parse_layers("a-b")
