"""Where forward passes run: in this process (default) or on workers, chosen by context.

The expensive loops of wordlens (word vectors, scoring passes, probing features) plan their
batches, then hand the list of batch payloads to the current backend's :meth:`Backend.map`, which
yields ``(payload index, result)`` pairs as batches finish; the loop places each result and writes
the activation cache itself (workers never write it). The backend is read from a context
variable, so no method has to pass it along::

    from wordlens.distributed import make_backend, use_backend

    with make_backend("ray", address="auto") as backend, use_backend(backend):
        run_weat(model, tests)            # word vectors computed by Ray actors

Without :func:`use_backend` the backend is :class:`LocalBackend`: the operation runs on the
caller's model object, payload after payload, in order — the loops' code path before backends
existed, and no Ray import.

An *operation* is a module-level function ``operation(model, payload) -> result`` (picklable by
reference, so a Ray worker imports it) over a frozen payload that holds one planned batch exactly
as the driver's loop planned it; each lives beside the model code it runs:

- :func:`wordlens.models.hf.embed_batch` — word vectors (:class:`~wordlens.models.hf.HFEmbedder`);
- :func:`wordlens.models.scoring.log_probs_batch` — masked/causal scoring passes
  (:class:`~wordlens.models.scoring.LMScorer`);
- :func:`wordlens.models.scoring.read_batch_log_probs` — the same passes given as arrays
  (:func:`wordlens.models.contextual_conditionals.run_shard`);
- :func:`wordlens.probing.features.feature_batch` — probing features.

Layering: this module imports nothing from :mod:`wordlens.models` (the model modules import it)
and never Ray. The Ray backend (:class:`wordlens.distributed.RayBackend`) and
:func:`wordlens.distributed.make_backend` live in :mod:`wordlens.distributed`, above the models
and probing modules whose operations they run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, TypeVar

ModelT = TypeVar("ModelT")
PayloadT = TypeVar("PayloadT")
ResultT = TypeVar("ResultT")


class Backend(Protocol):
    """Runs an operation over batch payloads and yields each result once, keyed by position."""

    def map(
        self,
        operation: Callable[[ModelT, PayloadT], ResultT],
        model: ModelT,
        payloads: Sequence[PayloadT],
    ) -> Iterator[tuple[int, ResultT]]:
        """Yield ``(i, operation(model, payloads[i]))`` for every ``i`` exactly once, in any
        order (as the batches finish).

        Parameters
        ----------
        operation
            An operation (module notes).
        model
            The caller's loaded model (a worker loads its own copy from ``model.load_spec``).
        payloads
            The planned batches.
        """
        ...

    def close(self) -> None:
        """Release the backend's workers and connections (nothing for the local backend)."""
        ...


class LocalBackend:
    """The operation on the caller's model, in this process, payload after payload in order."""

    def map(
        self,
        operation: Callable[[ModelT, PayloadT], ResultT],
        model: ModelT,
        payloads: Sequence[PayloadT],
    ) -> Iterator[tuple[int, ResultT]]:
        for index, payload in enumerate(payloads):
            yield index, operation(model, payload)

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "LocalBackend()"


_LOCAL = LocalBackend()
_CURRENT: ContextVar[Backend | None] = ContextVar("wordlens_backend", default=None)


def current_backend() -> Backend:
    """The backend the loops use here: the innermost :func:`use_backend`'s, else local."""
    return _CURRENT.get() or _LOCAL


@contextmanager
def use_backend(backend: Backend) -> Iterator[Backend]:
    """Run the forward passes of the enclosed code on ``backend`` (restored on exit)."""
    token = _CURRENT.set(backend)
    try:
        yield backend
    finally:
        _CURRENT.reset(token)


def in_order(results: Iterable[tuple[int, ResultT]]) -> Iterator[tuple[int, ResultT]]:
    """The ``(index, result)`` pairs of :meth:`Backend.map` re-ordered by index (results that
    arrive early are held until their predecessors have come), for loops whose floating-point
    accumulation must not depend on completion order."""
    held: dict[int, ResultT] = {}
    expected = 0
    for index, result in results:
        held[index] = result
        while expected in held:
            yield expected, held.pop(expected)
            expected += 1
