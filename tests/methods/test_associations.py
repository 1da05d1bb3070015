"""The six association metrics through every entry point, and the combined page.

Each metric runs on glove-6b-50d (one layer), minilm-l6 (7 layers) and smollm2-135m (all 31
layers) from the command line, a study and Python; ``wordlens associations`` gives each metric
exactly the table its own command gives (the same vectors, the same options), ranks the layers
by each and compares every two metrics' rankings with Spearman's rho, checked here against
scipy on the table's own values."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import spearmanr
from typer.testing import CliRunner

import wordlens
from tests.peer_data import query_words, raw_glove, wefe_glove
from tests.test_cli_names import COMMANDS, _flags
from wordlens.cli import app
from wordlens.methods.associations import association_metrics
from wordlens.methods.associations.ranking import strength
from wordlens.models.base import WordEmbedder

runner = CliRunner()
METRICS = ("rnd", "rnsb", "mac", "ect", "ripa", "semaxis")
QUERY = {
    "title": "flowers vs. insects",
    "targets": {
        "flowers": ["rose", "tulip", "daisy", "lily", "orchid", "violet"],
        "insects": ["ant", "wasp", "flea", "moth", "spider", "beetle"],
    },
    "attributes": {
        "pleasant": ["love", "peace", "happy", "gift", "joy", "friend"],
        "unpleasant": ["hate", "war", "ugly", "death", "poison", "filth"],
    },
}
FAST = {"bootstrap": 20, "permutations": 20}
"""Few resamples: these tests check the wiring; the procedures have their own tests."""


@pytest.fixture(scope="module")
def query_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("query") / "flowers.yaml"
    path.write_text(yaml.safe_dump(QUERY), encoding="utf-8")
    return path


def test_the_six_metrics_are_listed() -> None:
    assert {metric.name for metric in association_metrics()} == set(METRICS)
    listed = runner.invoke(app, ["methods", "--json"])
    assert listed.exit_code == 0, listed.output
    names = {entry["command"] for entry in json.loads(listed.output)["methods"]}
    assert {*METRICS, "associations"} <= names


def test_the_combined_page_gives_each_metric_its_own_table(glove: WordEmbedder) -> None:
    combined = wordlens.run("associations", glove, query=QUERY, **FAST)
    scores = combined.tables["scores"]
    assert set(scores["metric"]) == set(METRICS)
    for name in METRICS:
        # RNSB keeps its own default of no bootstrap (each resample refits its classifiers)
        options = {**FAST, "bootstrap": 0} if name == "rnsb" else FAST
        alone = wordlens.run(name, glove, query=QUERY, **options).tables["scores"]
        mine = scores[scores["metric"] == name][list(alone.columns)].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone, check_exact=False, rtol=1e-9)
    assert (combined.tables["ranks"]["best_layer"] == 0).all()  # one layer


def test_ranks_and_disagreements_on_minilm(minilm: WordEmbedder) -> None:
    run = wordlens.run("associations", minilm, query=QUERY, **FAST)
    scores = run.tables["scores"]
    assert sorted(set(scores["layer"])) == list(range(7))
    more = {metric.name: metric.more_bias for metric in association_metrics()}
    for row in run.tables["ranks"].itertuples(index=False):
        rows = scores[(scores["metric"] == row.metric) & (scores["part"] == row.part)]
        oriented = strength(rows["value"], more[row.metric]).to_numpy()
        assert row.best_layer == rows["layer"].to_numpy()[int(np.nanargmax(oriented))]
    for row in run.tables["disagreements"].itertuples(index=False):
        a = scores[(scores["metric"] == row.metric_a) & (scores["part"] == row.part_a)]
        b = scores[(scores["metric"] == row.metric_b) & (scores["part"] == row.part_b)]
        expected = spearmanr(a["strength"].to_numpy(), b["strength"].to_numpy())
        if np.isnan(row.spearman_rho):
            assert np.isnan(expected.statistic) or row.n_layers < 3
        else:
            assert row.spearman_rho == pytest.approx(expected.statistic)
            assert row.p_value == pytest.approx(expected.pvalue)
            assert row.disagree == (expected.statistic < 0 and expected.pvalue < 0.05)


@pytest.mark.parametrize("name", [*METRICS, "associations"])
def test_every_metric_runs_on_all_31_layers_of_smollm2_from_the_command_line(
    name: str, query_file: Path, tmp_path: Path, smollm2: WordEmbedder
) -> None:
    args = [name, "-m", "smollm2-135m", "--query", str(query_file), "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, "--bootstrap", "10", "--permutations", "10"])
    assert result.exit_code == 0, result.output
    run = wordlens.read_run(tmp_path)
    assert sorted(set(run.tables["scores"]["layer"])) == list(range(31))
    assert (tmp_path / "report.html").is_file()


def test_a_study_runs_every_metric_on_glove_and_minilm(query_file: Path, tmp_path: Path) -> None:
    from wordlens.study.runner import run_study
    from wordlens.study.spec import load_study

    methods = {name: {"query": str(query_file), **FAST} for name in METRICS}
    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        yaml.safe_dump(
            {
                "name": "associations",
                "out": str(tmp_path / "out"),
                "models": ["glove-6b-50d", "minilm-l6"],
                "methods": methods,
            }
        ),
        encoding="utf-8",
    )
    study = load_study(study_file)
    run_study(study)
    for model in ("glove-6b-50d", "minilm-l6"):
        for name in methods:
            record = json.loads(
                (tmp_path / "out" / "cells" / model / name / "cell.json").read_text()
            )
            assert record["status"] == "done", record
            assert any(key.startswith(f"{name}_") for key in record["headline"])


def test_a_metric_without_a_query_is_refused_before_the_model_loads(tmp_path: Path) -> None:
    result = runner.invoke(app, ["rnd", "-m", "no-such-model-xyz", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "rnd needs a query" in " ".join(result.output.split())


UNKNOWN = "qzxwvutsr"
"""A word GloVe lacks (checked in the tests that use it)."""
UNEVEN: dict[str, Any] = {
    "title": "flowers vs. insects, uneven",
    "targets": {
        "flowers": ["rose", "tulip", "daisy", "lily", "orchid"],
        "insects": ["ant", "wasp", "flea", "moth", "spider", UNKNOWN],
    },
    "attributes": QUERY["attributes"],
}
"""Five flowers and six insects, one of them unknown to GloVe: RIPA (pairs by position) cannot
run; the other metrics can, on the words GloVe has."""


def _invoke(args: list[str]) -> tuple[str, wordlens.Run]:
    """``wordlens`` run from the command line: its output (whitespace collapsed) and its run."""
    out = Path(args[args.index("--out") + 1])
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split()), wordlens.read_run(out)


def test_a_metric_that_cannot_run_is_reported_with_its_reason_and_the_others_run(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    from wefe.metrics import ECT, RND
    from wefe.query import Query as WefeQuery

    assert UNKNOWN not in raw_glove()[1]
    path = tmp_path / "uneven.yaml"
    path.write_text(yaml.safe_dump(UNEVEN), encoding="utf-8")
    args = [
        "associations",
        "-m",
        "glove-6b-50d",
        "--query",
        str(path),
        "--out",
        str(tmp_path / "run"),
    ]
    output, run = _invoke([*args, "--bootstrap", "20", "--permutations", "20"])
    reason = (
        "ripa pairs the target sets by position, so 'flowers' and 'insects' need the same "
        "number of words, not 5 and 6"
    )
    assert run.metadata["not_computed"] == {"ripa": reason}
    assert "ripa │ – │ not computed: ripa pairs the target sets by position" in output
    # one layer: each metric's value, no ranking of layers and no disagreement counts
    assert "Association metrics on glove-6b-50d: value [interval] p" in output
    assert "strongest layer" not in output and "pairs of metrics" not in output
    scores = run.tables["scores"]
    assert set(scores["metric"]) == set(METRICS) - {"ripa"}
    for name in set(METRICS) - {"ripa"}:  # each as its own command gives it alone
        options = {**FAST, "bootstrap": 0} if name == "rnsb" else FAST
        alone = wordlens.run(name, glove, query=UNEVEN, **options).tables["scores"]
        mine = scores[scores["metric"] == name][list(alone.columns)].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone, check_exact=False, rtol=1e-9)
    # and, for RND and ECT, as WEFE gives them on the words GloVe has (its default threshold
    # 0.2 keeps a set losing 1 of 6); RND's default (Garg et al.) is WEFE's normalised mean
    # times the number of attribute words (tests/methods/test_rnd.py)
    known = [word for word in query_words(UNEVEN) if word != UNKNOWN]
    model = wefe_glove(known)
    names, targets = list(UNEVEN["targets"]), list(UNEVEN["targets"].values())
    for name, words in QUERY["attributes"].items():
        asked = WefeQuery(targets, [words], names, [name])
        rnd = RND().run_query(asked, model, preprocessors=[{}], normalize=True)["rnd"]
        ect = ECT().run_query(asked, model, preprocessors=[{}])["ect"]
        row = scores[scores["part"] == name].set_index("metric")["value"]
        assert row["rnd"] == pytest.approx(rnd * len(words), abs=1e-6)
        assert row["ect"] == pytest.approx(ect, abs=1e-6)


def test_the_reason_names_only_options_associations_takes(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    """Attribute sets of two words are too small for RNSB's 80/20 holdout split: the reason
    suggests --no-holdout, which associations takes and hands to RNSB."""
    query = {**QUERY, "attributes": {"pleasant": ["love", "peace"], "unpleasant": ["hate", "war"]}}
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(query), encoding="utf-8")
    args = ["associations", "-m", "glove-6b-50d", "--query", str(path), "--bootstrap", "20"]
    args += ["--permutations", "20"]
    _, run = _invoke([*args, "--out", str(tmp_path / "holdout")])
    reason = run.metadata["not_computed"]["rnsb"]
    assert "too small for a stratified 80/20 holdout split" in reason
    suggested = set(re.findall(r"--[a-z][a-z-]*", reason))
    assert suggested == {"--no-holdout"}
    assert suggested <= _flags(COMMANDS["associations"], hidden=False)
    _, fitted = _invoke([*args, "--no-holdout", "--out", str(tmp_path / "all")])
    assert fitted.metadata["not_computed"] == {}
    scores = fitted.tables["scores"]
    alone = wordlens.run(
        "rnsb", glove, query=query, holdout=False, bootstrap=0, permutations=20
    ).tables["scores"]
    mine = scores[scores["metric"] == "rnsb"][list(alone.columns)].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, alone, check_exact=False, rtol=1e-9)
    assert np.isfinite(mine["value"]).all()


def test_two_layers_have_a_strongest_layer_but_no_disagreements(
    minilm: WordEmbedder, query_file: Path, tmp_path: Path
) -> None:
    """Spearman's rho needs three layers: over two every pair's rho is NaN, and the page says
    nothing of disagreements rather than "0 of N pairs disagree"."""
    args = ["associations", "-m", "minilm-l6", "--query", str(query_file), "--layers", "0,1"]
    output, run = _invoke(
        [*args, "--bootstrap", "0", "--permutations", "0", "--out", str(tmp_path)]
    )
    assert run.tables["disagreements"]["spearman_rho"].isna().all()
    assert "strongest layer" in output
    assert "pairs of metrics" not in output


LOSING = {
    **QUERY,
    "targets": {**QUERY["targets"], "insects": [*QUERY["targets"]["insects"][:-1], UNKNOWN]},
}
"""QUERY with its last insect unknown to GloVe: 'insects' loses 1 of its 6 words (1/6)."""


@pytest.mark.parametrize(("share", "skipped"), [(0.1, True), (1 / 6, False), (0.2, False)])
def test_max_missing_skips_a_query_as_wefe_lost_vocabulary_threshold_does(
    glove: WordEmbedder, share: float, skipped: bool
) -> None:
    """A set losing more than the share skips the query (WEFE: its result is NaN), one losing
    that share or less keeps it (WEFE's comparison is strict too): ECT's values are WEFE's."""
    from wefe.metrics import ECT
    from wefe.query import Query as WefeQuery

    model = wefe_glove([word for word in query_words(LOSING) if word != UNKNOWN])
    names, targets = list(LOSING["targets"]), list(LOSING["targets"].values())
    ect = wordlens.run("ect", glove, query=LOSING, max_missing=share, bootstrap=0, permutations=0)
    both = wordlens.run("associations", glove, query=LOSING, max_missing=share, **FAST)
    for run in (ect, both):
        assert run.metadata["config"]["max_missing"] == share
    reason = (
        f"skipped: 'insects' lost 1 of 6 words (17%), more than max_missing {share:g} of a "
        "set's words"
    )  # a Python run's reasons name the keyword
    values = dict(zip(ect.tables["scores"]["part"], ect.tables["scores"]["value"], strict=True))
    for name, words in LOSING["attributes"].items():
        peer = ECT().run_query(
            WefeQuery(targets, [words], names, [name]),
            model,
            preprocessors=[{}],
            lost_vocabulary_threshold=share,
        )["ect"]
        if skipped:
            assert np.isnan(peer)
        else:
            assert values[name] == pytest.approx(peer, abs=1e-6)
    if skipped:
        assert ect.metadata["skipped"] == both.metadata["skipped"] == reason
        assert ect.tables["scores"].empty and both.tables["scores"].empty
        assert both.metadata["not_computed"] == dict.fromkeys(METRICS, reason)
        assert ect.metadata["left_out"] == {"insects": [UNKNOWN]}
    else:
        assert ect.metadata["skipped"] == both.metadata["skipped"] == ""
        assert set(both.tables["scores"]["metric"]) == set(METRICS)


def test_a_skipped_query_says_why_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "losing.yaml"
    path.write_text(yaml.safe_dump(LOSING), encoding="utf-8")
    for name in ("associations", "rnd"):
        args = [name, "-m", "glove-6b-50d", "--query", str(path), "--max-missing", "0.1"]
        output, run = _invoke([*args, "--out", str(tmp_path / name)])
        assert (  # after the embed stage's lines
            "skipped: 'insects' lost 1 of 6 words (17%), more than --max-missing 0.1 of a set's "
            f"words set insects: 1 word(s) left out: not in the vocabulary: {UNKNOWN}"
        ) in output
        assert run.tables["scores"].empty
        report = (tmp_path / name / "report.html").read_text(encoding="utf-8")
        assert "0.1 (a set losing more is skipped)" in report
        assert "skipped: &#x27;insects&#x27; lost 1 of 6 words" in report


def test_the_ranks_table_prints_layers_as_whole_numbers() -> None:
    """best_layer is a float column (NaN where no layer has a value): the report printed
    ``5.000``; whole layers now, ``–`` where there is none."""
    from wordlens.methods.associations import _ranks_sections
    from wordlens.methods.associations.ranking import layer_ranks
    from wordlens.report.html import Report
    from wordlens.results import Run

    scores = pd.DataFrame(
        {"metric": ["rnd"] * 3 + ["mac"] * 3, "part": "all sets", "layer": [0, 1, 2] * 2,
         "value": [0.1, 0.5, 0.2, np.nan, np.nan, np.nan]}
    )  # fmt: skip
    scores["strength"] = scores["value"]
    ranks = layer_ranks(scores)
    assert ranks["best_layer"].dtype == float  # the table itself is unchanged
    report = Report("ranks")
    run = Run("associations", {"ranks": ranks, "disagreements": pd.DataFrame()}, {})
    _ranks_sections(report, run)
    page = report.render()
    assert "<td>1</td>" in page and "1.000" not in page
    assert "<td>–</td>" in page
