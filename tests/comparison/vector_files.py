"""Static models for the comparison tests: vectors written as word2vec text files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt


def write_word2vec(path: Path, words: list[str], vectors: npt.NDArray[np.floating]) -> Path:
    """``vectors`` ``[n_words, dim]`` as a word2vec text file (a ``count dim`` header, then one
    word and its values per line, each value's ``repr``: read back exactly as float32)."""
    lines = [f"{len(words)} {vectors.shape[1]}"]
    lines += [
        f"{word} {' '.join(repr(float(x)) for x in row)}"
        for word, row in zip(words, vectors, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
