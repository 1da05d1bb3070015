"""Likelihood bias (eq. 6) end to end on real models: minilm-l6-mlm (AUL, PLL) and smollm2-135m
(causal), on constructed pairs with known answers and on samples of the three benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.likelihood_bias import LikelihoodBiasConfig
from wordlens.methods.likelihood_bias.compute import run_likelihood_bias, table3
from wordlens.methods.likelihood_bias.report import build_likelihood_report, write_paper_figures
from wordlens.models.scoring import LMScorer, ScoringMethod, SentenceScores, load_scorer
from wordlens.resources.bias_benchmarks import load_bias_pairs

FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
"""The files each paper figure is written as."""

FLUENT = [
    "The children played in the park after school.",
    "She poured a cup of hot coffee for her friend.",
    "We walked home slowly because it was raining.",
    "He read the newspaper while eating his breakfast.",
]


@pytest.fixture(scope="module")
def masked(shared: Path) -> LMScorer:
    return load_scorer(str(shared / "models" / "minilm-l6-mlm"))


@pytest.fixture(scope="module")
def causal() -> LMScorer:
    return load_scorer("smollm2-135m")


class CountingScorer(LMScorer):
    """The real scorer, recording the sentences of every call."""

    def __init__(self, scorer: LMScorer) -> None:
        self.__dict__.update(scorer.__dict__)
        self.calls: list[tuple[list[ScoringMethod], list[str]]] = []

    def score_methods(
        self, sentences: Sequence[str], methods: Sequence[ScoringMethod], *, progress: bool = False
    ) -> dict[ScoringMethod, SentenceScores]:
        self.calls.append((list(methods), list(sentences)))
        return super().score_methods(sentences, methods, progress=progress)


def _pairs(stereo: list[str], anti: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": [str(i) for i in range(len(stereo))],
            "category": ["constructed"] * len(stereo),
            "sentence_stereo": stereo,
            "sentence_anti": anti,
        }
    )


def test_known_answers_on_the_causal_model(causal: LMScorer) -> None:
    scrambled = [" ".join(reversed(sentence.rstrip(".").split())) + "." for sentence in FLUENT]
    run = run_likelihood_bias(
        causal,
        LikelihoodBiasConfig(bootstrap=300),
        pairs={
            "fluent": _pairs(FLUENT, scrambled),
            "scrambled": _pairs(scrambled, FLUENT),
            "same": _pairs(FLUENT, list(FLUENT)),
        },
    )
    scores = run.tables["bias_scores"].query("level == 'all'").set_index(["benchmark", "method"])
    for method in ("causal_sum", "causal_mean"):
        fluent = scores.loc[("fluent", method)]
        assert fluent["bias_score"] == 50.0 and (fluent["ci_low"], fluent["ci_high"]) == (50, 50)
        assert scores.loc[("scrambled", method), "bias_score"] == -50.0
        same = scores.loc[("same", method)]
        assert (same["bias_score"], same["n_ties"], same["n_stereo_higher"]) == (-50.0, 4, 0)
    assert run.metadata["n_sentences"] == 8  # FLUENT and scrambled, each scored once
    # causal_sum and causal_mean read the same passes: one timed stage, one rate
    assert "score_causal_sum+causal_mean" in run.metadata["timings_s"]
    assert list(run.metadata["sentences_per_second"]) == ["causal_sum+causal_mean"]
    table = run.tables["table3"]
    assert list(table["benchmark"]) == ["fluent", "scrambled", "same"]
    assert list(table.columns[:5]) == ["benchmark", "group", "n", "causal_sum", "causal_sum_ci_low"]
    assert list(table["causal_mean_ci_high"]) == [50.0, -50.0, -50.0]
    assert (table["n"] == 4).all() and run.metadata["model"]["kind"] == "causal"


def test_benchmark_samples_on_the_masked_model(masked: LMScorer) -> None:
    counting = CountingScorer(masked)
    config = LikelihoodBiasConfig(
        benchmarks=("sssb", "crows", "stereoset"), methods=("aul", "pll"), sample=3, bootstrap=200
    )
    run = run_likelihood_bias(counting, config)
    pair_scores = run.tables["pair_scores"]
    assert pair_scores.groupby(["benchmark", "method"]).size().eq(3).all()
    # One call per method over the distinct sentences of every pair.
    assert [methods for methods, _ in counting.calls] == [["aul"], ["pll"]]
    sentences = counting.calls[0][1]
    assert len(sentences) == len(set(sentences)) == run.metadata["n_sentences"]
    pll = pair_scores.query("method == 'pll'")
    assert set(sentences) == {*pll["sentence_stereo"], *pll["sentence_anti"]}
    # Pair scores are the scorer's own scores of the two sentences (batched with others).
    for method, some in (("pll", pll.iloc[:1]), ("aul", pair_scores.query("method == 'aul'"))):
        direct = masked.score([*some["sentence_stereo"], *some["sentence_anti"]], method).scores
        expected = [*some["score_stereo"], *some["score_anti"]]
        np.testing.assert_allclose(direct, expected, atol=1e-5)
    # The bias score is eq. 6 of the pair scores, at every level.
    scores = run.tables["bias_scores"]
    for row in scores.itertuples():
        rows = pair_scores[
            (pair_scores["benchmark"] == row.benchmark) & (pair_scores["method"] == row.method)
        ]
        if row.level != "all":
            rows = rows[rows[row.level] == row.group]
        higher = (rows["score_stereo"] > rows["score_anti"]).mean()
        assert row.bias_score == pytest.approx(100 * higher - 50)
        assert row.n == len(rows) and row.n_missing == 0
        assert row.ci_low <= row.bias_score <= row.ci_high if row.n > 1 else np.isnan(row.ci_low)
    assert set(scores["level"]) == {"all", "category", "sense_type"}
    assert set(scores.query("level == 'sense_type'")["benchmark"]) == {"sssb"}
    assert (pair_scores.query("method == 'aul'")["score_stereo"] < 0).all()
    layout = run.tables["table3"]
    assert list(layout["benchmark"][:2]) == ["CrowS-Pairs", "StereoSet"]
    assert set(layout["group"][2:]) <= {"race", "colour", "nationality", "language", "noun", "verb"}
    assert layout["n"].sum() == 9 and list(layout.columns[3::3]) == ["aul", "pll"]
    assert run.metadata["benchmarks"]["crows"] == {
        "n_pairs": 1508,
        "n_scored": 3,
        "source": "nyu-mll/crows-pairs@8aaac11c485473159ec9328a65253a5be9a479dc:"
        "data/crows_pairs_anonymized.csv",
    }


def test_errors(masked: LMScorer) -> None:
    pairs = {"tiny": _pairs(FLUENT[:2], FLUENT[2:])}
    with pytest.raises(WordlensError, match="cannot score with causal_sum; it supports aul"):
        run_likelihood_bias(masked, LikelihoodBiasConfig(methods=("causal_sum",)), pairs=pairs)
    aul = LikelihoodBiasConfig(methods=("aul",))
    with pytest.raises(WordlensError, match="unknown benchmark 'winobias'"):
        run_likelihood_bias(
            masked, LikelihoodBiasConfig(benchmarks=("winobias",), methods=("aul",))
        )
    with pytest.raises(WordlensError, match="--sample: at least 1"):
        LikelihoodBiasConfig(sample=0)
    with pytest.raises(WordlensError, match="--bootstrap: must be >= 0"):
        LikelihoodBiasConfig(bootstrap=-1)
    with pytest.raises(WordlensError, match="lacks column"):
        run_likelihood_bias(masked, aul, pairs={"bad": pairs["tiny"].drop(columns="category")})
    with pytest.raises(EmptyInputError, match="no benchmark"):
        run_likelihood_bias(masked, aul, pairs={})
    with pytest.raises(EmptyInputError, match="without pairs"):
        run_likelihood_bias(masked, aul, pairs={"empty": pairs["tiny"].iloc[:0]})
    with pytest.raises(WordlensError, match="missing sentence"):
        run_likelihood_bias(masked, aul, pairs={"gap": pairs["tiny"].assign(sentence_anti=None)})


def test_table3_keeps_the_paper_layout() -> None:
    rows = [
        ("sssb", "aul", "sense_type", "colour", 10.0),
        ("sssb", "aul", "all", "all", 5.0),
        ("crows", "aul", "all", "all", -1.5),
        ("crows", "aul", "category", "gender", 3.0),
        ("stereoset", "aul", "all", "all", 2.0),
    ]
    scores = pd.DataFrame(rows, columns=["benchmark", "method", "level", "group", "bias_score"])
    scores = scores.assign(n=4, n_missing=1, ci_low=-60.0, ci_high=60.0)
    layout = table3(scores, ["aul", "pll"])
    assert list(layout["benchmark"]) == ["CrowS-Pairs", "StereoSet", "SSSB"]
    assert list(layout["group"]) == ["all", "all", "colour"]
    assert list(layout["aul"]) == [-1.5, 2.0, 10.0] and layout["pll"].isna().all()
    assert (layout["aul_ci_low"] == -60.0).all() and layout["pll_ci_high"].isna().all()
    assert (layout["n"] == 5).all()


def test_figure_3_scores_each_occupation_and_sense(masked: LMScorer, tmp_path: Path) -> None:
    sssb = load_bias_pairs("sssb")
    gender = sssb.query("category == 'gender-noun-vs-verb'")
    few = gender.groupby(["target", "sense_type"], sort=False).head(3)  # 6 x 2 x 3 pairs
    config = LikelihoodBiasConfig(methods=("aul", "pll"), bootstrap=200)
    run = run_likelihood_bias(masked, config, pairs={"sssb": few})
    occupations = run.tables["sssb_occupations"]
    assert len(occupations) == 2 * 6 * 2 and (occupations["n"] == 3).all()
    assert list(occupations["occupation"][:2]) == ["engineer", "engineer"]
    assert set(occupations["sense_type"]) == {"noun", "verb"}
    pair_scores = run.tables["pair_scores"]
    for row in occupations.itertuples():
        group = pair_scores[
            (pair_scores["method"] == row.method)
            & (pair_scores["target"] == row.occupation)
            & (pair_scores["sense_type"] == row.sense_type)
        ]
        higher = (group["score_stereo"] > group["score_anti"]).mean()
        assert row.bias_score == pytest.approx(100 * higher - 50)
    figure = tmp_path / "figure_3_occupations.png"
    assert write_paper_figures(run, tmp_path) == [figure.with_suffix(s) for s in FIGURE_SUFFIXES]
    assert figure.read_bytes().startswith(b"\x89PNG")
    assert figure.with_suffix(".pdf").read_bytes().startswith(b"%PDF-")
    assert "<svg" in figure.with_suffix(".svg").read_text()[:2000]
    report = build_likelihood_report(run).render()
    assert "Figure 3" in report and report.count("data:image/png") == 2  # Figure 3 and SSSB
    # without gender pairs there is no Figure 3
    race = sssb.query("category == 'race-vs-colour'").head(3)
    other = run_likelihood_bias(
        masked, LikelihoodBiasConfig(methods=("aul",), bootstrap=0), pairs={"sssb": race}
    )
    assert "sssb_occupations" not in other.tables
    assert write_paper_figures(other, tmp_path / "other") == []
    assert not (tmp_path / "other" / "figure_3_occupations.png").exists()
    assert "Figure 3" not in build_likelihood_report(other).render()
