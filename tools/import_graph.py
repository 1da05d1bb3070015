#!/usr/bin/env python3
"""The import graph of src/wordlens by layer: checks that imports run one way, and draws it.

usage: python tools/import_graph.py [--svg docs/import-graph.svg]

Reads every module's imports (function-local ones too; nothing is run), maps each module to its
component (``wordlens.models.hf`` → ``models``) and each component to a layer of :data:`LAYERS`,
top to bottom. An import may go down or stay within a layer, never up; the file graph has no
cycle; nothing imports the entry points (:data:`ENTRY_POINTS`: the CLI but from ``__main__``
(``python -m wordlens``), and the Python API but from the package's ``__init__``, which
re-exports it). Prints the violations (exit status 1 when
any) and, with ``--svg``, writes the picture of the components and the imports between them.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "wordlens"
LAYERS: dict[str, tuple[str, ...]] = {
    "entry points": (
        "cli",
        "cli_parts",
        "cli_listings",
        "cli_options",
        "cli_compare",
        "api",
        "__init__",
        "__main__",
    ),
    "study": ("study", "sweep", "comparison", "distributed", "reproduce"),
    "methods": ("methods",),
    "probing and reports": ("probing", "report", "export", "conventions"),
    "models": ("models", "plan"),
    "contexts and statistics": ("contexts", "stats"),
    "resources": ("resources",),
    "core": (
        "options",
        "help_texts",
        "results",
        "errors",
        "_files",
        "_version",
        "progress",
        "stages",
        "unicode_forms",
        "_plural",
    ),
}
"""Layers, top first, and the components (subpackages or top-level modules) in each."""
ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    f"{PACKAGE}.cli": (f"{PACKAGE}.__main__",),
    f"{PACKAGE}.__main__": (),
    f"{PACKAGE}.api": (PACKAGE,),
}
"""Entry-point modules → the only modules that may import them."""


def module_files(src: Path = ROOT / "src") -> dict[str, Path]:
    """Module name → file, for every module of the package (``__init__`` files as the package)."""
    files = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        name = ".".join(path.relative_to(src).with_suffix("").parts)
        files[name.removesuffix(".__init__")] = path
    return files


def imports(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the package's modules it imports (any depth in the file, relative ones too)."""
    graph: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(node, package_parts, files):
                while target not in files and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in files and target != module:
                    graph[module].add(target)
    return graph


def _targets(node: ast.AST, package_parts: list[str], files: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = package_parts[: len(package_parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        for alias in node.names:
            yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base


def component(module: str) -> str:
    """``wordlens.models.hf`` → ``models``; ``wordlens`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(module: str) -> int:
    """Index of the module's layer in :data:`LAYERS` (0 = top)."""
    name = component(module)
    for index, members in enumerate(LAYERS.values()):
        if name in members:
            return index
    raise KeyError(f"{module}: component {name!r} is in no layer of LAYERS")


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Upward imports, imports of an entry point from elsewhere, and file cycles, one line
    each."""
    found = [
        f"{module} ({component(module)}) imports {target} ({component(target)}), a higher layer"
        for module, targets in graph.items()
        for target in sorted(targets)
        if layer_of(target) < layer_of(module)
    ]
    found += [
        f"{module} imports the entry point {entry}"
        for entry, allowed in ENTRY_POINTS.items()
        for module, targets in graph.items()
        if entry in targets and module not in (entry, *allowed)
    ]
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        found.append(f"import cycle: {' -> '.join(error.args[1])}")
    return found


def draw(graph: dict[str, set[str]], path: Path) -> None:
    """The components by layer (rows, top first) and the imports between them (arrows)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable
    matplotlib.rcParams["svg.hashsalt"] = "wordlens"  # the same graph gives the same file
    import matplotlib.pyplot as plt

    edges = {
        (component(module), component(target))
        for module, targets in graph.items()
        for target in targets
        if component(module) != component(target)
    }
    position = {}
    for row, members in enumerate(LAYERS.values()):
        for column, name in enumerate(members):
            position[name] = ((column + 0.5) / len(members), -row)
    figure, axes = plt.subplots(figsize=(11, 7))
    for source, target in sorted(edges):
        (x0, y0), (x1, y1) = position[source], position[target]
        axes.annotate(
            "",
            xy=(x1, y1 + 0.12),
            xytext=(x0, y0 - 0.12),
            arrowprops={"arrowstyle": "->", "color": "#8899aa", "lw": 0.7, "alpha": 0.7},
        )
    for name, (x, y) in position.items():
        axes.text(
            x,
            y,
            name,
            ha="center",
            va="center",
            fontsize=10,
            bbox={"boxstyle": "round", "facecolor": "#eef3fb", "edgecolor": "#335"},
        )
    for row, layer in enumerate(LAYERS):
        axes.text(-0.08, -row, layer, ha="right", va="center", fontsize=10, style="italic")
    axes.set_xlim(-0.35, 1.05)
    axes.set_ylim(-len(LAYERS) + 0.5, 0.5)
    axes.axis("off")
    axes.set_title(f"{PACKAGE}: imports run downward ({len(edges)} component edges)")
    figure.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svg", type=Path, help="write the picture here")
    arguments = parser.parse_args()
    graph = imports(module_files())
    problems = violations(graph)
    for problem in problems:
        print(problem)
    if arguments.svg:
        draw(graph, arguments.svg)
        print(f"wrote {arguments.svg}")
    n_imports = sum(map(len, graph.values()))
    print(f"{len(graph)} modules, {n_imports} imports, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
