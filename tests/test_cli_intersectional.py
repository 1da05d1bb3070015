"""``wordlens intersectional``, run in-process with typer's CliRunner on real models."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.resources import load_lexicon

runner = CliRunner()

STUDY = """\
template: "a {categories} person"
biases:
  - {name: gender, categories: [cisgender, transgender]}
  - {name: sex, categories: [male, female]}
  - {name: race, categories: [white, black]}
strongest_biases: [gender, sex]
"""


def test_intersectional_command_on_smollm2(tmp_path: Path) -> None:
    study = tmp_path / "study.yaml"
    study.write_text(STUDY)
    lexicon = tmp_path / "bellezza-sample.csv"  # every 20th Bellezza word: a short run
    load_lexicon("bellezza").data.iloc[::20].to_csv(lexicon, index=False)
    out = tmp_path / "out"
    args = ["intersectional", "-m", "smollm2-135m", "--study", str(study), "--layers", "0,-1"]
    args += ["--lexicon", str(lexicon)]
    options = ["--permutations", "500", "--seed", "3", "--fraction", "0.25", "--svc-c", "1.0"]
    options += ["--no-normalize", "--class-weight", "balanced", "--conventions", "paper"]
    result = runner.invoke(app, [*args, *options, "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "ValNorm on smollm2-135m" in result.output and "male vs. female" in result.output
    table = pd.read_parquet(out / "intersectional_differential.parquet")
    assert list(table["test"]) == [
        "cisgender vs. transgender",
        "male vs. female",
        "white vs. black",
    ]
    assert (table["n_a"] == 4).all() and table["exact"].all()  # 4 twin pairs, 2^4 <= 500: exact
    assert (table["n_permutations"] == 16).all()
    meta = json.loads((out / "intersectional_differential.json").read_text())
    assert meta["config"]["direction"]["c"] == 1.0 and meta["config"]["seed"] == 3
    assert meta["config"]["direction"]["normalize_columns"] is False
    assert meta["config"]["direction"]["class_weight"] == "balanced"
    assert meta["options"]["conventions"] == "paper" and meta["model"]["bos_policy"] == "auto"
    assert json.loads((out / "run.json").read_text())["method"] == "intersectional"
    assert meta["config"]["study"]["strongest_biases"] == ["gender", "sex"]
    valnorm = pd.read_parquet(out / "intersectional_valnorm.parquet")
    assert list(valnorm["layer"]) == [0, 30] and (valnorm["n"] == 20).all()
    assert (out / "report.html").stat().st_size > 10_000
    shares = pd.read_parquet(out / "intersectional_strongest_categories.parquet")
    assert list(shares["category"]) == ["cisgender", "transgender", "male", "female"]


def test_intersectional_command_errors_and_static_valnorm(tmp_path: Path) -> None:
    static = runner.invoke(app, ["intersectional", "-m", "glove-6b-50d", "--out", str(tmp_path)])
    assert static.exit_code == 2 and "static embedding" in static.output
    valnorm = runner.invoke(
        app,
        [
            "intersectional",
            "-m",
            "glove-6b-50d",
            "--experiments",
            "valnorm",
            "--out",
            str(tmp_path),
        ],
    )
    assert valnorm.exit_code == 0, valnorm.output
    assert len(pd.read_parquet(tmp_path / "intersectional_valnorm.parquet")) == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("bias,first,second\nsex,male,male\n")
    duplicate = runner.invoke(app, ["intersectional", "-m", "glove-6b-50d", "--study", str(bad)])
    assert duplicate.exit_code == 2 and "duplicate category 'male'" in duplicate.output
    weight = runner.invoke(app, ["intersectional", "-m", "glove-6b-50d", "--class-weight", "heavy"])
    assert weight.exit_code == 2
    assert "--class-weight: unknown class weight 'heavy': use none, balanced" in weight.output
    paper = ["intersectional", "-m", "no-such-model", "--conventions", "paper", "--bos", "never"]
    bos = runner.invoke(app, paper)  # refused before any model is looked for
    assert bos.exit_code == 2 and "--conventions paper sets --bos auto" in bos.output
