"""The documentation notebooks (docs/notebooks) run from top to bottom on the offline models, so
they cannot rot; they are stored without outputs (the site runs them when it builds, and a diff
of a notebook shows only what was written)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import REPO
from tests.models.test_cache import worker_env

NOTEBOOKS = sorted((REPO / "docs" / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 600
"""Most seconds one cell may run (a cold activation cache on a slow CPU included)."""


def test_the_notebooks_are_there_and_stored_without_outputs() -> None:
    assert [path.name for path in NOTEBOOKS] == [
        "masked-lm-bias-audit.ipynb",
        "valence-geometry.ipynb",
    ]
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        assert code and all(not cell.outputs and cell.execution_count is None for cell in code)
        assert notebook.cells[0].source.startswith("# ")  # the page title


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_the_notebook_runs_without_an_error(path: Path, shared: Path, tmp_path: Path) -> None:
    """Every cell runs (an error in any stops the run with the cell and its traceback), in a
    kernel that imports this checkout's wordlens, from an empty working directory."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    env = {name: value for name, value in worker_env().items() if name != "MPLBACKEND"}
    client.execute(env={**env, "WORDLENS_SHARED": str(shared)})  # the kernel's inline plots
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output.output_type == "error"]
    shown = {kind for output in outputs for kind in output.get("data", {})}
    assert {"text/html", "image/png"} <= shown  # a run's summary and the figures, inline
    assert list(tmp_path.iterdir()) == []  # nothing written without out=
