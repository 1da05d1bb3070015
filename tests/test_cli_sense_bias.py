"""``wordlens sense-bias``, run in-process with typer's CliRunner on minilm-l6 and GloVe."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.methods.registry import get_method
from wordlens.models.base import WordEmbedder
from wordlens.models.senses import build_sense_vectors
from wordlens.resources import load_weat_tests
from wordlens.resources.sense_assignments import weat_sense_assignments
from wordlens.resources.wordnet import load_wordnet
from wordlens.results import Run

runner = CliRunner()


@pytest.mark.slow
def test_sense_bias_command_builds_senses_and_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["sense-bias", "-m", "minilm-l6", "--baseline", "glove-6b-50d", "--layers", "-1"]
    options = [
        *("--experiments", "weat,gender-direction", "--weat-tests", "9"),
        *("--max-examples", "0", "--gender-pairs", "debiaswe-definitional-pairs"),
        *("--permutations", "300", "--seed", "4", "--no-cache", "--out", str(out)),
    ]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    assert "WEAT with sense ids, top layer" in result.output
    assert "Cosine with the gender direction (eq. 8)" in result.output
    weat_table = pd.read_parquet(out / "sense_bias_weat.parquet")
    assert sorted(weat_table["representation"]) == ["baseline", "sense", "word"]
    directions = pd.read_parquet(out / "sense_bias_gender_direction.parquet")
    assert set(directions["layer"]) == {6} and directions["baseline"].notna().all()
    meta = json.loads((out / "sense_bias_weat.json").read_text())
    assert meta["config"]["seed"] == 4 and meta["config"]["permutations"] == 300
    assert meta["model"]["name"] == "minilm-l6" and meta["baseline"]["name"] == "glove-6b-50d"
    assert "Figure 2" in (out / "report.html").read_text()
    assert (out / "figure_2_gender_direction.png").stat().st_size > 0
    assert json.loads((out / "run.json").read_text())["tables"]["weat"] == "sense_bias_weat"


def test_sense_bias_command_rejects_bad_input(tmp_path: Path) -> None:
    cases = [
        ([], "give exactly one of --model and --senses"),
        (["-m", "glove-6b-50d", "--senses", str(tmp_path / "s.npz")], "exactly one of"),
        (
            ["-m", "glove-6b-50d", "--experiments", "wet"],
            "--experiments: unknown experiments 'wet'",
        ),
        (["-m", "glove-6b-50d", "--experiments", "none"], "choose experiments among"),
        (["-m", "glove-6b-50d", "--wat-reference", "swow"], "unknown WAT reference 'swow'"),
        (["-m", "glove-6b-50d", "--pooling", "median"], "median"),
        (["-m", "glove-6b-50d", "--dimensions", "4x"], "--dimensions: not an integer: '4x'"),
        (["-m", "glove-6b-50d", "--dimensions", "0,10"], "dimensions must be positive"),
        (["-m", "glove-6b-50d", "--sssb-draws", "1"], "sssb_draws must be at least 2"),
    ]
    for options, message in cases:
        result = runner.invoke(app, ["sense-bias", *options, "--out", str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert message in result.output


def test_sense_bias_command_writes_table2_and_figure_1(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["sense-bias", "-m", "glove-6b-50d", "--baseline", "glove-6b-50d"]
    options = [
        *("--experiments", "weat,sssb,dimensions", "--weat-tests", "9", "--permutations", "100"),
        *("--dimensions", "10,50", "--sssb-draws", "100", "--no-cache", "--out", str(out)),
    ]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    assert "Table 2 (word / sense / baseline), top layer" in result.output
    assert "experiment wat not run" in result.output
    table2 = pd.read_parquet(out / "sense_bias_table2.parquet")
    assert len(table2) == 12 and table2.tail(6)["baseline"].notna().all()
    sweep = pd.read_parquet(out / "sense_bias_dimensions.parquet")
    assert sweep.groupby("dimension").size().to_dict() == {10: 2, 50: 2}
    meta = json.loads((out / "sense_bias_table2.json").read_text())
    assert meta["config"]["dimensions"] == [10, 50] and meta["config"]["sssb_draws"] == 100
    assert (out / "figure_1_dimensions.png").stat().st_size > 0
    assert "Figure 1" in (out / "report.html").read_text()
    run = Run.read(out)
    assert set(run.tables) == {"weat", "sssb", "dimensions", "table2"}
    summary = get_method("sense-bias").summary(run)
    weat = run.tables["weat"].set_index("representation")["effect_size"]
    assert summary.headline == {
        f"weat9_d_{rep}": weat[rep] for rep in ("sense", "word", "baseline")
    }
    assert summary.curves is not None and summary.curves["depth"].isna().all()  # one layer


def test_sense_bias_command_reads_a_sense_file_without_a_model(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    wordnet = load_wordnet()
    assignments = weat_sense_assignments(wordnet)
    (test,) = load_weat_tests([9])
    words = [word for group in (test.x, test.y, test.a, test.b) for word in group.words]
    lemmas = sorted({assignments.senses[word].split("%")[0] for word in words})
    keys = [sense.key for lemma in lemmas for sense in wordnet.senses(lemma)]
    senses = build_sense_vectors(glove, keys, wordnet=wordnet).write(tmp_path / "senses.npz")
    out = tmp_path / "out"
    options = ["--senses", str(senses), "--baseline", "none", "--experiments", "weat"]
    options += ["--weat-tests", "9", "--permutations", "100", "--no-cache", "--out", str(out)]
    result = runner.invoke(app, ["sense-bias", *options])
    assert result.exit_code == 0, result.output
    run = Run.read(out)
    assert run.metadata["model"] is None and run.metadata["baseline"] is None
    assert run.metadata["sense_vectors"]["n_senses"] == len(set(keys))
    assert sorted(run.tables["weat"]["representation"]) == ["sense", "word"]
    assert "model " not in (out / "report.html").read_text().split("<footer>")[1]
