"""The output array of an extraction, filled row by row in any order without holding it in RAM.

An extraction's result ``[targets, layers, dim]`` float32 can be larger than the model (all 13,915
Warriner words at the 31 layers of smollm2-135m: 993 MB). :class:`OutputRows` keeps a small result
in RAM and writes a large one, as its rows finish, to an unlinked temporary file with ``pwrite``;
the file is mapped (``numpy.memmap``) only when the extraction ends. Finished rows therefore live in
the kernel's page cache, not in the process's resident memory, so peak RSS stays at the model and
one batch whatever the number of targets (``benchmarks/bench_extraction.py`` prints it from 250 to
13,915 words).

Reading a mapped result back (to save it) brings its pages into the process's resident memory;
:func:`row_blocks` hands it out a block of rows at a time and drops each block's pages from the
process once the caller is done with it, so that saving a result adds one block to the peak RSS,
not the result's size.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from wordlens._files import ensure_writable_dir, user_home

#: Results up to this size stay in RAM; larger ones go to a temporary file: 64 MiB, about the
#: output of one CPU batch (1,024 targets x 31 layers x 576 dims x 4 bytes = 73 MB for
#: smollm2-135m), so resident memory never holds more than about one batch of finished rows.
IN_MEMORY_BYTES = 64 << 20
#: Most bytes of one block of :func:`row_blocks` (at least one row).
BLOCK_BYTES = 16 << 20


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


def row_blocks(
    array: npt.NDArray[np.float32], max_bytes: int | None = None
) -> Iterator[tuple[int, npt.NDArray[np.float32]]]:
    """Consecutive blocks of ``array``'s rows, each ``(first row, rows)`` and at most
    ``max_bytes`` (``None``: :data:`BLOCK_BYTES`), one row at least.

    When ``array`` is a shared memory map (:meth:`OutputRows.array` of a spilled result), the
    pages of a block are dropped from the process's resident memory when the caller asks for the
    next block (``madvise(MADV_DONTNEED)``: the values stay in the file and read back unchanged),
    so going through a result larger than RAM holds one block at a time. Elsewhere (a RAM array,
    a copy-on-write map, a system without ``madvise``) the blocks are plain views.
    """
    n_rows = array.shape[0]
    row_bytes = max(1, array.itemsize * int(np.prod(array.shape[1:], dtype=np.int64)))
    step = max(1, (BLOCK_BYTES if max_bytes is None else max_bytes) // row_bytes)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        yield start, array[start:stop]
        _drop_pages(array, start * row_bytes, stop * row_bytes)


def _drop_pages(array: npt.NDArray[np.float32], start: int, stop: int) -> None:
    """Drop bytes ``[start, stop)`` of ``array``'s data from the process's resident pages, when
    ``array`` is a C-ordered shared ``numpy.memmap`` (nothing otherwise)."""
    mapping = array.base if isinstance(array, np.memmap) else None
    if (
        not isinstance(mapping, mmap.mmap)
        or not hasattr(mmap, "MADV_DONTNEED")
        or array.mode not in ("r", "r+", "w+")  # "c" is private: dropping its pages loses writes
        or not array.flags.c_contiguous
    ):
        return
    begin = array.offset % mmap.ALLOCATIONGRANULARITY + start  # where the data starts in the map
    end = array.offset % mmap.ALLOCATIONGRANULARITY + stop
    begin -= begin % mmap.PAGESIZE
    mapping.madvise(mmap.MADV_DONTNEED, begin, min(end, len(mapping)) - begin)
