"""``wordlens likelihood-bias``, run in-process with typer's CliRunner on the minilm-l6-mlm
fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.methods.registry import get_method
from wordlens.results import Run

runner = CliRunner()


def test_likelihood_bias_command(shared: Path, tmp_path: Path) -> None:
    model = str(shared / "models" / "minilm-l6-mlm")
    out = tmp_path / "out"
    args = ["likelihood-bias", "-m", model, "--benchmarks", "crows,sssb", "--methods", "aul,aula"]
    options = ["--sample", "4", "--bootstrap", "100", "--seed", "3", "--out", str(out)]
    result = runner.invoke(app, [*args, *options])
    assert result.exit_code == 0, result.output
    assert "Likelihood bias score (eq. 6) on minilm-l6-mlm" in result.output
    assert "CrowS-Pairs" in result.output
    pairs = pd.read_parquet(out / "likelihood_pair_scores.parquet")
    assert pairs.groupby(["benchmark", "method"]).size().to_dict() == {
        ("crows", "aul"): 4,
        ("crows", "aula"): 4,
        ("sssb", "aul"): 4,
        ("sssb", "aula"): 4,
    }
    layout = pd.read_parquet(out / "likelihood_table3.parquet")
    assert layout.loc[0, "benchmark"] == "CrowS-Pairs"
    assert list(layout.columns[3:]) == [
        *("aul", "aul_ci_low", "aul_ci_high"),
        *("aula", "aula_ci_low", "aula_ci_high"),
    ]
    meta = json.loads((out / "likelihood_bias_scores.json").read_text())
    assert meta["config"]["sample"] == 4 and meta["config"]["seed"] == 3
    assert meta["config"]["n_resamples"] == 100 and meta["model"]["kind"] == "masked"
    assert meta["model"]["newly_initialized_weights"] == []
    report = (out / "report.html").read_text()
    assert "Table 3 layout" in report and report.count("data:image/png") == 2
    assert "minilm-l6-mlm (" in report.split("<footer>")[1]  # the provenance footer
    # the run reads back from run.json; its headline is the Table 3 cells (eq. 6)
    run = Run.read(out)
    assert run.method == "likelihood-bias" and set(run.tables) == {
        "pair_scores",
        "bias_scores",
        "table3",
    }
    summary = get_method("likelihood-bias").summary(run)
    assert summary.curves is None
    senses = layout.loc[layout["benchmark"] == "SSSB", "group"].map(str.lower).tolist()
    assert list(summary.headline) == [
        f"{method}_{benchmark}"
        for benchmark in ["crows_pairs", *(f"sssb_{sense}" for sense in senses)]
        for method in ("aul", "aula")
    ]
    crows_aul = pairs[(pairs["benchmark"] == "crows") & (pairs["method"] == "aul")]
    assert summary.headline["aul_crows_pairs"] == pytest.approx(
        100 * crows_aul["stereo_higher"].mean() - 50
    )
    assert "CrowS-Pairs all, 4 pairs" in summary.definitions["aul_crows_pairs"]


def test_likelihood_bias_errors(shared: Path, tmp_path: Path) -> None:
    model = str(shared / "models" / "minilm-l6-mlm")
    cases = [
        (["--bootstrap", "-1"], "--bootstrap: must be >= 0"),
        (["--methods", "causal_sum"], "cannot score with causal_sum"),
        (["--dtype", "float8"], "unknown dtype 'float8'"),
        (["--sample", "0"], "--sample: at least 1 pair per benchmark"),
    ]
    for options, message in cases:
        result = runner.invoke(
            app, ["likelihood-bias", "-m", model, *options, "--out", str(tmp_path)]
        )
        assert result.exit_code == 2, result.output
        assert message in result.output
