"""Methods across training checkpoints on real checkpoints built here: minilm-l6's weights walked
from a random initialisation (step 0) to the trained model (step 3000) by linear interpolation
(:func:`tests.checkpoints.interpolated_checkpoints`), as ``step-*`` folders and as hub revisions
in a local hub cache; smollm2-135m's the same way, as hub revisions.

Every per-checkpoint number of a sweep is checked against a single run of that checkpoint's
folder (the method's own tables); the trend is checked where the fixture's measurements make it
certain (WEAT 1's effect size rises at every layer by at least 0.1 per step; VAST r at layer 2 by
at least 0.05: measured -0.4, 0.15, 1.1, 1.4 and 0.36, 0.69, 0.79, 0.86).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import huggingface_hub.constants
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import wordlens
from tests.checkpoints import hub_revision_cache, interpolated_checkpoints
from tests.test_cli_faults import signal_when
from tests.test_cli_faults import wordlens_in_process as _wordlens
from wordlens.cli import app
from wordlens.models.loading import ALIASES
from wordlens.results import Run
from wordlens.study.runner import run_study
from wordlens.study.spec import StudyFileError, load_study
from wordlens.sweep.runner import Sweep, write_study_sweeps

pytestmark = pytest.mark.slow

FRACTIONS = (0.0, 0.2, 0.45, 1.0)
STEPS = [0, 1000, 2000, 3000]
NAMES = [f"step-{step}" for step in STEPS]
WEAT = {"tests": [1], "permutations": 200}
WEAT_FLAGS = ["--tests", "1", "--permutations", "200"]
VAST = {
    "lexica": ["bellezza"],
    "settings": ["bleached"],
    "pooling": ["mean"],
    "tokenization": False,
    "similarity": [],
    "weat": False,
    "probes": False,
    "max_pcs": 1,
    "pc_population": "lexicon",
}
LEFT_OUT = "skipped runs: no config.json, so not a checkpoint folder"
RERUN = "(model.safetensors changed since it ran)"


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """minilm-l6 from random (step-0) to trained (step-3000), four folders, and a folder that is
    not a checkpoint (no config.json)."""
    root = tmp_path_factory.mktemp("minilm-run")
    interpolated_checkpoints(ALIASES["minilm-l6"].package_dir() / "model", root, FRACTIONS)
    (root / "runs").mkdir()  # a training run's logs: not a checkpoint
    return root


@pytest.fixture(scope="module")
def single_weat(checkpoint_dir: Path) -> dict[str, pd.DataFrame]:
    """WEAT 1 on each checkpoint folder alone: the reference of every sweep here."""
    return {
        name: wordlens.weat(str(checkpoint_dir / name), **WEAT, no_cache=True).tables["weat"]
        for name in NAMES
    }


def _effect_sizes(table: pd.DataFrame, quantity: str = "weat1_d") -> pd.DataFrame:
    """A sweep table's per-layer values of ``quantity``: layers x checkpoints."""
    rows = table[table["quantity"] == quantity]
    grid = rows.pivot(index="layer", columns="revision", values="value")
    return grid[[name for name in NAMES if name in grid.columns]]


def _swap_weights(source: Path, target: Path) -> None:
    """Copy ``source``'s ``model.safetensors`` over ``target``'s and set its modification time
    back: the file keeps its size (one architecture) and its time, only its bytes differ."""
    weights = target / "model.safetensors"
    before = weights.stat()
    shutil.copyfile(source / "model.safetensors", weights)
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = weights.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _assert_equals_single_runs(
    table: pd.DataFrame, single: dict[str, pd.DataFrame], names: list[str] = NAMES
) -> None:
    grid = _effect_sizes(table)
    assert list(grid.columns) == names
    for name in names:
        alone = single[name].sort_values("layer")
        assert grid.index.tolist() == alone["layer"].tolist()
        np.testing.assert_allclose(grid[name].to_numpy(), alone["effect_size"], rtol=1e-5)


