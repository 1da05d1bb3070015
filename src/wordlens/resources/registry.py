"""Named data resources: what they are, where their files live and how to get them.

A *resource* is a named data set (a valence lexicon, a similarity set, word lists, ...) made of one
or more files. Each :class:`ResourceFile` has a path relative to a *data root*, a directory laid out
like the project's shared data folder (e.g. ``lexica/en/bellezza.csv``); the upstream repository,
commit and path it was copied from, which give its canonical download URL; and the sha256 of its
bytes.

:func:`resolve` finds a file in this order:

1. an explicit path given by the caller: the file itself, or a data root that contains it;
2. the data roots listed in ``$WORDLENS_DATA_PATH`` (separated by :data:`os.pathsep`);
3. the user cache, ``user_home()/data/<relpath>``;
4. a download into the user cache: from ``$WORDLENS_MIRROR_URL/<relpath>`` when that variable
   names an HTTP mirror of a data root, then from the canonical URL. The bytes must match the
   recorded sha256 (else :class:`~wordlens.errors.ChecksumError`, and nothing is cached); the file
   is written atomically. Offline mode (``$WORDLENS_OFFLINE`` or ``$HF_HUB_OFFLINE`` set to
   ``1``/``true``/``yes``/``on``) skips this step, and so does a file whose sha256 is not
   recorded (``sha256=None``, e.g. a large upstream file never downloaded when the resource was
   registered): an unverifiable download is refused, and the message names the URL to fetch the
   file from by hand.

Local files (steps 1-3) are trusted as they are; only downloads are verified. A file found nowhere
raises :class:`~wordlens.errors.ResourceNotFoundError` listing every place looked and how to
provide the file.

Adding a resource is one :func:`register` call with a :class:`Resource` whose ``loader`` parses
the resolved files; the domain modules (``lexica``, ``similarity``, ``wordsets``) register theirs
when :mod:`wordlens.resources` is imported.

Layering: the resources describe files and import nothing from the packages that use them. A
resource whose files are parsed by a higher layer (the edge-probing sets, turned into examples by
:mod:`wordlens.probing.converters`) is registered here with a :func:`deferred_loader`, and that
layer gives it its parser with :func:`register_loader` when it is imported.
"""

from __future__ import annotations

import difflib
import hashlib
import http.client
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from wordlens._files import (
    StrPath,
    as_path,
    atomic_writer,
    ensure_writable_dir,
    is_offline,
    user_home,
)
from wordlens._version import __version__
from wordlens.errors import CacheError, ChecksumError, ResourceNotFoundError, WordlensError

DATA_PATH_ENV = "WORDLENS_DATA_PATH"
MIRROR_URL_ENV = "WORDLENS_MIRROR_URL"
DEFAULT_TIMEOUT = 30.0

T = TypeVar("T")

Progress = Callable[[int, int | None], None]
"""Download progress hook: called with (bytes received so far, total bytes or None if unknown)."""

_CHUNK = 1 << 16
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError)
UNRECORDED_SHA256 = "not recorded (never downloaded by wordlens: download it from the url)"
"""What ``describe`` shows for a file whose sha256 is None."""


