"""Relative norm distance (Garg et al. 2018) on real vectors: equal to WEFE 1.0.1's ``RND`` on
GloVe 6B 50d in its variants, to a loop over the words of minilm-l6 at one layer, and run from
Python and from the command line.

WEFE's ``RND.run_query`` returns the *mean* over the attribute words (``--average``), keeps the
vectors' lengths unless ``normalize=True`` (``--no-normalize``), and with ``distance="cos"``
takes cosine similarities (``--distance cos``); Garg et al.'s equation is a sum, on unit-length
vectors, of Euclidean distances (our defaults).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner
from wefe.metrics import RND
from wefe.query import Query as WefeQuery

import wordlens
from tests.peer_data import caliskan_query, glove_vectors, query_words, raw_glove, wefe_glove
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.methods.rnd.metric import relative_norm_distance
from wordlens.models.base import WordEmbedder


def _values(run: wordlens.Run) -> dict[str, float]:
    table = run.tables["scores"]
    assert set(table["layer"]) == {0}
    return dict(zip(table["part"], table["value"], strict=True))


@pytest.mark.parametrize(
    ("wefe_options", "ours"),
    [
        ({"distance": "norm", "normalize": False}, {"average": True, "normalize": False}),
        ({"distance": "norm", "normalize": True}, {"average": True}),
        (
            {"distance": "cos", "normalize": False},
            {"average": True, "normalize": False, "distance": "cos"},
        ),
    ],
)
@pytest.mark.parametrize("test", [1, 7])
def test_average_option_equals_wefe_rnd(
    glove: WordEmbedder, test: int, wefe_options: dict[str, Any], ours: dict[str, Any]
) -> None:
    query = caliskan_query(test)
    model = wefe_glove(query_words(query))
    values = _values(wordlens.run("rnd", glove, query=query, bootstrap=0, permutations=0, **ours))
    (first, second), targets = list(query["targets"]), list(query["targets"].values())
    for name, words in query["attributes"].items():
        peer = RND().run_query(
            WefeQuery(targets, [words], [first, second], [name]),
            model,
            preprocessors=[{}],
            **wefe_options,
        )
        assert values[name] == pytest.approx(peer["rnd"], abs=1e-6)


def test_paper_default_is_the_sum_on_unit_vectors(glove: WordEmbedder) -> None:
    """Our default (Garg et al.) is WEFE's normalised mean times the number of attribute
    words; on test 1 (flowers vs. insects) unpleasant words lie nearer the insects."""
    query = caliskan_query(1)
    summed = _values(wordlens.run("rnd", glove, query=query, bootstrap=0, permutations=0))
    model = wefe_glove(query_words(query))
    (first, second), targets = list(query["targets"]), list(query["targets"].values())
    for name, words in query["attributes"].items():
        peer = RND().run_query(
            WefeQuery(targets, [words], [first, second], [name]),
            model,
            preprocessors=[{}],
            normalize=True,
        )
        assert summed[name] == pytest.approx(len(words) * peer["rnd"], abs=1e-5)
    # positive: nearer the second target set; unpleasant words lie nearer the insects
    assert summed["Unpleasant"] > max(summed["Pleasant"], 1.0)


def test_one_layer_of_minilm_equals_a_loop_over_the_words(minilm: WordEmbedder) -> None:
    query = {
        "targets": {"math": ["math", "algebra", "geometry"], "arts": ["poetry", "art", "dance"]},
        "attributes": {"male": ["man", "boy", "he"], "female": ["woman", "girl", "she"]},
    }
    run = wordlens.run("rnd", minilm, query=query, layers=[3], bootstrap=0, permutations=0)
    table = run.tables["scores"]
    assert list(table["layer"]) == [3, 3]

    def vectors(words: list[str]) -> list[np.ndarray]:
        embedded = minilm.embed(targets_from_template(words), layers=[3])
        return [np.asarray(row[0], dtype=np.float64) for row in embedded.vectors]

    def unit(vector: np.ndarray) -> np.ndarray:
        return vector / math.sqrt(float(vector @ vector))

    means = []
    for words in query["targets"].values():
        units = [unit(v) for v in vectors(words)]
        means.append(sum(units) / len(units))
    for name, words in query["attributes"].items():
        expected = 0.0
        for vector in vectors(words):
            a = unit(vector)
            expected += math.dist(a, means[0]) - math.dist(a, means[1])
        value = float(table.loc[table["part"] == name, "value"].iloc[0])
        assert value == pytest.approx(expected, abs=1e-6)


def test_python_run_has_interval_and_permutation_p(glove: WordEmbedder) -> None:
    run = wordlens.run(
        "rnd", glove, query=caliskan_query(7), bootstrap=100, permutations=100, seed=1
    )
    table = run.tables["scores"]
    assert list(table["part"]) == ["Male terms", "Female terms"]
    assert (table["n_targets"] == 16).all() and (table["n_attributes"] == 8).all()
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    assert ((table["p_value"] > 0) & (table["p_value"] <= 1)).all()
    assert run.metadata["options"]["average"] is False
    assert run.metadata["options"]["normalize"] is True
    assert "permutation" in run.metadata["uncertainty"]["p_value"]


def test_command_line_writes_the_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(
        "targets:\n  flowers: [rose, tulip, daisy, lily]\n  insects: [ant, wasp, flea, moth]\n"
        "attributes:\n  pleasant: [love, peace, happy]\n  unpleasant: [hate, war, ugly]\n",
        encoding="utf-8",
    )
    out = tmp_path / "rnd"
    arguments = ["rnd", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out)]
    result = CliRunner().invoke(
        app, [*arguments, "--bootstrap", "20", "--permutations", "20", "--average"]
    )
    assert result.exit_code == 0, result.output
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Relative norm distance" in report and "Garg" in report
    assert wordlens.read_run(out).metadata["options"]["average"] is True


def test_tiny_and_degenerate_sets(glove: WordEmbedder) -> None:
    """One word per set is allowed (the distance of one word to one word); a target word that
    is also the only attribute word is at distance 0 from its own set's mean; target sets with
    the same vectors give 0; a vector of length 0 cannot be normalised (NaN)."""
    tiny = {
        "targets": {"x": ["rose"], "y": ["ant"]},
        "attributes": {"a": ["rose"], "b": ["love"]},
    }
    values = _values(wordlens.run("rnd", glove, query=tiny, bootstrap=10, permutations=10))
    vectors, row_of = raw_glove()

    def unit(word: str) -> np.ndarray:
        vector = np.asarray(vectors[row_of[word]], dtype=np.float64)
        return vector / np.linalg.norm(vector)

    assert values["a"] == pytest.approx(-np.linalg.norm(unit("rose") - unit("ant")), abs=1e-9)
    # target sets with the same vectors: every attribute word is as near one as the other
    roses = glove_vectors(["rose", "tulip"])[:, None, :]
    words = glove_vectors(["love", "peace", "hate"])[:, None, :]
    for options in ({}, {"average": True, "normalize": False}, {"distance": "cos"}):
        assert relative_norm_distance(roses, roses[::-1], words, **options) == pytest.approx(
            [0.0], abs=1e-12
        )
    # a vector of length 0 has no direction: NaN where it must be normalised
    zero = np.zeros_like(roses)
    assert np.isnan(relative_norm_distance(zero, roses, words)).all()
    assert np.isfinite(relative_norm_distance(zero, roses, words, normalize=False)).all()
