"""``--json`` on the listing commands: stdout is one JSON document that says what the Python API
says; without it, ``data show`` prints readable text (not a Python dict)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.models.test_cache import worker_env
from wordlens.methods.registry import registered_methods
from wordlens.models.loading import ALIASES
from wordlens.resources import get_resource
from wordlens.study.records import write_cell_record
from wordlens.study.runner import study_records
from wordlens.study.spec import load_study

WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]


def run_wordlens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WORDLENS, *args], cwd=REPO, env=worker_env(), capture_output=True, text=True
    )


def json_of(*args: str) -> Any:
    """The JSON document ``wordlens *args --json`` prints (the whole of stdout)."""
    done = run_wordlens(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_models_and_methods_as_json() -> None:
    models = json_of("models")
    assert [row["alias"] for row in models["aliases"]] == list(ALIASES)
    for row in models["aliases"]:
        alias = ALIASES[row["alias"]]
        assert row["installed"] is alias.installed() and row["install"] == alias.install
        assert row["where"] == (str(alias.package_dir()) if alias.installed() else "not installed")
    methods = json_of("methods")
    assert [row["command"] for row in methods["methods"]] == list(registered_methods())
    for row in methods["methods"]:
        assert row["title"] == registered_methods()[row["command"]].title


def test_data_show_as_json_and_as_text() -> None:
    assert json_of("data", "show", "eat") == get_resource("eat").describe()
    text = run_wordlens("data", "show", "eat")
    assert text.returncode == 0, text.stderr
    assert "{'" not in text.stdout and "[{" not in text.stdout
    assert "name: eat" in text.stdout and "files: 1" in text.stdout
    assert "  - evocation/eat_stimulus_response.tsv.gz" in text.stdout


def test_cache_info_as_json(tmp_path: Path) -> None:
    assert json_of("cache", "info", "--cache-dir", str(tmp_path)) == {
        "root": str(tmp_path),
        "stores": [],
        "unreadable": [],
    }


def test_study_status_as_json(tmp_path: Path) -> None:
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        "name: listed\nmodels: [glove-6b-50d, minilm-l6]\nmethods:\n  weat: {tests: [1]}\n"
    )
    study = load_study(study_file, check_inputs=False)
    failed = replace(study_records(study)[1], status="failed", error="boom", seconds=1.5)
    (study.cells[1].out_dir).mkdir(parents=True)
    write_cell_record(study.cells[1].out_dir / "cell.json", failed)
    document = json_of("study", "status", str(study_file))
    assert document["study"] == "listed"
    assert [(cell["model"], cell["method"], cell["state"]) for cell in document["cells"]] == [
        ("glove-6b-50d", "weat", "pending"),
        ("minilm-l6", "weat", "failed"),
    ]
    assert document["cells"][1]["error"] == "boom" and document["cells"][1]["seconds"] == 1.5


def test_a_method_with_json_prints_its_tables_and_nothing_else_on_stdout(tmp_path: Path) -> None:
    import pandas as pd

    out = tmp_path / "weat"
    args = ["weat", "-m", "glove-6b-50d", "--tests", "1,7", "--permutations", "1000"]
    done = run_wordlens(*args, "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # the whole of stdout is one JSON document
    assert document["method"] == "weat"
    assert set(document["tables"]) == {"weat", "words"}
    assert str(out / "run.json") in document["files"]
    for name in ("weat", "words"):
        written = pd.read_parquet(out / f"{name}.parquet")
        printed = pd.DataFrame(document["tables"][name]).astype(written.dtypes.to_dict())
        pd.testing.assert_frame_equal(printed, written, rtol=1e-15)
        assert sorted(set(printed["test"])) == [1, 7]
    assert str(out / "words.csv") in document["files"]
    # the stages' progress and the summary line are on stderr, not mixed into the document
    assert "stage statistics" in done.stderr


def test_an_association_metric_with_json_prints_its_scores(tmp_path: Path) -> None:
    import pandas as pd

    query = tmp_path / "query.yaml"
    query.write_text(
        json.dumps(
            {
                "targets": {
                    "flowers": ["rose", "tulip", "daisy"],
                    "insects": ["ant", "wasp", "moth"],
                },
                "attributes": {
                    "pleasant": ["love", "joy", "peace"],
                    "unpleasant": ["hate", "war", "ugly"],
                },
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "rnd"
    done = run_wordlens(
        "rnd", "-m", "glove-6b-50d", "--query", str(query), "--bootstrap", "0",
        "--permutations", "0", "--out", str(out), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = pd.read_parquet(out / "rnd_scores.parquet")
    printed = pd.DataFrame(json.loads(done.stdout)["tables"]["scores"])
    pd.testing.assert_frame_equal(printed.astype(written.dtypes.to_dict()), written, rtol=1e-15)
    assert printed["p_value"].isna().all()  # no permutations: NaN, printed as null
    words = pd.DataFrame(json.loads(done.stdout)["tables"]["words"])
    assert len(words) == 2 * 3 and set(words["set"]) == {"pleasant", "unpleasant"}
    assert words.groupby("part")["score"].sum().to_dict() == pytest.approx(
        dict(zip(written["part"], written["value"], strict=True)), abs=1e-12
    )


def test_models_shows_where_the_shared_and_hub_models_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub.constants

    from wordlens.cli_listings import models_listing
    from wordlens.models.loading import hub_location

    (tmp_path / "shared" / "models" / "tiny-mlm").mkdir(parents=True)
    (tmp_path / "shared" / "models" / "tiny-mlm" / "config.json").write_text("{}")
    (tmp_path / "shared" / "models" / "notes").mkdir()  # no config.json: not a model
    (tmp_path / "hub" / "models--org--tiny").mkdir(parents=True)
    monkeypatch.setenv("WORDLENS_SHARED", str(tmp_path / "shared"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    document, shown = models_listing()
    where = str((tmp_path / "shared" / "models" / "tiny-mlm").resolve())
    assert document["shared"] == [{"model": "tiny-mlm", "where": where}]
    hub = str(tmp_path / "hub" / "models--org--tiny")
    assert document["hub"] == [{"model": "org/tiny", "where": hub}]
    assert document["hub_cache"] == str(tmp_path / "hub")
    assert hub_location("org/tiny") == hub
    assert hub_location("org/absent") == "not downloaded"
    assert any("not downloaded" in str(item) for item in shown)