@dataclass(frozen=True)
class ResourceFile:
    """One file of a resource.

    Attributes
    ----------
    relpath
        POSIX path relative to a data root, e.g. ``"lexica/en/bellezza.csv"``.
    sha256
        Hex sha256 of the file's bytes; downloads must match it. None when it is not recorded:
        the file is then never downloaded (the user provides it, see :func:`resolve`).
    repo, commit, path
        Where the file comes from: GitHub repository ``owner/name``, full commit hash and the
        file's path in that repository (empty for a file hosted elsewhere, see `download_url`).
    download_url
        The upstream URL of a file that is not on GitHub (empty: the raw GitHub file).
    """

    relpath: str
    sha256: str | None
    repo: str
    commit: str
    path: str
    download_url: str = ""

    def __post_init__(self) -> None:
        parts = PurePosixPath(self.relpath).parts
        if not parts or PurePosixPath(self.relpath).is_absolute() or ".." in parts:
            raise ValueError(f"relpath must be relative to a data root: {self.relpath!r}")
        if self.sha256 is not None and not _SHA256.match(self.sha256):
            raise ValueError(f"not a hex sha256: {self.sha256!r}")

    @property
    def url(self) -> str:
        """Canonical download URL: `download_url`, else the raw GitHub file at the pinned
        commit."""
        if self.download_url:
            return self.download_url
        quoted = urllib.parse.quote(self.path)
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{quoted}"

    @property
    def source(self) -> str:
        """``owner/repo@commit:path``, or `download_url` for a file hosted elsewhere."""
        return self.download_url or f"{self.repo}@{self.commit}:{self.path}"


@dataclass(frozen=True)
class Resource:
    """A named data set and how to load it.

    Attributes
    ----------
    name
        Lower-case identifier (letters, digits and single hyphens), unique in the registry.
    kind
        What the loader returns, e.g. ``"lexicon"``, ``"similarity"``, ``"wordsets"``.
    description
        One or two sentences: what the data is, its size and scale.
    files
        The files, in the order the loader receives them.
    loader
        Called as ``loader(paths, **options)`` with the resolved paths of ``files``.
    citation
        The reference(s) to cite when using the data.
    license
        The license or terms under which the data is distributed.
    """

    name: str
    kind: str
    description: str
    files: tuple[ResourceFile, ...]
    loader: Callable[..., object] = field(repr=False, compare=False)
    citation: str
    license: str

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"resource names are lower-case words joined by '-': {self.name!r}")
        if not self.files:
            raise ValueError(f"resource {self.name!r} has no files")

    @property
    def source(self) -> str:
        """Upstream origin of the files, ``owner/repo@commit:path`` joined by ``; ``."""
        return "; ".join(file.source for file in self.files)

    def locate(self, path: StrPath | None = None) -> list[Path | None]:
        """Where each file resolves now without downloading (``None``: not available)."""
        return [_search(self, file, path)[0] for file in self.files]

    def paths(
        self,
        path: StrPath | None = None,
        *,
        progress: Progress | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> list[Path]:
        """Resolve every file (see :func:`resolve`), downloading missing ones unless offline."""
        return [
            resolve(self, file, path, progress=progress, timeout=timeout) for file in self.files
        ]

    def load(self, path: StrPath | None = None, **options: Any) -> object:
        """Resolve the files and parse them with :attr:`loader`."""
        return self.loader(self.paths(path), **options)

    def describe(self) -> dict[str, Any]:
        """Everything ``wordlens data show`` prints, as plain JSON-able values."""
        located = self.locate()
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "license": self.license,
            "citation": self.citation,
            "source": self.source,
            "available": all(where is not None for where in located),
            "files": [
                {
                    "relpath": file.relpath,
                    "url": file.url,
                    "sha256": file.sha256 or UNRECORDED_SHA256,
                    "location": str(where) if where is not None else "not available",
                }
                for file, where in zip(self.files, located, strict=True)
            ],
        }


def single_file(parse: Callable[[Path], T]) -> Callable[[Sequence[Path]], T]:
    """Adapt a parser of one file to the ``loader(paths)`` convention of :class:`Resource`."""

    def loader(paths: Sequence[Path]) -> T:
        return parse(paths[0])

    return loader


_REGISTRY: dict[str, Resource] = {}
_DEFERRED_LOADERS: dict[str, Callable[..., object]] = {}


def register(resource: Resource) -> Resource:
    """Add ``resource`` to the registry; its name must be new."""
    if resource.name in _REGISTRY:
        raise ValueError(f"a resource named {resource.name!r} is already registered")
    _REGISTRY[resource.name] = resource
    return resource


