"""``wordlens --help`` lists each command on one line (a method by its title, as ``wordlens
methods`` does), and a method's own ``--help`` shows its docstring without the numpydoc
sections (``References``) kept for the API documentation."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.methods.registry import registered_methods

runner = CliRunner()
NAME = re.compile(r"^│ ([a-z-]+)\s{2,}\S")
"""A row of the commands panel that starts a command (its name, then its help)."""


def test_the_top_level_help_gives_each_command_one_line() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "120"}, terminal_width=120)
    assert result.exit_code == 0, result.output
    panel = [row for row in result.output.split("Commands")[1].splitlines() if row[:1] == "│"]
    assert panel and all(NAME.match(row) for row in panel), "\n".join(panel)  # no continuations
    listed = [match[1] for row in panel if (match := NAME.match(row))]
    assert set(registered_methods()) <= set(listed)
    rnsb = next(row for row in panel if row.startswith("│ rnsb "))
    assert "Relative negative sentiment bias (RNSB)" in rnsb


def test_a_method_help_leaves_out_the_references() -> None:
    for name in ("rnsb", "ripa", "semaxis"):
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "120"}, terminal_width=120)
        assert result.exit_code == 0, result.output
        assert "References" not in result.output and "----------" not in result.output, name
        assert "-----" not in registered_methods()[name].help
    assert registered_methods()["rnsb"].help.endswith("there is no permutation test.")


SPHINX = re.compile(r":(?:py:)?[a-z]+:`|``|\]_")
"""What a docstring's reStructuredText marks up: a role, a double-backtick literal, a citation."""


def test_a_method_help_is_plain_text() -> None:
    for name, method in registered_methods().items():
        assert not SPHINX.search(method.help), (name, method.help)
    result = runner.invoke(app, ["ripa", "--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert not SPHINX.search(result.output), result.output
    assert "loses both. The test" in result.output  # "(:meth:`usable`)" is left out


def test_plain_help() -> None:
    from wordlens.help_texts import plain_help

    text = "A pair (:meth:`usable`) of :class:`~wordlens.results.Run` and ``x`` [1]_."
    assert plain_help(text) == "A pair of `Run` and `x` [1]."
    assert plain_help("(see :func:`a.b`, :func:`c`) kept (:func:`d` here)") == " kept (`d` here)"
