"""``--limit N`` (quick mode): every method runs on the first N words, pairs or sentences of
each set (each says which: :attr:`~wordlens.methods.base.Method.limits`), records the limit, and
says in the console (stderr) and the report that the run is not comparable with the paper; a
method that does not take it refuses it before anything loads; ``wordlens reproduce`` passes it
to every experiment and gives every finding the verdict "not comparable (--limit)". Real runs on
glove-6b-50d and the small offline models; the effect size is recomputed with numpy."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.errors import WordlensError
from wordlens.methods.base import Method, RunContext, Summary, run_method
from wordlens.methods.registry import get_method, registered_methods
from wordlens.models.options import ModelOptions
from wordlens.models.static import StaticEmbedder
from wordlens.resources import load_lexicon
from wordlens.resources.bias_benchmarks import load_bias_pairs
from wordlens.resources.wordsets import load_weat_tests
from wordlens.results import Run

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


@dataclass(frozen=True)
class _NoConfig:
    pass


class _NoQuickMode(Method[_NoConfig]):
    """A method that says nothing about --limit (a third party's, say)."""

    name = "no-quick-mode"
    title = "no quick mode"
    citation = ""
    config_type = _NoConfig
    needs = "nothing"

    def run(self, model: ModelOptions, config: _NoConfig, context: RunContext) -> Run:
        raise AssertionError("refused before it runs")

    def summary(self, run: Run) -> Summary:
        raise AssertionError("never run")


def test_a_method_without_quick_mode_refuses_limit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(WordlensError, match="no-quick-mode takes no --limit yet; it works on: "):
        run_method(_NoQuickMode(), ModelOptions("glove-6b-50d", limit=3), _NoConfig(), out)
    assert not out.exists()


def test_every_builtin_method_takes_limit() -> None:
    for method in registered_methods().values():
        assert method.limits is not None and "{n}" in method.limits, method.name


def _quick(out: Path, limit: int, what: str) -> dict[str, Any]:
    """The run's metadata, checked to record the limit and to say the run is not comparable."""
    metadata: dict[str, Any] = json.loads((out / "run.json").read_text())["metadata"]
    said = f"quick mode (--limit {limit}: {what.format(n=limit)}): not comparable with the paper"
    assert metadata["limit"] == limit and metadata["quick_mode"] == said
    assert said.capitalize() in (out / "report.html").read_text()
    return metadata


def test_vast_with_limit_scores_the_first_words_and_says_what_the_pc_population_costs(
    tmp_path: Path,
) -> None:
    out = tmp_path / "vast"
    args = ["vast", "-m", "glove-6b-50d", "--lexica", "bellezza", "--no-tokenization"]
    args += ["--similarity", "none", "--no-probes", "--no-weat", "--limit", "30"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: quick mode (--limit 30: the first 30 words of each lexicon" in result.stderr
    [cost] = [line for line in result.stderr.splitlines() if " × " in line]
    assert cost.startswith("embedding the PC population: ")
    assert " words × 1 setting(s) (~" in cost and "forward passes" in cost
    _quick(out, 30, get_method("vast").limits or "")
    layers = pd.read_parquet(out / "vast_layers.parquet")
    assert (layers["n"] <= 30).all() and (layers["n"] >= 25).all()
    assert set(layers["n"]) <= {len(load_lexicon("bellezza").first(30))}
    population = json.loads((out / "run.json").read_text())["metadata"]["pc_population"]
    assert population["n_words"] < 600 and "--limit 30" in population["description"]  # not 14,071
    embedded = int(cost.split(": ")[1].split(" words")[0].replace(",", ""))
    assert population["n_words"] - population["n_missing"] <= embedded <= population["n_words"]


def test_intersectional_with_limit_runs_valnorm_on_the_first_words(tmp_path: Path) -> None:
    out = tmp_path / "inter"
    args = ["intersectional", "-m", "glove-6b-50d", "--experiments", "valnorm", "--limit", "40"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    _quick(out, 40, get_method("intersectional").limits or "")
    valnorm = pd.read_parquet(out / "intersectional_valnorm.parquet")
    assert (valnorm["n"] <= 40).all() and (valnorm["n"] >= 35).all()


def test_likelihood_bias_with_limit_scores_the_first_pairs(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "likelihood"
    model = str(shared / "models" / "minilm-l6-mlm")
    args = ["likelihood-bias", "-m", model, "--benchmarks", "crows,stereoset"]
    args += ["--methods", "aul", "--bootstrap", "0", "--limit", "3"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    _quick(out, 3, get_method("likelihood-bias").limits or "")
    pairs = pd.read_parquet(out / "likelihood_pair_scores.parquet")
    assert pairs.groupby("benchmark").size().to_dict() == {"crows": 3, "stereoset": 3}
    first = load_bias_pairs("crows").head(3)
    assert list(pairs[pairs["benchmark"] == "crows"]["item_id"]) == list(first["item_id"])


def test_probing_with_limit_keeps_the_first_examples_of_each_split(
    shared: Path, tmp_path: Path
) -> None:
    out = tmp_path / "probe"
    args = ["probe", "-m", "minilm-l6", "--task", "pos", "--repr", "cat", "--max-steps", "2"]
    args += ["--validate-every", "1", "--cache-dir", str(tmp_path / "cache"), "--limit", "4"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    _quick(out, 4, get_method("probe").limits or "")
    meta = json.loads((out / "probing_scores.json").read_text())
    assert {split: meta["counts"][split]["sentences"] for split in ("train", "dev", "test")} == {
        "train": 4,
        "dev": 4,
        "test": 4,
    }


def test_asymmetry_with_limit_keeps_the_first_pairs(tmp_path: Path) -> None:
    out = tmp_path / "asymmetry"
    args = ["asymmetry", "-m", "glove-6b-50d", "--norms", "usf", "--similarity", "none"]
    result = runner.invoke(app, [*args, "--limit", "40", "--out", str(out)])
    assert result.exit_code == 0, result.output
    _quick(out, 40, get_method("asymmetry").limits or "")
    cam = pd.read_parquet(out / "asymmetry_cam.parquet")
    assert cam[cam["relation"] == "all"]["n"].iloc[0] <= 40
    coverage = pd.read_parquet(out / "asymmetry_coverage.parquet")
    step = coverage[coverage["step"] == "quick mode (--limit 40: the first 40 pairs)"]
    assert list(step["n_pairs"]) == [40]


def test_sense_bias_with_limit_keeps_the_first_gender_pairs(tmp_path: Path) -> None:
    out = tmp_path / "sense"
    args = ["sense-bias", "-m", "glove-6b-50d", "--baseline", "glove-6b-50d"]
    args += ["--experiments", "gender-direction", "--no-cache", "--limit", "5"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    _quick(out, 5, get_method("sense-bias").limits or "")
    directions = pd.read_parquet(out / "sense_bias_gender_direction.parquet")
    assert directions["occupation"].nunique() <= 5


def test_reproduce_with_limit_gives_no_verdict_on_the_paper(tmp_path: Path) -> None:
    out = tmp_path / "reproduce"
    args = ["reproduce", "asymmetry", "-m", "glove-6b-50d", "--scale", "smoke", "--limit", "30"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "no number is comparable with the paper" in " ".join(result.stdout.split())
    findings = pd.read_parquet(out / "findings.parquet")
    assert set(findings["verdict"]) == {"not comparable (--limit)"}
    table = pd.read_parquet(out / "reproduction.parquet")
    assert table["agrees"].isna().all()
    said = "not comparable with the paper (--limit 30)"
    assert table["note"].str.contains(said, regex=False).all()
    metadata = json.loads((out / "reproduction.json").read_text())
    assert metadata["limit"] == 30 and "not comparable" in metadata["quick_mode"]
    page = (out / "report.html").read_text()
    assert "Quick mode (--limit 30: " in page and "no number is comparable with the paper" in page
    experiment = next(p for p in out.iterdir() if (p / "run.json").is_file())
    assert json.loads((experiment / "run.json").read_text())["metadata"]["limit"] == 30


def test_limit_below_one_is_refused() -> None:
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--limit", "0"])
    assert result.exit_code == 2 and "limit" in result.stderr
