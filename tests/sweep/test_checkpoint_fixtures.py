"""The checkpoint fixtures themselves: interpolated weights and hub-cache revisions, checked
against the source model's weights and against loading the folders directly."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub.constants
import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from tests.checkpoints import cached_revisions, hub_revision_cache, interpolated_checkpoints
from wordlens.errors import UnknownModelError
from wordlens.models.loading import ALIASES, load_model

HUB_ID = "wordlens-test/minilm-steps"


@pytest.fixture(scope="module")
def minilm_source() -> Path:
    alias = ALIASES["minilm-l6"]
    if not alias.installed():
        pytest.skip("minilm-l6 is not installed")
    return alias.package_dir() / "model"


@pytest.fixture(scope="module")
def checkpoints(minilm_source: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("checkpoints")
    return interpolated_checkpoints(minilm_source, out, (0.0, 0.5, 1.0), trainer_state=True)


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_file(folder / "model.safetensors")


def test_interpolation_runs_from_the_random_init_to_the_trained_weights(
    minilm_source: Path, checkpoints: list[Path]
) -> None:
    from transformers import AutoConfig, BertModel

    trained = _weights(minilm_source)
    start, middle, end = (_weights(folder) for folder in checkpoints)
    torch.manual_seed(0)
    random_init = BertModel(AutoConfig.from_pretrained(minilm_source)).state_dict()
    # the source also stores a buffer (embeddings.position_ids) that HF no longer saves
    assert set(end) == {name for name, tensor in trained.items() if tensor.is_floating_point()}
    assert all(torch.equal(end[name], trained[name]) for name in end)
    assert all(torch.equal(start[name], random_init[name]) for name in start)
    name = "encoder.layer.3.attention.self.query.weight"
    assert not torch.equal(start[name], end[name])
    for name in end:
        expected = (random_init[name].numpy() + trained[name].numpy()) / 2
        np.testing.assert_allclose(middle[name].numpy(), expected, rtol=1e-6, atol=1e-7)
    assert [folder.name for folder in checkpoints] == ["step-0", "step-1000", "step-2000"]
    assert (checkpoints[1] / "trainer_state.json").read_text().strip() == '{"global_step": 1000}'


def test_perturbation_starts_at_the_trained_weights(minilm_source: Path, tmp_path: Path) -> None:
    clean, noisy = interpolated_checkpoints(minilm_source, tmp_path, (0.0, 1.0), mode="perturb")
    trained, unchanged, changed = _weights(minilm_source), _weights(clean), _weights(noisy)
    name = "encoder.layer.3.attention.self.query.weight"
    assert all(torch.equal(unchanged[key], trained[key]) for key in unchanged)
    ratio = float((changed[name] - trained[name]).std() / trained[name].std())
    assert 0.95 < ratio < 1.05


def test_hub_cache_revisions_load_offline_as_their_folders(
    checkpoints: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "hub"
    hub_revision_cache(HUB_ID, cache, {"step0": checkpoints[0], "step2000": checkpoints[2]})
    # huggingface_hub reads both variables into its constants at import; transformers and
    # huggingface_hub read the constants at call time, wordlens reads the environment.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert cached_revisions(HUB_ID, cache) == ["step0", "step2000"]
    early = load_model(HUB_ID, revision="step0")
    late = load_model(HUB_ID, revision="step2000")
    assert early.info.fingerprint != late.info.fingerprint
    words = ["flower", "insect", "happy"]
    for model, folder in ((early, checkpoints[0]), (late, checkpoints[2])):
        direct = load_model(folder)
        np.testing.assert_allclose(
            model.embed_words(words, [3]).vectors,
            direct.embed_words(words, [3]).vectors,
            rtol=1e-5,
            atol=1e-6,
        )
    with pytest.raises(UnknownModelError, match="offline mode"):
        load_model(HUB_ID, revision="step1000")
    with pytest.raises(UnknownModelError, match="offline mode"):
        load_model(HUB_ID)  # no "main" ref in the cache
