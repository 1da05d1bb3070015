"""The output array of an extraction, filled row by row in any order without holding it in RAM.

An extraction's result ``[targets, layers, dim]`` float32 can be larger than the model (all 13,915
Warriner words at the 31 layers of smollm2-135m: 993 MB). :class:`OutputRows` keeps a small result
in RAM and writes a large one, as its rows finish, to an unlinked temporary file with ``pwrite``;
the file is mapped (``numpy.memmap``) only when the extraction ends. Finished rows therefore live in
the kernel's page cache, not in the process's resident memory, so peak RSS stays at the model and
one batch whatever the number of targets (``benchmarks/bench_extraction.py`` prints it from 250 to
13,915 words).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from wordlens._files import ensure_writable_dir, user_home

#: Results up to this size stay in RAM; larger ones go to a temporary file: 64 MiB, about the
#: output of one CPU batch (1,024 targets x 31 layers x 576 dims x 4 bytes = 73 MB for
#: smollm2-135m), so resident memory never holds more than about one batch of finished rows.
IN_MEMORY_BYTES = 64 << 20


def spill_directory() -> Path | None:
    """Where large outputs go: ``$WORDLENS_HOME/tmp``, or the system's temporary directory
    (``None``) when that is read-only."""
    try:
        return ensure_writable_dir(user_home() / "tmp")
    except OSError:
        return None


class OutputRows:
    """A float32 array ``shape`` = ``[rows, *row_shape]`` that is written row by row.

    Parameters
    ----------
    shape
        The array's shape.
    in_memory_bytes
        Largest size kept in RAM (``None``: :data:`IN_MEMORY_BYTES`); a larger array is written
        to an unlinked temporary file (it disappears with the last reference to :meth:`array`).

    Notes
    -----
    Rows never written read as zeros (a new file is sparse, a RAM array zeroed).
    """

    def __init__(self, shape: tuple[int, ...], in_memory_bytes: int | None = None) -> None:
        self.shape = shape
        self.row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * 4
        n_bytes = self.row_bytes * shape[0]
        self._memory: npt.NDArray[np.float32] | None = None
        if n_bytes <= (IN_MEMORY_BYTES if in_memory_bytes is None else in_memory_bytes):
            self._memory = np.zeros(shape, dtype=np.float32)
            self._file = None
        else:
            # unlinked at once; the file lives as long as the mapping of array() does
            self._file = tempfile.TemporaryFile(dir=spill_directory())  # noqa: SIM115
            self._file.truncate(n_bytes)

    @property
    def spilled(self) -> bool:
        """Whether the rows go to a temporary file rather than RAM."""
        return self._file is not None

    def write(self, positions: Sequence[int] | npt.NDArray[np.int64], rows: npt.ArrayLike) -> None:
        """Set rows ``positions`` to ``rows`` ``[len(positions), *row_shape]``."""
        values = np.ascontiguousarray(rows, dtype=np.float32)
        if self._memory is not None:
            self._memory[np.asarray(positions, dtype=np.int64)] = values
            return
        assert self._file is not None
        descriptor = self._file.fileno()
        for position, row in zip(positions, values, strict=True):
            os.pwrite(descriptor, row.data, int(position) * self.row_bytes)

    def read(self, position: int) -> npt.NDArray[np.float32]:
        """Row ``position`` (a copy)."""
        if self._memory is not None:
            row: npt.NDArray[np.float32] = self._memory[position].copy()
            return row
        assert self._file is not None
        data = os.pread(self._file.fileno(), self.row_bytes, position * self.row_bytes)
        return np.frombuffer(data, dtype=np.float32).reshape(self.shape[1:]).copy()

    def array(self) -> npt.NDArray[np.float32]:
        """The whole array: the RAM array, or a writable memory map of the file."""
        if self._memory is not None:
            return self._memory
        assert self._file is not None
        self._file.flush()
        mapped: npt.NDArray[np.float32] = np.memmap(
            self._file, dtype=np.float32, mode="r+", shape=self.shape
        )
        return mapped
