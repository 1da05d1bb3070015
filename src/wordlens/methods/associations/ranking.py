"""How ``wordlens associations`` ranks the layers by each metric and finds where two metrics
disagree (numpy, pandas and scipy: imported when a run computes)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DISAGREEMENT_ALPHA", "disagreements", "layer_ranks", "strength"]


def strength(values: pd.Series, more_bias: str) -> pd.Series:
    """A metric's values oriented so that larger means more association (see the module)."""
    if more_bias == "larger":
        return values
    if more_bias == "smaller":
        return -values
    return values.abs()


def layer_ranks(scores: pd.DataFrame) -> pd.DataFrame:
    """Per metric and part: the best layer (strongest association) and the layers from
    strongest to weakest (NaN values last)."""
    rows = []
    for (metric, part), group in scores.groupby(["metric", "part"], sort=False):
        ordered = group.sort_values("strength", ascending=False, na_position="last")
        best = ordered.iloc[0]
        rows.append(
            {
                "metric": metric,
                "part": part,
                "best_layer": float(best["layer"]) if pd.notna(best["strength"]) else np.nan,
                "value_at_best": float(best["value"]),
                "layers_strongest_first": ", ".join(str(int(x)) for x in ordered["layer"]),
            }
        )
    return pd.DataFrame(rows)


DISAGREEMENT_ALPHA = 0.05
"""Two metrics disagree where their rankings of the layers correlate negatively at this level
(Spearman's two-sided p): a rho of -0.1 over 7 layers is no ranking at all."""


def disagreements(scores: pd.DataFrame) -> pd.DataFrame:
    """Spearman's rho (and its two-sided p, scipy's t approximation) between every two
    metrics' strengths over the layers, per part of the query both score (RND's ``pleasant``
    with ECT's ``pleasant``; a metric scoring all sets at once is compared on every part);
    ``disagree`` where rho < 0 with p < :data:`DISAGREEMENT_ALPHA`. Fewer than three layers or
    a constant strength: no rho (NaN)."""
    from scipy.stats import spearmanr

    curves = {
        (metric, part): group.set_index("layer")["strength"]
        for (metric, part), group in scores.groupby(["metric", "part"], sort=False)
    }
    rows = []
    keys = list(curves)
    for index, (metric_a, part_a) in enumerate(keys):
        for metric_b, part_b in keys[index + 1 :]:
            if metric_a == metric_b or ("all sets" not in (part_a, part_b) and part_a != part_b):
                continue
            joined = pd.concat([curves[metric_a, part_a], curves[metric_b, part_b]], axis=1)
            joined = joined.dropna()
            rho = p = float("nan")
            if len(joined) >= 3 and joined.nunique().min() > 1:
                tested = spearmanr(joined.iloc[:, 0], joined.iloc[:, 1])
                rho, p = float(tested.statistic), float(tested.pvalue)
            rows.append(
                {
                    "metric_a": metric_a,
                    "part_a": part_a,
                    "metric_b": metric_b,
                    "part_b": part_b,
                    "n_layers": len(joined),
                    "spearman_rho": rho,
                    "p_value": p,
                    "disagree": bool(rho < 0 and p < DISAGREEMENT_ALPHA),
                }
            )
    return pd.DataFrame(rows)
