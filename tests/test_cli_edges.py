"""Issue 29, item 10: a run that fails on its input leaves no empty ``--out`` folder behind, and
an error cuts a long word instead of printing it whole. Real ``wordlens`` processes, real files,
the real GloVe vectors."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.checkpoints import hub_revision_cache
from tests.conftest import REPO
from tests.models.test_cache import worker_env

WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]
CUT = "'" + "a" * 60 + "…' (10,000 characters)"


def run_wordlens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WORDLENS, *args], cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("lexicon", ["missing", "malformed"])
def test_failed_run_leaves_no_out_folder_it_created(tmp_path: Path, lexicon: str) -> None:
    lexicon_file = tmp_path / "lexicon.csv"
    if lexicon == "malformed":
        lexicon_file.write_text("word,valence\ngood,notanumber\n")
    out = tmp_path / "new" / "results"
    result = run_wordlens(
        "vast", "--model", "glove-6b-50d", "--lexica", str(lexicon_file), "--out", str(out)
    )
    assert result.returncode == 2, result.stderr
    assert "error:" in result.stderr and str(lexicon_file.name) in result.stderr
    assert not (tmp_path / "new").exists()  # neither the folder nor the parent it created


def test_failed_run_keeps_a_folder_that_existed(tmp_path: Path) -> None:
    out = tmp_path / "results"
    out.mkdir()
    result = run_wordlens(
        "vast", "--model", "glove-6b-50d", "--lexica", str(tmp_path / "no.csv"), "--out", str(out)
    )
    assert result.returncode == 2, result.stderr
    assert out.is_dir() and not any(out.iterdir())


def test_out_of_vocabulary_error_cuts_a_long_word(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("good\n" + "a" * 10_000 + "\n")
    out = tmp_path / "vectors" / "v.npy"
    result = run_wordlens(
        *("embed", "--model", "glove-6b-50d", "--words-file", str(words), "--context", "none"),
        *("--out", str(out)),
    )
    assert result.returncode == 2, result.stderr
    message = " ".join(result.stderr.split())
    assert f"1 word(s) not in the vocabulary of glove-6b-50d: {CUT}" in message
    assert "a" * 61 not in result.stderr
    assert not out.parent.exists()


def test_lexicon_coverage_error_cuts_a_long_word(tmp_path: Path) -> None:
    lexicon_file = tmp_path / "long.csv"
    lexicon_file.write_text("word,valence\n" + "a" * 10_000 + ",3.0\n")
    result = run_wordlens(
        "vast",
        "--model",
        "glove-6b-50d",
        "--lexica",
        str(lexicon_file),
        "--out",
        str(tmp_path / "o"),
    )
    assert result.returncode == 2, result.stderr
    assert CUT in " ".join(result.stderr.split()) and "a" * 61 not in result.stderr
    assert not (tmp_path / "o").exists()


def hub_resolves() -> bool:
    try:
        socket.getaddrinfo("huggingface.co", 443)
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("typo", "alias"), [("glove-6b-5od", "glove-6b-50d"), ("minilm-l7", "minilm-l6")]
)
def test_misspelt_alias_fails_fast_with_a_suggestion(typo: str, alias: str) -> None:
    """Issue 29, item 7: with no network (this machine cannot reach the hub), a misspelt alias
    fails at the first connection error, not after ~30 s of hub retries, and says what was meant
    and how to work offline."""
    env = {k: v for k, v in worker_env().items() if k not in ("WORDLENS_OFFLINE", "HF_HUB_OFFLINE")}
    started = time.monotonic()
    result = subprocess.run(
        [*WORDLENS, "weat", "--model", typo],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert f"cannot load model {typo!r}" in errors[0]
    assert f"Did you mean {alias!r}?" in errors[0]
    if not hub_resolves():  # where the hub answers (404), the error is its own, as fast
        assert "the hub cannot be reached" in errors[0]
        assert "WORDLENS_OFFLINE=1" in errors[0] and "HF_HUB_OFFLINE=1" in errors[0]
    assert elapsed < 15, f"{elapsed:.1f} s"


def test_auto_map_with_a_known_model_type_needs_trust_remote_code(
    shared: Path, tmp_path: Path
) -> None:
    """Issue 29, item 4: a BERT folder whose config.json maps AutoModel to its own code. Without
    --trust-remote-code transformers would quietly load its built-in BertModel; wordlens refuses,
    naming the auto_map entries and the option. With it, the model's own class runs and is
    named (stderr and the sidecar's model metadata)."""
    fixture = shared / "models" / "minilm-l6-mlm"
    if not fixture.is_dir():
        pytest.skip(f"fixture model not found at {fixture}")
    model_dir = tmp_path / "custom-bert"
    model_dir.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copyfile(fixture / name, model_dir / name)
    config = json.loads((fixture / "config.json").read_text())
    assert config["model_type"] == "bert"  # a type transformers knows
    config["auto_map"] = {"AutoModel": "modeling_x.XModel"}
    (model_dir / "config.json").write_text(json.dumps(config))
    (model_dir / "modeling_x.py").write_text(
        "from transformers import BertModel\n\n\nclass XModel(BertModel):\n    pass\n"
    )
    env = {**worker_env(), "HF_MODULES_CACHE": str(tmp_path / "modules")}

    def embed(*options: str) -> subprocess.CompletedProcess[str]:
        args = ["embed", "-m", str(model_dir), *options, "--out", str(tmp_path / "v.npy"), "cat"]
        return subprocess.run(
            [*WORDLENS, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )

    refused = embed()
    assert refused.returncode == 2, refused.stderr
    message = " ".join(refused.stderr.split())
    assert f"config.json auto_map in {model_dir}: AutoModel: modeling_x.XModel" in message
    assert "pass --trust-remote-code" in message and "Traceback" not in message
    assert not (tmp_path / "v.npy").exists()

    trusted = embed("--trust-remote-code")
    assert trusted.returncode == 0, trusted.stderr
    model = json.loads((tmp_path / "v.json").read_text())["model"]
    assert model["trust_remote_code"] is True
    assert model["model_class"].endswith("modeling_x.XModel")
    assert f"ran its own code (trust_remote_code): {model['model_class']}" in trusted.stderr


class _Harmful:
    """Unpickled by a plain ``pickle.load``, it would delete the folder it names."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return shutil.rmtree, (str(self.folder),)


def _model_folder(shared: Path, folder: Path) -> Path:
    """A copy of the minilm-l6-mlm fixture (its weights as safetensors) in ``folder``."""
    fixture = shared / "models" / "minilm-l6-mlm"
    if not fixture.is_dir():
        pytest.skip(f"fixture model not found at {fixture}")
    folder.mkdir()
    files = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")
    for name in (*files, "vocab.txt"):
        shutil.copyfile(fixture / name, folder / name)
    return folder


def _one_error_line(finished: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command printed on stderr (exit 2, no traceback)."""
    assert finished.returncode == 2, finished.stdout + finished.stderr
    assert "Traceback" not in finished.stderr, finished.stderr
    errors = [line for line in finished.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and finished.stderr.strip() == errors[0], finished.stderr
    return errors[0]


def test_a_corrupt_safetensors_file_is_one_line_naming_it(shared: Path, tmp_path: Path) -> None:
    """Issue 41, item 4: ``weat -m DIR`` whose model.safetensors is cut short (a download that
    stopped) printed safetensors' traceback; it is now one line naming the file, exit 2."""
    folder = _model_folder(shared, tmp_path / "cut")
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out"
    finished = run_wordlens("weat", "-m", str(folder), "--tests", "7", "--permutations", "100",
                            "--cache-dir", str(tmp_path / "cache"), "--out", str(out))  # fmt: skip
    line = _one_error_line(finished)
    assert line.startswith(f"error: cannot read the weights of cut ({weights}): ")
    assert "corrupt or not safetensors" in line
    assert not out.exists()


def test_pickle_weights_load_only_with_allow_pickle_and_tensors_only(
    shared: Path, tmp_path: Path
) -> None:
    """Issue 41, item 4: a folder whose weights are only ``pytorch_model.bin`` loaded with no
    notice. It is now refused, naming ``--allow-pickle``; with the option its tensors load
    (torch's ``weights_only``), and a pickle that would run code is still refused, in one line,
    and its code never runs."""
    import torch
    from safetensors.torch import load_file

    folder = _model_folder(shared, tmp_path / "pickled")
    weights = folder / "pytorch_model.bin"
    torch.save(load_file(folder / "model.safetensors"), weights)
    (folder / "model.safetensors").unlink()

    def embed(*options: str) -> subprocess.CompletedProcess[str]:
        out = tmp_path / "v.npy"
        return run_wordlens("embed", "-m", str(folder), *options, "--out", str(out), "cat")

    line = _one_error_line(embed())
    assert line == (
        "error: the weights of pickled are only a pickle (pytorch_model.bin in "
        f"{folder}), and loading pickles was not allowed: a pickle can run code. To load its "
        "tensors with torch's weights_only loader, which refuses code, pass --allow-pickle "
        "(allow_pickle=True in Python)"
    )
    assert not (tmp_path / "v.npy").exists()
    allowed = embed("--allow-pickle")
    assert allowed.returncode == 0, allowed.stderr
    assert np.load(tmp_path / "v.npy").shape[-1] == 384

    hub = tmp_path / "hub"  # the same files as a hub id's cached revision, offline
    hub_revision_cache("org/pickled", hub, {"main": folder})
    env = {**worker_env(), "HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1"}
    args = ["embed", "-m", "org/pickled", "--out", str(tmp_path / "hub.npy"), "cat"]
    from_hub = subprocess.run([*WORDLENS, *args], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=60)  # fmt: skip
    assert "(no *.safetensors in org/pickled)" in _one_error_line(from_hub)
    assert "pass --allow-pickle" in from_hub.stderr

    canary = tmp_path / "canary"
    canary.mkdir()
    torch.save({"embeddings.word_embeddings.weight": _Harmful(canary)}, weights)
    line = _one_error_line(embed("--allow-pickle"))
    assert line == (
        f"error: cannot read the weights of pickled ({weights}): torch's weights_only loader "
        "refused the pickle (Unsupported global: GLOBAL shutil.rmtree was not an allowed global "
        "by default); wordlens does not run a pickle's code: use safetensors weights"
    )
    assert canary.is_dir()  # its code did not run
