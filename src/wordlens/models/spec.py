"""How a loaded model was loaded, so that a worker process can load its own copy.

A :class:`ModelSpec` is a small picklable record of the loader call
(:func:`wordlens.models.loading.load_model` or :func:`wordlens.models.scoring.load_scorer`, with
its keyword arguments) and of the randomization applied after it
(:func:`wordlens.probing.features.randomize_encoder`'s seed). The loaders set it as the
``load_spec`` attribute of what they return. Settings that may change after loading and that
shape a forward pass (the token budget, prefix reuse) are not part of it: they are read from the
driver's object at each :meth:`~wordlens.models.backend.Backend.map` (:func:`runtime_settings`)
and applied on the worker before each shard.

Layering: this module imports nothing from :mod:`wordlens.models` (the loaders import it). Running
the recorded call, which needs the loaders and the randomization, is
:func:`wordlens.distributed.load_from_spec`, above the models and probing modules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from wordlens.errors import WordlensError

Loader = Literal["model", "scorer"]

#: Attributes of a loaded model that shape its forward passes and may be changed after loading.
RUNTIME_SETTINGS = ("token_budget", "prefix_reuse", "min_prefix_tokens")


@dataclass(frozen=True)
class ModelSpec:
    """A loader call: ``load_model(source, **options)`` or ``load_scorer(source, **options)``,
    then ``randomize_encoder(model, randomized_seed)`` when a seed is set.

    Attributes
    ----------
    loader
        ``"model"`` (word embedder) or ``"scorer"`` (language-model scorer).
    source
        The alias, hub id or local path (absolute, so that a worker with another working
        directory finds it).
    options
        The loader's keyword arguments as sorted ``(name, value)`` pairs (hashable).
    randomized_seed
        Seed of the randomized encoder, or ``None``.
    """

    loader: Loader
    source: str
    options: tuple[tuple[str, Any], ...]
    randomized_seed: int | None = None

    @classmethod
    def of(cls, loader: Loader, source: str, options: Mapping[str, Any]) -> ModelSpec:
        """The spec of ``loader(source, **options)``."""
        return cls(loader, source, tuple(sorted(options.items())))

    def replace_options(self, **options: Any) -> ModelSpec:
        """The same call with some keyword arguments changed (e.g. ``device="cuda"``)."""
        return dataclasses.replace(
            self, options=tuple(sorted({**dict(self.options), **options}.items()))
        )

    def randomized(self, seed: int) -> ModelSpec:
        """The same model, then randomized above its lexical layer with ``seed``."""
        return dataclasses.replace(self, randomized_seed=seed)

    def describe(self) -> str:
        """``load_model('minilm-l6', device='cpu', ...)`` (for error messages)."""
        arguments = ", ".join([repr(self.source), *(f"{k}={v!r}" for k, v in self.options)])
        call = f"load_{self.loader}({arguments})"
        if self.randomized_seed is not None:
            call = f"randomize_encoder({call}, seed={self.randomized_seed})"
        return call


def model_spec(model: object) -> ModelSpec:
    """The ``load_spec`` a loader recorded on ``model``.

    Raises
    ------
    WordlensError
        If ``model`` was not made by a loader (built by hand, or its weights edited in place), so
        a worker cannot rebuild it.
    """
    spec = getattr(model, "load_spec", None)
    if not isinstance(spec, ModelSpec):
        name = getattr(getattr(model, "info", None), "name", type(model).__name__)
        raise WordlensError(
            f"model {name} has no load spec: it was not loaded by load_model or load_scorer, so "
            "a worker process cannot load its own copy; load it with those functions or run on "
            "the local backend"
        )
    return spec


def runtime_settings(model: object) -> dict[str, Any]:
    """The :data:`RUNTIME_SETTINGS` that ``model`` has, with their current values."""
    return {name: getattr(model, name) for name in RUNTIME_SETTINGS if hasattr(model, name)}


def apply_settings(model: object, settings: Mapping[str, Any]) -> None:
    """Set the :func:`runtime_settings` of a driver's model on a worker's copy."""
    for name, value in settings.items():
        setattr(model, name, value)
