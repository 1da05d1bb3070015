"""Every ```python block of README.md and docs/**/*.md runs, on the offline models.

A block that cannot run here (it needs the network, a Ray cluster, a GPU, or minutes of CPU)
says so in an HTML comment on the line before it, which the rendered page does not show:

    <!-- no-test: needs a Ray cluster -->
    ```python

Each other block runs as a script in a fresh namespace, in a temporary working directory (its
``out=`` and ``write()`` land there), with the shared inputs of the test suite
(``$WORDLENS_SHARED``, ``$WORDLENS_DATA_PATH``); ``../shared`` in a block is the shared
directory, as it is beside a checkout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^(?P<indent> *)```python\n(?P<code>.*?)^(?P=indent)```", re.M | re.S)
NO_TEST = re.compile(r"<!--\s*no-test:\s*(?P<reason>\S.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is, its code, and why it does not run (or None)."""

    page: str
    line: int
    code: str
    skip: str | None


def doc_blocks() -> list[Block]:
    """The ```python blocks of README.md and docs/**/*.md, in page order."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    blocks = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = NO_TEST.search(before)
            indent = len(match["indent"])
            code = "\n".join(line[indent:] for line in match["code"].splitlines())
            blocks.append(
                Block(
                    str(page.relative_to(ROOT)),
                    text.count("\n", 0, match.start()) + 1,
                    code,
                    marker["reason"] if marker else None,
                )
            )
    return blocks


BLOCKS = doc_blocks()


def test_the_pages_have_python_blocks_and_some_run() -> None:
    assert len(BLOCKS) >= 10
    assert sum(block.skip is None for block in BLOCKS) >= 3


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(
            block,
            id=f"{block.page}:{block.line}",
            marks=[pytest.mark.skip(reason=block.skip)] if block.skip else [],
        )
        for block in BLOCKS
    ],
)
def test_doc_block_runs(
    block: Block, shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(shared, target_is_directory=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("WORDLENS_SHARED", str(shared))
    code = compile(block.code, f"{block.page}:{block.line}", "exec")
    exec(code, {"__name__": "__doc_example__"})
