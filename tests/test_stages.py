"""Named stages (:mod:`wordlens.stages`): each stage's wall time, CPU time and peak memory are
measured against the clocks and allocations the test makes itself; a stage that fails names
itself, its run keeps the tables finished before it, and a rerun resumes from the activation
cache without computing anything again."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil  # type: ignore[import-untyped]
import pytest

from wordlens.errors import WordlensError
from wordlens.methods.base import FAILURE_MANIFEST, run_method
from wordlens.methods.registry import get_method
from wordlens.methods.vast.config import VastConfig
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.reproduce.runner import reproduce
from wordlens.results import RUN_MANIFEST, Run
from wordlens.stages import (
    RSS_SAMPLE_S,
    StageLog,
    Timings,
    failed_stage,
    recording,
    stage_failure,
    stages_table,
    summary_line,
)

MIB = 1 << 20


def test_a_stage_measures_wall_cpu_and_its_own_peak_memory() -> None:
    timings = Timings()
    held = 256  # MiB the first stage holds at once, then frees
    with recording(StageLog()) as log:
        before = psutil.Process().memory_info().rss / MIB
        with timings.stage("allocate"):
            block = np.ones(held * MIB // 8)  # written: every page resident
            assert block.sum() == held * MIB // 8
            time.sleep(3 * RSS_SAMPLE_S)  # the sampler sees it even below the high-water mark
            del block
        with timings.stage("sleep"):
            time.sleep(0.3)
        with timings.stage("busy"):
            started = time.process_time()
            while time.process_time() - started < 0.3:
                np.sort(np.random.default_rng(0).random(10_000))
    allocate, sleep, busy = log.records
    assert allocate.peak_rss_mib >= before + 0.9 * held
    assert sleep.wall_s >= 0.3 and sleep.cpu_s < 0.1  # waiting costs no CPU
    assert busy.cpu_s >= 0.3
    assert sleep.peak_rss_mib < allocate.peak_rss_mib  # its own peak, not the process's
    assert timings.seconds == {r.name: r.wall_s for r in log.records}
    assert all(r.peak_device_mib is None and r.status == "done" for r in log.records)


def test_an_inner_stage_ends_first_and_its_peak_is_in_the_outer_one() -> None:
    timings = Timings()
    with recording(StageLog()) as log, timings.stage("outer"), timings.stage("inner"):
        block = np.ones(64 * MIB // 8)
        del block
    inner, outer = log.records
    assert (inner.name, inner.depth, outer.name, outer.depth) == ("inner", 1, "outer", 0)
    assert outer.peak_rss_mib >= inner.peak_rss_mib
    assert outer.wall_s >= inner.wall_s
    table = stages_table(log.as_metadata())
    assert table["stage"].tolist() == ["  inner", "outer"]
    assert summary_line(log.as_metadata()).startswith("stages: outer ")  # top level only


def test_a_failing_stage_names_itself_the_innermost_one() -> None:
    timings = Timings()
    with (
        recording(StageLog()) as log,
        pytest.raises(ValueError) as raised,
        timings.stage("statistics"),
        timings.stage("correlation"),
    ):
        raise ValueError("no pair of values")
    assert failed_stage(raised.value) == "correlation"
    assert stage_failure(raised.value) == "stage correlation failed: ValueError: no pair of values"
    assert [(r.name, r.status) for r in log.records] == [
        ("correlation", "failed"),
        ("statistics", "failed"),
    ]
    assert "; correlation failed" in summary_line(log.as_metadata())
    own = WordlensError("word set empty")  # wordlens' own errors need no type name
    with pytest.raises(WordlensError) as raised_own, timings.stage("embed"):
        raise own
    assert stage_failure(raised_own.value) == "stage embed failed: word set empty"
    assert stage_failure(ValueError("outside")) == "ValueError: outside"


def test_an_interrupted_stage_is_recorded_as_interrupted() -> None:
    with recording(StageLog()) as log, pytest.raises(KeyboardInterrupt), Timings().stage("embed"):
        raise KeyboardInterrupt
    assert log.records[0].status == "interrupted"


def test_stages_announce_themselves_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    timings = Timings()
    with recording(StageLog(announce=True)), timings.stage("layers"), timings.stage("pca"):
        pass
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "stage layers …"
    assert lines[1] == "  stage pca …"
    assert lines[2].startswith("  stage pca done in ") and "peak RSS" in lines[2]
    assert lines[3].startswith("stage layers done in ")
    with timings.stage("quiet"):  # outside a recording: timed, not said
        pass
    assert capsys.readouterr().err == ""
    assert "quiet" in timings.seconds


def _cache_shards(cache: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in cache.rglob("shard-*.safetensors")}


def small_lexicon(folder: Path, n_words: int = 80) -> Path:
    """The first ``n_words`` of Bellezza's lexicon as a lexicon file (a short VAST run)."""
    from wordlens.resources import load_lexicon

    path = folder / "bellezza80.csv"
    load_lexicon("bellezza").data[["word", "valence"]].head(n_words).to_csv(path, index=False)
    return path


