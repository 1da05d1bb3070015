"""Run planned batches on the current backend, each batch claimed in the activation cache first.

The extraction loops (:meth:`wordlens.models.hf.HFEmbedder.embed_poolings`,
:func:`wordlens.probing.features.sentence_features`) plan their batches over all their units
(targets, sentences), cached or not, then hand the batches that miss something (the probing
features: every batch, whose cached sentences are read into its layer files) to
:func:`run_batches`. Per batch it takes the batch's claim (:meth:`~wordlens.models.cache.
CacheStore.claim`), looks the batch up in the cache again (another process may have written it
since the run began), computes what is still missing and writes it, then releases the claim. A
batch another process holds is put off; after the others, each put-off batch waits for its claim
and is then read (or computed, if the other process died). So two runs on one cache compute each
batch once, and a batch's vectors are those of its planned composition whoever computes it.

On the in-process backend batches are claimed one at a time, just before they run, so two
processes share the work. A backend that spreads batches over workers (Ray) gets all the batches
it can claim at once, to keep its workers busy; a second process then waits for them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from wordlens.models.backend import Backend, LocalBackend, current_backend
from wordlens.models.cache import Claim

ModelT = TypeVar("ModelT")
PayloadT = TypeVar("PayloadT")
ResultT = TypeVar("ResultT")


class BatchWork(ABC, Generic[PayloadT, ResultT]):
    """What :func:`run_batches` needs of an extraction: its claims, its cache look-ups, its
    payloads and where results go. A batch is a list of unit indices."""

    @abstractmethod
    def claim(self, batch: Sequence[int], *, wait: bool) -> Claim | None:
        """The batch's claim (``Claim(None)`` without a cache); ``None`` when another process
        holds it and ``wait`` is false."""

    @abstractmethod
    def todo(self, batch: Sequence[int]) -> list[int]:
        """The units of ``batch`` still missing, after reading what the cache holds now."""

    @abstractmethod
    def payload(self, units: Sequence[int]) -> PayloadT:
        """The backend payload that computes ``units``."""

    @abstractmethod
    def finish(self, units: Sequence[int], result: ResultT) -> None:
        """Place the computed ``units`` and write them to the cache."""


def run_batches(
    operation: Callable[[ModelT, PayloadT], ResultT],
    model: ModelT,
    batches: Sequence[Sequence[int]],
    work: BatchWork[PayloadT, ResultT],
    *,
    launch: Callable[[ModelT, PayloadT], Callable[[], ResultT]] | None = None,
) -> None:
    """Compute ``batches`` with ``operation`` on the current backend (module notes).

    Parameters
    ----------
    operation
        A backend operation (:mod:`wordlens.models.backend`).
    model
        The caller's model.
    batches
        The planned batches that missed something when the run began, in plan order (or every
        planned batch, when the extraction reads cached units a batch at a time too:
        :func:`wordlens.probing.features.sentence_features`).
    work
        The extraction's claims, look-ups, payloads and results.
    launch
        ``operation`` split in two: it starts a batch on an accelerator and returns the function
        that waits for its result. Given, the in-process backend runs a two-stage pipeline: batch
        ``i + 1`` is claimed, looked up, prepared and started before batch ``i``'s result is
        placed and written, so the host's work on both overlaps the device's on ``i + 1``. An
        interruption then loses at most the two batches in flight; each stays claimed until its
        result is written.
    """
    backend = current_backend()
    if launch is not None and isinstance(backend, LocalBackend):
        put_off = _pipeline(launch, model, batches, work)
    else:
        put_off = _in_windows(backend, operation, model, batches, work)
    for batch in put_off:
        waited = work.claim(batch, wait=True)
        try:
            units = work.todo(batch)
            if units:
                _compute(backend, operation, model, [units], work)
        finally:
            if waited is not None:
                waited.release()


def _in_windows(
    backend: Backend,
    operation: Callable[[ModelT, PayloadT], ResultT],
    model: ModelT,
    batches: Sequence[Sequence[int]],
    work: BatchWork[PayloadT, ResultT],
) -> list[Sequence[int]]:
    """Claim and compute the batches a window at a time (one on the in-process backend, all on
    one that spreads them over workers); returns the batches another process held."""
    window = 1 if isinstance(backend, LocalBackend) else max(1, len(batches))
    put_off: list[Sequence[int]] = []
    for start in range(0, max(1, len(batches)), window):
        claims: list[Claim] = []
        try:
            runs = []
            for batch in batches[start : start + window]:
                claim = work.claim(batch, wait=False)
                if claim is None:
                    put_off.append(batch)
                    continue
                claims.append(claim)
                runs.append(work.todo(batch))
            _compute(backend, operation, model, [units for units in runs if units], work)
        finally:
            for claim in claims:
                claim.release()
    return put_off


def _pipeline(
    launch: Callable[[ModelT, PayloadT], Callable[[], ResultT]],
    model: ModelT,
    batches: Sequence[Sequence[int]],
    work: BatchWork[PayloadT, ResultT],
) -> list[Sequence[int]]:
    """The in-process two-stage pipeline of :func:`run_batches`; returns the batches another
    process held."""
    put_off: list[Sequence[int]] = []
    in_flight: list[tuple[Claim, list[int], Callable[[], ResultT] | None]] = []
    try:
        for batch in batches:
            claim = work.claim(batch, wait=False)
            if claim is None:
                put_off.append(batch)
                continue
            in_flight.append((claim, [], None))  # claimed: released whatever happens next
            units = work.todo(batch)
            in_flight[-1] = (claim, units, launch(model, work.payload(units)) if units else None)
            if len(in_flight) == 2:
                _land(in_flight.pop(0), work)
        while in_flight:
            _land(in_flight.pop(0), work)
    finally:
        for claim, _units, _wait in in_flight:
            claim.release()
    return put_off


def _land(
    started: tuple[Claim, list[int], Callable[[], ResultT] | None],
    work: BatchWork[PayloadT, ResultT],
) -> None:
    """Wait for a started batch, place and write its result, and release its claim."""
    claim, units, wait = started
    try:
        if wait is not None:
            work.finish(units, wait())
    finally:
        claim.release()


def _compute(
    backend: Backend,
    operation: Callable[[ModelT, PayloadT], ResultT],
    model: ModelT,
    runs: Sequence[Sequence[int]],
    work: BatchWork[PayloadT, ResultT],
) -> None:
    payloads = [work.payload(units) for units in runs]
    for index, result in backend.map(operation, model, payloads):
        work.finish(runs[index], result)
