"""LAR (eq. 1), ALAR (eq. 2), CAM (eqs. 3-4), Table 1, eq. 9 and direction accuracy (App. G)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from tests.evocation_by_hand import lar_table

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.static import StaticEmbedder
from wordlens.resources.association_norms import AssociationNorms, load_association_norms
from wordlens.resources.conceptnet import load_conceptnet
from wordlens.stats.asymmetry import (
    ConditionalSource,
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


def _norms(rows: list[tuple[str, str, float]]) -> AssociationNorms:
    return AssociationNorms("toy", pd.DataFrame(rows, columns=["cue", "response", "strength"]))


def _lar_table(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["relation", "a", "b", "lar"])


def test_eq1_is_log_forward_minus_log_backward() -> None:
    lar = log_asymmetry_ratio([0.5, 0.1, 0.2], [0.1, 0.5, 0.2])
    np.testing.assert_allclose(lar, [np.log(5.0), -np.log(5.0), 0.0], rtol=1e-15, atol=0.0)


def test_eq1_is_undefined_for_a_zero_or_missing_conditional() -> None:
    lar = log_asymmetry_ratio([0.0, 0.3, np.nan, 0.0], [0.3, 0.0, 0.3, 0.0])
    assert np.isnan(lar).all()
    with pytest.raises(WordlensError, match=r"P\(b\|a\) must be a probability"):
        log_asymmetry_ratio([1.5], [0.2])
    with pytest.raises(WordlensError, match=r"P\(a\|b\) must be a probability"):
        log_asymmetry_ratio([0.5], [-0.1])
    with pytest.raises(WordlensError, match="must be a probability"):
        log_asymmetry_ratio([np.inf], [0.2])
    with pytest.raises(WordlensError, match="same shape"):
        log_asymmetry_ratio([0.5, 0.5], [0.2])


def test_asymmetry_table_reads_both_directions_from_the_source() -> None:
    norms = _norms(
        [("ellipse", "circle", 0.6), ("circle", "ellipse", 0.05), ("circle", "round", 0.5)]
    )
    assert isinstance(norms, ConditionalSource)
    pairs = pd.DataFrame({"relation": ["similarTo", "relatedTo"], "a": ["ellipse", "round"]})
    pairs["b"] = ["circle", "circle"]
    table = asymmetry_table(pairs, norms)
    assert table["p_b_given_a"].iloc[0] == 0.6 and table["p_a_given_b"].iloc[0] == 0.05
    assert table["lar"].iloc[0] == pytest.approx(np.log(0.6 / 0.05))  # ellipse -> circle: > 0
    # round is not a cue: P(circle | round) is undefined, so is the LAR.
    assert np.isnan(table["p_b_given_a"].iloc[1]) and np.isnan(table["lar"].iloc[1])
    with pytest.raises(WordlensError, match="missing"):
        asymmetry_table(pd.DataFrame({"a": ["x"]}), norms)


def test_alar_is_the_mean_per_relation_and_counts_undefined_pairs() -> None:
    table = _lar_table(
        [
            ("isA", "dog", "animal", 0.5),
            ("isA", "cat", "animal", 0.1),
            ("isA", "rose", "flower", np.nan),
            ("hasA", "car", "wheel", -0.4),
            ("partOf", "leaf", "tree", np.nan),
        ]
    )
    alar = alar_by_relation(table).set_index("relation")
    assert alar.loc["isA", "alar"] == pytest.approx(0.3)
    assert (alar.loc["isA", "n_pairs"], alar.loc["isA", "n_undefined"]) == (2, 1)
    assert alar.loc["hasA", "alar"] == pytest.approx(-0.4)
    assert alar.loc["partOf", "n_pairs"] == 0 and np.isnan(alar.loc["partOf", "alar"])
    assert list(alar.index) == ["isA", "hasA", "partOf"]  # most pairs first


def test_cam_correlates_the_common_defined_pairs_with_average_ranks_for_ties() -> None:
    x = pd.Series([0.1, 0.2, 0.2, 0.9, 0.5, np.nan], index=list("abcdef"))
    y = pd.Series([1.0, 3.0, 2.0, 2.0, 5.0, 1.0, 7.0], index=list("abcdefg"))
    result = cam(x, y)
    expected = stats.spearmanr([0.1, 0.2, 0.2, 0.9, 0.5], [1.0, 3.0, 2.0, 2.0, 5.0])
    assert result.n == 5 and result.method == "spearman"
    assert result.r == pytest.approx(expected.statistic) and result.ci_low < result.r
    perfect = cam(pd.Series([1.0, 2.0, 3.0, 4.0]), pd.Series([-5.0, 0.0, 0.1, 9.0]))
    assert perfect.r == pytest.approx(1.0)


def test_cam_of_tiny_or_constant_sets_is_nan_with_a_reason() -> None:
    tiny = cam(pd.Series([0.1, 0.2], index=["a", "b"]), pd.Series([0.3, 0.1], index=["a", "b"]))
    assert np.isnan(tiny.r) and tiny.n == 2 and "at least 3" in str(tiny.reason)
    disjoint = cam(pd.Series([0.1, 0.2, 0.3]), pd.Series([0.1, 0.2, 0.3], index=[5, 6, 7]))
    assert disjoint.n == 0 and np.isnan(disjoint.r)
    constant = cam(pd.Series([0.1, 0.1, 0.1]), pd.Series([0.3, 0.1, 0.2]))
    assert np.isnan(constant.r) and "constant" in str(constant.reason)
    with pytest.raises(WordlensError, match="more than once"):
        cam(pd.Series([0.1, 0.2, 0.3], index=["a", "a", "b"]), pd.Series([0.1, 0.2, 0.3]))


def test_cam_by_relation_matches_pairs_by_relation_and_orientation() -> None:
    x = _lar_table(
        [
            ("isA", "a", "b", 0.1),
            ("isA", "c", "d", 0.5),
            ("isA", "e", "f", 0.9),
            ("isA", "g", "h", 0.2),
            ("hasA", "b", "a", -0.1),
        ]
    )
    y = _lar_table(
        [
            ("isA", "a", "b", 1.0),
            ("isA", "c", "d", 2.0),
            ("isA", "e", "f", 3.0),
            ("isA", "h", "g", 9.0),  # the other orientation: not the same pair
            ("hasA", "b", "a", -3.0),
        ]
    )
    table = cam_by_relation(x, y).set_index("relation")
    assert table.loc["isA", "n"] == 3 and table.loc["isA", "cam"] == pytest.approx(1.0)
    assert table.loc["hasA", "n"] == 1 and np.isnan(table.loc["hasA", "cam"])
    assert "at least 3" in table.loc["hasA", "reason"]
    with pytest.raises(WordlensError, match="more than once"):
        cam_by_relation(pd.concat([x, x]), y)


def test_inter_dataset_table_has_counts_alar_and_cam_per_relation() -> None:
    x = _lar_table([("isA", w, "z", v) for w, v in zip("abcd", [0.1, 0.2, 0.3, 0.4], strict=True)])
    y = _lar_table([("isA", w, "z", v) for w, v in zip("abce", [0.3, 0.2, 0.1, 0.0], strict=True)])
    y = pd.concat([y, _lar_table([("hasA", "q", "r", 1.0)])], ignore_index=True)
    table = inter_dataset_table({"x": x, "y": y}).set_index("relation")
    assert list(table.columns) == [
        "count_x",
        "alar_x",
        "count_y",
        "alar_y",
        "cam_x_y",
        "n_x_y",
        "p_x_y",
    ]
    assert (table.loc["isA", "count_x"], table.loc["hasA", "count_x"]) == (4, 0)
    assert table.loc["isA", "alar_x"] == pytest.approx(0.25)
    assert table.loc["isA", "n_x_y"] == 3 and table.loc["isA", "cam_x_y"] == pytest.approx(-1.0)
    with pytest.raises(WordlensError, match="at least two"):
        inter_dataset_table({"x": x})


def test_common_vocabulary_keeps_pairs_known_to_every_vocabulary() -> None:
    pairs = pd.DataFrame({"relation": ["isA"] * 3, "a": ["dog", "cat", "emu"], "b": ["animal"] * 3})
    model = StaticEmbedder(
        ["dog", "cat", "animal"], np.eye(3, dtype=np.float32), name="toy", case="lower"
    )
    kept = common_vocabulary_pairs(pairs, [model, {"dog", "animal", "emu"}])
    assert kept["a"].tolist() == ["dog"]
    assert common_vocabulary_pairs(pairs, [model])["a"].tolist() == ["dog", "cat"]
    with pytest.raises(EmptyInputError):
        common_vocabulary_pairs(pairs, [])


def test_direction_accuracy_counts_pairs_beyond_the_threshold() -> None:
    data = [0.5, -0.5, 0.05, -2.0, 1.0, np.nan, 0.3]
    model = [0.1, 0.2, -0.3, -0.1, 0.0, 1.0, np.nan]
    result = direction_accuracy(data, model, threshold=0.1)
    # Decided: 0.5 (right), -0.5 (wrong), -2.0 (right), 1.0 (model 0: wrong); 0.05 is within
    # the threshold; the NaN pairs are undefined.
    assert (result.n, result.n_correct, result.n_undefined) == (4, 2, 2)
    assert result.accuracy == pytest.approx(0.5)
    strict = direction_accuracy([0.1, 0.2], [1.0, 1.0], threshold=0.1)
    assert strict.n == 1  # |0.1| is not > 0.1
    none = direction_accuracy([0.01], [1.0], threshold=0.5)
    assert none.n == 0 and np.isnan(none.accuracy)
    with pytest.raises(WordlensError, match="threshold"):
        direction_accuracy(data, model, threshold=-1.0)
    with pytest.raises(WordlensError, match="equal length"):
        direction_accuracy([0.1], [0.1, 0.2])


def test_direction_accuracy_by_relation_uses_the_data_pairs() -> None:
    data = _lar_table([("isA", "a", "b", 0.5), ("isA", "c", "d", -0.5), ("hasA", "e", "f", 1.0)])
    model = _lar_table([("isA", "a", "b", 0.2), ("isA", "c", "d", 0.1)])
    table = direction_accuracy_by_relation(data, model).set_index("relation")
    assert table.loc["isA", "accuracy"] == pytest.approx(0.5) and table.loc["isA", "n"] == 2
    assert table.loc["hasA", "n_undefined"] == 1 and np.isnan(table.loc["hasA", "accuracy"])


@pytest.fixture(scope="module")
def evocation_tables(shared: Path) -> dict[str, pd.DataFrame]:
    conceptnet = load_conceptnet()
    return {
        name: evocation_asymmetry(load_association_norms(name), conceptnet)
        for name in ("eat", "usf")
    }


def test_table1_eat_vs_usf(evocation_tables: dict[str, pd.DataFrame], shared: Path) -> None:
    table = inter_dataset_table(evocation_tables).set_index("relation")
    # Every value against a recount from the raw files (tests/evocation_by_hand.py: plain
    # dictionaries, eqs. 1, 2, 5 and scipy's Spearman for eq. 4).
    data = shared / "data"
    by_hand = {name: lar_table(data, name) for name in ("eat", "usf")}
    for name, lars in by_hand.items():
        grouped = lars.groupby("relation")["lar"]
        assert (
            table[f"count_{name}"].to_dict()
            == grouped.size().reindex(table.index, fill_value=0).to_dict()
        )
        np.testing.assert_allclose(
            table[f"alar_{name}"], grouped.mean().reindex(table.index), rtol=1e-9
        )
    common = by_hand["eat"].merge(by_hand["usf"], on=["relation", "a", "b"], suffixes=("_e", "_u"))
    for relation, group in common.groupby("relation"):
        assert table.loc[relation, "n_eat_usf"] == len(group)
        if len(group) >= 3:
            rho = stats.spearmanr(group["lar_e"], group["lar_u"]).statistic
            assert table.loc[relation, "cam_eat_usf"] == pytest.approx(rho, abs=1e-12)
    assert table.loc["isA", ["count_eat", "count_usf", "n_eat_usf"]].tolist() == [384, 380, 184]
    # The signs of the paper's Table 1 (published, 100 x ALAR): isA 43.56, partOf 66.30,
    # hasProperty 40.63, hasA -58.03, capableOf -31.80; its EAT-FA CAM is positive (relatedTo
    # 0.59, isA 0.64, atLocation 0.61). These are the only published numbers to compare with: the
    # paper's pairs (its own EAT crawl, ConceptNet 5 annotation) cannot be rebuilt.
    assert (table.loc[["isA", "partOf", "hasProperty"], "alar_eat"] > 0).all()
    assert (table.loc[["hasA", "capableOf"], "alar_eat"] < 0).all()
    assert (table.loc[["relatedTo", "isA", "atLocation"], "cam_eat_usf"] > 0.5).all()
    # Every pair of evocation data is defined: both conditionals are observed.
    assert evocation_tables["eat"]["lar"].notna().all()
    assert table["count_eat"].sum() == len(evocation_tables["eat"])


def test_inter_dataset_table_with_three_data_sets_counts_every_two() -> None:
    x = _lar_table([("isA", w, "z", v) for w, v in zip("abcd", [0.1, 0.2, 0.3, 0.4], strict=True)])
    y = _lar_table([("isA", w, "z", v) for w, v in zip("abce", [0.3, 0.2, 0.1, 0.0], strict=True)])
    z = _lar_table([("isA", "a", "z", 0.5), ("isA", "d", "z", np.nan), ("partOf", "p", "q", 1.0)])
    table = inter_dataset_table({"x": x, "y": y, "z": z}).set_index("relation")
    tables = {"x": x, "y": y, "z": z}

    def common(first: str, second: str, relation: str) -> int:
        def defined(name: str) -> set[tuple[str, str]]:
            rows = tables[name]
            rows = rows[(rows["relation"] == relation) & rows["lar"].notna()]
            return set(zip(rows["a"], rows["b"], strict=True))

        return len(defined(first) & defined(second))

    for first, second in (("x", "y"), ("x", "z"), ("y", "z")):
        column = table[f"n_{first}_{second}"]
        assert column.dtype == np.int64
        for relation in ("isA", "partOf"):
            assert column[relation] == common(first, second, relation)
    assert table.loc["partOf", "n_x_y"] == 0 and table.loc["isA", "n_x_y"] == 3
