"""Targets shared by the cache tests and their worker subprocesses."""

from __future__ import annotations

from wordlens.contexts import Target, decontextualized_targets, targets_from_template
from wordlens.resources import load_lexicon


def cache_targets() -> list[Target]:
    words = [f"word{index}" for index in range(120)] + ["pleasant", "unpleasantness"]
    return targets_from_template(words, "We talked about {word} today")


def warriner_words(n: int) -> list[str]:
    """The first ``n`` Warriner words."""
    return [str(word) for word in load_lexicon("warriner").data["word"]][:n]


def named_targets(name: str) -> list[Target]:
    """``cache`` (:func:`cache_targets`), ``alone:N`` (the first N Warriner words, each alone)
    or ``template:N`` (in "This is {word}")."""
    if name == "cache":
        return cache_targets()
    kind, _, count = name.partition(":")
    words = warriner_words(int(count))
    return decontextualized_targets(words) if kind == "alone" else targets_from_template(words)
