"""The activation cache: round trip, resume after a kill (losing one batch at most), two processes
on one cache, damaged shards, clear errors. The faults are real: processes killed with SIGKILL,
bytes overwritten and files truncated on disk."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.numpy import save

from tests.conftest import REPO
from tests.models.cache_targets import cache_targets, named_targets
from wordlens.contexts import Target, targets_from_template
from wordlens.errors import CacheDamageWarning, CacheError
from wordlens.models.base import Embeddings
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


def worker_env() -> dict[str, str]:
    """The environment of a subprocess that imports this checkout's wordlens and tests."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}


def start_worker(cache_root: Path, *options: str) -> subprocess.Popen[bytes]:
    """A :mod:`tests.models.cache_worker` process embedding into ``cache_root``."""
    command = [sys.executable, "-m", "tests.models.cache_worker", str(cache_root), *options]
    return subprocess.Popen(command, cwd=REPO, env=worker_env())


def shards_of(cache_root: Path) -> list[Path]:
    return sorted(cache_root.glob("*/*/shard-*.safetensors"))


def kill_after_shards(worker: subprocess.Popen[bytes], cache_root: Path, n_shards: int) -> None:
    """SIGKILL the worker once ``n_shards`` shards are in the cache."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and worker.poll() is None:
        if len(shards_of(cache_root)) >= n_shards:
            break
        time.sleep(0.01)
    assert worker.poll() is None, "worker finished before it could be killed"
    worker.send_signal(signal.SIGKILL)
    worker.wait()


def shard_keys(shard: Path) -> list[str]:
    with safe_open(str(shard), framework="numpy") as handle:
        keys: list[str] = json.loads((handle.metadata() or {})["keys"])
    return keys


def test_killed_run_resumes_without_recomputing(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_root = tmp_path / "cache"
    worker = start_worker(cache_root, "--token-budget", "96", "--slow")
    kill_after_shards(worker, cache_root, 3)

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


def test_a_kill_loses_at_most_one_batch_whatever_the_token_budget(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 words alone under a token budget of 65,536 were one batch (one shard at the end:
    a kill lost everything); now a batch holds at most 1,024 targets, so the kill after the first
    shard keeps 1,024 and the rerun computes only the other 1,976."""
    cache_root = tmp_path / "cache"
    worker = start_worker(
        cache_root, "--token-budget", "65536", "--targets", "alone:3000", "--slow"
    )
    kill_after_shards(worker, cache_root, 1)
    targets = named_targets("alone:3000")
    (store,) = ActivationCache(cache_root).stores()
    cached_before = len(store)
    assert 1024 <= cached_before < len(targets)
    assert all(len(shard_keys(shard)) <= 1024 for shard in shards_of(cache_root))
    assert minilm.max_batch_targets == 1024

    monkeypatch.setattr(minilm, "token_budget", 65536)
    counter = CountingForward(minilm, monkeypatch)
    resumed = minilm.embed(targets, layers=[0, 3, 6], cache=ActivationCache(cache_root))
    assert counter.computed == len(targets) - cached_before
    uninterrupted = minilm.embed(targets, layers=[0, 3, 6])
    np.testing.assert_array_equal(resumed.vectors, uninterrupted.vectors)


