"""Small file utilities shared across wordlens: hashing, atomic writes, user directories, and
reading users' text files in a declared encoding."""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import json
import os
import secrets
import shutil
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from wordlens.errors import FileEncodingError, InputFileError, WordlensError

_CHUNK = 1 << 20
OFFLINE_ENVS = ("WORDLENS_OFFLINE", "HF_HUB_OFFLINE")
_TRUE = {"1", "true", "yes", "on"}

#: The encoding users' text files are read in unless they say otherwise.
DEFAULT_ENCODING = "utf-8"
#: How to get past an encoding error where the reader takes an encoding (CLI ``--encoding``).
ENCODING_HINT = (
    "pass the file's encoding with --encoding (encoding= in Python), or save it as UTF-8"
)
#: The same where the encoding is fixed.
UTF8_HINT = "save it as UTF-8"

#: A path as the public API takes it: text or any ``os.PathLike`` (``pathlib.Path``).
StrPath = str | os.PathLike[str]


def as_path(path: StrPath) -> Path:
    """``path`` (text, ``pathlib.Path`` or any ``os.PathLike``) as a :class:`~pathlib.Path`.

    Raises
    ------
    TypeError
        If ``path`` is neither text nor path-like (naming its type).
    """
    if isinstance(path, Path):
        return path
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"expected a path (str or os.PathLike), got {type(path).__name__}")
    return Path(os.fspath(path))


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
    """sha256 of a (large, rarely changing) file, memoized on disk by path, size, mtime and ctime.

    Hashing a multi-GB weight file takes seconds; the memo under ``user_home()/hashes.json`` makes
    later loads instant while any change to the file forces a re-hash: its size or mtime, and its
    ctime, which every write changes and which no one can set back (a file copied over another
    with the same size and its modification time restored, ``cp -p`` or ``touch -r``, is hashed
    again).
    """
    resolved = path.resolve()
    stat = resolved.stat()
    key = f"{resolved}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ctime_ns}"
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


def file_identity(path: Path) -> str:
    """What a file holds, found cheaply (a file is read at most 2 MiB; nothing is unpickled).

    A file of at most 2 MiB (a ``config.json``, a tokenizer's vocabulary) is the sha256 of its
    bytes. A larger one (weights) is its size, its modification time in nanoseconds and the sha256
    of its first and last MiB: a safetensors file's header (names, shapes, dtypes) and its first
    and last tensors, which differ between two checkpoints of one training run even when their
    sizes and headers agree.

    Parameters
    ----------
    path
        A regular file.

    Returns
    -------
    str
        The hex sha256 (small files), or ``<size>-<mtime_ns>-<sha256 of the samples>``.
    """
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        stat = os.fstat(handle.fileno())
        if stat.st_size <= 2 * _CHUNK:
            digest.update(handle.read())
            return digest.hexdigest()
        digest.update(handle.read(_CHUNK))
        handle.seek(-_CHUNK, os.SEEK_END)
        digest.update(handle.read())
    return f"{stat.st_size}-{stat.st_mtime_ns}-{digest.hexdigest()}"


