"""The package's layering (tools/import_graph.py): imports run one way, no file cycle, and the
CLI is a thin layer nothing else imports."""

from __future__ import annotations

from pathlib import Path

from tools.import_graph import LAYERS, ROOT, imports, layer_of, module_files, violations

CLI_MAX_LINES = 500


def test_imports_run_downward_without_cycles() -> None:
    graph = imports(module_files())
    assert violations(graph) == []
    # the check can fail: an upward edge is reported
    upward = {**graph, "wordlens.resources.registry": {"wordlens.methods.base"}}
    assert any("a higher layer" in line for line in violations(upward))
    # nothing but the package's __init__ imports the Python API
    assert "wordlens.api" in graph["wordlens"]
    into_api = {**graph, "wordlens.cli": graph["wordlens.cli"] | {"wordlens.api"}}
    assert violations(into_api) == ["wordlens.cli imports the entry point wordlens.api"]
    cyclic = {**graph, "wordlens.errors": {"wordlens._files"}}
    cyclic["wordlens._files"] = {"wordlens.errors"}
    assert any(line.startswith("import cycle") for line in violations(cyclic))


def test_every_module_is_in_a_layer() -> None:
    for module in module_files():
        assert 0 <= layer_of(module) < len(LAYERS)


def test_the_cli_is_thin() -> None:
    lines = len(Path(ROOT / "src" / "wordlens" / "cli.py").read_text().splitlines())
    assert lines <= CLI_MAX_LINES, f"cli.py has {lines} lines"
