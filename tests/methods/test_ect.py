"""Embedding coherence test (Dev & Phillips 2019) on real vectors: equal to WEFE 1.0.1's ``ECT``
on GloVe 6B 50d, to scipy's Spearman correlation over minilm-l6's vectors at one layer, run from
Python and from the command line, and NaN where a correlation is undefined.

WEFE's ``ECT`` takes one attribute set, the vectors as they are (``normalize=False``) and
``scipy.stats.spearmanr``: the same definition as ours, one part per attribute set.
"""

from __future__ import annotations

import html
import itertools
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import cosine
from scipy.stats import spearmanr
from typer.testing import CliRunner
from wefe.metrics import ECT
from wefe.query import Query as WefeQuery

import wordlens
from tests.peer_data import caliskan_query, glove_vectors, query_words, raw_glove, wefe_glove
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.methods.ect.metric import embedding_coherence
from wordlens.methods.registry import get_method
from wordlens.models.base import WordEmbedder


def _values(run: wordlens.Run) -> dict[str, float]:
    table = run.tables["scores"]
    assert set(table["layer"]) == {0}
    return dict(zip(table["part"], table["value"], strict=True))


@pytest.mark.parametrize("test", [1, 6, 7])
def test_equals_wefe_ect(glove: WordEmbedder, test: int) -> None:
    query = caliskan_query(test)
    model = wefe_glove(query_words(query))
    values = _values(wordlens.run("ect", glove, query=query, bootstrap=0, permutations=0))
    names, targets = list(query["targets"]), list(query["targets"].values())
    for name, attribute_words in query["attributes"].items():
        peer = ECT().run_query(
            WefeQuery(targets, [attribute_words], names, [name]), model, preprocessors=[{}]
        )
        assert values[name] == pytest.approx(peer["ect"], abs=1e-6)
        assert -1 <= values[name] <= 1


def test_one_layer_of_minilm_equals_scipy_spearman(minilm: WordEmbedder) -> None:
    query = {
        "targets": {"male": ["he", "man", "boy", "father"], "female": ["she", "woman", "girl"]},
        "attributes": {
            "jobs": ["nurse", "engineer", "teacher", "doctor", "pilot", "chef"],
            "traits": ["kind", "strong", "gentle", "brave", "smart"],
        },
    }
    run = wordlens.run("ect", minilm, query=query, layers=[3], bootstrap=0, permutations=0)
    table = run.tables["scores"]

    def vectors(words: list[str]) -> np.ndarray:
        embedded = minilm.embed(targets_from_template(words), layers=[3])
        return np.asarray(embedded.vectors, dtype=np.float64)[:, 0, :]

    means = [vectors(words).mean(axis=0) for words in query["targets"].values()]
    for name, words in query["attributes"].items():
        rows = vectors(words)
        lists = [[1 - cosine(row, mean) for row in rows] for mean in means]
        expected = spearmanr(lists[0], lists[1]).statistic
        value = float(table.loc[table["part"] == name, "value"].iloc[0])
        assert value == pytest.approx(expected, abs=1e-9)


def test_python_run_has_an_interval_and_a_one_sided_permutation_p(glove: WordEmbedder) -> None:
    """ECT is 1 without bias and lower with it: the permutation p counts the partitions whose
    rho is at most the observed one. 4 + 4 target words have 70 partitions, all enumerated
    here; the sampled p tends to their share."""
    query = {
        "targets": {"male": ["he", "man", "boy", "father"],
                    "female": ["she", "woman", "girl", "mother"]},
        "attributes": {"career": ["executive", "management", "salary", "office", "business"],
                       "family": ["home", "parents", "children", "marriage", "relatives"]},
    }  # fmt: skip
    run = wordlens.run("ect", glove, query=query, bootstrap=100, permutations=20_000, seed=1)
    table = run.tables["scores"]
    assert list(table["part"]) == ["career", "family"]
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    assert run.metadata["uncertainty"]["p_value"].startswith("one-sided (values at most")
    vectors, row_of = raw_glove()
    words = [*query["targets"]["male"], *query["targets"]["female"]]
    pooled = np.asarray(vectors[[row_of[w] for w in words]], dtype=np.float64)[:, None]
    for part, attribute_words in query["attributes"].items():
        attributes = np.asarray(vectors[[row_of[w] for w in attribute_words]], np.float64)[:, None]
        observed = embedding_coherence(pooled[:4], pooled[4:], attributes)[0]
        at_most = 0
        partitions = list(itertools.combinations(range(8), 4))
        for chosen in partitions:
            rest = [i for i in range(8) if i not in chosen]
            rho = embedding_coherence(pooled[list(chosen)], pooled[rest], attributes)[0]
            at_most += rho <= observed + 1e-12
        exact = at_most / len(partitions)
        sampled = float(table.loc[table["part"] == part, "p_value"].iloc[0])
        assert sampled == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4)


def test_command_line_writes_the_report(tmp_path: Path) -> None:
    query = tmp_path / "q.yaml"
    query.write_text(
        "targets:\n  male: [he, man, boy, father]\n  female: [she, woman, girl, mother]\n"
        "attributes:\n  jobs: [nurse, engineer, teacher, doctor, pilot]\n"
        "  traits: [kind, strong, gentle, brave]\n",
        encoding="utf-8",
    )
    out = tmp_path / "ect"
    arguments = ["ect", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out)]
    result = CliRunner().invoke(app, [*arguments, "--bootstrap", "20", "--permutations", "0"])
    assert result.exit_code == 0, result.output
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Embedding coherence test" in report and "Dev &amp; Phillips" in report


def test_undefined_correlations_are_nan(glove: WordEmbedder) -> None:
    """A correlation with a constant list is undefined: one attribute word (one rank), or
    attribute words with identical vectors (their cosines all tie)."""
    one = {
        "targets": {"male": ["he", "man"], "female": ["she", "woman"]},
        "attributes": {"jobs": ["nurse"], "traits": ["kind", "strong"]},
    }
    run = wordlens.run("ect", glove, query=one, bootstrap=20, permutations=0)
    values = _values(run)
    assert np.isnan(values["jobs"])
    # two attribute words: rho is +1 or -1, never in between
    assert abs(values["traits"]) == pytest.approx(1.0)
    jobs = run.tables["scores"].query("part == 'jobs'")
    assert jobs["ci_low"].isna().all() and jobs["ci_high"].isna().all()
    (note,) = [n for n in run.metadata["notes"] if n.startswith("ECT of jobs")]
    assert note.startswith("ECT of jobs is undefined (NaN) at layer(s) 0: it has one attribute")
    assert "ECT (jobs): 'jobs' has one word, so the bootstrap interval" in run.metadata["notes"][0]
    assert html.escape(note) in get_method("ect").report(run).render()
    male, female = (
        glove_vectors(["he", "man"])[:, None, :],
        glove_vectors(["she", "woman"])[:, None, :],
    )
    same = np.repeat(
        glove_vectors(["nurse"])[:, None, :], 3, axis=0
    )  # [3, 1, 50], one vector thrice
    assert np.isnan(embedding_coherence(male, female, same)).all()
    # identical target sets order any attribute words alike: rho = 1
    jobs_vectors = glove_vectors(["nurse", "engineer", "teacher", "pilot"])[:, None, :]
    assert embedding_coherence(male, male, jobs_vectors) == pytest.approx([1.0])
