"""Counts in words: ``1 layer``, ``2 layers``."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, singular for 1 and plural (``noun + "s"`` unless given) otherwise:
    ``counted(1, "layer")`` → ``'1 layer'``, ``counted(31, "layer")`` → ``'31 layers'``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
