"""Real methods through a real Ray cluster (head + 2 one-CPU workers on 127.0.0.1): results equal
the local backend's bit for bit, a worker killed mid-run is retried without losing or repeating a
batch, a cached rerun computes nothing, and errors on a worker (a model that cannot load, a
failing batch) say what went wrong.

The tests are ordered by model, so consecutive tests reuse the workers that hold it.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil
import pytest

from wordlens.contexts import targets_from_template
from wordlens.distributed import ModelSpec, RayBackend, use_backend
from wordlens.errors import WordlensError
from wordlens.methods.likelihood_bias import LikelihoodBiasConfig
from wordlens.methods.likelihood_bias.compute import run_likelihood_bias
from wordlens.methods.weat import WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.cache import ActivationCache, CacheStore
from wordlens.models.hf import WordVectorBatch, embed_batch
from wordlens.models.scoring import LMScorer, load_scorer
from wordlens.probing.features import sentence_features
from wordlens.resources import load_weat_tests
from wordlens.resources.tagger import load_ewt

from .conftest import LocalRayCluster

# the local runs use one torch thread, as the actors do (see conftest.one_torch_thread)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(scope="module")
def backend(ray_cluster: LocalRayCluster) -> Iterator[RayBackend]:
    """Two actors; one batch per shard, so that every run has shards in flight on both."""
    with RayBackend(ray_cluster.address, workers=2, shard_size=1) as ray_backend:
        yield ray_backend


class Recording:
    """A backend that passes ``map`` to another and records every payload count and every
    result index it yields; ``after_first`` runs once, when the first result has arrived."""

    def __init__(self, inner: RayBackend, after_first: Callable[[], None] | None = None) -> None:
        self.inner = inner
        self.after_first = after_first
        self.payloads: list[int] = []
        self.indices: list[int] = []

    def map(self, operation: Any, model: Any, payloads: Sequence[Any]) -> Iterator[Any]:
        self.payloads.append(len(payloads))
        for index, result in self.inner.map(operation, model, payloads):
            if self.after_first is not None and not self.indices:
                self.after_first()
            self.indices.append(index)
            yield index, result


def assert_tables_equal(local: pd.DataFrame, remote: pd.DataFrame) -> None:
    """Bit for bit (see :func:`one_torch_thread`)."""
    pd.testing.assert_frame_equal(remote, local, check_exact=True)


def weat_table(model: Any, cache: ActivationCache | None = None) -> pd.DataFrame:
    """WEAT 1 and 7 at every layer, bleached contexts."""
    result = run_weat(model, load_weat_tests([1, 7]), WeatConfig(permutations=500), cache=cache)
    table: pd.DataFrame = result.tables["weat"]
    return table


def _weat_words() -> list[str]:
    tests = load_weat_tests([1, 7])
    return [w for t in tests for s in (t.x, t.y, t.a, t.b) for w in s.words]


@pytest.fixture(scope="module")
def sentences() -> list[list[str]]:
    return [[form for form, _ in sentence] for sentence in load_ewt("dev")[:10]]


# --- minilm-l6 ---------------------------------------------------------------------------------


def test_weat_per_layer_on_minilm_equals_local(minilm: Any, backend: RayBackend) -> None:
    local = weat_table(minilm)
    recording = Recording(backend)
    with use_backend(recording):
        remote = weat_table(minilm)
    assert len(local) == 2 * 7 and local["effect_size"].notna().all()
    assert_tables_equal(local, remote)
    assert sorted(recording.indices) == list(range(sum(recording.payloads)))
    assert sum(recording.payloads) >= 2  # both workers had batches


def test_probing_features_equal_local(
    minilm: Any, backend: RayBackend, sentences: list[list[str]], tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(minilm, "token_budget", 120)  # several batches; the workers use it too
    local = sentence_features(minilm, sentences, folder=tmp_path / "local")
    with use_backend(backend):
        remote = sentence_features(minilm, sentences, folder=tmp_path / "remote")
    np.testing.assert_array_equal(remote.sentence_offsets, local.sentence_offsets)
    for remote_layer, local_layer in zip(remote.files, local.files, strict=True):
        np.testing.assert_array_equal(remote_layer[:], local_layer[:])
    assert remote.computed == len(sentences)


def test_a_cached_rerun_on_ray_computes_nothing(
    minilm: Any, backend: RayBackend, sentences: list[list[str]], tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(minilm, "token_budget", 120)
    cache = ActivationCache(tmp_path / "cache")
    recording = Recording(backend)
    with use_backend(recording):
        first = sentence_features(minilm, sentences, cache=cache)
        # new layer files elsewhere: built from the cache
        again = sentence_features(minilm, sentences, cache=cache, folder=tmp_path / "again")
    assert recording.payloads[0] >= 2 and recording.payloads[1] == 0
    assert (first.computed, again.computed) == (len(sentences), 0)
    for again_layer, first_layer in zip(again.files, first.files, strict=True):
        np.testing.assert_array_equal(again_layer[:], first_layer[:])


def test_an_error_on_a_worker_is_raised_plainly_and_the_workers_go_on(
    minilm: Any, backend: RayBackend
) -> None:
    items = tuple(minilm.encode(targets_from_template(["flower", "insect"])))
    good = WordVectorBatch(items, (0, 6), ("mean",))
    bad = WordVectorBatch(items, (99,), ("mean",))  # no layer 99: fails inside the worker
    expected = r"failed on a Ray worker running load_model\('minilm-l6'.*IndexError"
    with pytest.raises(WordlensError, match=expected):
        list(backend.map(embed_batch, minilm, [good, bad, good, good]))
    results = dict(backend.map(embed_batch, minilm, [good, good]))
    assert sorted(results) == [0, 1]
    np.testing.assert_array_equal(results[1][0]["mean"], embed_batch(minilm, good)[0]["mean"])


# --- smollm2-135m ------------------------------------------------------------------------------


def test_weat_on_smollm2_equals_local_though_a_worker_is_killed(
    smollm2: Any, backend: RayBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(smollm2, "prefix_reuse", False)  # 7 batches (the workers receive
    monkeypatch.setattr(smollm2, "token_budget", 96)  # these settings too)
    local = weat_table(smollm2)
    written: list[str] = []
    real_write = CacheStore.write

    def counting_write(self: CacheStore, keys: Sequence[str], *args: Any) -> None:
        written.extend(keys)
        real_write(self, keys, *args)

    monkeypatch.setattr(CacheStore, "write", counting_write)
    killed: list[int] = []

    def kill_a_worker() -> None:  # SIGKILL while both workers have shards queued
        killed.append(backend.worker_pids[0])
        os.kill(killed[0], signal.SIGKILL)

    recording = Recording(backend, after_first=kill_a_worker)
    with use_backend(recording):
        remote = weat_table(smollm2, ActivationCache(tmp_path))
    assert killed and not _alive(killed[0])
    (n_payloads,) = recording.payloads
    # 2 shards of one batch queued on each worker: the killed one had work in flight
    assert n_payloads >= 6, "too few batches to kill a worker mid-run"
    assert sorted(recording.indices) == list(range(n_payloads))  # each batch once
    counts = Counter(written)
    assert set(counts.values()) == {1}  # each target written to the cache once ...
    assert len(counts) == len(set(_weat_words()))  # ... and none lost
    assert len(local) == 2 * 31
    assert_tables_equal(local, remote)


# --- scorers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["minilm-l6-mlm", "smollm2-135m"])
def test_likelihood_bias_equals_local(spec: str, shared: Path, backend: RayBackend) -> None:
    scorer = load_scorer(str(shared / "models" / spec) if spec.endswith("mlm") else spec)
    scorer.token_budget = 128  # several batches on a small sample
    methods = ["aul", "aula"] if spec.endswith("mlm") else list(scorer.methods)
    local = _likelihood_tables(scorer, methods)
    with use_backend(backend):
        remote = _likelihood_tables(scorer, methods)
    assert set(local["pair_scores"]["method"]) == set(methods)
    for name, table in local.items():
        assert_tables_equal(table, remote[name])


def test_a_model_that_fails_to_load_on_a_worker_says_why(shared: Path, backend: RayBackend) -> None:
    scorer: LMScorer = load_scorer(str(shared / "models" / "minilm-l6-mlm"))
    scorer.load_spec = ModelSpec.of("scorer", "/no/such/model-dir", {})
    with (
        use_backend(backend),
        pytest.raises(WordlensError, match=r"failed to load on a Ray worker.*no such file"),
    ):
        scorer.score(["The cat sat on the mat."], "aul")


def _likelihood_tables(scorer: LMScorer, methods: list[Any]) -> dict[str, pd.DataFrame]:
    config = LikelihoodBiasConfig(
        benchmarks=("crows",), methods=tuple(methods), sample=6, bootstrap=200, seed=0
    )
    run = run_likelihood_bias(scorer, config)
    return run.tables


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
