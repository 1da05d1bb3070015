"""Progress bars for long work (rich), silent when disabled."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

_STAGE: ContextVar[str] = ContextVar("wordlens_stage", default="")
"""The label of the stage running now (:func:`stage`): the bars drawn inside it carry it."""


def say(text: str) -> None:
    """Print one line on stderr (what a long stage will cost, before it starts)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(text, markup=False)


@contextmanager
def stage(enabled: bool, said: str, label: str) -> Iterator[None]:
    """A long stage of work: ``said`` is printed on stderr as it starts when ``enabled`` (on a
    terminal or not: a log shows what ran so long), and the progress bars drawn inside it are
    labelled ``label``."""
    if enabled:
        say(said)
    token = _STAGE.set(label)
    try:
        yield
    finally:
        _STAGE.reset(token)


@contextmanager
def progress_bar(enabled: bool, total: int, description: str) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draw a bar on stderr when ``enabled``."""
    if not enabled:
        yield lambda _n: None
        return
    columns = (
        TextColumn("{task.description}", style="bold", markup=False),  # the user's words
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    # on stderr, so stdout holds only results; a bar drawn where no terminal shows it would
    # only leave a blank line behind
    console = Console(stderr=True)
    with Progress(
        *columns, console=console, transient=True, disable=not console.is_terminal
    ) as bar:
        label = _STAGE.get()
        task = bar.add_task(f"{label}: {description}" if label else description, total=total)
        yield lambda n: bar.advance(task, n)
