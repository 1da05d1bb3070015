"""The ranking rules on hand-made scores, where each answer is known by inspection."""

from __future__ import annotations

import pandas as pd

from wordlens.comparison.rankings import chosen_scores, rankings


def _scores(rows: list[tuple[str, str, int | None, float]]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=["model", "metric", "layer", "value"])
    return table.assign(query="q", part="").astype({"layer": "Int64"})


def test_equal_scores_rank_in_the_models_order_and_signs_do_not_count() -> None:
    """WEFE's ``first``: a tie goes to the model given first; -0.5 and +0.5 are one bias."""
    scores = _scores([("b", "weat", 0, -0.5), ("a", "weat", 0, 0.5), ("c", "weat", 0, 0.1)])
    ranked = rankings(scores, {"weat": "farther from 0"}, ["b", "a", "c"], "last")
    assert ranked.set_index("model")["rank"].to_dict() == {"c": 1, "b": 2, "a": 3}


def test_values_without_layers_are_kept_whatever_the_choice() -> None:
    """A method's headline numbers have no layer: nothing to choose, every row stays."""
    scores = _scores([("a", "aul", None, 0.6), ("b", "aul", None, 0.7)])
    chosen = chosen_scores(scores, 3, {})
    assert chosen.scores["value"].tolist() == [0.6, 0.7]
    assert chosen.notes == [] and chosen.left_out == {}
    assert rankings(chosen.scores, {}, ["a", "b"], 3).empty  # not a bias: not ranked