QUICK_VAST = {
    "settings": ["bleached"],
    "tokenization": False,
    "similarity": [],
    "weat": False,
    "probes": False,
    "max_pcs": 2,
    "pc_population": "lexicon",
}


@pytest.mark.slow
def test_a_failed_stage_keeps_the_finished_tables_and_the_rerun_resumes_from_the_cache(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure is injected into VAST's nullification stage (after the layers table is done);
    the rerun computes no activation again: the cache's shards are the same files, unchanged."""
    from wordlens.methods.vast import experiments

    method = get_method("vast")
    config = config_from_values(
        VastConfig, {**QUICK_VAST, "lexica": [str(small_lexicon(tmp_path))]}
    )
    model = ModelOptions("minilm-l6", cache_dir=tmp_path / "cache")
    out = tmp_path / "out"

    def injected(*args: object, **kwargs: object) -> pd.DataFrame:
        raise ValueError("injected failure")

    with monkeypatch.context() as patch:
        patch.setattr(experiments, "nullification_experiment", injected)
        log = StageLog()
        with pytest.raises(ValueError) as raised:
            run_method(method, model, config, out, stage_log=log)
    assert stage_failure(raised.value) == "stage nullification failed: ValueError: injected failure"
    manifest = json.loads((out / FAILURE_MANIFEST).read_text())
    assert manifest["failed_stage"] == "nullification"
    assert manifest["tables"] == {"layers": "vast_layers"}
    kept = pd.read_parquet(out / "vast_layers.parquet")
    pd.testing.assert_frame_equal(kept, log.tables["layers"])
    assert not (out / RUN_MANIFEST).exists()  # not a complete run: studies and sweeps redo it
    statuses = {s["name"]: s["status"] for s in manifest["stages"]}
    assert statuses["nullification"] == "failed" and statuses["layers"] == "done"
    shards = _cache_shards(tmp_path / "cache")
    assert shards

    run_method(method, model, config, out)
    assert _cache_shards(tmp_path / "cache") == shards  # nothing computed again
    assert not (out / FAILURE_MANIFEST).exists()
    pd.testing.assert_frame_equal(Run.read(out).tables["layers"], kept)
    names = [s["name"] for s in Run.read(out).metadata["stages"]]
    assert "nullification" in names and "layers" in names


@pytest.mark.slow
def test_reproduce_reports_the_failed_stage_and_the_tables_it_kept(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wordlens.methods.asymmetry import experiment

    def injected(*args: object, **kwargs: object) -> dict[str, pd.DataFrame]:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(experiment, "_measures", injected)
    out = tmp_path / "out"
    result = reproduce("asymmetry", ModelOptions("glove-6b-50d"), out, scale="smoke")
    failure = result.failures["evocation"]
    assert failure == "stage measures failed: RuntimeError: injected failure"
    kept = result.unfinished["evocation"].tables
    assert {"data_alar", "relations"} <= set(kept)
    for name, table in kept.items():  # written as they were
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / "evocation" / f"asymmetry_{name}.parquet"), table
        )
    report = (out / "report.html").read_text()
    assert "Failed experiments and what they kept" in report
    assert "stage measures failed: RuntimeError: injected failure" in report
    assert "Where the time went" in report
    experiments = json.loads((out / "reproduction.json").read_text())["experiments"]
    evocation = next(e for e in experiments if e["name"] == "evocation")
    assert evocation["status"] == "failed"
    assert [s["name"] for s in evocation["stages"] if s["status"] == "failed"] == ["measures"]
