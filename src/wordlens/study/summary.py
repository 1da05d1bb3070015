"""Headline numbers and per-layer curves of one study cell, read back from its directory.

A cell's directory holds its method's run (:meth:`wordlens.results.Run.write`: the tables and
``run.json``, the manifest that names them); :func:`summarize_cell` reads it with
:meth:`~wordlens.results.Run.read` and asks the method for its summary
(:meth:`wordlens.methods.base.Method.summary`; each method's module notes say what its headline
numbers and curves are).
"""

from __future__ import annotations

from pathlib import Path

from wordlens.errors import OutputError, WordlensError
from wordlens.methods.base import Summary
from wordlens.methods.registry import get_method
from wordlens.results import Run


class CellOutputError(WordlensError, OSError):
    """A cell directory lacks its run (``run.json`` or a table it lists), or another method's."""


def summarize_cell(method: str, out_dir: Path) -> Summary:
    """Headline numbers and curves of the cell of ``method`` written into ``out_dir``.

    Raises
    ------
    UnknownMethodError
        If ``method`` is not registered.
    CellOutputError
        If the run cannot be read, or is another method's (the message names the directory).
    """
    chosen = get_method(method)
    try:
        run = Run.read(out_dir)
    except OutputError as error:
        raise CellOutputError(f"cell directory {out_dir}: {error}") from error
    if run.method != method:
        raise CellOutputError(f"cell directory {out_dir} holds a {run.method} run, not {method}")
    return chosen.summary(run)
