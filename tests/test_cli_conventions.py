"""Command-line conventions: ``--help`` and ``-h`` on every command, help texts shown as written
(no ``<bool>`` beside a flag, no ``[default: default]``, no space before a period), ``--version``,
``python -m wordlens``, deprecated flags, and counts in the right number ("1 layer")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from wordlens._plural import counted
from wordlens._version import __version__
from wordlens.cli import app, build_app
from wordlens.methods.intersectional.config import IntersectionalConfig
from wordlens.options import read_values
from wordlens.report.html import model_lines

runner = CliRunner()
WIDE = {"NO_COLOR": "1", "COLUMNS": "400", "TERMINAL_WIDTH": "400"}
"""One option per line: a help text is never wrapped, so a check sees it whole."""


def _paths(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of ``command`` and of every command and group under it."""
    found = [path]
    for name, sub in getattr(command, "commands", {}).items():
        found += _paths(sub, (*path, name))
    return found


PATHS = _paths(typer.main.get_command(build_app()))


def _help(path: tuple[str, ...], flag: str = "--help") -> str:
    result = runner.invoke(app, [*path, flag], env=WIDE, terminal_width=400)
    assert result.exit_code == 0, (path, result.output)
    return result.output


def test_the_tree_has_every_command() -> None:
    assert len(PATHS) > 20
    assert ("study", "run") in PATHS and ("intersectional",) in PATHS and () in PATHS


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "wordlens")
def test_help_shows_texts_as_written(path: tuple[str, ...]) -> None:
    shown = _help(path)
    assert "<bool>" not in shown  # a flag takes no value
    assert "[default: default]" not in shown  # a default decided at run time says what it is
    assert not re.search(r" [.,](\s|$)", shown), re.findall(r".{40} [.,](?:\s|$)", shown)
    assert not re.search(r"(^|\s)--c\s", shown)  # no one-letter long option
    assert re.search(r"--help\s+-h\s", shown)
    assert _help(path, "-h") == shown


def test_flags_defaults_and_layer_ranges_in_help() -> None:
    weat = _help(("weat",))
    assert re.search(r"--no-cache\s+Do not read", weat)  # no type between flag and help
    assert "per forward pass [default: 1024 on CPU; on a GPU, sized from its free memory]." in weat
    assert "'2-5'" in weat  # --layers takes ranges
    study_run = _help(("study", "run"))
    assert (
        "auto [a local Ray]." in study_run and "one model copy each [one per CPU/GPU]" in study_run
    )
    intersectional = _help(("intersectional",))
    assert re.search(r"--svc-c\s+<float>\s+C of the linear SVC", intersectional)


def test_help_shows_the_type_an_option_is_read_as() -> None:
    """Options typer reads as text (lists, choices, an optional number) show the type their
    values become, not ``<str>``."""
    weat = _help(("weat",))
    for flag, shown in [
        ("--token-budget", "<int>"),  # an int, or the run-time default
        ("--query", "<path>"),  # a path, or none
        ("--layers", "<layers>"),
        ("--tests", "<int,...>"),
        ("--context", "<template|none>"),
        ("--pooling", "<first|last|mean|max>"),
        ("--unicode", "<NFC|as-given>"),
    ]:
        assert re.search(rf"{flag}\s+{re.escape(shown)}\s", weat), flag
    vast = _help(("vast",))
    assert re.search(r"--pooling\s+<first\|last\|mean\|max,\.\.\.>\s", vast)  # a list
    assert re.search(r"--settings\s+<choice,\.\.\.>\s+.*random", vast)  # long: the help names them
    for path in PATHS:
        if path and path[0] in ("weat", "vast", "embed", "asymmetry", "likelihood-bias"):
            assert not re.search(r"--(token-budget|layers|permutations)\s+<str>", _help(path)), path


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"wordlens {__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)


def test_python_dash_m_wordlens() -> None:
    source = str(Path(__file__).resolve().parent.parent / "src")
    paths = [source, *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, **WIDE, "PYTHONPATH": os.pathsep.join(paths)}
    shown = subprocess.run(
        [sys.executable, "-m", "wordlens", "--help"], capture_output=True, text=True, env=env
    )
    assert shown.returncode == 0, shown.stderr
    assert "Usage: wordlens [OPTIONS] COMMAND" in shown.stdout and "weat" in shown.stdout
    version = subprocess.run(
        [sys.executable, "-m", "wordlens", "--version"], capture_output=True, text=True, env=env
    )
    assert version.stdout == f"wordlens {__version__}\n"


def test_the_deprecated_c_flag_still_reads(tmp_path: Path) -> None:
    # the direction's settings are checked before the model loads: nothing runs
    args = ["intersectional", "-m", "glove-6b-50d", "--out", str(tmp_path / "out")]
    old = runner.invoke(app, [*args, "--c", "-1"])
    assert old.exit_code == 2
    assert "--c is deprecated: use --svc-c" in old.output and "got -1.0" in old.output
    new = runner.invoke(app, [*args, "--svc-c", "-1"])
    assert new.exit_code == 2 and "deprecated" not in new.output and "got -1.0" in new.output
    # a study file may still write c:
    with pytest.warns(FutureWarning, match="c is deprecated.*use svc_c"):
        assert read_values(IntersectionalConfig, {"c": 2}, study=True) == {"svc_c": 2.0}
    assert read_values(IntersectionalConfig, {"svc-c": 2}, study=True) == {"svc_c": 2.0}


def test_counts_are_singular_for_one(tmp_path: Path) -> None:
    assert counted(1, "layer") == "1 layer" and counted(0, "layer") == "0 layers"
    assert counted(31, "layer") == "31 layers" and counted(2, "index", "indices") == "2 indices"
    meta = {
        "model": {"name": "glove", "kind": "static", "n_layers": 1, "hidden_size": 50},
        "conventions": {"bos": None},
    }
    meta["model"]["fingerprint"] = "f"
    assert model_lines(meta)["model"] == "glove (static, 1 layer, 50 d)"
    out = tmp_path / "v.npy"
    result = runner.invoke(
        app, ["embed", "-m", "glove-6b-50d", "--no-cache", "--out", str(out), "cat"], env=WIDE
    )
    assert result.exit_code == 0, result.output
    assert "1 word x 1 layer x 50 d" in result.output
