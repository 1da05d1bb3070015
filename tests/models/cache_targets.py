"""Targets shared by the cache kill test and its worker subprocess."""

from __future__ import annotations

from wordlens.contexts import Target, targets_from_template


def cache_targets() -> list[Target]:
    words = [f"word{index}" for index in range(120)] + ["pleasant", "unpleasantness"]
    return targets_from_template(words, "We talked about {word} today")