def deferred_loader(name: str, provider: str) -> Callable[..., object]:
    """The ``loader`` of a resource whose files a higher layer parses: it calls what module
    ``provider`` registers for resource ``name`` with :func:`register_loader` when imported.

    Parameters
    ----------
    name
        The resource's name.
    provider
        The module that registers the parser (named in the error; never imported from here).

    Returns
    -------
    Callable
        ``loader(paths, **options)``, which raises :class:`~wordlens.errors.WordlensError` naming
        ``provider`` while nothing is registered for ``name``.
    """

    def loader(paths: Sequence[Path], **options: Any) -> object:
        parse = _DEFERRED_LOADERS.get(name)
        if parse is None:
            raise WordlensError(
                f"the files of resource {name!r} are parsed by {provider}, which registers its "
                f"loader when imported: import {provider} first (the files themselves: "
                f"get_resource({name!r}).paths())"
            )
        return parse(paths, **options)

    return loader


def register_loader(name: str, loader: Callable[..., object]) -> None:
    """Give the registered resource ``name`` (declared with a :func:`deferred_loader`) its
    parser, ``loader(paths, **options)``; a later call replaces it.

    Raises
    ------
    ResourceNotFoundError
        If no resource has that name.
    """
    get_resource(name)
    _DEFERRED_LOADERS[name] = loader


def list_resources(kind: str | None = None) -> list[Resource]:
    """Registered resources (of one ``kind`` if given), sorted by kind then name."""
    chosen = [r for r in _REGISTRY.values() if kind is None or r.kind == kind]
    return sorted(chosen, key=lambda r: (r.kind, r.name))


def get_resource(name: str, kind: str | None = None) -> Resource:
    """The resource called ``name``.

    Raises
    ------
    ResourceNotFoundError
        If no resource (of ``kind``, if given) has that name; the message suggests close matches
        and lists the known names.
    """
    resource = _REGISTRY.get(name)
    if resource is not None and (kind is None or resource.kind == kind):
        return resource
    known = [r.name for r in list_resources(kind)]
    what = f"{kind} resource" if kind else "resource"
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ResourceNotFoundError(
        f"unknown {what} {name!r}.{hint} Known: {', '.join(known) or '(none)'}."
    )


def fetch(
    name: str, *, progress: Progress | None = None, timeout: float = DEFAULT_TIMEOUT
) -> list[Path]:
    """Make every file of resource ``name`` available locally and return their paths."""
    return get_resource(name).paths(progress=progress, timeout=timeout)


