"""The activation cache: round trip, resume after a kill, no recomputation, clear errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO
from tests.models.cache_targets import cache_targets
from wordlens.contexts import targets_from_template
from wordlens.errors import CacheError
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder


class CountingForward:
    """Wraps a model's forward pass to count the targets actually computed."""

    def __init__(self, model: HFEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
        self.computed = 0
        original = model.forward

        def counted(items, layers, pooling):  # type: ignore[no-untyped-def]
            self.computed += len(items)
            return original(items, layers, pooling)

        monkeypatch.setattr(model, "forward", counted)


def test_round_trip_and_no_recompute(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ActivationCache(tmp_path)
    targets = targets_from_template(["pleasant", "unpleasantness", "cat"])
    first = minilm.embed(targets, layers=[1, 6], pooling="max", cache=cache)
    counter = CountingForward(minilm, monkeypatch)
    again = minilm.embed(targets, layers=[1, 6], pooling="max", cache=cache)
    assert counter.computed == 0
    np.testing.assert_array_equal(first.vectors, again.vectors)
    np.testing.assert_array_equal(first.n_subtokens, again.n_subtokens)
    # another pooling or layer set is another store: computed, not confused with the first
    other = minilm.embed(targets, layers=[1, 6], pooling="mean", cache=cache)
    assert counter.computed == 3
    assert not np.allclose(other.vectors, first.vectors)
    # a superset of targets computes only the new one
    minilm.embed(
        [*targets, *targets_from_template(["dog"])], layers=[1, 6], pooling="max", cache=cache
    )
    assert counter.computed == 4
    (summary,) = [s.summary() for s in cache.stores() if s.meta["pooling"] == "max"]
    assert summary.n_items == 4 and summary.layers == (1, 6) and summary.size_bytes > 0


def test_killed_run_resumes_without_recomputing(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_root = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.models.cache_worker", str(cache_root)], cwd=REPO, env=env
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and worker.poll() is None:
        if len(list(cache_root.glob("*/*/shard-*.safetensors"))) >= 3:
            break
        time.sleep(0.02)
    assert worker.poll() is None, "worker finished before it could be killed"
    worker.send_signal(signal.SIGKILL)
    worker.wait()

    targets = cache_targets()
    cache = ActivationCache(cache_root)
    (store,) = cache.stores()
    cached_before = len(store)
    assert 0 < cached_before < len(targets)

    # the worker's batching, so that batches line up with its shards
    monkeypatch.setattr(minilm, "token_budget", 96)
    counter = CountingForward(minilm, monkeypatch)
    resumed = minilm.embed(targets, layers=[0, 3, 6], cache=cache)
    assert counter.computed == len(targets) - cached_before

    uninterrupted = minilm.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "b"))
    np.testing.assert_array_equal(resumed.vectors, uninterrupted.vectors)
    np.testing.assert_array_equal(resumed.n_subtokens, uninterrupted.n_subtokens)


def test_stray_temp_file_is_ignored(minilm: HFEmbedder, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path)
    targets = targets_from_template(["cat"])
    minilm.embed(targets, layers=[0], cache=cache)
    (store,) = cache.stores()
    (store.path / ".shard-dead.safetensors.1234.tmp").write_bytes(b"half a shard")
    again = minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path))
    assert again.vectors.shape == (1, 1, 384)


def test_corrupt_shard_is_reported(minilm: HFEmbedder, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path)
    minilm.embed(targets_from_template(["cat"]), layers=[0], cache=cache)
    (store,) = cache.stores()
    (store.path / "shard-bad.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(CacheError, match="unreadable activation cache shard"):
        minilm.embed(targets_from_template(["dog"]), layers=[0], cache=ActivationCache(tmp_path))


def test_unwritable_cache_dir(minilm: HFEmbedder, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    with pytest.raises(CacheError, match="not writable"):
        minilm.embed(targets_from_template(["cat"]), cache=ActivationCache(blocker / "cache"))


def test_clear(minilm: HFEmbedder, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path)
    minilm.embed(targets_from_template(["cat"]), layers=[0], cache=cache)
    assert cache.clear() > 0
    assert cache.stores() == []
