"""Choosing a backend by name, as the command line does: :func:`make_backend`.

The backend protocol, the in-process :class:`~wordlens.models.backend.LocalBackend` and the
context that selects the current backend (:func:`~wordlens.models.backend.use_backend`) live in
:mod:`wordlens.models.backend`, below the model code that runs on them; this module sits above
it and above :mod:`wordlens.distributed.ray_backend`.
"""

from __future__ import annotations

from typing import get_args

from wordlens.distributed.ray_backend import RayBackend
from wordlens.errors import WordlensError
from wordlens.models.backend import LocalBackend
from wordlens.models.options import BackendName


def make_backend(
    name: str, address: str | None = None, workers: int | None = None
) -> LocalBackend | RayBackend:
    """The backend a command line asks for.

    Parameters
    ----------
    name
        ``"local"`` or ``"ray"``.
    address
        Ray only: ``None`` (start a Ray instance in this process), ``"auto"`` (the cluster this
        machine belongs to), ``"host:port"`` (a cluster's head) or ``"ray://host:port"`` (Ray
        Client).
    workers
        Ray only: actors per model (default: one per GPU of the cluster, else one per CPU).

    Raises
    ------
    WordlensError
        For an unknown name, Ray options with the local backend, or what :class:`RayBackend`
        raises (Ray not installed, cluster unreachable).
    """
    if name not in get_args(BackendName):
        raise WordlensError(
            f"unknown backend {name!r}; choose one of {', '.join(get_args(BackendName))}"
        )
    if name == "local":
        if address is not None or workers is not None:
            raise WordlensError("--address and --workers need --backend ray")
        return LocalBackend()
    return RayBackend(address, workers=workers)
