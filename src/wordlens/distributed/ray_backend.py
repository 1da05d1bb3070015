"""The Ray backend: batches of forward passes run by Ray actors, each holding one loaded model.

:class:`RayBackend` connects to a Ray cluster (or starts one in this process) and, for each model
it is asked to run, starts ``workers`` actors (:class:`ModelWorker`) that load their own copy from
the model's :class:`~wordlens.models.spec.ModelSpec` — once per actor — with one GPU each
where the cluster has GPUs, else ``cpus_per_worker`` CPUs. :meth:`RayBackend.map` groups the
payloads into shards of consecutive batches (several batches per remote call, to amortize the
round trip), keeps :data:`SHARDS_IN_FLIGHT` shards queued on every actor and yields each
shard's results as it completes, keyed by payload index.

Fault tolerance: actors are started with ``max_restarts`` and ``max_task_retries``, so when a
worker process dies mid-shard Ray restarts the actor (which loads the model again) and runs the
shard again; a shard's results reach the driver once, as one object, so a retried shard is
neither lost nor counted twice. Operations are pure functions of the model and the payload, and
only the driver writes the activation cache.

Only one model's actors live at a time: asking for another model stops them first (a laptop or
a small cluster cannot hold every model of a study at once). Ray is imported when a
:class:`RayBackend` is made, never by the local backend.
"""

from __future__ import annotations

import importlib
import math
import os
import socket
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from wordlens.distributed.spec import load_from_spec
from wordlens.errors import MissingPackageError, WordlensError
from wordlens.models.spec import ModelSpec, apply_settings, model_spec, runtime_settings

ModelT = TypeVar("ModelT")
PayloadT = TypeVar("PayloadT")
ResultT = TypeVar("ResultT")

#: Shards queued on each actor: the next one is already there when one finishes, so an actor
#: never waits for the driver's round trip.
SHARDS_IN_FLIGHT = 2
#: The automatic shard size aims at this many shards per worker (load balance, retry cost) ...
SHARDS_PER_WORKER = 4
#: ... with at most this many batches per shard.
MAX_SHARD_SIZE = 8

#: Environment variables of the driver that workers need to find the same files.
FORWARDED_ENVIRONMENT = (
    "WORDLENS_HOME",
    "WORDLENS_DATA_PATH",
    "WORDLENS_OFFLINE",
    "WORDLENS_MIRROR_URL",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
)


@dataclass(frozen=True)
class WorkerInfo:
    """What an actor reports after loading: its process, host, the loaded model's fingerprint,
    and the loading error (``None`` when it loaded)."""

    pid: int
    host: str
    fingerprint: str | None
    error: str | None


class ModelWorker:
    """The body of a Ray actor: one loaded copy of a model, running operations on it.

    A model that fails to load is not raised here (Ray would restart the actor and report a
    traceback soup): the error is kept and :meth:`describe` hands it to the driver.
    """

    def __init__(self, spec: ModelSpec) -> None:
        self.model: Any = None
        self.error: str | None = None
        try:
            self.model = load_from_spec(spec)
        except Exception as error:  # reported by describe()
            self.error = f"{type(error).__name__}: {error}"

    def describe(self) -> WorkerInfo:
        fingerprint = None if self.model is None else str(self.model.info.fingerprint)
        return WorkerInfo(os.getpid(), socket.gethostname(), fingerprint, self.error)

    def run(
        self,
        operation: Callable[[Any, Any], Any],
        settings: dict[str, Any],
        payloads: Sequence[Any],
    ) -> list[Any]:
        """``operation`` on every payload of a shard, after applying the driver's settings."""
        apply_settings(self.model, settings)
        return [operation(self.model, payload) for payload in payloads]


@dataclass
class _Pool:
    """The live actors of one model spec and what they reported at start."""

    spec: ModelSpec
    actors: list[Any]
    workers: list[WorkerInfo]


