"""Top-PC probes (VAST, Wolfe & Caliskan 2022): CoLA acceptability and last-word POS on real
models, small seeded samples of CoLA and a tagger trained on 1,000 EWT sentences."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.vast.top_pcs import run_cola_probe, run_pos_probe
from wordlens.models.base import WordEmbedder
from wordlens.resources import PosTagger, load_tagger
from wordlens.results import Result

COLUMNS = ["task", "source", "representation", "k", "f1_weighted", "converged", "n_train", "n_test"]


@pytest.fixture(scope="module")
def tagger(shared: Path) -> PosTagger:
    return load_tagger(500)  # 0.85 on EWT dev; cached in the test home after the first run


def gain(table: pd.DataFrame, task: str, source: str) -> float:
    """F1 of the unaltered vectors minus that of the majority baseline."""
    f1 = table.set_index(["task", "source", "representation"])["f1_weighted"]
    return float(f1[task, source, "unaltered"] - f1[task, source, "majority"])


def test_pos_probe_minilm(minilm: WordEmbedder, tagger: PosTagger) -> None:
    result = run_pos_probe(minilm, [2], n_train=300, n_test=200, tagger=tagger, seed=0)
    table = result.table
    assert list(table.columns) == COLUMNS
    assert len(table) == 2 * 2 * 4  # tasks x sources x (majority, unaltered, top_pcs, rest)
    assert (table[["n_train", "n_test"]] == [300, 200]).all().all()
    assert table["converged"].all()
    # measured gains over the majority baseline: last word 0.22 (binary, 0.50 -> 0.72) and
    # 0.25 (multiclass, 0.37 -> 0.62); previous word 0.20 and 0.13
    assert gain(table, "pos_binary", "last_word") > 0.11
    assert gain(table, "pos_multiclass", "last_word") > 0.12
    assert gain(table, "pos_binary", "previous_word") > 0.1
    assert gain(table, "pos_multiclass", "previous_word") > 0.06
    assert result.metadata["tagger"]["n_sentences"] == 500
    assert result.metadata["config"]["layer"] == 6


def test_cola_probe_minilm(minilm: WordEmbedder, tmp_path: Path) -> None:
    result = run_cola_probe(minilm, [1, 4], n_train=100, n_test=50, seed=2)
    table = result.table
    assert list(table["representation"]) == [
        "majority", "unaltered", "top_pcs", "pcs_removed", "top_pcs", "pcs_removed",
    ]  # fmt: skip
    assert list(table["k"]) == [0, 0, 1, 1, 4, 4]
    assert set(table["task"]) == {"cola"} and set(table["source"]) == {"last_token"}
    assert table["f1_weighted"].between(0, 1).all()
    result.write(tmp_path)
    back = Result.read(tmp_path, "top_pcs_cola")
    pd.testing.assert_frame_equal(back.table, table)
    assert back.metadata["config"]["seed"] == 2


def test_pos_probe_smollm2(smollm2: WordEmbedder, tagger: PosTagger) -> None:
    result = run_pos_probe(smollm2, [2], n_train=60, n_test=40, tagger=tagger, seed=0)
    assert result.metadata["config"]["layer"] == 30
    assert len(result.table) == 16 and result.table["converged"].all()
    # measured gains over the majority baseline: last word 0.18 (binary, 0.64 -> 0.82) and
    # 0.14 (multiclass, 0.45 -> 0.59); previous word 0.11 and 0.11
    assert gain(result.table, "pos_binary", "last_word") > 0.09
    assert gain(result.table, "pos_multiclass", "last_word") > 0.07
    assert gain(result.table, "pos_binary", "previous_word") > 0.05
    assert gain(result.table, "pos_multiclass", "previous_word") > 0.05


def test_bad_input(minilm: WordEmbedder, glove: WordEmbedder, tagger: PosTagger) -> None:
    with pytest.raises(WordlensError, match="glove-6b-50d is a static model"):
        run_cola_probe(glove, [1], n_train=10, n_test=10)
    with pytest.raises(WordlensError, match=r"k_values \[10\] out of range: each must be in 1..9"):
        run_cola_probe(minilm, [1, 10], n_train=10, n_test=10)
    with pytest.raises(EmptyInputError, match="no numbers of principal components"):
        run_cola_probe(minilm, [], n_train=10, n_test=10)
    with pytest.raises(WordlensError, match=r"sample size 400 for out_of_domain_dev .* 2..354"):
        run_pos_probe(minilm, [1], n_train=10, n_test=400, tagger=tagger)
