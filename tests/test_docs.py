"""The documentation's generated pages (tools/docs_pages.py) cover what the code has, and the
site's navigation has a page for every registered method. (`make docs` builds the site itself,
strictly: a broken link, anchor or docstring fails it.)"""

from __future__ import annotations

import re

import pytest
import typer
from tools.docs_pages import (
    ROOT,
    api_reference,
    cli_reference,
    data_registry,
    escape,
    method_page,
    models_page,
)

from wordlens.cli import build_app
from wordlens.methods.registry import registered_methods


def _commands(command: object, path: str) -> list[tuple[str, object]]:
    """Every (command path, leaf command) under ``command``."""
    subcommands: dict[str, object] = getattr(command, "commands", {})
    if not subcommands:
        return [(path, command)]
    found = []
    for name, sub in subcommands.items():
        found += _commands(sub, f"{path} {name}")
    return found


def test_the_cli_reference_has_every_command_and_option() -> None:
    page = cli_reference()
    commands = _commands(typer.main.get_command(build_app()), "wordlens")
    assert len(commands) > 15
    for path, command in commands:
        heading = re.search(rf"^#+ {re.escape(path)}$", page, flags=re.MULTILINE)
        assert heading, path
        section = page[heading.end() :].split("\n#", 1)[0]
        for param in command.params:  # type: ignore[attr-defined]
            if getattr(param, "hidden", False):  # a deprecated flag: not documented
                assert f"`{param.opts[0]} " not in section, (path, param.opts)
                continue
            for flag in param.opts:
                assert flag in section, (path, flag)
    # a default is shown as --help shows it, the help's own brackets kept as text
    assert "- `--permutations <int>`: Permutation partitions" in page
    assert "Default: `100000`." in page
    # a default decided at run time: the help says it, no "Default: `default`"
    assert (
        "per forward pass \\[default: 1024 on CPU; on a GPU, sized from its free memory\\].\n"
        in page
    )
    assert "Default: `default`" not in page


def test_every_method_has_a_page_in_the_navigation() -> None:
    navigation = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in registered_methods():
        page = f"methods/{method_page(name)}.md"
        assert (ROOT / "docs" / page).is_file(), page
        assert f": {page}\n" in navigation, page


def test_the_data_registry_lists_every_resource_with_its_terms() -> None:
    from wordlens.resources import list_resources

    page = data_registry()
    for resource in list_resources():
        section = page.split(f"\n### {resource.name}\n", 1)[1].split("\n### ", 1)[0]
        assert "**License:**" in section and "**Cite:**" in section, resource.name
        for file in resource.files:
            assert f"`{file.relpath}`" in section and file.url in section
    assert "### weat_caliskan2017.json" in page


def test_the_models_page_lists_every_alias_and_method() -> None:
    from wordlens.models.loading import ALIASES

    page = models_page()
    for alias in ALIASES.values():
        assert f"| `{alias.name}` |" in page and alias.install in page
    for name in registered_methods():
        assert f"[`{name}`](../methods/{method_page(name)}.md)" in page


def test_the_api_reference_documents_every_method_config() -> None:
    page = api_reference()
    for method in registered_methods().values():
        config = method.config_type
        assert f"::: {config.__module__}.{config.__qualname__}\n" in page


def test_escape_keeps_code_and_escapes_markdown() -> None:
    assert escape("use `a_b|c` or a_b|c <x> [y]") == r"use `a_b|c` or a\_b\|c \<x\> \[y\]"
    assert escape("two\n  lines") == "two lines"


def test_sphinx_roles_become_code_spans() -> None:
    pytest.importorskip("griffe")
    from tools.griffe_rst_roles import plain_roles

    text = "See :func:`wordlens.stats.weat`, :class:`~wordlens.results.Run` and [1]_."
    assert plain_roles(text) == "See `wordlens.stats.weat`, `Run` and [1]."
    assert plain_roles("no roles: `code`") == "no roles: `code`"
