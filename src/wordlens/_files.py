"""Small file utilities shared across wordlens: hashing, atomic writes, user directories."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

_CHUNK = 1 << 20
OFFLINE_ENVS = ("WORDLENS_OFFLINE", "HF_HUB_OFFLINE")
_TRUE = {"1", "true", "yes", "on"}


def is_offline() -> bool:
    """True when ``$WORDLENS_OFFLINE`` or ``$HF_HUB_OFFLINE`` is 1/true/yes/on: never download."""
    return any(os.environ.get(var, "").strip().lower() in _TRUE for var in OFFLINE_ENVS)


def user_home() -> Path:
    """Root of wordlens' per-user files: ``$WORDLENS_HOME`` or ``$XDG_CACHE_HOME/wordlens``."""
    explicit = os.environ.get("WORDLENS_HOME")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "wordlens"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_file_cached(path: Path) -> str:
    """sha256 of a (large, rarely changing) file, memoized on disk by path, size and mtime.

    Hashing a multi-GB weight file takes seconds; the memo under ``user_home()/hashes.json`` makes
    later loads instant while any change to the file (size or mtime) forces a re-hash.
    """
    resolved = path.resolve()
    stat = resolved.stat()
    key = f"{resolved}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_path = user_home() / "hashes.json"
    memo: dict[str, str] = {}
    try:
        memo = json.loads(memo_path.read_text())
    except (OSError, ValueError):
        memo = {}
    if key in memo:
        return memo[key]
    digest = sha256_file(resolved)
    memo[key] = digest
    # the memo is an optimisation: an unwritable home must not fail a load
    with contextlib.suppress(OSError):
        atomic_write_text(memo_path, json.dumps(memo, indent=0, sort_keys=True))
    return digest


@contextmanager
def atomic_writer(path: Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success rename it over ``path`` atomically.

    A crash or exception at any point leaves either the old file or no file, never a partial one
    (``os.replace`` is atomic on POSIX and Windows within one file system).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_writer(path, "w") as stream:
        stream.write(text)