def import_ray() -> Any:
    """The ``ray`` module.

    Raises
    ------
    MissingPackageError
        If Ray is not installed (with the ``pip install`` that fixes it).
    """
    try:
        return importlib.import_module("ray")
    except ImportError as error:
        raise MissingPackageError(
            "the Ray backend needs Ray, which is not installed: pip install 'wordlens[ray]'"
        ) from error


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Open (and close) a TCP connection to a ``host:port`` or ``ray://host:port`` address.

    Raises
    ------
    WordlensError
        If the address is malformed or nothing answers there.
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise WordlensError(
            f"cannot read Ray address {address!r}: use 'auto', 'host:port' or 'ray://host:port'"
        )
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise WordlensError(
            f"cannot connect to the Ray cluster at {address}: {error} (is a Ray head running "
            "there? start one with `ray start --head`)"
        ) from error


def shard_ranges(n_payloads: int, shard_size: int) -> list[range]:
    """Consecutive payload indices in shards of ``shard_size`` (the last may be smaller)."""
    return [
        range(start, min(start + shard_size, n_payloads))
        for start in range(0, n_payloads, shard_size)
    ]


def auto_shard_size(n_payloads: int, workers: int) -> int:
    """Batches per shard: :data:`SHARDS_PER_WORKER` shards per worker, 1 to
    :data:`MAX_SHARD_SIZE` batches each."""
    return max(1, min(MAX_SHARD_SIZE, math.ceil(n_payloads / (SHARDS_PER_WORKER * workers))))


