"""wordlens: what language models and word embeddings know about words, layer by layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens._version import __version__

if TYPE_CHECKING:
    from wordlens.models.loading import load_model

__all__ = ["__version__", "load_model"]


def __getattr__(name: str) -> Any:
    # Imported lazily: loading pulls in torch and transformers, which commands such as
    # `wordlens data list` do not need.
    if name == "load_model":
        from wordlens.models.loading import load_model

        return load_model
    raise AttributeError(f"module 'wordlens' has no attribute {name!r}")
