"""Long default stages say what they are doing: ``wordlens vast`` names each embedding stage on
stderr (the authors' PC population too), stdout keeps the results; the Python API, with
``progress=False`` (its default), stays silent."""

from __future__ import annotations

from pathlib import Path

import pytest

import wordlens
from tests.test_cli_json import run_wordlens
from wordlens.progress import _STAGE, stage

QUICK = ["--lexica", "bellezza", "--settings", "bleached", "--no-tokenization"]
QUICK += ["--similarity", "none", "--no-weat", "--no-probes", "--max-pcs", "2", "--no-cache"]


def test_vast_names_its_stages_on_stderr(tmp_path: Path) -> None:
    done = run_wordlens("vast", "-m", "glove-6b-50d", *QUICK, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "embedding the lexicon words: 401 words in the bleached setting" in lines
    cost, population = [line for line in lines if line.startswith("embedding the PC population: ")]
    assert "words in the bleached setting (the authors' population;" in population
    # what the authors' 14,071-word population costs, said before it is embedded
    assert (
        cost.startswith("embedding the PC population: 13,9")
        and " words × 1 setting(s) (~13,9" in cost
    )
    assert "forward passes" in cost and "--pc-population lexicon or --limit N" in cost
    assert "embedding" not in done.stdout


def test_the_api_is_silent_unless_asked(capsys: pytest.CaptureFixture[str]) -> None:
    options = {"lexica": ["bellezza"], "settings": ["bleached"], "tokenization": False}
    options |= {"similarity": [], "weat": False, "probes": False, "max_pcs": 2}
    wordlens.vast("glove-6b-50d", pc_population="lexicon", no_cache=True, **options)
    assert "embedding" not in capsys.readouterr().err


def test_a_stage_labels_the_bars_drawn_inside_it(capsys: pytest.CaptureFixture[str]) -> None:
    with stage(True, "embedding things: 3 words", "things"):
        assert _STAGE.get() == "things"
        with stage(False, "not said", "inner"):
            assert _STAGE.get() == "inner"
        assert _STAGE.get() == "things"
    assert _STAGE.get() == ""
    assert capsys.readouterr().err == "embedding things: 3 words\n"
