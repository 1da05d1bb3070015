"""Statistics in float64, vectorized over words and layers: associations, WEAT, correlations,
learned directions and projections."""

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
from wordlens.stats.direction import (
    Direction,
    DirectionSettings,
    fit_direction,
    scalar_projection,
)
from wordlens.stats.permutation import (
    PermutationResult,
    WeatResult,
    iter_partitions,
    permutation_test,
    weat,
)
from wordlens.stats.subspace import (
    PrincipalComponents,
    fit_principal_components,
    nullify_top_components,
)

__all__ = [
    "RELATIVE_TOLERANCE",
    "CorrelationResult",
    "Direction",
    "DirectionSettings",
    "PermutationResult",
    "PrincipalComponents",
    "WeatResult",
    "association",
    "correlation_by_layer",
    "cosine_similarity",
    "effect_size",
    "fit_direction",
    "fit_principal_components",
    "iter_partitions",
    "nullify_top_components",
    "pearson",
    "permutation_test",
    "sc_weat",
    "scalar_projection",
    "spearman",
    "weat",
]
