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
from wordlens.stats.asymmetry import (
    ConditionalSource,
    DirectionAccuracy,
    alar_by_relation,
    asymmetry_table,
    cam,
    cam_by_relation,
    common_vocabulary_pairs,
    direction_accuracy,
    direction_accuracy_by_relation,
    evocation_asymmetry,
    inter_dataset_table,
    log_asymmetry_ratio,
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
    P_VALUE_RULE,
    PAIRED_P_VALUE_RULE,
    PermutationResult,
    WeatResult,
    iter_partitions,
    paired_permutation_test,
    permutation_test,
    weat,
)
from wordlens.stats.subspace import (
    PrincipalComponents,
    fit_principal_components,
    nullify_top_components,
)

__all__ = [
    "PAIRED_P_VALUE_RULE",
    "P_VALUE_RULE",
    "RELATIVE_TOLERANCE",
    "ConditionalSource",
    "CorrelationResult",
    "Direction",
    "DirectionAccuracy",
    "DirectionSettings",
    "PermutationResult",
    "PrincipalComponents",
    "WeatResult",
    "alar_by_relation",
    "association",
    "asymmetry_table",
    "cam",
    "cam_by_relation",
    "common_vocabulary_pairs",
    "correlation_by_layer",
    "cosine_similarity",
    "direction_accuracy",
    "direction_accuracy_by_relation",
    "effect_size",
    "evocation_asymmetry",
    "fit_direction",
    "fit_principal_components",
    "inter_dataset_table",
    "iter_partitions",
    "log_asymmetry_ratio",
    "nullify_top_components",
    "paired_permutation_test",
    "pearson",
    "permutation_test",
    "sc_weat",
    "scalar_projection",
    "spearman",
    "weat",
]
