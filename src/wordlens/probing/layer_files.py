"""Probing features on disk, layer-major: one memory-mapped ``.npy`` file per layer.

Edge probing reads every subtoken's vector at every layer of a split (Tenney et al. 2019,
Section 3). Held in RAM they grow with the split times the layers: smollm2-135m on the UD EWT
training split is 253K subtoken rows x 32 layers x 576 dimensions in float16, 8.7 GiB. So
:func:`wordlens.probing.features.sentence_features` writes them to disk as batches of sentences
are embedded, one file per layer (:class:`LayerFile`, ``[n_rows, dim]`` float16, a layer's rows
contiguous), and the probe reads the rows of each batch from the files of the layers it uses
(:mod:`wordlens.probing.train`): a single-layer probe touches one file, the scalar mix each
layer's rows of its batch.

Memory
    Every read or write maps the file (:class:`numpy.memmap`) for its own duration only. Mapped
    pages count in the process's resident set while the map lives and leave it with the map,
    while the kernel's page cache keeps them for the next read; one map held over training would
    grow the resident set to the whole file set within the first epoch of the scalar mix.

Complete or absent
    A set of layer files (a *spill*) is built in ``<key>.partial`` under an exclusive lock on
    ``<key>.lock`` (:func:`spill`), synced, and renamed to ``<key>`` when every file is written,
    so a folder ``<key>`` is always complete and never written again. A process killed while
    building leaves ``<key>.partial``, which the next build removes and builds again (from the
    activation cache, where the features of finished batches are); a second process building
    the same spill waits for the lock and then finds it complete. Without ``fcntl`` (Windows),
    or where ``flock`` fails (some network file systems), builds are not coordinated: two
    processes building one spill at once could then remove each other's partial folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from wordlens.errors import WordlensError

if sys.platform != "win32":
    import fcntl

#: What the layer files hold.
DTYPE = np.dtype(np.float16)
#: Changes with the layout of a spill, so that a new layout never reads an old spill.
SPILL_FORMAT = 1

T = TypeVar("T")
Rows = npt.NDArray[np.int64] | slice


@dataclass(frozen=True)
class LayerFile:
    """One layer's subtoken vectors, ``[n_rows, dim]`` float16, in a ``.npy`` file.

    Mapped only for each read or write (module notes), so a :class:`LayerFile` holds no memory.

    Attributes
    ----------
    path
        The ``.npy`` file.
    n_rows, dim
        Its shape.
    offset
        Bytes of its header: where row 0 starts.
    """

    path: Path
    n_rows: int
    dim: int
    offset: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_rows, dim)``."""
        return self.n_rows, self.dim

    @property
    def dtype(self) -> np.dtype[np.float16]:
        """float16."""
        return DTYPE

    @classmethod
    def create(cls, path: Path, n_rows: int, dim: int) -> LayerFile:
        """A new file of ``n_rows`` zero rows (sparse on disk until written)."""
        np.lib.format.open_memmap(path, mode="w+", dtype=DTYPE, shape=(n_rows, dim))
        return cls.open(path)

    @classmethod
    def open(cls, path: Path) -> LayerFile:
        """An existing file (its header is read).

        Raises
        ------
        WordlensError
            If the file is not a 2-D float16 C-order ``.npy`` array.
        """
        mapped = np.lib.format.open_memmap(path, mode="r")
        if mapped.ndim != 2 or not mapped.flags.c_contiguous or mapped.dtype != DTYPE:
            raise WordlensError(
                f"{path} is not a layer file ([rows, dim] float16); delete its folder to rebuild"
            )
        return cls(path, int(mapped.shape[0]), int(mapped.shape[1]), int(mapped.offset))

    def memmap(self, mode: Literal["r", "r+"] = "r") -> np.memmap[Any, np.dtype[np.float16]]:
        """The file mapped, ``[n_rows, dim]``: read-only, or writable with ``"r+"``. The map is
        released when the array is dropped."""
        return np.memmap(self.path, DTYPE, mode, offset=self.offset, shape=self.shape)

    def __getitem__(self, rows: Rows) -> npt.NDArray[np.float16]:
        """A copy of ``rows`` (an index array or a slice), ``[n, dim]``; the map is released."""
        return np.array(self.memmap()[rows])

    def write(self, rows: Rows, values: npt.NDArray[np.float16]) -> None:
        """Write ``values`` ``[n, dim]`` into ``rows`` (an index array or a slice)."""
        self.memmap("r+")[rows] = values


def spill_key(payload: Any) -> str:
    """The name of a spill: sha256 of :data:`SPILL_FORMAT` and ``payload`` (JSON), 32 hex digits;
    ``payload`` holds whatever decides the files' bytes."""
    text = json.dumps([SPILL_FORMAT, payload], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def spill(root: Path, key: str, build: Callable[[Path], T]) -> tuple[Path, T | None]:
    """The complete spill folder ``root/key``: built by ``build`` into a partial folder unless it
    is complete already (module notes).

    Parameters
    ----------
    root
        Folder of spills (created if missing).
    key
        The spill's name (:func:`spill_key`).
    build
        Fills the empty folder it is given.

    Returns
    -------
    folder : Path
        ``root/key``, complete.
    built : T or None
        What ``build`` returned; ``None`` when the folder was complete already.
    """
    target = root / key
    if target.is_dir():
        return target, None
    root.mkdir(parents=True, exist_ok=True)
    with _exclusive(root / f"{key}.lock"):
        if target.is_dir():  # built by another process meanwhile
            return target, None
        partial = root / f"{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)  # an interrupted build's
        partial.mkdir()
        built = build(partial)
        for path in partial.iterdir():
            _sync(path)
        partial.replace(target)
    return target, built


def _sync(path: Path) -> None:
    """Flush a written file to disk (before the rename that declares it complete)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock`` (created if missing) for the block; nothing where
    ``flock`` is missing or fails (module notes)."""
    if sys.platform == "win32":
        yield
        return
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        with contextlib.suppress(OSError):  # flock unsupported here: uncoordinated
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock
