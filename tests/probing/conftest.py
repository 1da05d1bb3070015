"""Fixtures of the probing tests: the first 12 sentences of UD English EWT's dev split, and a
feature extraction interrupted after two batches."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder
from wordlens.probing.features import sentence_features
from wordlens.resources.tagger import load_ewt


@pytest.fixture(scope="module")
def sentences() -> list[list[str]]:
    """The words of EWT dev's first 12 sentences."""
    return [[form for form, _ in sentence] for sentence in load_ewt("dev")[:12]]


def interrupted_after_two_batches(
    monkeypatch: pytest.MonkeyPatch,
    model: HFEmbedder,
    sentences: list[list[str]],
    cache: ActivationCache,
) -> list[int]:
    """Extract ``sentences``' features into ``cache`` with Ctrl-C raised as the third batch
    starts; the sentences of each batch computed before it."""
    real = HFEmbedder.hidden_states
    calls: list[int] = []

    def failing(self: HFEmbedder, items: Any, layers: Any = None) -> torch.Tensor:
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(len(items))
        return real(self, items, layers)

    monkeypatch.setattr(HFEmbedder, "hidden_states", failing)
    with pytest.raises(KeyboardInterrupt):
        sentence_features(model, sentences, cache=cache)
    monkeypatch.setattr(HFEmbedder, "hidden_states", real)
    return calls