class RayBackend:
    """Forward passes on Ray actors (see the module notes).

    Parameters
    ----------
    address
        ``None`` starts a Ray instance in this process (stopped by :meth:`close`); ``"auto"``
        joins the cluster this machine belongs to; ``"host:port"`` a cluster's head (GCS port);
        ``"ray://host:port"`` through Ray Client.
    workers
        Actors per model; default one per GPU of the cluster, else one per ``cpus_per_worker``
        CPUs.
    shard_size
        Batches per remote call; default :func:`auto_shard_size`.
    cpus_per_worker
        CPUs reserved by each actor; Ray runs its torch with as many threads
        (``OMP_NUM_THREADS``).
    device
        Torch device of the actors' models; default ``"cuda"`` when the cluster has GPUs, else
        the device the driver's model was loaded with.
    max_retries
        Times a dead actor is restarted and its shards retried before the run fails.
    start_timeout_s
        How long to wait for the actors to be placed and to load the model.

    Notes
    -----
    The batches are the driver's, so the results equal the local backend's bit for bit when
    the actors run on the same kind of device with as many torch threads as this process; with
    another thread count CPU matrix kernels sum in another order, and results agree to float32
    rounding (about 1e-6 relative), as batched and one-at-a-time vectors do. ``ray://``
    addresses need Ray Client (``pip install 'ray[client]'``). A process already connected to
    Ray keeps its connection (``address`` is then not used).

    Raises
    ------
    MissingPackageError
        If Ray is not installed.
    WordlensError
        If the cluster cannot be reached (the message names the address).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        shard_size: int | None = None,
        cpus_per_worker: float = 1.0,
        device: str | None = None,
        max_retries: int = 3,
        start_timeout_s: float = 600.0,
    ) -> None:
        if workers is not None and workers < 1:
            raise WordlensError(f"workers must be at least 1, not {workers}")
        if shard_size is not None and shard_size < 1:
            raise WordlensError(f"shard_size must be at least 1, not {shard_size}")
        self._ray = import_ray()
        self.address = address
        self._connected_here = self._connect(address, workers, cpus_per_worker)
        resources = self._ray.cluster_resources()
        self.gpus = int(resources.get("GPU", 0))
        self.workers = workers or max(
            1, self.gpus or int(resources.get("CPU", 0) // cpus_per_worker)
        )
        self.shard_size = shard_size
        self.cpus_per_worker = cpus_per_worker
        self.device = device or ("cuda" if self.gpus else None)
        self.max_retries = max_retries
        self.start_timeout_s = start_timeout_s
        self._actor_class = self._ray.remote(ModelWorker)
        self._pool: _Pool | None = None

    def _connect(self, address: str | None, workers: int | None, cpus_per_worker: float) -> bool:
        """Connect to (or start) Ray unless this process already is; whether it connected."""
        if self._ray.is_initialized():
            return False
        if address not in (None, "auto"):
            check_reachable(address)
        options: dict[str, Any] = {"log_to_driver": False, "logging_level": "warning"}
        if address is None:
            options.update(
                include_dashboard=False,
                num_cpus=None if workers is None else math.ceil(workers * cpus_per_worker),
            )
        try:
            self._ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, TimeoutError, ValueError) as error:
            where = "a new local Ray instance" if address is None else f"Ray at {address}"
            raise WordlensError(f"cannot connect to {where}: {error}") from error
        return True

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the current model's actors as they started (empty before any run)."""
        return [] if self._pool is None else [worker.pid for worker in self._pool.workers]

    def map(
        self,
        operation: Callable[[ModelT, PayloadT], ResultT],
        model: ModelT,
        payloads: Sequence[PayloadT],
    ) -> Iterator[tuple[int, ResultT]]:
        """Yield ``(i, operation(model, payloads[i]))`` for every payload once, shard by shard as
        shards complete (see :class:`~wordlens.models.backend.Backend`)."""
        if not payloads:
            return
        pool = self._start_pool(model)
        settings = runtime_settings(model)
        shards = shard_ranges(
            len(payloads), self.shard_size or auto_shard_size(len(payloads), len(pool.actors))
        )
        queue = deque(range(len(shards)))
        in_flight: dict[Any, tuple[int, int]] = {}  # object ref -> (actor, shard)

        def submit(actor: int) -> None:
            if queue:
                shard = queue.popleft()
                batch = [payloads[i] for i in shards[shard]]
                ref = pool.actors[actor].run.remote(operation, settings, batch)
                in_flight[ref] = (actor, shard)

        try:
            for actor in range(len(pool.actors)):
                for _ in range(SHARDS_IN_FLIGHT):
                    submit(actor)
            while in_flight:
                (ready,), _ = self._ray.wait(list(in_flight), num_returns=1)
                actor, shard = in_flight.pop(ready)
                results = self._shard_results(ready, shard, pool.spec)
                submit(actor)
                yield from zip(shards[shard], results, strict=True)
        finally:
            for ref in in_flight:  # the caller stopped early: drop the queued shards
                self._ray.cancel(ref)

    def tasks(
        self, function: Callable[[PayloadT], ResultT], payloads: Sequence[PayloadT]
    ) -> Iterator[tuple[int, ResultT]]:
        """Yield ``(i, function(payloads[i]))`` for every payload, each run as one Ray task in a
        worker process of its own (``max_calls=1``: what the task loads is freed with its process,
        and its peak memory is its own), with one GPU where the cluster has GPUs, else
        ``cpus_per_worker`` CPUs; in the order tasks finish. A sweep runs each checkpoint so
        (:mod:`wordlens.sweep`).

        Raises
        ------
        WordlensError
            A task's wordlens error, or a task that failed or whose worker died
            ``max_retries`` times.
        """
        remote = self._ray.remote(
            num_cpus=self.cpus_per_worker,
            num_gpus=1 if self.gpus else 0,
            max_calls=1,
            max_retries=self.max_retries,
            runtime_env={"env_vars": forwarded_environment()},
        )(function)
        pending = {remote.remote(payload): index for index, payload in enumerate(payloads)}
        exceptions = self._ray.exceptions
        try:
            while pending:
                (ready,), _ = self._ray.wait(list(pending), num_returns=1)
                index = pending.pop(ready)
                try:
                    result: ResultT = self._ray.get(ready)
                except exceptions.RayTaskError as error:
                    if isinstance(error.cause, WordlensError):
                        raise error.cause from None
                    raise WordlensError(
                        f"task {index} failed on a Ray worker: {type(error.cause).__name__}: "
                        f"{error.cause}"
                    ) from None
                except exceptions.WorkerCrashedError as error:
                    raise WordlensError(
                        f"the Ray worker of task {index} died {self.max_retries + 1} times: "
                        f"{str(error).splitlines()[0]}"
                    ) from None
                yield index, result
        finally:
            for ref in pending:  # the caller stopped early (or a task failed): cancel the rest
                self._ray.cancel(ref)

    def _shard_results(self, ref: Any, shard: int, spec: ModelSpec) -> list[Any]:
        """A finished shard's results, with a worker's error as a wordlens error."""
        exceptions = self._ray.exceptions
        try:
            results: list[Any] = self._ray.get(ref)
        except exceptions.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, WordlensError):
                raise cause from None
            raise WordlensError(
                f"shard {shard} failed on a Ray worker running {spec.describe()}: "
                f"{type(cause).__name__}: {cause}"
            ) from None
        except exceptions.RayActorError as error:
            raise WordlensError(
                f"the Ray worker running shard {shard} of {spec.describe()} died and was "
                f"restarted {self.max_retries} times: {str(error).splitlines()[0]}"
            ) from None
        return results

    def _start_pool(self, model: object) -> _Pool:
        """The actors of ``model``'s spec: the live pool, or a new one (stopping the old)."""
        spec = model_spec(model)
        if self.device is not None:
            spec = spec.replace_options(device=self.device)
        if self._pool is not None and self._pool.spec == spec:
            return self._pool
        self._stop_pool()
        options = {
            "num_cpus": self.cpus_per_worker,
            "num_gpus": 1 if self.gpus else 0,
            "max_restarts": self.max_retries,
            "max_task_retries": self.max_retries,
            "runtime_env": {"env_vars": forwarded_environment()},
        }
        actors = [self._actor_class.options(**options).remote(spec) for _ in range(self.workers)]
        self._pool = _Pool(spec, actors, [])
        self._pool.workers = self._describe(actors, spec)
        fingerprint = getattr(getattr(model, "info", None), "fingerprint", None)
        loaded = {worker.fingerprint for worker in self._pool.workers}
        if loaded != {fingerprint}:
            self._stop_pool()
            raise WordlensError(
                f"the Ray workers loaded {spec.describe()} with fingerprint(s) "
                f"{sorted(map(str, loaded))}, not this process's {fingerprint}: they read other "
                "model files (another WORDLENS_HOME, model directory or revision)"
            )
        return self._pool

    def _describe(self, actors: list[Any], spec: ModelSpec) -> list[WorkerInfo]:
        """Wait for the actors to load the model; raise what kept them from it."""
        exceptions = self._ray.exceptions
        try:
            workers: list[WorkerInfo] = self._ray.get(
                [actor.describe.remote() for actor in actors], timeout=self.start_timeout_s
            )
        except exceptions.GetTimeoutError:
            self._stop_pool()
            need = f"{self.cpus_per_worker} CPU(s)" + (" and 1 GPU" if self.gpus else "")
            raise WordlensError(
                f"the Ray cluster did not start {len(actors)} workers of {need} each loading "
                f"{spec.describe()} within {self.start_timeout_s:.0f} s (cluster resources: "
                f"{self._ray.cluster_resources()}); ask for fewer workers"
            ) from None
        except exceptions.RayActorError as error:
            self._stop_pool()
            raise WordlensError(
                f"a Ray worker died while loading {spec.describe()}: {str(error).splitlines()[0]}"
            ) from None
        failed = [worker for worker in workers if worker.error is not None]
        if failed:
            self._stop_pool()
            raise WordlensError(
                f"{spec.describe()} failed to load on a Ray worker ({failed[0].host}): "
                f"{failed[0].error}"
            )
        return workers

    def _stop_pool(self) -> None:
        if self._pool is not None:
            for actor in self._pool.actors:
                self._ray.kill(actor, no_restart=True)
            self._pool = None

    def close(self) -> None:
        """Stop the actors, and the Ray connection (or instance) this backend opened."""
        self._stop_pool()
        if self._connected_here and self._ray.is_initialized():
            self._ray.shutdown()

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RayBackend(address={self.address!r}, workers={self.workers})"


def forwarded_environment() -> dict[str, str]:
    """The :data:`FORWARDED_ENVIRONMENT` variables set in this process."""
    return {name: os.environ[name] for name in FORWARDED_ENVIRONMENT if name in os.environ}
