"""Startup: what the quick command-line paths import, each in a new interpreter as a user runs it.

A static model's WEAT needs neither torch nor transformers (they load only with a Hugging Face
model), and ``wordlens --help`` builds every method's command from the configs alone, so it loads
no computation package. Timings are measured by ``benchmarks/bench_startup.py``, not asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.models.test_cache import worker_env
from wordlens.errors import WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.models.spec import ModelSpec, model_spec

COMPUTATION = (
    "torch",
    "transformers",
    "numpy",
    "pandas",
    "pyarrow",
    "scipy",
    "sklearn",
    "matplotlib",
    "yaml",
)
"""Packages the command line imports only where a command computes or reads data."""


def imported_by_wordlens(*args: str) -> list[str]:
    """Run ``wordlens *args`` in a new interpreter (as the entry point does) and return which
    :data:`COMPUTATION` packages were in ``sys.modules`` when it exited; it must succeed."""
    record = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps("
        f"[name for name in {COMPUTATION!r} if name in sys.modules])))\n"
        "from wordlens.cli import app\n"
        "app(prog_name='wordlens')\n"
    )
    process = subprocess.run(
        [sys.executable, "-c", record, *args],
        cwd=REPO,
        env=worker_env(),
        capture_output=True,
        text=True,
    )
    assert process.returncode == 0, process.stderr
    imported: list[str] = json.loads(process.stdout.strip().splitlines()[-1])
    return imported


def test_a_glove_weat_imports_neither_torch_nor_transformers(tmp_path: Path) -> None:
    imported = imported_by_wordlens("weat", "--model", "glove-6b-50d", "--out", str(tmp_path))
    assert "torch" not in imported
    assert "transformers" not in imported
    assert {"numpy", "pandas"} <= set(imported)  # the run did compute and write its tables
    assert (tmp_path / "weat.parquet").is_file() and (tmp_path / "report.html").is_file()


def test_help_imports_no_computation_package() -> None:
    assert imported_by_wordlens("--help") == []


def test_a_hugging_face_model_still_records_its_load_spec(
    minilm: WordEmbedder, glove: WordEmbedder
) -> None:
    """``load_model`` imports :mod:`wordlens.models.hf` only when it loads such a model, and
    still records the call a worker process repeats."""
    assert model_spec(minilm) == ModelSpec.of(
        "model",
        "minilm-l6",
        {
            "device": "cpu",
            "dtype": "float32",
            "bos": "auto",
            "token_budget": None,
            "revision": None,
            "trust_remote_code": False,
            "unicode": "NFC",
            "allow_pickle": False,
        },
    )
    with pytest.raises(WordlensError, match="no load spec"):
        model_spec(glove)  # as before: static models record none
