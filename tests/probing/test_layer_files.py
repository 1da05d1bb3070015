"""Probing features in layer files (issue 39) on real minilm-l6 vectors: the files equal the
in-memory extraction bit for bit, one contiguous file per layer; a probe trained on them equals
one trained on arrays in RAM, and no file stays mapped between batches; an interrupted spill is
rebuilt from the activation cache, and a complete one is read without it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from tests.probing.conftest import interrupted_after_two_batches

from wordlens.methods.probing.experiment import probing_split
from wordlens.models.cache import ActivationCache, CacheStore
from wordlens.models.hf import Encoded, HFEmbedder, batches_by_token_budget
from wordlens.probing.converters import load_probing_task
from wordlens.probing.features import (
    FEATURES_FOLDER,
    FeatureBatch,
    SentenceFeatures,
    feature_batch,
    lexical_vectors,
    sentence_features,
)
from wordlens.probing.layer_files import LayerFile
from wordlens.probing.model import EdgeProbe
from wordlens.probing.representations import LEXICAL, parse_representations
from wordlens.probing.train import ProbingSplit, TrainConfig, batches, predict, train_probe


@pytest.fixture
def several_batches(minilm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "token_budget", 120)


def in_memory(model: HFEmbedder, features: SentenceFeatures) -> np.ndarray:
    """The hidden states as the extraction held them before layer files: each planned batch's
    vectors placed in one ``[rows, layers, dim]`` float16 array."""
    offsets = features.sentence_offsets
    layers = tuple(layer for layer in features.layers if layer != LEXICAL)
    vectors = np.zeros((features.n_rows, len(layers), model.info.hidden_size), np.float16)
    plan = batches_by_token_budget(
        list(np.diff(offsets)), model.token_budget, model.max_batch_targets
    )
    assert len(plan) > 1
    for batch in plan:
        items = tuple(
            Encoded(list(features.retokenized[i].input_ids), (0, int(offsets[i + 1] - offsets[i])))
            for i in batch
        )
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in batch])
        vectors[rows] = feature_batch(model, FeatureBatch(items, layers))
    return vectors


def mapped(folder: Path) -> list[str]:
    """The lines of this process's memory maps that map a file under ``folder``."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("no /proc/self/maps here")
    return [line for line in maps.read_text().splitlines() if str(folder) in line]


@pytest.mark.usefixtures("several_batches")
def test_layer_files_equal_the_in_memory_features_one_file_per_layer(
    minilm: Any, sentences: list[list[str]], tmp_path: Path
) -> None:
    features = sentence_features(minilm, sentences, folder=tmp_path, lexical=True)
    reference = in_memory(minilm, features)  # [rows, 7, 384]
    n_rows, dim = reference.shape[0], reference.shape[2]
    assert features.layers == (*range(7), LEXICAL) and len(features.files) == 8
    for slot, layer in enumerate(range(7)):
        file = features.layer(layer)
        assert file.path.name == f"layer-{layer}.npy" and file.shape == (n_rows, dim)
        # layer-major: the file is this layer's rows, back to back, after the .npy header
        assert file.path.stat().st_size == file.offset + n_rows * dim * 2
        raw = np.fromfile(file.path, dtype=np.float16, offset=file.offset).reshape(n_rows, dim)
        np.testing.assert_array_equal(raw, reference[:, slot])
        assert isinstance(file.memmap(), np.memmap)
    ids = np.concatenate([np.asarray(item.input_ids) for item in features.retokenized])
    np.testing.assert_array_equal(features.layer(LEXICAL)[:], lexical_vectors(minilm, ids))
    assert not mapped(tmp_path)  # the files are mapped only while read or written


def _pos_splits(model: Any, folder: Path) -> dict[str, ProbingSplit]:
    """POS splits of 30 and 10 EWT dev sentences on every minilm layer (the scalar mix)."""
    examples = [e for e in load_probing_task("pos", "dev") if e.targets][:40]
    chosen = {"train": examples[:30], "dev": examples[30:]}
    labels = sorted({label for e in examples for t in e.targets for label in t.labels})
    (mix,) = parse_representations("mix", model.info.n_layers)
    return {
        split: probing_split(
            part,
            sentence_features(model, [e.tokens for e in part], folder=folder),
            mix,
            labels,
        )
        for split, part in chosen.items()
    }


def _trained(splits: dict[str, ProbingSplit]) -> tuple[Any, np.ndarray, EdgeProbe]:
    torch.manual_seed(0)
    train = splits["train"]
    probe = EdgeProbe(train.dim, train.n_layers, train.n_labels, combine="mix", two_spans=False)
    config = TrainConfig(max_steps=40, validate_every=10, seed=0)
    result = train_probe(probe, train, splits["dev"], config)
    return result, predict(probe, splits["dev"]), probe


def test_a_probe_on_layer_files_equals_one_on_arrays_and_maps_nothing_between_batches(
    minilm: Any, tmp_path: Path
) -> None:
    spilled = _pos_splits(minilm, tmp_path)
    assert all(isinstance(layer, LayerFile) for layer in spilled["train"].features)
    for batch in batches(spilled["train"], spilled["train"].sentences_with_targets()):
        assert batch.features.shape[2] == 7
        assert not mapped(tmp_path)  # RAM holds the batch, not the layers
    in_ram = {
        split: dataclasses.replace(data, features=tuple(file[:] for file in data.features))
        for split, data in spilled.items()
    }
    from_files, from_arrays = _trained(spilled), _trained(in_ram)
    assert from_files[0].history.equals(from_arrays[0].history)
    np.testing.assert_array_equal(from_files[1], from_arrays[1])
    for name, value in from_files[2].state_dict().items():
        torch.testing.assert_close(value, from_arrays[2].state_dict()[name], rtol=0, atol=0)


@pytest.mark.usefixtures("several_batches")
def test_an_interrupted_spill_is_rebuilt_from_the_cache_and_a_complete_one_reused(
    minilm: Any, sentences: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uninterrupted = sentence_features(minilm, sentences, folder=tmp_path / "plain")
    cache = ActivationCache(tmp_path / "cache")
    calls = interrupted_after_two_batches(monkeypatch, minilm, sentences, cache)
    (root,) = (cache.root / minilm.info.fingerprint).glob(FEATURES_FOLDER)
    assert [path.suffix for path in root.iterdir() if path.is_dir()] == [".partial"]

    resumed = sentence_features(minilm, sentences, cache=cache)
    assert resumed.computed == len(sentences) - sum(calls) > 0  # the rest read from the cache
    assert not list(root.glob("*.partial")) and resumed.files[0].path.parent.parent == root
    for mine, plain in zip(resumed.files, uninterrupted.files, strict=True):
        np.testing.assert_array_equal(mine[:], plain[:])

    def no_cache(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a complete spill is read without the activation cache")

    monkeypatch.setattr(CacheStore, "read_into", no_cache)
    again = sentence_features(minilm, sentences, cache=cache)
    assert again.computed == 0 and again.files == resumed.files
