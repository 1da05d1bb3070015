"""A griffe extension for the API reference: Sphinx roles in docstrings read as code.

The numpydoc docstrings of wordlens cross-reference with Sphinx roles (``:func:`weat```,
``:class:`~wordlens.results.Run```); mkdocstrings renders Markdown, where a role would show as
raw text. This extension (``mkdocs.yml``: ``extensions`` of the python handler) rewrites each
role as a code span of its target (``~`` keeps the last component, as Sphinx shows it), and
``[1]_`` citation references as ``[1]``. Nothing else in a docstring changes.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):`(?P<target>[^`]+)`")
CITATION = re.compile(r"\[(?P<label>\w+)\]_")


def plain_roles(text: str) -> str:
    """``text`` with every Sphinx role a code span and every ``[N]_`` a ``[N]``."""

    def code(match: re.Match[str]) -> str:
        target = match.group("target")
        if target.startswith("~"):
            target = target[1:].rsplit(".", 1)[-1]
        return f"`{target}`"

    return CITATION.sub(r"[\g<label>]", ROLE.sub(code, text))


class RstRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring (see the module notes)."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
