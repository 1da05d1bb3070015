"""wordlens: what language models and word embeddings know about words, layer by layer."""

from __future__ import annotations

__version__ = "0.1.0"
