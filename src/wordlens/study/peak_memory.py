"""The peak memory of a block of work: resident memory of this process, and a GPU's memory.

:func:`peak_memory` resets the process's high-water mark of resident memory where Linux allows
it (``/proc/self/clear_refs``), so the peak is the block's own; elsewhere it is the process's peak
so far (the block's own when the process ran nothing else before, as a Ray task in a fresh worker
does), and :class:`PeakMemory` says which. On a CUDA device the peak of memory allocated by torch
is read the same way (torch's own counter, reset at the start).
"""

from __future__ import annotations

import resource
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_CLEAR_REFS = Path("/proc/self/clear_refs")
_STATUS = Path("/proc/self/status")
_MIB = 2**20


@dataclass
class PeakMemory:
    """What :func:`peak_memory` measured (filled in when the block ends).

    Attributes
    ----------
    rss_mib
        Peak resident memory of the process, MiB (NaN until the block ends).
    gpu_mib
        Peak memory torch allocated on the current CUDA device, MiB; None without CUDA.
    block_only
        Whether ``rss_mib`` is the block's own peak (False: the process's peak so far).
    """

    rss_mib: float = float("nan")
    gpu_mib: float | None = None
    block_only: bool = False


@contextmanager
def peak_memory() -> Iterator[PeakMemory]:
    """Measure the peak memory of the block (see the module notes)."""
    measured = PeakMemory(block_only=_reset_resident_peak())
    cuda = _cuda()
    if cuda is not None:
        cuda.reset_peak_memory_stats()
    try:
        yield measured
    finally:
        measured.rss_mib = _resident_peak_mib()
        if cuda is not None:
            measured.gpu_mib = cuda.max_memory_allocated() / _MIB


def _reset_resident_peak() -> bool:
    """Reset the process's resident high-water mark (Linux 4.0 and later); whether it was."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def _resident_peak_mib() -> float:
    """The process's resident high-water mark in MiB (``VmHWM``, else ``ru_maxrss``)."""
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / _MIB if sys.platform == "darwin" else peak / 1024  # bytes on macOS, else kB


def _cuda() -> Any:
    """``torch.cuda`` when torch is already imported and sees a GPU, else None."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return None
    return torch.cuda
