"""Statistics in float64, vectorized over words and layers: associations, WEAT, correlations."""

from __future__ import annotations

from wordlens.stats.association import (
    RELATIVE_TOLERANCE,
    association,
    cosine_similarity,
    effect_size,
    sc_weat,
)
from wordlens.stats.correlation import (
    CorrelationResult,
    correlation_by_layer,
    pearson,
    spearman,
)
from wordlens.stats.permutation import (
    PermutationResult,
    WeatResult,
    iter_partitions,
    permutation_test,
    weat,
)

__all__ = [
    "RELATIVE_TOLERANCE",
    "CorrelationResult",
    "PermutationResult",
    "WeatResult",
    "association",
    "correlation_by_layer",
    "cosine_similarity",
    "effect_size",
    "iter_partitions",
    "pearson",
    "permutation_test",
    "sc_weat",
    "spearman",
    "weat",
]
