"""On-disk activation cache: every (model, text, span, pooling, layer set) is computed once.

Layout (nothing here executes code on load: safetensors + JSON, no pickle)::

    <root>/<model fingerprint>/
        <pooling>-<layer-set digest>-v2/   one store per pooling and layer set (cache format 2)
            store.json                 what the store holds (model, pooling, layers, hidden size,
                                       dtype, format)
            shard-<uuid>.safetensors   tensors "vectors" [k, n_layers, dim] float32 (or float16)
                                       and "n_subtokens" [k] int64; header metadata "keys" = JSON
                                       list of the k target keys, row-aligned, "format" = "2" and
                                       "blake2b" = the shard's checksum
            damaged/                   shards that failed their check, moved aside
        locks/<nn>.lock                the batch claims of concurrent runs (see below)

Atomic shards
    Each shard is written to a temporary file and renamed into place (``os.replace``), so a
    process killed at any point leaves only complete shards (and perhaps a ``.tmp`` file that is
    ignored and removed by :meth:`ActivationCache.clear`). A rerun reads the shard headers, finds
    every finished target and computes only the rest; results are bit-identical because cached
    rows are the float32 values that were computed, and batches are planned over all targets,
    cached or not (:mod:`wordlens.models.hf`), so a missing batch is recomputed with the same
    composition.

Checksums
    A shard's header holds the blake2b digest (16 bytes, :func:`shard_checksum`) of its keys and
    of each tensor's name, dtype, shape and bytes, written in the same atomic rename as the
    tensors. Every shard a run reads from is verified (once per store object): a shard whose
    header cannot be read (a truncated file, a damaged header), whose checksum does not match
    (bytes overwritten) or that has no checksum is *moved aside* into the store's ``damaged/``
    folder, with a :class:`~wordlens.errors.CacheDamageWarning` naming it; its targets are then
    missing and are recomputed in their planned batch, so the results equal a fresh computation.
    Moving (not deleting) keeps the evidence; ``wordlens cache clear`` removes it. A shard that
    cannot be moved or deleted is a :class:`~wordlens.errors.CacheError`. Verifying costs one
    blake2b pass over the bytes read, measured in ``benchmarks/bench_extraction.py``: a rerun of
    1,000 words (smollm2-135m, all layers, 68 MiB of shards) that finds everything in the cache
    took 0.22 s verified and 0.14 s not (2 CPU threads), so verification is 0.08 s, 37 % of such
    a rerun and under 3 % of computing the vectors (2.9 s). ``ActivationCache(verify=False)``
    skips it (for that measurement only).

Older caches
    Shards of cache format 1 (before checksums) cannot be verified, so they are not read: format
    2 stores are other directories (the ``-v2`` suffix), every target is computed again once, and
    the old stores stay on disk, listed as format 1 by ``wordlens cache info``, until ``wordlens
    cache clear`` removes them. (Recomputing costs time; trusting unverifiable vectors could cost
    correctness.)

Concurrent runs
    Two processes computing the same targets into one cache do the work once. Before computing a
    planned batch, a process takes an exclusive claim on it (:meth:`CacheStore.claim`: a
    ``fcntl.flock`` on one of :data:`LOCK_STRIPES` lock files, chosen by a digest of the batch's
    store and keys), rereads the store's new shard headers (:meth:`CacheStore.refresh`) and
    computes only what is still missing; a batch claimed by another process is put off, and at
    the end the process waits for each put-off claim (the other process writes the batch in the
    meantime), then reads it. A process never waits while it holds a claim, so claims cannot
    deadlock, and the kernel releases the lock of a process that dies (even by ``kill -9``): the
    waiting process then finds the batch missing and computes it. The locks only avoid duplicated
    work, never guard correctness: shards are atomic and a key held by two shards is read from the
    one indexed first. Without ``fcntl`` (Windows) or where ``flock`` fails (some network
    file systems) batches are not coordinated: both processes compute them. See
    :func:`wordlens.models.batch_runs.run_batches`.

A target's key is the sha256 of ``[text, start, end]``; the store directory encodes the model
fingerprint, pooling and layer set, so one key never maps to vectors of another configuration.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save

from wordlens._files import atomic_write_text, atomic_writer, user_home
from wordlens.contexts import Target
from wordlens.errors import CacheDamageWarning, CacheError

if sys.platform != "win32":
    import fcntl

#: The shard format: 2 adds the checksum (format 1 stores are not read; see the module notes).
CACHE_FORMAT = 2
#: Lock files per model fingerprint that batch claims are spread over: 64. Two batches that share
#: a lock file merely take turns (a put-off batch waits a little longer).
LOCK_STRIPES = 64
_SHARD_GLOB = "shard-*.safetensors"
_DAMAGED = "damaged"
_LOCKS = "locks"


def target_key(target: Target) -> str:
    """Stable key of a target: sha256 of its text and character span."""
    payload = json.dumps([target.text, target.start, target.end], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def _is_shard_name(name: str) -> bool:
    """Whether a file name is a shard's (:data:`_SHARD_GLOB`; not a temporary file)."""
    return name.startswith("shard-") and name.endswith(".safetensors")


