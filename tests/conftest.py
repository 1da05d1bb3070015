"""Shared fixtures: the read-only shared inputs and the real models (loaded once per session)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wordlens.models.base import WordEmbedder
from wordlens.models.loading import load_model

REPO = Path(__file__).resolve().parents[1]
# Keep the tests' converted models, hash memos and caches out of the user's own wordlens home.
os.environ.setdefault("WORDLENS_HOME", str(REPO / ".wordlens-test-home"))


def shared_dir() -> Path:
    """The shared inputs beside the clone (``$WORDLENS_SHARED`` or ``../shared``)."""
    return Path(os.environ.get("WORDLENS_SHARED", REPO.parent / "shared"))


# As the Makefile does: the data registry reads the shared data sets in place.
if (shared_dir() / "data").is_dir():
    os.environ.setdefault("WORDLENS_DATA_PATH", str(shared_dir() / "data"))


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if not (path / "data").is_dir():
        pytest.skip(f"shared inputs not found at {path}")
    return path


@pytest.fixture(scope="session")
def smollm2() -> WordEmbedder:
    return load_model("smollm2-135m")


@pytest.fixture(scope="session")
def minilm() -> WordEmbedder:
    return load_model("minilm-l6")


@pytest.fixture(scope="session")
def glove() -> WordEmbedder:
    return load_model("glove-6b-50d")