def embed_as_workers(
    minilm: HFEmbedder, targets: list[Target], cache: ActivationCache | None = None
) -> Embeddings:
    """Layers 0 and 6 as the concurrency tests' workers compute them: one torch thread, a
    token budget of 64 (so the vectors are bit-identical to theirs)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(minilm, "token_budget", 64)
            return minilm.embed(targets, layers=[0, 6], cache=cache)
    finally:
        torch.set_num_threads(threads)


def test_two_processes_on_one_cache_compute_each_batch_once(
    minilm: HFEmbedder, tmp_path: Path
) -> None:
    """Two runs of the same 600 targets started together: each batch is computed by one of
    them and read by the other (identical vectors), the cache holds every target once, and it is
    as large as the cache of one run."""
    cache_root, outputs = tmp_path / "cache", [tmp_path / "a.npz", tmp_path / "b.npz"]
    go = tmp_path / "go"
    workers = [
        start_worker(
            cache_root,
            *("--token-budget", "64", "--targets", "template:600", "--layers", "0,6"),
            *("--ready", str(tmp_path / f"ready-{n}"), "--go", str(go), "--out", str(out)),
        )
        for n, out in enumerate(outputs)
    ]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{n}").exists() for n in range(2)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers)
        time.sleep(0.01)
    go.touch()
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0]

    first, second = (np.load(out) for out in outputs)
    np.testing.assert_array_equal(first["vectors"], second["vectors"])
    targets = named_targets("template:600")
    assert int(first["computed"]) + int(second["computed"]) == len(targets)
    keys = [key for shard in shards_of(cache_root) for key in shard_keys(shard)]
    assert len(keys) == len(set(keys)) == len(targets)

    alone_root = tmp_path / "alone"
    alone = embed_as_workers(minilm, targets, ActivationCache(alone_root))
    np.testing.assert_array_equal(first["vectors"], alone.vectors)
    size = sum(shard.stat().st_size for shard in shards_of(cache_root))
    alone_size = sum(shard.stat().st_size for shard in shards_of(alone_root))
    assert size == alone_size


def test_a_process_killed_holding_claims_does_not_block_the_other(
    minilm: HFEmbedder, tmp_path: Path
) -> None:
    """Two runs started together; one is killed with SIGKILL (holding the claim of the batch it
    computes). The kernel releases its lock: the other run finishes, computes what the dead one
    left, and the cache holds every target once."""
    cache_root, out, go = tmp_path / "cache", tmp_path / "survivor.npz", tmp_path / "go"
    common = ("--token-budget", "64", "--targets", "template:300", "--layers", "0,6", "--slow")
    killed, survivor = (
        start_worker(
            cache_root, *common, "--ready", str(tmp_path / f"ready-{n}"), "--go", str(go), *extra
        )
        for n, extra in enumerate([(), ("--out", str(out))])
    )
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{n}").exists() for n in range(2)):
        assert time.monotonic() < deadline and killed.poll() is None and survivor.poll() is None
        time.sleep(0.01)
    go.touch()
    kill_after_shards(killed, cache_root, 4)
    assert survivor.wait(timeout=120) == 0

    targets = named_targets("template:300")
    keys = [key for shard in shards_of(cache_root) for key in shard_keys(shard)]
    assert len(keys) == len(set(keys)) == len(targets)
    result = np.load(out)
    assert 0 < int(result["computed"]) < len(targets)
    alone = embed_as_workers(minilm, targets)
    np.testing.assert_array_equal(result["vectors"], alone.vectors)


def overwrite_middle(shard: Path, n_bytes: int = 4096) -> None:
    """Overwrite ``n_bytes`` in the middle of the shard's tensor bytes (after its header)."""
    data = shard.read_bytes()
    tensors_start = 8 + int.from_bytes(data[:8], "little")
    start = tensors_start + (len(data) - tensors_start - n_bytes) // 2
    assert start >= tensors_start and start + n_bytes <= len(data)
    with shard.open("r+b") as stream:
        stream.seek(start)
        stream.write(np.random.default_rng(0).bytes(n_bytes))


