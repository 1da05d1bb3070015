"""Execution backends for the expensive stages: in process (default) or on a Ray cluster.

See :mod:`wordlens.distributed.backend` (choosing a backend), :mod:`.operations` (what runs on a
worker), :mod:`.spec` (how a worker loads its copy of a model) and :mod:`.ray_backend`.
"""

from __future__ import annotations

from wordlens.distributed.backend import (
    Backend,
    LocalBackend,
    current_backend,
    in_order,
    make_backend,
    use_backend,
)
from wordlens.distributed.ray_backend import RayBackend
from wordlens.distributed.spec import ModelSpec, load_from_spec, model_spec

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