def data_roots() -> list[Path]:
    """The mirror data roots named by ``$WORDLENS_DATA_PATH``, in order."""
    value = os.environ.get(DATA_PATH_ENV, "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part.strip()]


def cache_path(file: ResourceFile) -> Path:
    """Where ``file`` is (or would be) cached: ``user_home()/data/<relpath>``."""
    return user_home() / "data" / file.relpath


def resolve(
    resource: Resource,
    file: ResourceFile,
    path: StrPath | None = None,
    *,
    progress: Progress | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """Local path of one file of ``resource``, downloading it into the cache if needed.

    Parameters
    ----------
    resource, file
        The resource and one of its files.
    path
        Explicit location: the file itself (single-file resources) or a data root containing
        ``file.relpath``. When given it must exist; nothing else is searched.
    progress
        Download progress hook, see :data:`Progress`.
    timeout
        Seconds to wait for a server's response before giving up on it.

    Raises
    ------
    ResourceNotFoundError
        The file is nowhere local and cannot be downloaded (offline mode or network errors).
    ChecksumError
        A downloaded file does not match ``file.sha256``; nothing is left in the cache.
    CacheError
        A download is needed but the user cache cannot be written.
    """
    found, looked = _search(resource, file, path)
    if found is not None:
        return found
    if path is not None:
        raise ResourceNotFoundError(
            f"{resource.name}: {file.relpath} is not at the explicit location given; looked "
            f"for {looked[0]}"
        )
    if file.sha256 is None:
        looked.append("download: refused (no recorded sha256 to verify it against)")
        raise ResourceNotFoundError(_not_found_message(resource, file, looked))
    if is_offline():
        looked.append("download: skipped (offline mode)")
        raise ResourceNotFoundError(_not_found_message(resource, file, looked))
    target = cache_path(file)
    try:
        ensure_writable_dir(target.parent)
    except OSError as error:
        raise CacheError(
            f"{resource.name}: cannot download {file.relpath} into the user cache "
            f"{target.parent} ({error}); set WORDLENS_HOME to a writable directory, or "
            f"{DATA_PATH_ENV} to a data root that holds it"
        ) from error
    for url in _download_urls(file):
        try:
            _download(url, target, file, timeout=timeout, progress=progress)
        except _NETWORK_ERRORS as error:
            looked.append(f"download {url}: {error}")
            continue
        return target
    raise ResourceNotFoundError(_not_found_message(resource, file, looked))


def _search(
    resource: Resource, file: ResourceFile, path: StrPath | None
) -> tuple[Path | None, list[str]]:
    """First existing local candidate for ``file`` (steps 1-3) and the places looked."""
    if path is not None:
        path = as_path(path)
        if path.is_dir():
            candidates = [(path / file.relpath, "explicit data root")]
        elif len(resource.files) == 1:
            candidates = [(path, "explicit path")]
        else:
            raise WordlensError(
                f"{resource.name} has {len(resource.files)} files: pass a data root directory "
                f"laid out like <root>/{file.relpath}, not the file {path}"
            )
    else:
        candidates = [(root / file.relpath, f"${DATA_PATH_ENV}") for root in data_roots()]
        candidates.append((cache_path(file), "user cache"))
    looked: list[str] = []
    for candidate, label in candidates:
        if candidate.is_file():
            return candidate, looked
        looked.append(f"{candidate} ({label})")
    if path is None and not data_roots():
        looked.insert(0, f"${DATA_PATH_ENV}: not set")
    return None, looked


def _download_urls(file: ResourceFile) -> list[str]:
    mirror = os.environ.get(MIRROR_URL_ENV, "").strip()
    if not mirror:
        return [file.url]
    if urllib.parse.urlsplit(mirror).scheme not in {"http", "https", "file"}:
        raise WordlensError(
            f"${MIRROR_URL_ENV} must be an http://, https:// or file:// URL, not {mirror!r}"
        )
    return [f"{mirror.rstrip('/')}/{urllib.parse.quote(file.relpath)}", file.url]


def _download(
    url: str,
    target: Path,
    file: ResourceFile,
    *,
    timeout: float,
    progress: Progress | None,
) -> None:
    """Stream ``url`` into ``target`` atomically, verifying the sha256 before the rename."""
    request = urllib.request.Request(url, headers={"User-Agent": f"wordlens/{__version__}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length", "")
        total = int(length) if length.isdigit() else None
        digest = hashlib.sha256()
        received = 0
        with atomic_writer(target) as out:
            while chunk := response.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
                received += len(chunk)
                if progress is not None:
                    progress(received, total)
            if digest.hexdigest() != file.sha256:
                raise ChecksumError(
                    f"{file.relpath} downloaded from {url} has sha256 {digest.hexdigest()}, "
                    f"expected {file.sha256}; the file was not cached. The server's copy differs "
                    "from the one this wordlens version was written for."
                )


def _not_found_message(resource: Resource, file: ResourceFile, looked: Sequence[str]) -> str:
    places = "\n".join(f"  - {place}" for place in looked)
    fetch = (
        f"run `wordlens data fetch {resource.name}` while online"
        if file.sha256 is not None
        else f"download {file.url} yourself"
    )
    return (
        f"resource {resource.name!r}: {file.relpath} is not available. Looked in:\n{places}\n"
        f"Provide it by one of: set {DATA_PATH_ENV} to a data root that contains "
        f"{file.relpath} (several roots separated by {os.pathsep!r}); pass an explicit path; "
        f"or {fetch}."
    )
