"""Progress bars for long work (rich), silent when disabled."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


@contextmanager
def progress_bar(enabled: bool, total: int, description: str) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draw a bar on stderr when ``enabled``."""
    if not enabled:
        yield lambda _n: None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
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
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)
