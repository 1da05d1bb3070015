"""What ``run.json`` records of how a run was asked for: the command line as given (or the
Python call), the device and token budget asked for and used, and the stages' timings of every
method, the association metrics included. Each run is a real one, on glove-6b-50d or
minilm-l6."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

import wordlens
from wordlens.cli import app
from wordlens.methods.associations import association_metrics

runner = CliRunner()
QUERY = {
    "title": "flowers vs. insects",
    "targets": {
        "flowers": ["rose", "tulip", "daisy", "lily"],
        "insects": ["ant", "wasp", "flea", "moth"],
    },
    "attributes": {
        "pleasant": ["love", "peace", "happy", "joy"],
        "unpleasant": ["hate", "war", "ugly", "death"],
    },
}


def _metadata(out: Path) -> dict[str, object]:
    metadata: dict[str, object] = json.loads((out / "run.json").read_text())["metadata"]
    return metadata


def _query(tmp_path: Path) -> Path:
    path = tmp_path / "flowers.yaml"
    path.write_text(yaml.safe_dump(QUERY), encoding="utf-8")
    return path


def test_run_json_holds_the_exact_argv_and_the_device_asked_for_and_used(tmp_path: Path) -> None:
    args = ["weat", "-m", "glove-6b-50d", "--tests", "7", "--permutations", "1000"]
    args += ["--device", "cpu", "--out", str(tmp_path / "weat")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    metadata = _metadata(tmp_path / "weat")
    assert metadata["invocation"] == {"argv": ["wordlens", *args]}
    assert metadata["device"] == {"asked": "cpu", "used": "cpu"}
    # static vectors run no forward pass: no budget asked for, none used
    assert metadata["token_budget"] == {"asked": None, "used": None}
    # the table's own metadata names the count as the option does, not the former n_samples
    config = json.loads((tmp_path / "weat" / "weat.json").read_text())["config"]
    assert config["permutations"] == 1000 and "n_samples" not in config


def test_run_json_holds_the_token_budget_and_the_stages_of_an_association_metric(
    tmp_path: Path,
) -> None:
    args = ["rnd", "-m", "minilm-l6", "--query", str(_query(tmp_path)), "--layers", "0,-1"]
    args += ["--token-budget", "96", "--no-cache", "--bootstrap", "0", "--permutations", "0"]
    args += ["--out", str(tmp_path / "rnd")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    metadata = _metadata(tmp_path / "rnd")
    assert metadata["invocation"] == {"argv": ["wordlens", *args]}
    assert metadata["device"] == {"asked": "auto", "used": "cpu"}  # the CPU machines of the tests
    assert metadata["token_budget"] == {"asked": 96, "used": 96}
    stages = metadata["stages"]
    assert isinstance(stages, list)
    assert [stage["name"] for stage in stages] == ["embed", "statistics"]
    assert all(stage["status"] == "done" and stage["wall_s"] >= 0 for stage in stages)


def test_associations_records_a_stage_per_metric(tmp_path: Path) -> None:
    args = ["associations", "-m", "glove-6b-50d", "--query", str(_query(tmp_path))]
    args += ["--bootstrap", "0", "--permutations", "0", "--out", str(tmp_path / "all")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    stages = _metadata(tmp_path / "all")["stages"]
    assert isinstance(stages, list)
    metrics = [metric.name for metric in association_metrics()]
    assert [stage["name"] for stage in stages] == ["embed", *metrics]


def test_a_python_run_records_its_call() -> None:
    run = wordlens.run("weat", "glove-6b-50d", tests=[7], permutations=1000)
    assert run.metadata["invocation"] == {
        "python": "wordlens.run('weat', 'glove-6b-50d', out=None, progress=False, tests=[7], "
        "permutations=1000)"
    }
