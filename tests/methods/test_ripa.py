"""RIPA (Ethayarajh, Duvenaud & Hirst 2019): WEFE 1.0.1's ``RIPA`` on GloVe 6B 50d (the
``relation="pairs"`` variant), the paper's first principal component computed here with numpy
on GloVe and on minilm-l6 at one layer, a run in Python and on the command line, and the edges
(target sets of different sizes, a single pair, identical pairs).

WEFE's RIPA takes one attribute set per query (its template is ``(2, 1)``) and averages
``w · (x_i - y_i) / ||x_i - y_i||`` over the pairs and the attribute words; the GloVe vectors
reach it as float64 gensim ``KeyedVectors`` built straight from the package files.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner
from wefe.metrics import RIPA
from wefe.query import Query as WefeQuery

import wordlens
from tests.peer_data import glove_vectors, wefe_glove
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.errors import WordSetError
from wordlens.models.base import WordEmbedder

TARGETS = {
    "instruments": ["guitar", "violin", "piano", "flute", "drum", "trumpet"],
    "weapons": ["gun", "sword", "rifle", "bomb", "knife", "missile"],
}
ATTRIBUTES = {
    "pleasant": ["love", "peace", "joy", "gentle", "happy", "friend"],
    "unpleasant": ["hate", "war", "death", "evil", "ugly", "poison"],
}
QUERY = {"targets": TARGETS, "attributes": ATTRIBUTES}
YAML = """\
targets:
  instruments: [guitar, violin, piano, flute, drum, trumpet]
  weapons: [gun, sword, rifle, bomb, knife, missile]
attributes:
  pleasant: [love, peace, joy, gentle, happy, friend]
  unpleasant: [hate, war, death, evil, ugly, poison]
