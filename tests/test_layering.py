"""Package layering: a lower package never imports a higher one, not even inside a function or
under ``TYPE_CHECKING`` (an import there still ties the two into one import cycle).

- :mod:`wordlens.models` sits below :mod:`wordlens.distributed` (the Ray layer runs model code)
  and :mod:`wordlens.probing` (probing features run on models);
- :mod:`wordlens.resources` describes data files and sits below :mod:`wordlens.probing` (the
  converters that turn the edge-probing files into examples register themselves with it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import wordlens

SOURCE = Path(wordlens.__file__).parent

#: Package -> the packages it must not import.
FORBIDDEN = {
    "wordlens.models": ("wordlens.distributed", "wordlens.probing"),
    "wordlens.resources": ("wordlens.probing",),
}


def imported_modules(text: str, package: str) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in a module of ``package`` whose source is ``text``,
    function-level ones included (``from a import b`` gives ``a``; relative imports resolved)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            found.append((node.lineno, ".".join([*base, *filter(None, [node.module])])))
    return sorted(found)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_lower_package_imports_no_higher_one(package: str) -> None:
    violations = []
    for path in sorted(SOURCE.joinpath(*package.split(".")[1:]).rglob("*.py")):
        dotted = ".".join(path.relative_to(SOURCE.parent).parts[:-1])
        for line, module in imported_modules(path.read_text(encoding="utf-8"), dotted):
            if any(within(module, higher) for higher in FORBIDDEN[package]):
                violations.append(f"{path.relative_to(SOURCE.parent)}:{line} imports {module}")
    assert violations == []


def test_function_level_and_relative_imports_are_seen() -> None:
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from . import hf\n"
        "def f():\n"
        "    from ..distributed import spec\n"
        "    import wordlens.probing.edges\n"
    )
    assert imported_modules(text, "wordlens.models") == [
        (1, "typing"),
        (3, "wordlens.models"),
        (5, "wordlens.distributed"),
        (6, "wordlens.probing.edges"),
    ]
    assert within("wordlens.probing.edges", "wordlens.probing")
    assert not within("wordlens.probing_sets", "wordlens.probing")
