"""Quiet, honest output: no transformers load report (raw ANSI codes) but one plain line on the
weights loading left new or unused, and results from the first line of stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO
from tests.models.test_cache import worker_env
from wordlens.models.loading import load_note
from wordlens.report import format_p
from wordlens.report.html import Report

WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]


def run_python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=worker_env(), capture_output=True, text=True
    )


def assert_no_load_report(stderr: str) -> None:
    assert "\x1b[" not in stderr, stderr
    assert "LOAD REPORT" not in stderr and "MISSING" not in stderr, stderr


def test_loading_the_mlm_checkpoint_says_one_plain_line(shared: Path) -> None:
    model = shared / "models" / "minilm-l6-mlm"
    code = f"import wordlens; wordlens.load_model({str(model)!r})"
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert_no_load_report(result.stderr)
    notes = [line for line in result.stderr.splitlines() if "LoadNoteWarning" in line]
    assert len(notes) == 1, result.stderr
    assert "minilm-l6-mlm as BertModel: newly initialized pooler.* (2 weights)" in notes[0]
    assert "left unused cls.* (5 weights) of the checkpoint" in notes[0]
    assert "do not affect hidden states" in notes[0]
    assert "weights" not in result.stderr.replace(notes[0], "")  # said once


def test_load_note_says_when_new_weights_matter() -> None:
    loading = {"missing_keys": {"encoder.layer.0.attention.self.query.weight"}}
    note = load_note("m", "BertModel", {**loading, "unexpected_keys": set()})
    assert note is not None and "newly initialized encoder.* (1 weight)" in note
    assert "partly from random weights" in note and "\n" not in note
    empty = {"missing_keys": set(), "unexpected_keys": set(), "mismatched_keys": set()}
    assert load_note("m", "BertModel", empty) is None


def test_likelihood_bias_output_starts_with_its_table(shared: Path, tmp_path: Path) -> None:
    model = str(shared / "models" / "minilm-l6-mlm")
    args = ["likelihood-bias", "-m", model, "--benchmarks", "crows", "--methods", "aul"]
    options = ["--sample", "4", "--bootstrap", "100", "--seed", "3", "--out", str(tmp_path)]
    result = subprocess.run(
        [*WORDLENS, *args, *options], cwd=REPO, env=worker_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("Likelihood bias score"), result.stdout
    assert_no_load_report(result.stderr)
    # the scorer's load needs no note: stderr holds only the stages announcing themselves
    assert all(line.lstrip().startswith("stage ") for line in result.stderr.splitlines())
    assert "stage bias_scores done in" in result.stderr


@pytest.mark.parametrize(
    ("p", "n_partitions", "digits", "shown"),
    [
        (0.0, None, 3, "< 0.001"),
        (0.0004, None, 3, "< 0.001"),
        (0.001, None, 3, "0.001"),
        (0.0123, None, 3, "0.012"),
        (1.0, None, 3, "1.000"),
        (float("nan"), None, 3, "n/a"),
        (None, None, 3, "n/a"),
        (0.0, 70, 3, "< 1/70"),  # exact enumeration of 70 partitions: 1/70 > 0.001
        (1 / 70, 70, 3, "0.014"),
        (0.0, 100_000, 3, "< 0.001"),  # 1/N below 0.001: the decimals bound it
        (0.0, float("nan"), 3, "< 0.001"),
        (0.00004, None, 4, "< 0.0001"),
        (0.01234, None, 4, "0.0123"),
    ],
)
def test_format_p_never_shows_zero(
    p: float | None, n_partitions: float | None, digits: int, shown: str
) -> None:
    assert format_p(p, n_partitions, digits) == shown


def test_html_tables_show_p_values_bounded() -> None:
    report = Report("t")
    frame = pd.DataFrame(
        {
            "test": ["a", "b", "c"],
            "p_one_sided": [0.0, 0.0, 0.0456],
            "p_value": [0.0002, float("nan"), 0.5],
            "n_partitions": [70, 100_000, 100_000],
            "p_a_given_b": [0.0, 0.0, 0.0],  # a probability, not a p-value: plain
        }
    )
    report.table(frame)
    page = report.render()
    assert "< 1/70" in page.replace("&lt;", "<") and page.count("&lt; 0.001") == 2
    assert "0.046" in page and "n/a" in page and page.count("0.000") == 3