def _create_beside(path: Path) -> tuple[int, Path]:
    """Create a new, empty temporary file beside ``path`` and open it for writing.

    Unlike :func:`tempfile.mkstemp` (always mode 0600), the file is created with mode 0666 less
    the process umask, as :func:`open` creates files, so the file renamed over ``path`` has the
    permissions the user asked for (umask 022: 0644; umask 077: 0600).

    Parameters
    ----------
    path
        The file the temporary file will replace; its directory must exist.

    Returns
    -------
    tuple of int and Path
        The open file descriptor and the temporary file's path (``.<name>.<random>.tmp``).

    Raises
    ------
    OSError
        If the file cannot be created (``FileExistsError`` only after 100 name collisions).
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name beside {path}")


@contextmanager
def atomic_writer(path: Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success rename it over ``path`` atomically.

    A crash or exception at any point leaves either the old file or no file, never a partial one
    (``os.replace`` is atomic on POSIX and Windows within one file system). The file gets the
    permissions :func:`open` would give a new file: 0666 less the process umask.

    Parameters
    ----------
    path
        The file to write; its directory is created if missing.
    mode
        ``"wb"`` (bytes) or ``"w"`` (UTF-8 text).

    Yields
    ------
    IO
        The temporary file's stream.

    Raises
    ------
    OSError
        If the directory or the temporary file cannot be created, written or renamed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = _create_beside(path)
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


def ensure_writable_dir(path: Path) -> Path:
    """Create ``path`` (with its parents) and check that a file can be created in it.

    Raises
    ------
    OSError
        If the directory cannot be created or written (e.g. a parent is a regular file, or the
        file system is read-only); callers turn it into their own error.
    """
    path.mkdir(parents=True, exist_ok=True)
    probe = path / f".write-probe-{uuid.uuid4().hex}"
    probe.touch()
    probe.unlink()
    return path


def process_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` runs on this machine (one of another user's: yes)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def unsafe_output_dir(path: Path, markers: Sequence[str] | None = None) -> str | None:
    """Why writing results into the folder ``path`` could harm what is there, or None.

    Parameters
    ----------
    path
        The output folder (``~`` expanded, symbolic links followed).
    markers
        Glob patterns, relative to ``path``, of the files that show a folder holds results of
        wordlens (``run.json``); None checks only for a filesystem root and the home folder.

    Returns
    -------
    str or None
        ``"a filesystem root"``, ``"the home folder"``, ``"a folder that holds files but no
        results of wordlens"``, or None when the folder is safe to write into.
    """
    resolved = path.expanduser().resolve()
    if resolved == Path(resolved.anchor):
        return "a filesystem root"
    if resolved == Path.home().expanduser().resolve():
        return "the home folder"
    if markers is None or not resolved.is_dir() or not any(resolved.iterdir()):
        return None
    if any(next(resolved.glob(pattern), None) is not None for pattern in markers):
        return None
    return "a folder that holds files but no results of wordlens"


_STAGED = ".wordlens-"
"""What names a folder's staging siblings: ``.<name>.wordlens-<new|old>-<pid>-<random>``."""


def staging_dir(path: Path) -> Path:
    """A new, empty folder beside ``path`` (same parent, so :func:`swap_in` renames atomically),
    named ``.<name>.wordlens-new-<pid>-<random>``, where a run is built before it replaces
    ``path``.

    Siblings of ``path`` left by a process that no longer runs (an interrupted or killed run)
    are removed first; an old folder moved aside by a swap that was cut short is moved back when
    ``path`` is missing.

    Raises
    ------
    OSError
        If the folder cannot be created.
    """
    prefix = f".{path.name}{_STAGED}"
    for stale in sorted(entry for entry in path.parent.iterdir() if entry.name.startswith(prefix)):
        role, _, rest = stale.name.removeprefix(prefix).partition("-")
        pid = rest.partition("-")[0]
        if not pid.isdigit() or process_alive(int(pid)):
            continue
        if role == "old" and not path.exists():
            stale.rename(path)
        else:
            shutil.rmtree(stale, ignore_errors=True)
    staged = path.parent / f".{path.name}{_STAGED}new-{os.getpid()}-{secrets.token_hex(4)}"
    staged.mkdir()
    return staged


def swap_in(staged: Path, path: Path, keep: Sequence[str] = ()) -> None:
    """Replace the folder ``path`` with ``staged`` (from :func:`staging_dir`): ``staged`` takes
    the old folder's permissions, the old folder is renamed aside, ``staged`` renamed to
    ``path``, then the old folder deleted; a rename that fails leaves ``path`` as it was.

    Parameters
    ----------
    staged
        The new folder, beside ``path``.
    path
        The folder it replaces (missing: ``staged`` is renamed to it).
    keep
        Names of entries of the old folder carried into the new one when it has none of that
        name (resumable work that outlives the runs, e.g. ``work``).

    Raises
    ------
    OSError
        If a rename fails.
    """
    if not path.exists():
        staged.rename(path)
        return
    shutil.copymode(path, staged)  # a folder the user made private stays private
    carried = [name for name in keep if (path / name).exists() and not (staged / name).exists()]
    for name in carried:
        (path / name).rename(staged / name)
    aside = path.parent / f".{path.name}{_STAGED}old-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        path.rename(aside)
        try:
            staged.rename(path)
        except BaseException:
            aside.rename(path)
            raise
    except BaseException:
        for name in carried:
            (staged / name).rename(path / name)
        raise
    shutil.rmtree(aside, ignore_errors=True)