def _read_meta(path: Path) -> dict[str, object]:
    """A store's ``store.json``.

    Raises
    ------
    OSError
        If it cannot be read.
    ValueError
        If it is not a JSON object (garbled).
    """
    meta = json.loads(path.read_text())
    if not isinstance(meta, dict):
        raise ValueError(f"a JSON {type(meta).__name__}, not an object")
    return meta


def batch_name(stores: Sequence[str], keys: Sequence[str]) -> str:
    """The identity of a planned batch for :meth:`CacheStore.claim`: a digest of the stores it
    is written to and its keys, the same in every process that plans it."""
    payload = json.dumps([sorted(stores), list(keys)])
    return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()


def _layers_digest(layers: Sequence[int]) -> str:
    return hashlib.sha256(",".join(map(str, layers)).encode()).hexdigest()[:12]


def shard_checksum(keys_json: str, tensors: Mapping[str, npt.NDArray[Any]]) -> str:
    """The blake2b digest (16 bytes, hex) of a shard: its keys (the header's JSON text), then
    each tensor's name, dtype, shape and bytes, in name order."""
    digest = hashlib.blake2b(keys_json.encode("utf-8"), digest_size=16)
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        digest.update(f"\0{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.reshape(-1).view(np.uint8).data)
    return digest.hexdigest()


@dataclass(frozen=True)
class StoreSummary:
    """What ``wordlens cache info`` reports for one store."""

    path: Path
    model: str
    fingerprint: str
    pooling: str
    layers: tuple[int, ...]
    n_items: int
    n_shards: int
    size_bytes: int
    format: int


@dataclass(frozen=True)
class UnreadableStore:
    """A store whose ``store.json`` cannot be read (garbled or unreadable): its shards are
    there, and ``wordlens cache info`` says so instead of leaving them out.

    Attributes
    ----------
    path
        The store's directory.
    reason
        Why its ``store.json`` cannot be read.
    n_shards, size_bytes
        Its shards, and the bytes of every file in it.
    """

    path: Path
    reason: str
    n_shards: int
    size_bytes: int


class Claim:
    """An exclusive claim on one batch: a ``flock`` held on an open lock file until
    :meth:`release` (or until the process ends: the kernel releases it). ``Claim(None)`` holds
    nothing (no cache, or no ``flock`` here). Claims of one process on one lock file share it
    (:data:`_HELD`), so a process never waits for itself."""

    def __init__(self, lock: Path | None) -> None:
        self._lock = lock

    def release(self) -> None:
        """Give the claim up (closing the lock file, with the last claim on it, releases it)."""
        if self._lock is not None:
            held = _HELD[self._lock]
            held[1] -= 1
            if held[1] == 0:
                del _HELD[self._lock]
                os.close(held[0])
            self._lock = None


#: The lock files this process holds: path -> [open descriptor, claims on it].
_HELD: dict[Path, list[int]] = {}


class CacheStore:
    """The cached vectors of one model fingerprint, pooling and layer set.

    Parameters
    ----------
    path
        The store directory.
    meta
        Its ``store.json``.
    verify
        Check each shard's checksum before its rows are used (module notes).
    """

    def __init__(self, path: Path, meta: dict[str, object], *, verify: bool = True) -> None:
        self.path = path
        self.meta = meta
        self.verify = verify
        self._index: dict[str, tuple[Path, int]] | None = None
        self._scanned: set[str] = set()
        self._verified: set[Path] = set()

    @property
    def dtype(self) -> np.dtype[Any]:
        """What the shards store: ``float32`` (default) or ``float16``."""
        return np.dtype(str(self.meta.get("dtype", "float32")))

    @property
    def format(self) -> int:
        """The cache format of the store (1: before checksums)."""
        return int(str(self.meta.get("format", 1)))

    def _load_index(self) -> dict[str, tuple[Path, int]]:
        if self._index is None:
            self.refresh()
        assert self._index is not None
        return self._index

    def refresh(self) -> None:
        """Add the keys of shards written since the index was read (by this or another process;
        a directory listing, about 1 ms for 2,000 shards). Unreadable shards are moved aside
        (module notes)."""
        if self._index is None:
            self._index = {}
        index = self._index
        try:
            with os.scandir(self.path) as entries:
                names = [entry.name for entry in entries if _is_shard_name(entry.name)]
        except FileNotFoundError:
            return  # the store was cleared meanwhile
        for name in sorted(set(names) - self._scanned):
            self._scanned.add(name)
            shard = self.path / name
            for row, key in enumerate(self._shard_keys(shard, drop=True) or ()):
                index.setdefault(key, (shard, row))

    def _shard_keys(self, shard: Path, *, drop: bool) -> list[str] | None:
        """The keys in a shard's header (the header only is read); ``None`` when the shard is
        gone or unreadable (then it is moved aside if ``drop``)."""
        try:
            with safe_open(str(shard), framework="numpy") as handle:
                metadata = handle.metadata() or {}
            keys = json.loads(metadata["keys"])
        except FileNotFoundError:
            return None  # moved aside by another process
        except (OSError, ValueError, KeyError, SafetensorError) as error:
            if drop:
                self._drop(shard, f"unreadable header ({error})")
            return None
        return [str(key) for key in keys]

    def __len__(self) -> int:
        return len(self._load_index())

    def contains(self, keys: Sequence[str]) -> npt.NDArray[np.bool_]:
        """Boolean mask ``[n]``: which keys the index holds (shards not verified yet)."""
        index = self._load_index()
        return np.array([key in index for key in keys], dtype=bool)

    def read_into(
        self,
        keys: Sequence[str],
        vectors: npt.NDArray[np.floating[Any]],
        n_subtokens: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Fill rows of ``vectors`` ``[n, n_layers, dim]`` and ``n_subtokens`` ``[n]`` from cache
        (cast to the dtype of ``vectors``).

        Returns the boolean mask ``[n]`` of keys that were found in verified shards (a damaged
        shard is moved aside and its keys count as missing); see :meth:`read_shards`.
        """
        found = np.zeros(len(keys), dtype=bool)
        for positions, shard_vectors, shard_counts in self.read_shards(keys, vectors.shape[1:]):
            vectors[positions] = shard_vectors
            n_subtokens[positions] = shard_counts
            found[positions] = True
        return found

    def read_shards(
        self, keys: Sequence[str], row_shape: tuple[int, ...]
    ) -> Iterator[
        tuple[npt.NDArray[np.intp], npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]]
    ]:
        """The cached rows of ``keys``, one shard at a time: per shard holding some of them, their
        positions in ``keys`` ``[k]``, their vectors ``[k, *row_shape]`` and subtoken counts
        ``[k]``. Shards are read one at a time, only the rows needed, so memory does not grow with
        the size of the cache; a damaged shard is moved aside and yields nothing.

        Raises
        ------
        CacheError
            If a shard's rows do not have ``row_shape``.
        """
        index = self._load_index()
        by_shard: dict[Path, list[tuple[int, int]]] = {}
        for position, key in enumerate(keys):
            hit = index.get(key)
            if hit is not None:
                by_shard.setdefault(hit[0], []).append((position, hit[1]))
        for shard, pairs in by_shard.items():
            tensors = self._read_shard(shard)
            if tensors is None:
                continue
            shard_vectors, shard_counts = tensors
            if shard_vectors.shape[1:] != tuple(row_shape):
                raise CacheError(
                    f"cache shard {shard} holds vectors of shape {shard_vectors.shape[1:]}, "
                    f"expected {tuple(row_shape)}; run `wordlens cache clear`"
                )
            positions = np.array([p for p, _ in pairs], dtype=np.intp)
            rows = np.array([r for _, r in pairs], dtype=np.intp)
            yield positions, shard_vectors[rows], shard_counts[rows]

    def _read_shard(
        self, shard: Path
    ) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.int64]] | None:
        """A shard's ``vectors`` and ``n_subtokens``, verified; ``None`` (its keys leave the
        index) when it is gone or damaged (then it is moved aside)."""
        try:
            with safe_open(str(shard), framework="numpy") as handle:
                metadata = handle.metadata() or {}
                tensors = {name: handle.get_tensor(name) for name in ("vectors", "n_subtokens")}
        except FileNotFoundError:
            self._forget(shard)
            return None
        except (OSError, ValueError, KeyError, SafetensorError) as error:
            self._drop(shard, f"unreadable ({error})")
            return None
        if self.verify and shard not in self._verified:
            expected = metadata.get("blake2b")
            if expected is None:
                self._drop(shard, "no checksum")
                return None
            if shard_checksum(metadata.get("keys", ""), tensors) != expected:
                self._drop(shard, "checksum mismatch: its bytes changed after it was written")
                return None
            self._verified.add(shard)
        return tensors["vectors"], tensors["n_subtokens"]

    def _forget(self, shard: Path) -> None:
        """Remove a shard's keys from the index (they are computed again)."""
        if self._index is not None:
            for key in [key for key, (path, _) in self._index.items() if path == shard]:
                del self._index[key]

    def _drop(self, shard: Path, reason: str) -> None:
        """Move a damaged shard into ``damaged/`` (else delete it) and warn; its targets are
        recomputed.

        Raises
        ------
        CacheError
            If the shard can be neither moved nor deleted.
        """
        self._forget(shard)
        aside = self.path / _DAMAGED / shard.name
        try:
            aside.parent.mkdir(exist_ok=True)
            shard.replace(aside)
            where = f"moved to {aside}"
        except FileNotFoundError:
            return  # another process moved it first
        except OSError:
            try:
                shard.unlink()
            except FileNotFoundError:
                return
            except OSError as error:
                raise CacheError(
                    f"damaged activation cache shard {shard} ({reason}) cannot be removed "
                    f"({error}); delete it or run `wordlens cache clear`"
                ) from error
            where = "deleted"
        warnings.warn(
            f"damaged activation cache shard {shard}: {reason}; {where}, its targets are "
            "computed again",
            CacheDamageWarning,
            stacklevel=2,
        )

    def write(
        self,
        keys: Sequence[str],
        vectors: npt.NDArray[np.floating[Any]],
        n_subtokens: npt.NDArray[np.int64],
    ) -> None:
        """Persist one finished batch as a new shard, atomically, in the store's dtype, with its
        checksum."""
        if not keys:
            return
        shard = self.path / f"shard-{uuid.uuid4().hex}.safetensors"
        tensors = {
            "vectors": np.ascontiguousarray(vectors, dtype=self.dtype),
            "n_subtokens": np.ascontiguousarray(n_subtokens, dtype=np.int64),
        }
        keys_json = json.dumps(list(keys))
        metadata = {
            "keys": keys_json,
            "format": str(CACHE_FORMAT),
            "blake2b": shard_checksum(keys_json, tensors),
        }
        try:
            with atomic_writer(shard) as stream:
                stream.write(save(tensors, metadata=metadata))
        except OSError as error:
            raise CacheError(
                f"cannot write activation cache shard in {self.path}: {error}"
            ) from error
        self._scanned.add(shard.name)
        self._verified.add(shard)
        index = self._load_index()
        for row, key in enumerate(keys):
            index.setdefault(key, (shard, row))

    def claim(self, name: str, *, wait: bool) -> Claim | None:
        """Claim the batch called ``name`` for this process (module notes, "Concurrent runs").

        Parameters
        ----------
        name
            The batch's identity (a digest of its keys), the same in every process.
        wait
            Block until the claim is free; else return ``None`` when another process holds it.

        Returns
        -------
        Claim or None
            The claim (release it when the batch is written); ``None`` when ``wait`` is false and
            another process holds it.
        """
        if sys.platform == "win32":
            return Claim(None)
        stripe = int(hashlib.blake2b(name.encode(), digest_size=4).hexdigest(), 16) % LOCK_STRIPES
        lock = self.path.parent / _LOCKS / f"{stripe:02d}.lock"
        if lock in _HELD:
            _HELD[lock][1] += 1
            return Claim(lock)
        try:
            lock.parent.mkdir(exist_ok=True)
            descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            return Claim(None)  # no lock file: uncoordinated, never wrong
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(descriptor)
            return None
        except OSError:
            os.close(descriptor)
            return Claim(None)  # flock unsupported here (some network file systems)
        except BaseException:  # interrupted while waiting
            os.close(descriptor)
            raise
        _HELD[lock] = [descriptor, 1]
        return Claim(lock)

    def summary(self) -> StoreSummary:
        """What the store holds, from the shard headers (nothing is verified or moved)."""
        shards = sorted(self.path.glob(_SHARD_GLOB))
        keys = {key for shard in shards for key in self._shard_keys(shard, drop=False) or ()}
        return StoreSummary(
            path=self.path,
            model=str(self.meta.get("model", "?")),
            fingerprint=str(self.meta.get("fingerprint", "?")),
            pooling=str(self.meta.get("pooling", "?")),
            layers=tuple(int(layer) for layer in self.meta.get("layers", [])),  # type: ignore[attr-defined]
            n_items=len(keys),
            n_shards=len(shards),
            size_bytes=sum(shard.stat().st_size for shard in shards),
            format=self.format,
        )


class ActivationCache:
    """The activation cache rooted at ``root`` (default ``$WORDLENS_HOME/activations``).

    ``verify=False`` skips the shard checksums (to measure what they cost; module notes).
    """

    def __init__(self, root: Path | None = None, *, verify: bool = True) -> None:
        self.root = (root or user_home() / "activations").expanduser()
        self.verify = verify

    def store(
        self,
        *,
        model: str,
        fingerprint: str,
        pooling: str,
        layers: Sequence[int],
        hidden_size: int,
        dtype: Literal["float32", "float16"] = "float32",
    ) -> CacheStore:
        """Open (creating if needed) the store of one model configuration; ``dtype`` is what its
        shards hold (a ``float16`` store is its own directory, ``<pooling>-float16-...``).

        Raises
        ------
        CacheError
            If the cache directory cannot be created or written.
        """
        kind = pooling if dtype == "float32" else f"{pooling}-{dtype}"
        path = self.root / fingerprint / f"{kind}-{_layers_digest(layers)}-v{CACHE_FORMAT}"
        meta: dict[str, object] = {
            "model": model,
            "fingerprint": fingerprint,
            "pooling": pooling,
            "layers": list(layers),
            "hidden_size": hidden_size,
            "dtype": dtype,
            "format": CACHE_FORMAT,
        }
        meta_path = path / "store.json"
        try:
            path.mkdir(parents=True, exist_ok=True)
            try:
                _read_meta(meta_path)
            except (OSError, ValueError):  # missing or garbled: written from what the store is
                atomic_write_text(meta_path, json.dumps(meta, indent=2))
            probe = path / f".write-probe-{uuid.uuid4().hex}"
            probe.touch()
            probe.unlink()
        except OSError as error:
            raise CacheError(
                f"activation cache directory {path} is not writable ({error}); choose another "
                "with --cache-dir or WORDLENS_HOME, or pass --no-cache"
            ) from error
        return CacheStore(path, meta, verify=self.verify)

    def stores(self) -> list[CacheStore]:
        """Every store under the root whose ``store.json`` can be read (format 1 stores
        included)."""
        return self.survey()[0]

    def survey(self) -> tuple[list[CacheStore], list[UnreadableStore]]:
        """Every store under the root: those whose ``store.json`` can be read, and those whose
        ``store.json`` cannot (garbled, not a JSON object, unreadable)."""
        found, unreadable = [], []
        for meta_path in sorted(self.root.glob("*/*/store.json")):
            try:
                meta = _read_meta(meta_path)
            except (OSError, ValueError) as error:
                files = [path for path in meta_path.parent.rglob("*") if path.is_file()]
                unreadable.append(
                    UnreadableStore(
                        path=meta_path.parent,
                        reason=str(error),
                        n_shards=sum(_is_shard_name(path.name) for path in files),
                        size_bytes=sum(path.stat().st_size for path in files),
                    )
                )
                continue
            found.append(CacheStore(meta_path.parent, meta, verify=self.verify))
        return found, unreadable

    def fingerprints(self) -> list[str]:
        """The entries of the cache: directories directly under the root (not links) that hold a
        store or the lock files of one."""
        if not self.root.is_dir():
            return []
        return sorted(
            entry.name
            for entry in self.root.iterdir()
            if entry.is_dir()
            and not entry.is_symlink()
            and (any(entry.glob("*/store.json")) or (entry / _LOCKS).is_dir())
        )

    def clear(self, fingerprint: str | None = None) -> int:
        """Delete the stores of one fingerprint (or all); returns the bytes freed.

        Only entries of the cache are deleted (:meth:`fingerprints`): ``fingerprint`` must be the
        name of one, as ``wordlens cache info`` shows it, never a path.

        Raises
        ------
        CacheError
            If ``fingerprint`` is not the name of an entry of this cache (``..``, ``.``, a path,
            an unknown name); nothing is deleted then.
        """
        entries = self.fingerprints()
        if fingerprint is not None and fingerprint not in entries:
            known = ", ".join(entries[:10]) + (" ..." if len(entries) > 10 else "")
            raise CacheError(
                f"{fingerprint!r} is not a model fingerprint in the activation cache {self.root} "
                f"(a fingerprint is a name that `wordlens cache info` lists, not a path); "
                f"{'fingerprints here: ' + known if entries else 'the cache is empty'}; "
                "nothing was deleted"
            )
        freed = 0
        for name in [fingerprint] if fingerprint is not None else entries:
            target = self.root / name
            freed += sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(target)
        return freed
