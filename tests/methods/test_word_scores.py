"""The ``words`` table of WEAT and the association metrics: every word's score at every layer.

Each score is the exact term that gives the metric's value, so aggregating the table as the
metric's definition does reproduces the ``scores`` (or ``weat``) table at every layer of
minilm-l6 (7 layers); on GloVe 6B 50d the scores equal a numpy computation on vectors read
independently of wordlens (:func:`tests.peer_data.glove_vectors`). The console and the report
show the most extreme first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy.stats import spearmanr

import wordlens
from tests.methods.test_associations import QUERY
from tests.peer_data import glove_vectors
from wordlens.methods.association.words import TOP_WORDS, most_extreme
from wordlens.methods.registry import get_method
from wordlens.models.base import WordEmbedder

QUICK = {"bootstrap": 0, "permutations": 10}


def _ect(words: pd.DataFrame) -> float:
    first, second = (group["score"].to_numpy() for _, group in words.groupby("quantity"))
    return float(spearmanr(first, second).statistic)


def _semaxis(words: pd.DataFrame) -> float:
    by_set = words.groupby("set")["score"].mean()
    return float(by_set["flowers"] - by_set["insects"])


def _rnsb(words: pd.DataFrame) -> float:
    return float(words.loc[words["quantity"].str.startswith("P(w)"), "score"].sum())


AGGREGATES: list[tuple[str, dict[str, Any], Callable[[pd.DataFrame], float]]] = [
    ("rnd", {}, lambda words: float(words["score"].sum())),
    ("rnd", {"average": True, "distance": "cos"}, lambda words: float(words["score"].mean())),
    ("ect", {}, _ect),
    ("ripa", {}, lambda words: float(words["score"].mean())),
    ("ripa", {"relation": "pairs"}, lambda words: float(words["score"].mean())),
    ("semaxis", {}, _semaxis),
    ("mac", {}, lambda words: float(words["score"].mean())),
    ("rnsb", {"fits": 2}, _rnsb),
]
"""Each metric (with options) and how its words' scores of one part and layer give its value."""


@pytest.mark.parametrize(("name", "options", "aggregate"), AGGREGATES)
def test_the_words_give_each_metrics_value_at_every_layer(
    minilm: WordEmbedder,
    name: str,
    options: dict[str, Any],
    aggregate: Callable[[pd.DataFrame], float],
) -> None:
    run = wordlens.run(name, minilm, query=QUERY, **QUICK, **options)
    scores, words = run.tables["scores"], run.tables["words"]
    assert list(words.columns) == ["metric", "part", "layer", "set", "word", "quantity", "score"]
    assert set(words["metric"]) == {name} and words["score"].notna().all()
    assert set(words["layer"]) == set(scores["layer"]) == set(range(7))
    for row in scores.itertuples():
        part = words[(words["part"] == row.part) & (words["layer"] == row.layer)]
        assert aggregate(part) == pytest.approx(row.value, abs=1e-9), (row.part, row.layer)
    assert run.metadata["word_scores"]


def test_each_metric_scores_the_words_its_definition_sums(glove: WordEmbedder) -> None:
    """Which sets' words each metric scores: the attribute words of its part (RND, ECT, RIPA),
    or the target words (SemAxis, RNSB, MAC: one row per attribute set for MAC)."""
    n = 6  # words per set
    expected = {"rnd": 1, "ect": 2, "ripa": 1, "semaxis": 2, "rnsb": 4, "mac": 4}
    for name, sets_per_part in expected.items():
        words = wordlens.run(name, glove, query=QUERY, **QUICK).tables["words"]
        per_part = words.groupby("part").size()
        assert (per_part == sets_per_part * n).all(), name
    rnd = wordlens.run("rnd", glove, query=QUERY, **QUICK).tables["words"]
    assert (rnd["set"] == rnd["part"]).all()  # each part scores its own attribute words


def test_weat_words_give_the_statistic_and_the_effect_size(minilm: WordEmbedder) -> None:
    run = wordlens.run("weat", minilm, query=QUERY, permutations=10)
    weat, words = run.tables["weat"], run.tables["words"]
    assert list(words.columns) == ["test", "layer", "set", "word", "quantity", "score"]
    assert len(words) == 12 * 7 and set(words["quantity"]) == {"s(w, pleasant, unpleasant)"}
    for row in weat.itertuples():
        layer = words[(words["test"] == row.test) & (words["layer"] == row.layer)]
        x = layer.loc[layer["set"] == "flowers", "score"].to_numpy()
        y = layer.loc[layer["set"] == "insects", "score"].to_numpy()
        assert x.sum() - y.sum() == pytest.approx(row.statistic, abs=1e-9)
        d = (x.mean() - y.mean()) / np.concatenate([x, y]).std(ddof=1)
        assert d == pytest.approx(row.effect_size, abs=1e-9)


def _cosines(words: np.ndarray, others: np.ndarray) -> np.ndarray:
    unit = words / np.linalg.norm(words, axis=1, keepdims=True)
    return unit @ (others / np.linalg.norm(others, axis=1, keepdims=True)).T


