"""Execution backends for the expensive stages: in process (default) or on a Ray cluster.

Layering: this package sits above :mod:`wordlens.models` and :mod:`wordlens.probing` and may
import them; they import nothing from it. What the model code needs to run on any backend lives
below it, in the models package: the backend protocol, the in-process backend and the current
backend's context (:mod:`wordlens.models.backend`), the record of a model's loader call
(:mod:`wordlens.models.spec`) and the operations beside the code they run
(:func:`wordlens.models.hf.embed_batch`, :func:`wordlens.models.scoring.log_probs_batch`,
:func:`wordlens.probing.features.feature_batch`). This package adds the Ray backend
(:mod:`.ray_backend`), :func:`make_backend` (:mod:`.backend`) and :func:`load_from_spec`, how a
worker loads its copy of a model (:mod:`.spec`), and re-exports the names above that users
import from here.
"""

from __future__ import annotations

from wordlens.distributed.backend import make_backend
from wordlens.distributed.ray_backend import RayBackend
from wordlens.distributed.spec import load_from_spec
from wordlens.models.backend import (
    Backend,
    LocalBackend,
    current_backend,
    in_order,
    use_backend,
)
from wordlens.models.spec import ModelSpec, model_spec

__all__ = [
    "Backend",
    "LocalBackend",
    "ModelSpec",
    "RayBackend",
    "current_backend",
    "in_order",
    "load_from_spec",
    "make_backend",
    "model_spec",
    "use_backend",
]
