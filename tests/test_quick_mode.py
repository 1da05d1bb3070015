"""``--limit N`` (quick mode): weat and the association metrics run on the first N words of
each word set, record the limit, and say in the console (stderr) and the report that the run is
not comparable with the paper; a method that does not take it refuses it before anything
loads. Real runs on glove-6b-50d; the effect size is recomputed with numpy from the vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.models.static import StaticEmbedder
from wordlens.resources.wordsets import load_weat_tests

runner = CliRunner()
QUICK = "quick mode (--limit 3: the first 3 words of each word set): not comparable with the paper"


def _unit(model: StaticEmbedder, words: tuple[str, ...]) -> np.ndarray:
    vectors = np.asarray(model.matrix[model.rows(list(words))], dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_weat_with_limit_runs_the_first_words_of_each_set(
    glove: StaticEmbedder, tmp_path: Path
) -> None:
    out = tmp_path / "weat"
    args = ["weat", "-m", "glove-6b-50d", "--tests", "7", "--permutations", "1000"]
    result = runner.invoke(app, [*args, "--limit", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"warning: {QUICK}" in result.stderr
    metadata = json.loads((out / "run.json").read_text())["metadata"]
    assert metadata["limit"] == 3 and metadata["quick_mode"] == QUICK
    assert QUICK.capitalize() in (out / "report.html").read_text()
    row = pd.read_parquet(out / "weat.parquet").iloc[0]
    assert (row["n_x"], row["n_y"], row["n_a"], row["n_b"]) == (3, 3, 3, 3)
    [test] = load_weat_tests([7])
    x, y, a, b = (_unit(glove, s.words[:3]) for s in (test.x, test.y, test.a, test.b))
    s = np.concatenate([x, y]) @ a.T
    scores = s.mean(axis=1) - (np.concatenate([x, y]) @ b.T).mean(axis=1)
    d = (scores[:3].mean() - scores[3:].mean()) / scores.std(ddof=1)
    assert row["effect_size"] == pytest.approx(d, rel=1e-5)
    assert row["n_partitions"] == 20  # C(6, 3): all enumerated


def test_an_association_metric_with_limit_keeps_the_first_words(tmp_path: Path) -> None:
    query = {
        "targets": {
            "flowers": ["rose", "tulip", "daisy", "lily"],
            "insects": ["ant", "wasp", "flea", "moth"],
        },
        "attributes": {
            "pleasant": ["love", "peace", "joy", "gift"],
            "unpleasant": ["hate", "war", "ugly", "filth"],
        },
    }
    path = tmp_path / "query.yaml"
    path.write_text(yaml.safe_dump(query), encoding="utf-8")
    out = tmp_path / "rnd"
    args = ["rnd", "-m", "glove-6b-50d", "--query", str(path), "--limit", "2"]
    result = runner.invoke(
        app, [*args, "--bootstrap", "0", "--permutations", "0", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    metadata = json.loads((out / "run.json").read_text())["metadata"]
    assert metadata["limit"] == 2
    assert metadata["query"]["targets"] == {
        "flowers": ["rose", "tulip"],
        "insects": ["ant", "wasp"],
    }
    scores = pd.read_parquet(out / "rnd_scores.parquet")
    assert (scores["n_targets"] == 4).all() and (scores["n_attributes"] == 2).all()


def test_a_method_without_quick_mode_refuses_limit(tmp_path: Path) -> None:
    out = tmp_path / "vast"
    result = runner.invoke(app, ["vast", "-m", "glove-6b-50d", "--limit", "3", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: wordlens vast takes no --limit yet; it works on: ")
    assert "weat" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not out.exists()


def test_limit_below_one_is_refused() -> None:
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--limit", "0"])
    assert result.exit_code == 2 and "limit" in result.stderr