def _by_word(table: pd.DataFrame, **where: str) -> dict[str, float]:
    chosen = table
    for column, value in where.items():
        chosen = chosen[chosen[column] == value]
    return dict(zip(chosen["word"], chosen["score"], strict=True))


def test_on_glove_the_words_scores_equal_numpy(glove: WordEmbedder) -> None:
    """WEAT's s(w, A, B), RND's distance difference, SemAxis's cos(w, v) and MAC's S(t, A_j)
    of every word, against numpy on GloVe vectors read without wordlens."""
    (x_name, xs), (y_name, ys) = QUERY["targets"].items()
    (a_name, a_words), (b_name, b_words) = QUERY["attributes"].items()
    x, y, a, b = (glove_vectors(words) for words in (xs, ys, a_words, b_words))
    targets = np.concatenate([x, y])
    target_words = [*xs, *ys]

    weat = wordlens.run("weat", glove, query=QUERY, permutations=10).tables["words"]
    s = _cosines(targets, a).mean(axis=1) - _cosines(targets, b).mean(axis=1)
    assert _by_word(weat) == pytest.approx(dict(zip(target_words, s, strict=True)), abs=1e-6)

    def unit(vectors: np.ndarray) -> np.ndarray:
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    rnd = wordlens.run("rnd", glove, query=QUERY, **QUICK).tables["words"]
    centres = unit(x).mean(axis=0), unit(y).mean(axis=0)
    gaps = [np.linalg.norm(unit(a) - centre, axis=1) for centre in centres]
    assert _by_word(rnd, part=a_name) == pytest.approx(
        dict(zip(a_words, gaps[0] - gaps[1], strict=True)), abs=1e-6
    )

    semaxis = wordlens.run("semaxis", glove, query=QUERY, **QUICK).tables["words"]
    axis = a.mean(axis=0) - b.mean(axis=0)
    expected = _cosines(targets, axis[None, :])[:, 0]
    assert _by_word(semaxis) == pytest.approx(
        dict(zip(target_words, expected, strict=True)), abs=1e-6
    )

    mac = wordlens.run("mac", glove, query=QUERY, **QUICK).tables["words"]
    distances = 1 - _cosines(targets, b).mean(axis=1)
    assert _by_word(mac, quantity=f"S(t, {b_name}) = mean over a in {b_name} of 1 - cos(t, a)") == (
        pytest.approx(dict(zip(target_words, distances, strict=True)), abs=1e-6)
    )
    assert set(mac.loc[mac["word"].isin(xs), "set"]) == {x_name}
    assert set(mac.loc[mac["word"].isin(ys), "set"]) == {y_name}


def test_associations_gathers_every_metrics_words(minilm: WordEmbedder) -> None:
    combined = wordlens.run("associations", minilm, query=QUERY, **QUICK)
    words = combined.tables["words"]
    assert list(dict.fromkeys(words["metric"])) == list(
        dict.fromkeys(combined.tables["scores"]["metric"])
    )
    alone = wordlens.run("semaxis", minilm, query=QUERY, **QUICK).tables["words"]
    mine = words[words["metric"] == "semaxis"].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, alone)
    assert set(combined.metadata["word_scores"]) == set(words["metric"])


def test_the_most_extreme_come_first_in_the_console_and_the_report(
    minilm: WordEmbedder,
) -> None:
    run = wordlens.run("rnd", minilm, query=QUERY, **QUICK)
    words = run.tables["words"]
    shown = most_extreme(words, ("metric", "part"), 3)
    assert set(shown["layer"]) == {6} and len(shown) == 2 * 3
    for _, group in shown.groupby("part", sort=False):
        sizes = group["score"].abs().to_numpy()
        assert (np.diff(sizes) <= 0).all()
        last = words[(words["layer"] == 6) & (words["part"] == group["part"].iloc[0])]
        assert sizes[0] == last["score"].abs().max()
    assert list(dict.fromkeys(shown["part"])) == ["pleasant", "unpleasant"]
    assert len(most_extreme(words, ("metric", "part"))) == len(words[words["layer"] == 6])

    method = get_method("rnd")
    console = Console(width=200, record=True)
    for renderable in method.console(run):
        console.print(renderable)
    text = console.export_text()
    top = shown.iloc[0]
    assert "per-word scores at layer 6" in text and str(top["word"]) in text
    html = method.report(run).render()
    assert "Per-word scores, most extreme first" in html
    assert html.count(str(top["word"])) >= 1
    assert TOP_WORDS == 10


def test_a_skipped_query_has_an_empty_words_table(glove: WordEmbedder) -> None:
    lost = {
        **QUERY,
        "targets": {"flowers": ["rose", "zzzqqq", "xxqqzz"], "insects": ["ant", "wasp", "moth"]},
    }
    run = wordlens.run("rnd", glove, query=lost, max_missing=0.5, **QUICK)
    assert run.metadata["skipped"]
    assert run.tables["words"].empty and "score" in run.tables["words"].columns