"""
SETS = [*TARGETS.values(), *ATTRIBUTES.values()]


def paper_ripa(x: np.ndarray, y: np.ndarray, words: np.ndarray) -> float:
    """RIPA written out: b = the first right singular vector of the stacked differences
    x_i - y_i (uncentred), signed towards X; the mean of w · b over the attribute words."""
    differences = x - y
    _, _, right = np.linalg.svd(differences)
    b = right[0] if right[0] @ differences.sum(axis=0) >= 0 else -right[0]
    return float((words @ b).mean())


def ours(model: WordEmbedder, **options: object) -> pd.DataFrame:
    run = wordlens.run("ripa", model, query=QUERY, bootstrap=0, permutations=0, **options)
    return run.tables["scores"].set_index("part")


def test_the_pairs_variant_equals_wefe_on_glove(glove: WordEmbedder) -> None:
    model = wefe_glove(w for s in SETS for w in s)
    table = ours(glove, relation="pairs")
    for name, attribute in ATTRIBUTES.items():
        query = WefeQuery(
            target_sets=list(TARGETS.values()),
            attribute_sets=[attribute],
            target_sets_names=list(TARGETS),
            attribute_sets_names=[name],
        )
        peer = RIPA().run_query(query, model, preprocessors=[{}])
        assert table.loc[name, "value"] == pytest.approx(float(peer["ripa"]), abs=1e-6)
    # instruments (X) lean pleasant, weapons (Y) unpleasant
    assert table.loc["pleasant", "value"] > 0 > table.loc["unpleasant", "value"]


def test_the_paper_relation_vector_on_glove(glove: WordEmbedder) -> None:
    table = ours(glove)
    x, y = glove_vectors(TARGETS["instruments"]), glove_vectors(TARGETS["weapons"])
    for name, attribute in ATTRIBUTES.items():
        expected = paper_ripa(x, y, glove_vectors(attribute))
        assert table.loc[name, "value"] == pytest.approx(expected, abs=1e-6)
    assert table.loc["pleasant", "value"] > 0 > table.loc["unpleasant", "value"]


def test_one_layer_of_minilm_equals_numpy(minilm: WordEmbedder) -> None:
    table = ours(minilm, layers=[3])
    assert list(table["layer"]) == [3, 3]
    vectors = [
        np.asarray(minilm.embed(targets_from_template(s), layers=[3]).vectors[:, 0, :], float)
        for s in SETS
    ]
    x, y, a, b = vectors
    for name, words in (("pleasant", a), ("unpleasant", b)):
        assert table.loc[name, "value"] == pytest.approx(paper_ripa(x, y, words), rel=1e-4)


def test_python_run_has_paired_interval_and_p(glove: WordEmbedder) -> None:
    run = wordlens.run("ripa", glove, query=QUERY, bootstrap=100, permutations=100)
    table = run.tables["scores"]
    assert list(table["part"]) == ["pleasant", "unpleasant"]
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    assert table["p_value"].between(1 / 100, 1).all()
    assert "target pairs" in run.metadata["uncertainty"]["interval"]
    assert run.metadata["config"]["layers"] == [0]


def test_command_writes_a_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(YAML)
    out = tmp_path / "out"
    options = ["--bootstrap", "50", "--permutations", "50", "--relation", "pairs"]
    result = CliRunner().invoke(
        app, ["ripa", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    assert "RIPA" in (out / "report.html").read_text()


def test_target_sets_of_different_sizes_are_refused(glove: WordEmbedder) -> None:
    query = {"targets": {"x": ["guitar", "violin"], "y": ["gun"]}, "attributes": ATTRIBUTES}
    with pytest.raises(WordSetError, match="same number of words, not 2 and 1"):
        wordlens.run("ripa", glove, query=query, bootstrap=0, permutations=0)
    # every pair loses a word: nothing is left to pair
    lacking = {
        "targets": {"x": ["guitar", "qzxqzxqzx"], "y": ["zzqqxxyy", "sword"]},
        "attributes": ATTRIBUTES,
    }
    with pytest.raises(WordSetError, match="every pair lost a word: 'guitar' / 'zzqqxxyy'"):
        wordlens.run("ripa", glove, query=lacking, bootstrap=0, permutations=0)


BROKEN = {
    "targets": {
        "male": ["he", "man", "qzxqzxq", "father"],
        "female": ["she", "woman", "girl", "zzqqxxyy"],
    },
    "attributes": {
        "male jobs": ["engineer", "carpenter", "mechanic", "plumber"],
        "female jobs": ["nurse", "secretary", "receptionist", "librarian"],
    },
}


def test_a_pair_that_loses_a_word_loses_both(glove: WordEmbedder, tmp_path: Path) -> None:
    """Pairs by position: (qzxqzxq, girl) and (father, zzqqxxyy) lose a word each, so both
    pairs go whole. The value is that of the two whole pairs (numpy on the package's vectors),
    never father paired with girl; both words of each dropped pair are named, with why, in the
    metadata, the console and the report, of ``ripa`` and of ``associations``."""
    run = wordlens.run("ripa", glove, query=BROKEN, bootstrap=0, permutations=0)
    table = run.tables["scores"].set_index("part")
    he, man, she, woman = glove_vectors(["he", "man", "she", "woman"])
    for part, words in BROKEN["attributes"].items():
        expected = paper_ripa(np.stack([he, man]), np.stack([she, woman]), glove_vectors(words))
        assert table.loc[part, "value"] == pytest.approx(expected, abs=1e-9)
    shifted = paper_ripa(
        glove_vectors(["he", "man", "father"]),
        glove_vectors(["she", "woman", "girl"]),
        glove_vectors(BROKEN["attributes"]["male jobs"]),
    )
    assert table.loc["male jobs", "value"] != pytest.approx(shifted, abs=1e-6)
    assert run.metadata["left_out"] == {
        "male": ["qzxqzxq", "father"],
        "female": ["girl", "zzqqxxyy"],
    }
    why = run.metadata["why_left_out"]
    assert why["qzxqzxq"] == why["zzqqxxyy"] == "not in the vocabulary"
    assert why["girl"].startswith("its pair partner 'qzxqzxq' is left out (not in the vocab")
    assert why["father"].startswith("its pair partner 'zzqqxxyy' is left out")
    assert set(table["n_targets"]) == {4}

    query = tmp_path / "broken.yaml"
    query.write_text(json.dumps(BROKEN))
    for command in ("ripa", "associations"):
        out = tmp_path / command
        result = CliRunner().invoke(
            app,
            [command, "-m", "glove-6b-50d", "--query", str(query), "--out", str(out),
             "--bootstrap", "0", "--permutations", "0"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        shown = " ".join(result.output.split())
        report = (out / "report.html").read_text(encoding="utf-8")
        for text in (shown, report):
            assert "qzxqzxq" in text and "zzqqxxyy" in text
            assert "father" in text and "girl" in text
            assert "its pair partner" in text
    combined = wordlens.run("associations", glove, query=BROKEN, bootstrap=0, permutations=0)
    assert combined.metadata["left_out"] == {"male": ["qzxqzxq"], "female": ["zzqqxxyy"]}
    assert combined.metadata["left_out_by_metric"] == {"ripa": run.metadata["left_out"]}
    rnd = combined.tables["scores"].query("metric == 'rnd'")
    assert set(rnd["n_targets"]) == {6}  # the other metrics keep father and girl


GENDERED = {
    "targets": {
        "male": ["he", "man", "king", "father", "boy", "brother", "son", "husband"],
        "female": ["she", "woman", "queen", "mother", "girl", "sister", "daughter", "wife"],
    },
    "attributes": {
        "male occupations": [
            "engineer", "carpenter", "mechanic", "plumber",
            "electrician", "programmer", "pilot", "architect",
        ],
        "female occupations": [
            "nurse", "secretary", "receptionist", "librarian",
            "hairdresser", "housekeeper", "nanny", "dietitian",
        ],
    },
}  # fmt: skip


def test_the_default_test_can_reject(glove: WordEmbedder) -> None:
    """The issue's query (gendered pairs × male / female occupations, GloVe 6B 50d).

    Swapping the words of pair i flips row i of D = [x_i - y_i], which leaves DᵀD and so the
    first principal component unchanged up to sign: |RIPA| is the same under all 2^8 swaps,
    so a within-pair test could only give p = 1 (checked by brute force). The default test
    partitions the 16 attribute words instead; its p equals the share of all C(16, 8) = 12,870
    partitions (enumerated here with numpy) whose |mean β_A - mean β_B| reaches the observed
    one, and is below 0.05."""
    x, y = glove_vectors(GENDERED["targets"]["male"]), glove_vectors(GENDERED["targets"]["female"])
    a = glove_vectors(GENDERED["attributes"]["male occupations"])
    b = glove_vectors(GENDERED["attributes"]["female occupations"])
    observed = abs(paper_ripa(x, y, a))
    for swaps in itertools.product([False, True], repeat=len(x)):
        swap = np.array(swaps)[:, None]
        swapped = abs(paper_ripa(np.where(swap, y, x), np.where(swap, x, y), a))
        assert swapped == pytest.approx(observed, rel=1e-9)

    differences = x - y
    _, _, right = np.linalg.svd(differences)
    relation = right[0] if right[0] @ differences.sum(axis=0) >= 0 else -right[0]
    beta = np.concatenate([a, b]) @ relation  # [16]
    gap = abs(beta[:8].mean() - beta[8:].mean())
    chosen = np.array(list(itertools.combinations(range(16), 8)))  # [12870, 8]
    inside = np.zeros((len(chosen), 16), dtype=bool)
    np.put_along_axis(inside, chosen, True, axis=1)
    gaps = np.abs((inside @ beta) / 8 - (~inside @ beta) / 8)
    exact = float(np.mean(gaps >= gap - 1e-12))

    run = wordlens.run("ripa", glove, query=GENDERED, bootstrap=200, permutations=20_000)
    table = run.tables["scores"].set_index("part")
    assert table.loc["male occupations", "value"] > 0 > table.loc["female occupations", "value"]
    assert table["exact_p"].all() and set(table["n_relabellings"]) == {12_870}
    assert table["p_value"].tolist() == pytest.approx([exact, exact], abs=1e-12)
    assert exact < 0.05
    assert "partitions of the part's attribute words" in run.metadata["uncertainty"]["p_value"]


def test_a_single_pair_is_its_unit_difference_in_both_variants(glove: WordEmbedder) -> None:
    query = {
        "targets": {"x": ["he"], "y": ["she"]},
        "attributes": {"a": ["doctor"], "b": ["nurse"]},
    }
    x, y, doctor = glove_vectors(["he", "she", "doctor"])
    expected = float(doctor @ (x - y) / np.linalg.norm(x - y))
    for relation in ("pc", "pairs"):
        run = wordlens.run(
            "ripa", glove, query=query, relation=relation, bootstrap=20, permutations=0
        )
        assert run.tables["scores"].set_index("part").loc["a", "value"] == pytest.approx(expected)


def test_identical_pairs_give_nan_not_an_error(glove: WordEmbedder) -> None:
    from wordlens.methods.ripa import Ripa, RipaConfig

    x = glove_vectors(["guitar", "violin"])[:, None, :]  # [2, 1, 50]
    words = glove_vectors(["love", "peace"])[:, None, :]
    for relation in ("pc", "pairs"):
        value = Ripa().score([x, x.copy()], [words], RipaConfig(relation=relation))
        assert value.shape == (1,) and np.isnan(value).all()
