"""RNSB (Sweeney & Najafian 2019): WEFE 1.0.1's ``RNSB`` on GloVe 6B 50d with the same random
states, with and without its holdout split; the definition written out here with scikit-learn
and scipy on minilm-l6 at one layer; a run in Python and on the command line; and the edges
(attribute sets too small for a holdout split, a constant target set, no permutation test).

WEFE trains on ``attribute_sets[0]`` as the positive class and ``attribute_sets[1]`` as the
negative one, and its ``random_state`` seeds both the stratified 80/20 split and liblinear; a
WEFE run with ``random_state=k`` is our fit ``k`` (seed 0), so the mean over WEFE's runs with
``k = 0 .. fits - 1`` is our value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import entropy
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from typer.testing import CliRunner
from wefe.metrics import RNSB
from wefe.query import Query as WefeQuery

import wordlens
from tests.peer_data import glove_vectors, wefe_glove
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.errors import WordSetError
from wordlens.methods.rnsb import Rnsb, RnsbConfig
from wordlens.models.base import WordEmbedder
from wordlens.options import OptionError

TARGETS = {
    "instruments": ["guitar", "violin", "piano", "flute", "drum", "trumpet"],
    "weapons": ["gun", "sword", "rifle", "bomb", "knife"],
}
ATTRIBUTES = {
    "pleasant": ["love", "peace", "joy", "gentle", "happy", "friend", "heaven", "honest"],
    "unpleasant": ["hate", "war", "death", "evil", "ugly", "poison", "agony", "prison", "filth"],
}
QUERY = {"targets": TARGETS, "attributes": ATTRIBUTES}
YAML = """\
targets:
  instruments: [guitar, violin, piano, flute, drum, trumpet]
  weapons: [gun, sword, rifle, bomb, knife]
attributes:
  pleasant: [love, peace, joy, gentle, happy, friend, heaven, honest]
  unpleasant: [hate, war, death, evil, ugly, poison, agony, prison, filth]
"""
SETS = [*TARGETS.values(), *ATTRIBUTES.values()]
FITS = 3


def by_hand(vectors: list[np.ndarray], state: int, holdout: bool) -> float:
    """RNSB of one fit written out (one layer, ``[n, dim]`` each): B is the negative class."""
    x, y, a, b = vectors
    words, labels = np.vstack([a, b]), np.array([1] * len(a) + [-1] * len(b))
    if holdout:
        words, _, labels, _ = train_test_split(
            words, labels, test_size=0.2, random_state=state, stratify=labels
        )
    classifier = LogisticRegression(solver="liblinear", max_iter=10000, random_state=state)
    classifier.fit(words, labels)
    negative = classifier.predict_proba(np.vstack([x, y]))[:, list(classifier.classes_).index(-1)]
    return float(entropy(negative / negative.sum(), np.full(len(negative), 1 / len(negative))))


@pytest.mark.parametrize("holdout", [True, False])
def test_equals_wefe_on_glove_with_the_same_random_states(
    glove: WordEmbedder, holdout: bool
) -> None:
    model = wefe_glove(w for s in SETS for w in s)
    query = WefeQuery(
        target_sets=list(TARGETS.values()),
        attribute_sets=list(ATTRIBUTES.values()),
        target_sets_names=list(TARGETS),
        attribute_sets_names=list(ATTRIBUTES),
    )
    peer = [
        float(RNSB().run_query(query, model, random_state=k, holdout=holdout)["rnsb"])
        for k in range(FITS)
    ]
    run = wordlens.run(
        "rnsb", glove, query=QUERY, fits=FITS, holdout=holdout, bootstrap=0, permutations=0
    )
    row = run.tables["scores"].iloc[0]
    assert row["value"] == pytest.approx(np.mean(peer), abs=1e-6)
    assert row["fits_sd"] == pytest.approx(np.std(peer, ddof=1), abs=1e-6)
    assert row["value"] > 0 and 0.5 < row["accuracy"] <= 1


def test_one_layer_of_minilm_equals_the_definition(minilm: WordEmbedder) -> None:
    run = wordlens.run(
        "rnsb", minilm, query=QUERY, layers=[3], fits=FITS, seed=5, bootstrap=0, permutations=0
    )
    row = run.tables["scores"].iloc[0]
    vectors = [
        np.asarray(minilm.embed(targets_from_template(s), layers=[3]).vectors[:, 0, :], float)
        for s in SETS
    ]
    expected = [by_hand(vectors, state, holdout=True) for state in range(5, 5 + FITS)]
    assert row["layer"] == 3
    assert row["value"] == pytest.approx(np.mean(expected), rel=1e-4)
    assert row["fits_sd"] == pytest.approx(np.std(expected, ddof=1), rel=1e-3, abs=1e-7)


def test_python_run_has_spread_and_no_permutation_test(glove: WordEmbedder) -> None:
    run = wordlens.run("rnsb", glove, query=QUERY, fits=2, bootstrap=100, permutations=100)
    row = run.tables["scores"].iloc[0]
    assert row["ci_low"] <= row["value"] <= row["ci_high"]
    assert np.isnan(row["p_value"]) and row["fits_sd"] >= 0
    uncertainty = run.metadata["uncertainty"]
    assert uncertainty["p_value"].startswith("none: RNSB pools")
    assert "2 logistic regressions" in uncertainty["spread"]


def test_command_writes_a_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(YAML)
    out = tmp_path / "out"
    options = ["--fits", "2", "--no-holdout"]
    result = CliRunner().invoke(
        app, ["rnsb", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    report = (out / "report.html").read_text()
    assert "RNSB" in report and "fits_sd" in report


def test_tiny_attribute_sets_need_no_holdout(glove: WordEmbedder) -> None:
    query = {"targets": TARGETS, "attributes": {"a": ["joy", "love"], "b": ["war", "hate"]}}
    with pytest.raises(WordSetError, match="too small for a stratified 80/20 holdout"):
        wordlens.run("rnsb", glove, query=query, bootstrap=0, permutations=0)
    run = wordlens.run("rnsb", glove, query=query, holdout=False, bootstrap=0, permutations=0)
    vectors = [glove_vectors(s) for s in [*TARGETS.values(), ["joy", "love"], ["war", "hate"]]]
    expected = np.mean([by_hand(vectors, state, holdout=False) for state in range(10)])
    assert run.tables["scores"]["value"].item() == pytest.approx(expected, abs=1e-6)


def test_a_constant_target_set_is_uniform() -> None:
    x = np.repeat(glove_vectors(["guitar"])[:, None, :], 3, axis=0)  # [3, 1, 50]
    a = glove_vectors(ATTRIBUTES["pleasant"])[:, None, :]
    b = glove_vectors(ATTRIBUTES["unpleasant"])[:, None, :]
    value = Rnsb().score([x, x[:2]], [a, b], RnsbConfig(fits=2))
    assert value == pytest.approx([0.0], abs=1e-12)


def test_fits_below_one_are_refused(glove: WordEmbedder) -> None:
    with pytest.raises(OptionError, match="fits: must be >= 1"):
        wordlens.run("rnsb", glove, query=QUERY, fits=0)