@contextmanager
def staged_files(path: Path, last: str) -> Iterator[Path]:
    """A new folder beside the folder ``path`` (:func:`staging_dir`) for the block to write
    files into; when the block ends without error each is renamed into ``path`` (``last``, the
    manifest that says the files are complete, last), and the folder is removed either way.

    For a folder that is a resumable workspace (a sweep's checkpoints, a reproduction's
    experiments), whose final files must not replace the rest: a write that fails (a full disk)
    leaves ``path`` as it was, and the renames need no space.

    Yields
    ------
    Path
        The folder to write into.

    Raises
    ------
    OSError
        If the folder cannot be created, or a rename fails.
    """
    staged = staging_dir(path)
    try:
        yield staged
        for entry in sorted(staged.iterdir(), key=lambda entry: entry.name == last):
            entry.replace(path / entry.name)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def check_encoding(encoding: str) -> str:
    """``encoding`` if Python knows the codec, else a :class:`WordlensError`."""
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise WordlensError(
            f"unknown encoding {encoding!r}: use a Python codec name such as utf-8, latin-1 or "
            "cp1252"
        ) from None
    return encoding


def read_text(path: Path, encoding: str = DEFAULT_ENCODING, *, hint: str = UTF8_HINT) -> str:
    """The text of a user's file decoded with ``encoding``; a leading byte-order mark is dropped.

    Parameters
    ----------
    path
        The file.
    encoding
        A Python codec name.
    hint
        How the user gets past an encoding error (:data:`ENCODING_HINT` where the caller takes an
        encoding, :data:`UTF8_HINT` where it is fixed).

    Raises
    ------
    FileEncodingError
        If the bytes are not valid ``encoding``; names the file, line, column and bytes.
    OSError
        If the file cannot be read.
    """
    with decoding(path, encoding, hint=hint):
        return path.read_bytes().decode(encoding).removeprefix("\ufeff")


@contextmanager
def reading(path: Path, what: str) -> Iterator[None]:
    """Turn an :class:`OSError` raised while ``path`` is read inside the block (a directory, no
    permission, an I/O error) into an :class:`~wordlens.errors.InputFileError`.

    Parameters
    ----------
    path
        The file read in the block.
    what
        What the file is, for the message (``"lexicon file"``).

    Raises
    ------
    InputFileError
        ``cannot read the <what> <path>: <reason>``.
    """
    try:
        yield
    except WordlensError:
        raise
    except OSError as error:
        reason = error.strerror or str(error)
        raise InputFileError(f"cannot read the {what} {path}: {reason}") from error


@contextmanager
def decoding(
    path: Path, encoding: str = DEFAULT_ENCODING, *, hint: str = UTF8_HINT
) -> Iterator[None]:
    """Turn a :class:`UnicodeDecodeError` raised while ``path`` is read inside the block (by
    ``csv``, pandas, ``gzip``, ``bytes.decode``) into a :class:`FileEncodingError` that names the
    first line that is not valid ``encoding`` (found by reading the file again, as a stream).

    Raises
    ------
    WordlensError
        If ``encoding`` is not a codec Python knows.
    """
    check_encoding(encoding)
    try:
        yield
    except UnicodeDecodeError as error:
        line, column, bad, reason = _first_undecodable(path, encoding) or (0, 0, b"", error.reason)
        where = f"line {line}, column {column}" if line else "somewhere"
        shown = " ".join(f"0x{byte:02x}" for byte in bad[:4])
        raise FileEncodingError(
            f"{path}, {where}: not valid {encoding} (byte {shown or '?'}: {reason}); {hint}"
        ) from None


def _first_undecodable(path: Path, encoding: str) -> tuple[int, int, bytes, str] | None:
    """Line, column (1-based, in characters), bytes and reason of the first place ``path``
    (gzip or plain) is not valid ``encoding``; None if it all decodes. Reads line by line."""
    decoder = codecs.getincrementaldecoder(encoding)()
    line, column = 1, 1
    with path.open("rb") as raw:
        packed = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream: gzip.GzipFile | IO[bytes] = gzip.GzipFile(fileobj=raw) if packed else raw
        for chunk in stream:
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as error:
                before = error.object[: error.start].decode(encoding, errors="replace")
                bad = error.object[error.start : error.end]
                return line, column + len(before), bad, error.reason
            if "\n" in text:
                line += text.count("\n")
                column = len(text) - text.rfind("\n")
            else:
                column += len(text)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as error:
            return line, column, error.object[error.start : error.end], error.reason
    return None
