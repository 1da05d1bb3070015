"""Reproducing Tenney et al. (2019) (``wordlens.reproduce.probing``) on MiniLM-L6 at smoke scale:
one probe run per offline task (about a minute and a half on two shared cores)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import Reproduction
from wordlens.reproduce.probing import (
    REPRODUCTION,
    check_distance,
    check_mix_beats_cat,
    check_syntax_over_semantics,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import location_text, reproduce
from wordlens.results import Run

TASKS = ("pos", "dep", "rel", "spr", "winograd")


@pytest.fixture(scope="module")
def smoke(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("probing-minilm")
    return reproduce("probing", ModelOptions("minilm-l6"), out, scale="smoke"), out


def _row(reproduction: Reproduction, item: str) -> pd.Series:
    table = reproduction.table
    return table[table["item"] == item].iloc[0]


def _f1(out: Path, task: str) -> pd.Series:
    """The test micro-F1 x 100 per representation, read from the method's own table."""
    scores = pd.read_parquet(out / task / "probing_scores.parquet")
    return 100 * scores.set_index("representation")["test_micro_f1"]


def _copy(runs: dict[str, Run]) -> dict[str, Run]:
    return {
        name: Run(run.method, {k: v.copy() for k, v in run.tables.items()}, dict(run.metadata))
        for name, run in runs.items()
    }


@pytest.mark.slow
def test_every_item_has_one_row_and_every_finding_a_verdict(
    smoke: tuple[Reproduction, Path],
) -> None:
    reproduction, _ = smoke
    published = load_published("probing")
    table = reproduction.table
    assert [e.name for e in reproduction.experiments] == list(TASKS)
    assert not reproduction.failures
    assert table["item"].tolist() == [item.id for item in published.items]
    assert table["location"].tolist() == [location_text(item) for item in published.items]
    assert table[table["measured"].isna()]["note"].str.len().min() > 0
    findings = reproduction.findings
    assert findings["finding"].tolist() == [f.id for f in published.findings]
    assert set(findings["verdict"]) <= {"holds", "does not hold", "not measurable"}
    assert set(REPRODUCTION.checks()) == {f.id for f in published.findings}


@pytest.mark.slow
def test_measured_values_are_the_probes_scores(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    dep, spr, rel = _f1(out, "dep"), _f1(out, "spr"), _f1(out, "rel")
    expected = {
        "table2-dependencies-bert-base-lex": dep["lex"],
        "table2-dependencies-gpt-cat": dep["cat"],
        "table2-spr2-elmo-full": spr["mix"],  # ELMo's Full is its scalar mix
        "table2-spr2-cove-full": spr["cat"],  # CoVe's Full is its top layer beside GloVe
        "table2-rel-semeval-cove-abs-cove": rel["cat"] - rel["lex"],
        "table2-winograd-coref-bert-large-mix": _f1(out, "winograd")["mix"],
    }
    for item, value in expected.items():
        assert _row(reproduction, item)["measured"] == pytest.approx(value, abs=1e-9)
    counts = _row(reproduction, "table3-rel-semeval-examples-train")
    assert counts["measured"] == 6900 and counts["agrees"]  # the full split at any scale
    assert _row(reproduction, "table3-dependencies-labels")["measured"] == 51


@pytest.mark.slow
def test_items_without_data_say_why(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    pos = _row(reproduction, "table2-part-of-speech-elmo-lex")
    assert pd.isna(pos["measured"]) and "OntoNotes" in pos["note"]
    assert f"lex {_f1(out, 'pos')['lex']:.1f}" in pos["note"]  # the UD EWT substitute's F1
    assert "SPR1" in _row(reproduction, "table2-spr1-elmo-lex")["note"]
    assert "this run's mean" in _row(reproduction, "table2-macro-average-bert-base-mix")["note"]
    assert "compares" in _row(reproduction, "table2-dependencies-bert-base-abs-elmo")["note"]
    smoke_note = "depart from the paper (see Experiments)"
    assert smoke_note in _row(reproduction, "table2-dependencies-bert-base-lex")["note"]
    departures = [experiment.departure for experiment in reproduction.experiments]
    assert all("smoke: 16 training and 8 dev and test sentences" in d for d in departures)


@pytest.mark.slow
def test_mix_does_not_beat_cat_on_the_smoke_run(smoke: tuple[Reproduction, Path]) -> None:
    reproduction, out = smoke
    gains = [_f1(out, task)["mix"] - _f1(out, task)["cat"] for task in TASKS[1:]]
    mean = sum(gains) / len(gains)
    findings = reproduction.findings.set_index("finding")
    assert mean < 0 and findings.loc["mix-beats-cat", "verdict"] == "does not hold"
    assert f"mean {mean:+.1f} over 4 tasks" in findings.loc["mix-beats-cat", "evidence"]


@pytest.mark.slow
def test_checks_follow_the_scores(smoke: tuple[Reproduction, Path]) -> None:
    runs = _copy(dict(smoke[0].runs))
    for run in runs.values():
        scores = run.tables["scores"]
        scores.loc[scores["representation"] == "mix", "test_micro_f1"] = 0.9
        scores.loc[scores["representation"] == "cat", "test_micro_f1"] = 0.8
    assert check_mix_beats_cat(runs).verdict == "holds"
    dep = runs["dep"].tables["scores"]
    dep.loc[dep["representation"] == "lex", "test_micro_f1"] = 0.95  # no gain on dependencies
    check = check_syntax_over_semantics(runs)
    assert check.verdict == "does not hold" and "fails: dep" in check.evidence
    dep.loc[dep["representation"] == "lex", "test_micro_f1"] = 0.0
    assert check_syntax_over_semantics(runs).verdict == "not measurable"  # no constituents


@pytest.mark.slow
def test_distance_check_follows_the_by_distance_table(smoke: tuple[Reproduction, Path]) -> None:
    runs = _copy(dict(smoke[0].runs))
    assert check_distance(runs).verdict == "not measurable"  # smoke: no CNN or random probes
    bins = pd.DataFrame({"bin": ["1", "8+"], "distance_low": [1.0, 8.0], "n_targets": 10})
    drops = {"mix": (0.9, 0.8), "cnn3": (0.9, 0.5), "cnn5": (0.9, 0.6), "random-mix": (0.7, 0.3)}
    rows = [bins.assign(representation=name, micro_f1=list(f1)) for name, f1 in drops.items()]
    runs["dep"].tables["by_distance"] = pd.concat(rows, ignore_index=True)
    assert check_distance(runs).verdict == "holds"
    runs["dep"].tables["by_distance"].loc[7, "micro_f1"] = 0.8  # random-mix falls off less
    assert check_distance(runs).verdict == "does not hold"
