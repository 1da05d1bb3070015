"""A sweep across training checkpoints on the real local Ray cluster: each checkpoint is one Ray
task in a worker process of its own, which reports its time and peak memory; the numbers equal
the sweep run here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.checkpoints import interpolated_checkpoints
from wordlens.distributed import RayBackend
from wordlens.methods.registry import get_method
from wordlens.models.loading import ALIASES
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.study.runner import run_study
from wordlens.study.spec import load_study
from wordlens.sweep.runner import run_sweep, write_study_sweeps

from .conftest import LocalRayCluster

pytestmark = pytest.mark.slow


def test_each_checkpoint_is_one_ray_task_with_its_time_and_memory(
    ray_cluster: LocalRayCluster, tmp_path: Path, one_torch_thread: None
) -> None:
    root = tmp_path / "run"
    interpolated_checkpoints(ALIASES["minilm-l6"].package_dir() / "model", root, (0.0, 1.0))
    method = get_method("weat")
    config = config_from_values(method.config_type, {"tests": [1], "permutations": 200})
    model = ModelOptions(model=str(root), revisions=("all",), no_cache=True)
    here, _ = run_sweep(method, model, config, tmp_path / "here")
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        f"name: training\nmodels:\n  - {{name: run, model: {root}, revisions: all}}\n"
        "methods:\n  weat: {tests: [1], permutations: 200}\n"
    )
    study = load_study(study_file)
    with RayBackend(ray_cluster.address) as backend:
        assert backend.workers == 2  # two one-CPU nodes: both checkpoints run at once
        on_ray, written = run_sweep(method, model, config, tmp_path / "ray", tasks=backend)
        records = run_study(study, backend=backend)  # a study's swept entry: tasks too
    assert [record.status for record in records] == ["done", "done"]
    assert all(record.peak_memory_mib and record.peak_memory_mib > 100 for record in records)
    [(_, page)] = write_study_sweeps(study)
    from_study = pd.read_parquet(page.parent / "sweep_table.parquet")
    np.testing.assert_allclose(
        from_study["value"], here.tables["table"]["value"], rtol=1e-5, atol=1e-6
    )
    assert tmp_path / "ray" / "report.html" in written
    assert on_ray.metadata["backend"] == "ray" and here.metadata["backend"] == "local"
    revisions = on_ray.tables["revisions"]
    assert revisions["status"].tolist() == ["done", "done"]
    assert (revisions["seconds"] > 0).all()
    # a fresh worker process per task: its peak is its own model's, not the driver's
    assert (revisions["peak_memory_mib"] > 100).all()
    mine, theirs = here.tables["table"], on_ray.tables["table"]
    assert mine[["revision", "layer", "quantity"]].equals(theirs[["revision", "layer", "quantity"]])
    np.testing.assert_allclose(theirs["value"], mine["value"], rtol=1e-5, atol=1e-6)
