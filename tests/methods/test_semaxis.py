"""SemAxis (An, Kwak & Ahn 2018): WEFE has no SemAxis, so the value is checked against the
paper's definition written out here with numpy (axis ``v = mean(A) - mean(B)``, Eq. 1; score
``cos(w, v)``, Eq. 2; the query's value the mean score of X minus that of Y) on GloVe 6B 50d
(read straight from its package files) and on minilm-l6 at one layer; then a run in Python and
on the command line, and the edges (poles with the same mean, one word per set).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import wordlens
from tests.peer_data import glove_vectors
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.methods.association import AssociationConfig
from wordlens.methods.semaxis import SemAxis
from wordlens.models.base import WordEmbedder

TARGETS = {
    "instruments": ["guitar", "violin", "piano", "flute", "drum", "trumpet"],
    "weapons": ["gun", "sword", "rifle", "bomb", "knife"],
}
ATTRIBUTES = {
    "pleasant": ["love", "peace", "joy", "gentle", "happy", "friend"],
    "unpleasant": ["hate", "war", "death", "evil", "ugly", "poison", "agony"],
}
QUERY = {"targets": TARGETS, "attributes": ATTRIBUTES}
YAML = """\
targets:
  instruments: [guitar, violin, piano, flute, drum, trumpet]
  weapons: [gun, sword, rifle, bomb, knife]
attributes:
  pleasant: [love, peace, joy, gentle, happy, friend]
  unpleasant: [hate, war, death, evil, ugly, poison, agony]
"""
SETS = [*TARGETS.values(), *ATTRIBUTES.values()]


def by_hand(x: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """SemAxis written out word by word (one layer, ``[n, dim]`` each)."""
    axis = sum(a) / len(a) - sum(b) / len(b)

    def cos(u: np.ndarray) -> float:
        return float(np.dot(u, axis) / (np.sqrt(np.dot(u, u)) * np.sqrt(np.dot(axis, axis))))

    return sum(cos(w) for w in x) / len(x) - sum(cos(w) for w in y) / len(y)


def test_equals_the_definition_on_glove(glove: WordEmbedder) -> None:
    run = wordlens.run("semaxis", glove, query=QUERY, bootstrap=0, permutations=0)
    table = run.tables["scores"]
    assert list(table["part"]) == ["all sets"] and list(table["layer"]) == [0]
    expected = by_hand(*(glove_vectors(s) for s in SETS))
    assert table["value"].item() == pytest.approx(expected, abs=1e-6)
    assert expected > 0.1  # instruments lie nearer the pleasant pole than weapons


def test_one_layer_of_minilm_equals_the_definition(minilm: WordEmbedder) -> None:
    run = wordlens.run("semaxis", minilm, query=QUERY, layers=[3], bootstrap=0, permutations=0)
    table = run.tables["scores"]
    vectors = [
        np.asarray(minilm.embed(targets_from_template(s), layers=[3]).vectors[:, 0, :], float)
        for s in SETS
    ]
    assert list(table["layer"]) == [3]
    assert table["value"].item() == pytest.approx(by_hand(*vectors), rel=1e-4)


def test_python_run_has_interval_and_p(glove: WordEmbedder) -> None:
    run = wordlens.run("semaxis", glove, query=QUERY, bootstrap=100, permutations=100)
    row = run.tables["scores"].iloc[0]
    assert row["ci_low"] <= row["value"] <= row["ci_high"]
    assert 1 / 101 <= row["p_value"] <= 1
    assert row["n_targets"] == 11 and row["n_attributes"] == 13


def test_command_writes_a_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(YAML)
    out = tmp_path / "out"
    options = ["--bootstrap", "50", "--permutations", "50"]
    result = CliRunner().invoke(
        app, ["semaxis", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    assert "SemAxis" in (out / "report.html").read_text()


def test_one_word_per_set(glove: WordEmbedder) -> None:
    query = {"targets": {"x": ["guitar"], "y": ["gun"]}, "attributes": {"a": ["joy"], "b": ["war"]}}
    run = wordlens.run("semaxis", glove, query=query, bootstrap=20, permutations=20)
    x, y, a, b = glove_vectors(["guitar", "gun", "joy", "war"])
    assert run.tables["scores"]["value"].item() == pytest.approx(
        by_hand(x[None], y[None], a[None], b[None])
    )


def test_poles_with_the_same_mean_give_nan() -> None:
    a = glove_vectors(["joy", "war"])[:, None, :]  # [2, 1, 50]
    x = glove_vectors(["guitar", "violin"])[:, None, :]
    value = SemAxis().score([x, x[::-1]], [a, a[::-1]], AssociationConfig())
    assert value.shape == (1,) and np.isnan(value).all()
    # a constant target set: both sets the same word vector give 0, not NaN
    same = SemAxis().score([x[:1], x[:1]], [a[:1], a[1:]], AssociationConfig())
    assert same == pytest.approx([0.0])
