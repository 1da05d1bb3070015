"""Mean average cosine distance (Manzini et al. 2019) on real vectors: equal to WEFE 1.0.1's
``MAC`` on GloVe 6B 50d, to loops over minilm-l6's vectors at one layer, run from Python and
from the command line, with tiny and degenerate sets.

WEFE's ``MAC`` pools the words of all target sets and averages the mean cosine distance of each
target word to each attribute set: the same definition as ours, one value for the whole query.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner
from wefe.metrics import MAC
from wefe.query import Query as WefeQuery

import wordlens
from tests.peer_data import caliskan_query, glove_vectors, query_words, wefe_glove
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.methods.mac.metric import mean_average_cosine
from wordlens.methods.registry import get_method
from wordlens.models.base import WordEmbedder


def _value(run: wordlens.Run) -> float:
    table = run.tables["scores"]
    assert list(table["part"]) == ["all sets"] and list(table["layer"]) == [0]
    return float(table["value"].iloc[0])


@pytest.mark.parametrize("test", [1, 6, 7])
def test_equals_wefe_mac(glove: WordEmbedder, test: int) -> None:
    query = caliskan_query(test)
    peer = MAC().run_query(
        WefeQuery(
            list(query["targets"].values()),
            list(query["attributes"].values()),
            list(query["targets"]),
            list(query["attributes"]),
        ),
        wefe_glove(query_words(query)),
    )
    ours = _value(wordlens.run("mac", glove, query=query, bootstrap=0, permutations=0))
    assert ours == pytest.approx(peer["mac"], abs=1e-6)
    assert 0 < ours < 2


def test_one_layer_of_minilm_equals_loops_over_the_words(minilm: WordEmbedder) -> None:
    query = {
        "targets": {"male": ["he", "man", "boy", "father"], "female": ["she", "woman", "girl"]},
        "attributes": {
            "career": ["office", "salary", "business", "career", "manager"],
            "family": ["home", "children", "family"],
        },
    }
    run = wordlens.run("mac", minilm, query=query, layers=[3], bootstrap=0, permutations=0)
    table = run.tables["scores"]
    assert list(table["layer"]) == [3]

    def vectors(words: list[str]) -> list[list[float]]:
        embedded = minilm.embed(targets_from_template(words), layers=[3])
        return [[float(x) for x in row[0]] for row in embedded.vectors]

    def cosine_distance(u: list[float], v: list[float]) -> float:
        dot = sum(x * y for x, y in zip(u, v, strict=True))
        return 1 - dot / (math.sqrt(sum(x * x for x in u)) * math.sqrt(sum(y * y for y in v)))

    target_vectors = [v for words in query["targets"].values() for v in vectors(words)]
    scores = []
    for t in target_vectors:
        for words in query["attributes"].values():
            distances = [cosine_distance(t, a) for a in vectors(words)]
            scores.append(sum(distances) / len(distances))
    expected = sum(scores) / len(scores)
    assert float(table["value"].iloc[0]) == pytest.approx(expected, abs=1e-6)


def test_python_run_has_an_interval_and_no_permutation_p(glove: WordEmbedder) -> None:
    run = wordlens.run(
        "mac", glove, query=caliskan_query(7), bootstrap=100, permutations=100, seed=1
    )
    table = run.tables["scores"]
    assert len(table) == 1
    row = table.iloc[0]
    assert row["ci_low"] <= row["value"] <= row["ci_high"]
    assert np.isnan(row["p_value"])
    assert row["n_targets"] == 16 and row["n_attributes"] == 16
    assert run.metadata["uncertainty"]["p_value"].startswith("none: MAC pools")
    headline = get_method("mac").summary(run).headline
    assert headline == {"mac_all_sets_top": pytest.approx(row["value"])}


def test_command_line_writes_the_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(
        "targets:\n  male: [he, man, boy]\n  female: [she, woman, girl]\n"
        "attributes:\n  career: [office, salary, business]\n  family: [home, children]\n",
        encoding="utf-8",
    )
    out = tmp_path / "mac"
    arguments = ["mac", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out)]
    result = CliRunner().invoke(app, [*arguments, "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Mean average cosine distance" in report and "Manzini" in report


def test_tiny_and_degenerate_sets(glove: WordEmbedder) -> None:
    """One word per set: MAC is the mean of the two target words' cosine distances to the two
    attribute words. A target word that is also an attribute word is at distance 0 from
    itself; MAC is invariant to the vectors' lengths and to which target set a word is in."""
    tiny = {
        "targets": {"x": ["rose"], "y": ["ant"]},
        "attributes": {"a": ["rose"], "b": ["love"]},
    }
    rose, ant, love = glove_vectors(["rose", "ant", "love"])

    def distance(u: np.ndarray, v: np.ndarray) -> float:
        return float(1 - u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))

    expected = (0 + distance(rose, love) + distance(ant, rose) + distance(ant, love)) / 4
    assert _value(wordlens.run("mac", glove, query=tiny, bootstrap=10)) == pytest.approx(
        expected, abs=1e-9
    )
    targets = [glove_vectors(["rose", "tulip"])[:, None, :], glove_vectors(["ant"])[:, None, :]]
    attributes = [glove_vectors(["love", "peace"])[:, None, :], glove_vectors(["hate"])[:, None, :]]
    value = mean_average_cosine(targets, attributes)
    regrouped = [glove_vectors(["rose"])[:, None, :], glove_vectors(["tulip", "ant"])[:, None, :]]
    assert mean_average_cosine(regrouped, attributes) == pytest.approx(value, abs=1e-12)
    scaled = [3.0 * targets[0], 0.5 * targets[1]]
    assert mean_average_cosine(scaled, attributes) == pytest.approx(value, abs=1e-12)
    zero = [np.zeros_like(targets[0]), targets[1]]
    assert np.isnan(mean_average_cosine(zero, attributes)).all()