def truncate(shard: Path) -> None:
    with shard.open("r+b") as stream:
        stream.truncate(shard.stat().st_size // 2)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [(overwrite_middle, "checksum mismatch"), (truncate, "unreadable header")],
)
def test_a_damaged_shard_is_moved_aside_and_recomputed(
    minilm: HFEmbedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    damage: Callable[[Path], None],
    reason: str,
) -> None:
    monkeypatch.setattr(minilm, "token_budget", 96)  # several shards
    targets = cache_targets()
    fresh = minilm.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "cache"))
    shard = shards_of(tmp_path / "cache")[1]
    n_rows = len(shard_keys(shard))
    assert shard.stat().st_size > 8 * 4096  # the 4 KiB fall inside the vectors
    damage(shard)

    counter = CountingForward(minilm, monkeypatch)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        again = minilm.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "cache"))
    np.testing.assert_array_equal(again.vectors, fresh.vectors)
    np.testing.assert_array_equal(again.n_subtokens, fresh.n_subtokens)
    assert counter.computed == n_rows
    (damaged,) = [w for w in warned if issubclass(w.category, CacheDamageWarning)]
    assert re.search(f"{re.escape(str(shard))}: {reason}", str(damaged.message))
    assert not shard.exists() and (shard.parent / "damaged" / shard.name).exists()
    # the recomputed rows are a new, sound shard: the next run computes nothing, warns nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minilm.embed(targets, layers=[0, 3, 6], cache=ActivationCache(tmp_path / "cache"))
    assert counter.computed == n_rows


def test_a_shard_without_checksum_is_not_trusted(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard of cache format 1 (no checksum) is recomputed, not read."""
    targets = targets_from_template(["cat", "dog"])
    fresh = minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path))
    (shard,) = shards_of(tmp_path)
    with safe_open(str(shard), framework="numpy") as handle:
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
        keys = (handle.metadata() or {})["keys"]
    shard.write_bytes(save(tensors, metadata={"keys": keys}))
    counter = CountingForward(minilm, monkeypatch)
    with pytest.warns(CacheDamageWarning, match="no checksum"):
        again = minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path))
    assert counter.computed == 2
    np.testing.assert_array_equal(again.vectors, fresh.vectors)


def test_a_format_1_store_is_not_read(
    minilm: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written before checksums (its directory without ``-v2``, no ``format`` in its
    ``store.json``) is listed as format 1 and never read: its targets are computed again."""
    targets = targets_from_template(["cat", "dog"])
    minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path / "new"))
    (store,) = ActivationCache(tmp_path / "new").stores()
    old = tmp_path / "old" / store.path.parent.name / store.path.name.removesuffix("-v2")
    old.parent.mkdir(parents=True)
    store.path.rename(old)
    meta = json.loads((old / "store.json").read_text())
    del meta["format"]
    (old / "store.json").write_text(json.dumps(meta))
    counter = CountingForward(minilm, monkeypatch)
    minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path / "old"))
    assert counter.computed == 2
    formats = sorted(s.summary().format for s in ActivationCache(tmp_path / "old").stores())
    assert formats == [1, 2]


def test_stray_temp_file_is_ignored(minilm: HFEmbedder, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path)
    targets = targets_from_template(["cat"])
    minilm.embed(targets, layers=[0], cache=cache)
    (store,) = cache.stores()
    (store.path / ".shard-dead.safetensors.1234.tmp").write_bytes(b"half a shard")
    again = minilm.embed(targets, layers=[0], cache=ActivationCache(tmp_path))
    assert again.vectors.shape == (1, 1, 384)


def test_a_file_that_is_no_shard_is_moved_aside(minilm: HFEmbedder, tmp_path: Path) -> None:
    cache = ActivationCache(tmp_path)
    minilm.embed(targets_from_template(["cat"]), layers=[0], cache=cache)
    (store,) = cache.stores()
    (store.path / "shard-bad.safetensors").write_bytes(b"not a safetensors file")
    with pytest.warns(CacheDamageWarning, match="shard-bad.safetensors: unreadable header"):
        dog = minilm.embed(
            targets_from_template(["dog"]), layers=[0], cache=ActivationCache(tmp_path)
        )
    np.testing.assert_array_equal(
        dog.vectors, minilm.embed(targets_from_template(["dog"]), layers=[0]).vectors
    )
    assert (store.path / "damaged" / "shard-bad.safetensors").exists()


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
