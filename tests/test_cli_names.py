"""One name for one idea across commands (issue 30): every command spells the permutation count
``--permutations``, the subtoken pooling ``--pooling`` (a list where a method runs several) and
the benchmarks ``--benchmarks``; the former names (``--n-samples``, ``--poolings``,
``--benchmark``) are hidden deprecated aliases that still read, on the command line, in a study
file and as Python keywords, with a warning; and every command that loads a model takes every
model option."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import wordlens
from wordlens.cli import app, build_app
from wordlens.methods.likelihood_bias.config import LikelihoodBiasConfig
from wordlens.methods.vast.config import VastConfig
from wordlens.methods.weat.config import WeatConfig
from wordlens.models.base import WordEmbedder
from wordlens.models.options import ModelOptions
from wordlens.options import option_specs, read_values

runner = CliRunner()
ENV = {"NO_COLOR": "1", "COLUMNS": "400", "TERMINAL_WIDTH": "400"}

FORMER = {"--n-samples": "--permutations", "--poolings": "--pooling", "--benchmark": "--benchmarks"}
"""Former flag → the shared name that replaced it."""
PERMUTING = ("weat", "vast", "intersectional", "sense-bias")
"""The commands that run permutation tests."""


def _commands(command: Any, path: str = "") -> list[tuple[str, Any]]:
    found = [(path, command)] if path else []
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, f"{path} {name}".strip())
    return found


COMMANDS = dict(_commands(typer.main.get_command(build_app())))


def _flags(command: Any, *, hidden: bool) -> set[str]:
    return {
        flag
        for param in command.params
        if bool(getattr(param, "hidden", False)) == hidden
        for flag in (*param.opts, *param.secondary_opts)
    }


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_no_command_shows_a_former_name(path: str) -> None:
    visible = _flags(COMMANDS[path], hidden=False)
    assert not visible & set(FORMER), path
    # a former name is only ever a hidden alias beside the shared name
    for old in _flags(COMMANDS[path], hidden=True) & set(FORMER):
        assert FORMER[old] in visible, (path, old)


def test_the_shared_names_are_used_everywhere() -> None:
    for path in PERMUTING:
        assert "--permutations" in _flags(COMMANDS[path], hidden=False), path
    assert "--n-samples" in _flags(COMMANDS["weat"], hidden=True)
    assert "--n-samples" in _flags(COMMANDS["vast"], hidden=True)
    assert "--poolings" in _flags(COMMANDS["vast"], hidden=True)
    assert "--benchmark" in _flags(COMMANDS["likelihood-bias"], hidden=True)
    for path, command in COMMANDS.items():
        visible = _flags(command, hidden=False)
        # no other spelling of the same ideas
        for other in ("--samples", "--n-permutations", "--poolings", "--benchmark"):
            assert other not in visible, (path, other)
        if any("pool" in flag for flag in visible):
            assert "--pooling" in visible, path


def test_every_command_that_loads_a_model_takes_every_model_option() -> None:
    flags = {f"--{spec.flag}" for spec in option_specs(ModelOptions) if spec.name != "model"}
    loading = [
        path for path, command in COMMANDS.items() if "--model" in _flags(command, hidden=False)
    ]
    assert {"weat", "vast", "likelihood-bias", "asymmetry", "embed"} <= set(loading)
    for path in loading:
        missing = flags - _flags(COMMANDS[path], hidden=False)
        if path == "embed":  # quick mode (--limit) cuts a method's (and a reproduction's) sets
            assert missing == {"--limit"}, path
            continue
        assert not missing, (path, sorted(missing))


def test_the_former_names_still_read_in_a_study_and_in_python() -> None:
    with pytest.warns(FutureWarning, match="n_samples is deprecated.*use permutations"):
        assert read_values(WeatConfig, {"n_samples": 50}, study=True) == {"permutations": 50}
    with pytest.warns(FutureWarning, match="n-samples is deprecated.*use permutations"):
        assert read_values(VastConfig, {"n-samples": 50}, study=True) == {"permutations": 50}
    with pytest.warns(FutureWarning, match="poolings is deprecated.*use pooling"):
        assert read_values(VastConfig, {"poolings": "last"}, study=True) == {"pooling": ("last",)}
    with pytest.warns(FutureWarning, match="benchmark is deprecated.*use benchmarks"):
        read = read_values(LikelihoodBiasConfig, {"benchmark": ["crows"]}, python=True)
    assert read == {"benchmarks": ("crows",)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the shared names: no warning
        assert read_values(WeatConfig, {"permutations": 50}, study=True) == {"permutations": 50}
        read_values(VastConfig, {"pooling": "last,mean"}, study=True)
        read_values(LikelihoodBiasConfig, {"benchmarks": "crows"}, python=True)


def test_a_former_flag_warns_and_reads(tmp_path: Path) -> None:
    # values checked before any model loads: nothing runs
    old = runner.invoke(
        app, ["vast", "-m", "glove-6b-50d", "--out", str(tmp_path), "--poolings", "median"], env=ENV
    )
    assert old.exit_code == 2, old.output
    assert "--poolings is deprecated: use --pooling" in old.output
    assert "unknown pooling 'median'" in old.output
    args = ["likelihood-bias", "-m", "glove-6b-50d", "--out", str(tmp_path), "--sample", "0"]
    old = runner.invoke(app, [*args, "--benchmark", "crows"], env=ENV)
    assert old.exit_code == 2, old.output
    assert "--benchmark is deprecated: use --benchmarks" in old.output
    assert "at least 1 pair" in old.output


def test_weat_n_samples_gives_the_same_table_as_permutations(
    tmp_path: Path, glove: WordEmbedder
) -> None:
    tables = {}
    for flag in ("--permutations", "--n-samples"):
        out = tmp_path / flag.strip("-")
        args = ["weat", "-m", "glove-6b-50d", "--tests", "7", flag, "100", "--out", str(out)]
        result = runner.invoke(app, args, env=ENV)
        assert result.exit_code == 0, result.output
        warned = "--n-samples is deprecated: use --permutations" in result.output
        assert warned == (flag == "--n-samples")
        tables[flag] = wordlens.read_run(out).tables["weat"]
    pd.testing.assert_frame_equal(tables["--permutations"], tables["--n-samples"])
    # the Python keyword too
    new = wordlens.weat(glove, tests=[7], permutations=100).tables["weat"]
    with pytest.warns(FutureWarning, match="n_samples is deprecated.*use permutations"):
        old = wordlens.weat(glove, tests=[7], n_samples=100).tables["weat"]
    pd.testing.assert_frame_equal(new, old)
    pd.testing.assert_frame_equal(new, tables["--permutations"])


def test_every_context_option_names_the_same_two_values() -> None:
    """``--context`` means the same on every command: each word in ``--template``, or alone."""
    having = {path: c for path, c in COMMANDS.items() if "--context" in _flags(c, hidden=False)}
    assert {"weat", "embed"} <= set(having)
    for path, command in having.items():
        (context,) = [param for param in command.params if "--context" in param.opts]
        assert "'template'" in context.help and "'none'" in context.help, path
        assert "bleached" not in context.help, path
        assert context.default == "template", path
        assert "--template" in _flags(command, hidden=False), path


def test_weats_former_context_value_warns_and_gives_the_same_table(
    tmp_path: Path, minilm: WordEmbedder
) -> None:
    with pytest.warns(FutureWarning, match="context 'bleached' is deprecated.*use 'template'"):
        assert read_values(WeatConfig, {"context": "bleached"}, study=True) == {
            "context": "template"
        }
    tables = {}
    for value in ("template", "bleached"):
        out = tmp_path / value
        args = ["weat", "-m", "minilm-l6", "--tests", "7", "--layers", "0,6", "--no-cache"]
        result = runner.invoke(
            app, [*args, "--context", value, "--permutations", "50", "--out", str(out)], env=ENV
        )
        assert result.exit_code == 0, result.output
        assert ("deprecated" in result.output) == (value == "bleached"), result.output
        run = wordlens.read_run(out)
        assert run.metadata["config"]["context"] == "template"
        tables[value] = run.tables["weat"]
    pd.testing.assert_frame_equal(tables["template"], tables["bleached"])
    # each word in the template differs from each word alone (the option is not ignored)
    alone = wordlens.weat(minilm, tests=[7], layers=[6], context="none", permutations=50)
    assert alone.tables["weat"]["effect_size"].iloc[0] != pytest.approx(
        tables["template"].query("layer == 6")["effect_size"].iloc[0], abs=1e-3
    )
