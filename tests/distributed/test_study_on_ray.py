"""A whole study (2 models x 2 methods) through the real local Ray cluster, one worker killed
mid-run: every cell's tables and headline numbers equal those of the local backend."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest

from wordlens.distributed import RayBackend
from wordlens.study.runner import run_study
from wordlens.study.spec import load_study

from .conftest import LocalRayCluster

pytestmark = pytest.mark.slow

STUDY = """\
name: {name}
cache_dir: cache-{name}
models:
  - name: mlm
    model: {shared}/models/minilm-l6-mlm
  - smollm2-135m
methods:
  weat: {{context: bleached, tests: [1], permutations: 300}}
  likelihood-bias: {{benchmark: crows, sample: 6, methods: all, bootstrap: 100}}
"""


class KillingBackend:
    """Passes every ``map`` to a Ray backend and SIGKILLs one of its workers as soon as the
    first result of the whole study has arrived."""

    def __init__(self, inner: RayBackend) -> None:
        self.inner = inner
        self.killed: list[int] = []
        self.batches = 0

    def map(self, operation: Any, model: Any, payloads: Any) -> Iterator[Any]:
        for index, result in self.inner.map(operation, model, payloads):
            if not self.killed:
                self.killed.append(self.inner.worker_pids[0])
                os.kill(self.killed[0], signal.SIGKILL)
            self.batches += 1
            yield index, result

    def close(self) -> None:
        self.inner.close()


def _run(tmp_path: Path, shared: Path, name: str, backend: Any) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(STUDY.format(name=name, shared=shared))
    study = load_study(path)
    records = run_study(study, backend=backend)
    assert [r.status for r in records] == ["done"] * 4, [r.error for r in records]
    return study.out_dir


def test_a_study_on_ray_with_a_killed_worker_equals_the_local_study(
    ray_cluster: LocalRayCluster, shared: Path, tmp_path: Path, one_torch_thread: None
) -> None:
    local_dir = _run(tmp_path, shared, "local", None)
    with RayBackend(ray_cluster.address, workers=2, shard_size=1) as ray_backend:
        killing = KillingBackend(ray_backend)
        ray_dir = _run(tmp_path, shared, "ray", killing)
    assert killing.killed and not psutil.pid_exists(killing.killed[0])
    assert killing.batches >= 8  # every cell ran its passes on the workers
    tables = sorted(p.relative_to(local_dir) for p in local_dir.glob("cells/*/*/*.parquet"))
    assert len(tables) >= 4
    assert tables == sorted(p.relative_to(ray_dir) for p in ray_dir.glob("cells/*/*/*.parquet"))
    for table in tables:
        local, remote = pd.read_parquet(local_dir / table), pd.read_parquet(ray_dir / table)
        pd.testing.assert_frame_equal(remote, local, check_exact=False, rtol=0, atol=1e-6)
    for record in local_dir.glob("cells/*/*/cell.json"):
        local_headline = pd.read_json(record, typ="series")["headline"]
        remote_headline = pd.read_json(ray_dir / record.relative_to(local_dir), typ="series")[
            "headline"
        ]
        assert local_headline.keys() == remote_headline.keys() and local_headline
        np.testing.assert_allclose(
            list(remote_headline.values()), list(local_headline.values()), rtol=0, atol=1e-6
        )