def test_the_command_runs_each_checkpoint_and_writes_the_sweep(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    out = tmp_path / "sweep"
    done = _wordlens("weat", "-m", str(checkpoint_dir), "--revisions", "all", *WEAT_FLAGS,
                     "--out", str(out), "--cache-dir", str(tmp_path / "cache"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert LEFT_OUT in done.stdout  # the folder without config.json is named, with why
    for name in NAMES:  # one normal run directory per checkpoint, in step order
        assert f"run {name}\n" in done.stderr  # progress: on stderr, line by line
        run = Run.read(out / "revisions" / name)
        assert run.method == "weat"
        assert run.metadata["model"]["name"] == name
        assert (out / "revisions" / name / "report.html").is_file()
    assert done.stderr.index("run step-0") < done.stderr.index("run step-1000")
    assert "run step-0" not in done.stdout  # stdout holds the results alone
    table = pd.read_parquet(out / "sweep_table.parquet")
    assert list(table.columns) == [
        "revision", "step", "layer", "depth", "quantity", "value", "low", "high"
    ]  # fmt: skip
    _assert_equals_single_runs(table, single_weat)
    grid = _effect_sizes(table).to_numpy()
    assert (np.diff(grid, axis=1) > 0.1).all(), grid  # rises with training at every layer
    headline = table[table["quantity"] == "weat1_d_top"].set_index("revision")["value"]
    top = [single_weat[name].sort_values("layer")["effect_size"].iloc[-1] for name in NAMES]
    np.testing.assert_allclose(headline[NAMES].to_numpy(), top, rtol=1e-5)
    revisions = pd.read_csv(out / "sweep_revisions.csv")
    assert revisions["revision"].tolist() == NAMES and revisions["step"].tolist() == STEPS
    assert (revisions["status"] == "done").all()
    assert (revisions["seconds"] > 0).all() and (revisions["peak_memory_mib"] > 100).all()
    page = (out / "report.html").read_text()
    # named for a reader (issue 42), not weat1_d
    name = "WEAT 1 (Flowers vs. insects, pleasant vs. unpleasant): effect size d"
    assert f"<h2>{name}</h2>" in page and "WEAT 1: effect size d by layer and training step" in page
    assert "Skipped runs: no config.json, so not a checkpoint folder." in page
    assert Run.read(out).metadata["left_out"] == [
        {"name": "runs", "reason": "no config.json, so not a checkpoint folder"}
    ]
    assert '<a href="revisions/step-1000/report.html">step-1000</a>' in page
    assert Run.read(out).method == "sweep"
    read = wordlens.read_run(out)  # the sweep, with each checkpoint's run and the model
    assert isinstance(read, Sweep) and list(read.runs) == NAMES
    assert read.model == str(checkpoint_dir) and repr(read).count("\n") == 0
    for name in NAMES:
        pd.testing.assert_frame_equal(read.runs[name].tables["weat"], single_weat[name])


def test_a_killed_sweep_resumes_without_rerunning_finished_checkpoints(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    out, cache = tmp_path / "sweep", tmp_path / "cache"
    args = ["weat", "-m", str(checkpoint_dir), "--revisions", "all", *WEAT_FLAGS,
            "--permutations", "20000", "--out", str(out), "--cache-dir", str(cache)]  # fmt: skip
    first = out / "revisions" / "step-0" / "cell.json"

    def first_done() -> bool:
        try:
            return json.loads(first.read_text())["status"] == "done"
        except (OSError, ValueError):
            return False

    stopped = signal_when(args, first_done, signal.SIGINT)
    assert stopped.returncode == 130, stopped.stderr
    assert "interrupted;" in stopped.stderr
    finished = [name for name in NAMES if (out / "revisions" / name / "run.json").exists()]
    assert finished[:1] == ["step-0"] and len(finished) < len(NAMES)
    kept = {name: (out / "revisions" / name / "run.json").stat().st_mtime_ns for name in finished}
    assert not (out / "report.html").exists()  # the sweep itself is written when all ran
    again = _wordlens(*args)
    assert again.returncode == 0, again.stderr
    for name in NAMES:
        said = f"skip {name} (done)" if name in finished else f"run {name}"
        assert said in again.stderr
    for name, mtime in kept.items():  # finished checkpoints were not run again
        assert (out / "revisions" / name / "run.json").stat().st_mtime_ns == mtime
    table = pd.read_parquet(out / "sweep_table.parquet")
    _assert_equals_single_runs(table, single_weat)


def test_a_checkpoint_whose_weights_were_replaced_runs_again(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    """step-2000 gets step-3000's weights (same size, same modification time): the rerun runs
    it again, with step-3000's numbers, from the same activation cache; step-3000 is skipped."""
    root, out = tmp_path / "run", tmp_path / "sweep"
    for name in ("step-2000", "step-3000"):
        shutil.copytree(checkpoint_dir / name, root / name)
    args = ["weat", "-m", str(root), "--revisions", "all", *WEAT_FLAGS, "--out", str(out),
            "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    first = _wordlens(*args)
    assert first.returncode == 0, first.stderr
    kept = (out / "revisions" / "step-3000" / "run.json").stat().st_mtime_ns
    _swap_weights(root / "step-3000", root / "step-2000")
    again = _wordlens(*args)
    assert again.returncode == 0, again.stderr
    assert f"rerun step-2000 {RERUN}\n" in again.stderr
    assert "skip step-3000 (done)\n" in again.stderr
    assert (out / "revisions" / "step-3000" / "run.json").stat().st_mtime_ns == kept
    fresh = {"step-2000": single_weat["step-3000"], "step-3000": single_weat["step-3000"]}
    table = pd.read_parquet(out / "sweep_table.parquet")
    _assert_equals_single_runs(table, fresh, ["step-2000", "step-3000"])
    third = _wordlens(*args)  # unchanged since: skipped
    assert "skip step-2000 (done)\n" in third.stderr, third.stderr


def test_a_study_cell_on_a_local_folder_runs_again_when_its_weights_change(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    model = tmp_path / "model"
    shutil.copytree(checkpoint_dir / "step-2000", model)
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        "name: local\ncache_dir: cache\nmodels:\n"
        f"  - {{name: mine, model: {model}}}\n"
        f"  - {{name: other, model: {checkpoint_dir / 'step-0'}}}\n"
        "methods:\n  weat: {tests: [1], permutations: 200}\n"
    )
    runner = CliRunner()
    first = runner.invoke(app, ["study", "run", str(study_file)])
    assert first.exit_code == 0, first.output
    _swap_weights(checkpoint_dir / "step-3000", model)
    status = runner.invoke(app, ["study", "status", str(study_file), "--json"])
    assert "model.safetensors changed since it ran" in status.output
    again = runner.invoke(app, ["study", "run", str(study_file)])
    assert again.exit_code == 0, again.output
    assert f"rerun mine / weat {RERUN}" in again.output
    assert "skip (done) other / weat" in again.output
    table = Run.read(load_study(study_file).out_dir / "cells" / "mine" / "weat").tables["weat"]
    np.testing.assert_allclose(
        table.sort_values("layer")["effect_size"],
        single_weat["step-3000"].sort_values("layer")["effect_size"],
        rtol=1e-5,
    )


def test_the_python_api_shares_the_tokenizer_and_the_inputs(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    import wordlens.resources

    calls = {"tokenizer": 0, "tests": 0}
    load_tokenizer = transformers.AutoTokenizer.from_pretrained
    load_tests = wordlens.resources.load_weat_tests

    def counted_tokenizer(*args: object, **kwargs: object) -> object:
        calls["tokenizer"] += 1
        return load_tokenizer(*args, **kwargs)

    def counted_tests(*args: object, **kwargs: object) -> object:
        calls["tests"] += 1
        return load_tests(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", counted_tokenizer)
    monkeypatch.setattr(wordlens.resources, "load_weat_tests", counted_tests)
    sweep = wordlens.weat(str(checkpoint_dir), revisions=["3000", "step-0"], **WEAT, no_cache=True)
    assert isinstance(sweep, Sweep) and sweep.method == "sweep"
    # one tokenizer for both checkpoints; the word sets read by the config's check, then once
    # for both checkpoints (each run read them again before: 1 + 2)
    assert calls == {"tokenizer": 1, "tests": 2}
    assert list(sweep.runs) == ["step-0", "step-3000"]
    _assert_equals_single_runs(sweep.tables["table"], single_weat, ["step-0", "step-3000"])
    fingerprints = {run.metadata["model"]["fingerprint"] for run in sweep.runs.values()}
    assert len(fingerprints) == 2  # each checkpoint is its own model to the activation cache
    assert sweep.metadata["checkpoints"][1] == {
        "name": "step-3000", "step": 3000, "model": str(checkpoint_dir / "step-3000"),
        "revision": None,
    }  # fmt: skip


def test_vast_across_checkpoints_carries_its_intervals(checkpoint_dir: Path) -> None:
    sweep = wordlens.vast(str(checkpoint_dir), revisions="all", **VAST, no_cache=True)
    table = sweep.tables["table"]
    rows = table[table["quantity"] == "vast_r"]
    layer_two = rows[rows["layer"] == 2].set_index("revision")["value"][NAMES].to_numpy()
    assert (np.diff(layer_two) > 0.05).all(), layer_two
    assert ((rows["low"] < rows["value"]) & (rows["value"] < rows["high"])).all()
    alone = wordlens.vast(str(checkpoint_dir / "step-2000"), **VAST, no_cache=True)
    layers = alone.tables["layers"].sort_values("layer")
    mine = rows[rows["revision"] == "step-2000"].sort_values("layer")
    np.testing.assert_allclose(mine["value"], layers["r"], rtol=1e-6)
    np.testing.assert_allclose(mine[["low", "high"]], layers[["ci_low", "ci_high"]], rtol=1e-6)


def test_a_study_sweeps_a_model_entry_with_revisions(
    checkpoint_dir: Path, single_weat: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        "name: training\n"
        "models:\n"
        f"  - {{name: run, model: {checkpoint_dir}, revisions: [step-0, 2000, step-3000]}}\n"
        "methods:\n"
        "  weat: {tests: [1], permutations: 200}\n"
    )
    study = load_study(study_file)
    assert [cell.model.display_name for cell in study.cells] == [
        "run@step-0", "run@step-2000", "run@step-3000"
    ]  # fmt: skip
    records = run_study(study)
    assert [record.status for record in records] == ["done"] * 3
    assert all(record.peak_memory_mib and record.peak_memory_mib > 100 for record in records)
    [(label, page)] = write_study_sweeps(study)
    assert (
        label == "run / weat" and page == study.out_dir / "sweeps" / "run" / "weat" / "report.html"
    )
    assert (
        '<a href="../../../cells/run-step-2000/weat/report.html">step-2000</a>' in page.read_text()
    )
    table = pd.read_parquet(page.parent / "sweep_table.parquet")
    _assert_equals_single_runs(table, single_weat, ["step-0", "step-2000", "step-3000"])
    bad = tmp_path / "bad.yaml"
    bad.write_text(study_file.read_text().replace("2000", "2500"))
    with pytest.raises(StudyFileError, match=r"bad.yaml:3: models.0.revisions: .*'2500'"):
        load_study(bad)


def test_hub_revisions_in_the_local_cache_sweep_like_their_folders(
    checkpoint_dir: Path,
    single_weat: dict[str, pd.DataFrame],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "hub"
    hub_revision_cache(
        "org/minilm-run", cache, {"step0": checkpoint_dir / "step-0",
                                  "step3000": checkpoint_dir / "step-3000"}
    )  # fmt: skip
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    sweep = wordlens.weat("org/minilm-run", revisions="all", **WEAT, no_cache=True)
    assert list(sweep.runs) == ["step0", "step3000"]
    grid = _effect_sizes(sweep.tables["table"])
    assert grid.empty  # named as the hub names them, not as the folders
    rows = sweep.tables["table"].query("quantity == 'weat1_d'")
    for revision, folder in (("step0", "step-0"), ("step3000", "step-3000")):
        values = rows[rows["revision"] == revision].sort_values("layer")["value"]
        expected = single_weat[folder].sort_values("layer")["effect_size"]
        np.testing.assert_allclose(values, expected, rtol=1e-5)
    details = [run.metadata["model"] for run in sweep.runs.values()]
    assert len({model["fingerprint"] for model in details}) == 2


def test_smollm2_hub_revisions_move_from_random_to_trained(
    smollm2: wordlens.models.base.WordEmbedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """smollm2-135m (causal, 31 hidden states) at a random initialisation (``step0``) and trained
    (``step1000``), as hub revisions: the sweep equals single runs of the folders, and WEAT 1's
    effect size is larger trained at every layer (measured: by 0.19 to 1.8)."""
    folders = interpolated_checkpoints(
        Path(smollm2.info.details["source"]), tmp_path / "run", (0.0, 1.0), dtype="float16"
    )
    cache = tmp_path / "hub"
    hub_revision_cache("org/smollm2-run", cache, {"step0": folders[0], "step1000": folders[1]})
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    sweep = wordlens.weat("org/smollm2-run", revisions="all", **WEAT, no_cache=True)
    rows = sweep.tables["table"].query("quantity == 'weat1_d'")
    grid = rows.pivot(index="layer", columns="revision", values="value")[["step0", "step1000"]]
    assert len(grid) == 31
    for revision, folder in zip(["step0", "step1000"], folders, strict=True):
        alone = wordlens.weat(str(folder), **WEAT, no_cache=True).tables["weat"]
        np.testing.assert_allclose(
            grid[revision], alone.sort_values("layer")["effect_size"], rtol=1e-5
        )
    assert (grid["step1000"] - grid["step0"] > 0.15).all(), grid
    assert {run.metadata["model"]["kind"] for run in sweep.runs.values()} == {"causal"}
