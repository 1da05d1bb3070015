"""Fixtures of the probing tests: the first 12 sentences of UD English EWT's dev split."""

from __future__ import annotations

import pytest

from wordlens.resources.tagger import load_ewt


@pytest.fixture(scope="module")
def sentences() -> list[list[str]]:
    """The words of EWT dev's first 12 sentences."""
    return [[form for form, _ in sentence] for sentence in load_ewt("dev")[:12]]
