"""The backend layer without a cluster: choosing a backend, the local path, model specs, and the
errors a user meets before any worker runs."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from wordlens.contexts import targets_from_template
from wordlens.distributed import (
    LocalBackend,
    ModelSpec,
    RayBackend,
    current_backend,
    in_order,
    load_from_spec,
    make_backend,
    model_spec,
    use_backend,
)
from wordlens.distributed.ray_backend import (
    auto_shard_size,
    check_reachable,
    import_ray,
    shard_ranges,
)
from wordlens.errors import MissingPackageError, WordlensError
from wordlens.models.hf import WordVectorBatch, embed_batch
from wordlens.models.loading import load_model
from wordlens.models.scoring import load_scorer
from wordlens.probing.features import randomize_encoder

from .conftest import free_port

WORDS = ["pleasant", "unpleasantness", "flower"]


def test_local_is_the_default_and_use_backend_restores_it() -> None:
    assert isinstance(current_backend(), LocalBackend)
    inner = LocalBackend()
    with use_backend(inner) as chosen:
        assert chosen is inner and current_backend() is inner
        with pytest.raises(KeyError), use_backend(LocalBackend()):
            raise KeyError("an error inside")
        assert current_backend() is inner
    assert current_backend() is not inner


def test_local_map_runs_in_order_on_the_callers_model(minilm: Any) -> None:
    calls: list[int] = []

    def operation(model: Any, payload: int) -> int:
        assert model is minilm
        calls.append(payload)
        return payload * 10

    assert list(LocalBackend().map(operation, minilm, [3, 1, 2])) == [(0, 30), (1, 10), (2, 20)]
    assert calls == [3, 1, 2]
    assert list(LocalBackend().map(operation, minilm, [])) == []


def test_embed_batch_is_the_models_forward(minilm: Any) -> None:
    items = minilm.encode(targets_from_template(WORDS))
    pooled, counts = embed_batch(minilm, WordVectorBatch(tuple(items), (0, 6), ("mean", "last")))
    direct, direct_counts = minilm.forward(items, (0, 6), ("mean", "last"))
    np.testing.assert_array_equal(pooled["last"], direct["last"])
    np.testing.assert_array_equal(counts, direct_counts)


def test_in_order_holds_early_results() -> None:
    arrived = [(2, "c"), (0, "a"), (3, "d"), (1, "b")]
    assert list(in_order(arrived)) == [(0, "a"), (1, "b"), (2, "c"), (3, "d")]
    assert list(in_order([])) == []


def test_shards_cover_every_payload_once() -> None:
    assert shard_ranges(7, 3) == [range(0, 3), range(3, 6), range(6, 7)]
    assert shard_ranges(0, 3) == []
    assert [i for shard in shard_ranges(50, 8) for i in shard] == list(range(50))
    assert auto_shard_size(1, 2) == 1
    assert auto_shard_size(16, 2) == 2  # 4 shards per worker
    assert auto_shard_size(10_000, 2) == 8  # capped


def test_loaders_record_their_call(shared: Path, minilm: Any, monkeypatch: Any) -> None:
    spec = model_spec(minilm)
    assert spec == ModelSpec.of(
        "model",
        "minilm-l6",
        {
            "bos": "auto",
            "device": "cpu",
            "dtype": "float32",
            "revision": None,
            "token_budget": None,
            "trust_remote_code": False,
            "unicode": "NFC",
            "allow_pickle": False,
        },
    )
    assert "load_model('minilm-l6'" in spec.describe()
    monkeypatch.chdir(shared / "models")
    scorer = load_scorer("minilm-l6-mlm", token_budget=300)
    scorer_spec = model_spec(scorer)
    assert scorer_spec.loader == "scorer"
    # absolute (symlinks resolved) for workers
    assert scorer_spec.source == str((shared / "models" / "minilm-l6-mlm").resolve())
    assert dict(scorer_spec.options)["token_budget"] == 300
    assert dict(scorer_spec.options)["allow_new_head"] is False
    assert dict(scorer_spec.replace_options(device="cuda").options)["device"] == "cuda"


def test_a_spec_reloads_the_same_model_randomized_too(monkeypatch: Any) -> None:
    # orthogonal draws take ~20 s on 2 busy cores; a constant keeps randomization cheap here
    # (that a seed reproduces the draws is tested in tests/probing/test_features.py)
    monkeypatch.setattr(torch.nn.init, "orthogonal_", lambda matrix, generator: matrix.fill_(0.01))
    trained = load_model("minilm-l6")
    trained_spec = model_spec(trained)
    randomized = randomize_encoder(trained, seed=3)  # type: ignore[arg-type]
    spec = model_spec(randomized)
    assert spec == trained_spec.randomized(3) and "randomize_encoder(" in spec.describe()
    again = load_from_spec(spec)
    assert again.info.fingerprint == randomized.info.fingerprint
    targets = targets_from_template(WORDS)
    np.testing.assert_array_equal(
        again.embed(targets, [0, 6]).vectors, randomized.embed(targets, [0, 6]).vectors
    )


def test_a_model_built_by_hand_has_no_spec(minilm: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(minilm, "load_spec", None)
    with pytest.raises(WordlensError, match=r"no load spec.*local backend"):
        model_spec(minilm)


def test_make_backend_refuses_bad_choices() -> None:
    assert isinstance(make_backend("local"), LocalBackend)
    with pytest.raises(WordlensError, match="unknown backend 'spark'"):
        make_backend("spark")
    with pytest.raises(WordlensError, match="need --backend ray"):
        make_backend("local", address="auto")


def test_unreachable_address_is_named() -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(WordlensError, match=f"cannot connect to the Ray cluster at {address}"):
        check_reachable(address)
    with pytest.raises(WordlensError, match="cannot connect to the Ray cluster at ray://127"):
        check_reachable(f"ray://{address}")
    with pytest.raises(WordlensError, match="cannot read Ray address 'headnode'"):
        check_reachable("headnode")


def test_a_ray_client_address_without_the_client_is_explained() -> None:
    import ray

    if ray.is_initialized():
        pytest.skip("this process is already connected to Ray")
    with socket.socket() as listener:  # something answers, but it is no Ray Client server
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"ray://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(WordlensError, match=rf"cannot connect to Ray at {address}.*client"):
            RayBackend(address)
    assert not ray.is_initialized()


def test_missing_ray_says_how_to_install(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails
    with pytest.raises(MissingPackageError, match=r"pip install 'wordlens\[ray\]'"):
        import_ray()
    with pytest.raises(MissingPackageError):
        make_backend("ray")


def test_the_local_path_imports_no_ray() -> None:
    code = (
        "import sys\n"
        "from wordlens.distributed import make_backend, use_backend\n"
        "import wordlens.models.hf, wordlens.models.scoring, wordlens.probing.features\n"
        "with use_backend(make_backend('local')):\n"
        "    pass\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_importing_the_package_imports_no_model_code() -> None:
    # the study runner and the command line import wordlens.distributed: the loaders that
    # load_from_spec runs (torch, transformers) are imported only when a worker loads a model
    code = (
        "import sys\n"
        "import wordlens.distributed\n"
        "heavy = {'torch', 'transformers', 'wordlens.models.hf', 'wordlens.probing.features'}\n"
        "assert not heavy & set(sys.modules), sorted(heavy & set(sys.modules))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
