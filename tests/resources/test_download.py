"""Downloads against a real HTTP server on 127.0.0.1 serving the shared data root."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wordlens._files import sha256_file
from wordlens.errors import ChecksumError, ResourceNotFoundError, WordlensError
from wordlens.resources import (
    Resource,
    ResourceFile,
    fetch,
    get_resource,
    load_lexicon,
    resolve,
)

Serve = Callable[[Path], Any]


def test_fetch_downloads_from_the_mirror_url_into_the_cache(
    shared_data: Path, isolated_env: Path, http_server: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = http_server(shared_data)
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url + "/")
    progress: list[tuple[int, int | None]] = []

    paths = fetch("bellezza", progress=lambda done, total: progress.append((done, total)))

    cached = isolated_env / "data" / "lexica/en/bellezza.csv"
    assert paths == [cached]
    assert sha256_file(cached) == get_resource("bellezza").files[0].sha256
    size = (shared_data / "lexica/en/bellezza.csv").stat().st_size
    assert progress[-1] == (size, size)
    assert server.requests == ["/lexica/en/bellezza.csv"]
    assert [p.name for p in cached.parent.iterdir()] == ["bellezza.csv"]  # no temp files

    assert len(load_lexicon("bellezza")) == 399  # served from the cache now
    assert server.requests == ["/lexica/en/bellezza.csv"]


def test_relpath_with_spaces_is_url_quoted(
    tmp_path: Path, isolated_env: Path, http_server: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = b"cat dog 1.0\n"
    (tmp_path / "sim dir").mkdir()
    (tmp_path / "sim dir" / "my set.txt").write_bytes(content)
    file = ResourceFile(
        "sim dir/my set.txt", hashlib.sha256(content).hexdigest(), "o/r", "0" * 40, "p"
    )
    resource = Resource("spaced", "similarity", "d", (file,), str, "c", "l")
    server = http_server(tmp_path)
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url)
    assert resolve(resource, file).read_bytes() == content
    assert server.requests == ["/sim%20dir/my%20set.txt"]


def test_checksum_mismatch_raises_and_leaves_nothing_cached(
    shared_data: Path,
    tmp_path: Path,
    isolated_env: Path,
    http_server: Serve,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tampered = tmp_path / "tampered" / "lexica/en/anew.csv"
    tampered.parent.mkdir(parents=True)
    tampered.write_bytes(
        (shared_data / "lexica/en/anew.csv").read_bytes().replace(b"2.76", b"8.76")
    )
    server = http_server(tmp_path / "tampered")
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url)

    with pytest.raises(ChecksumError, match="expected b97f1f45") as caught:
        fetch("anew")

    assert "lexica/en/anew.csv" in str(caught.value)
    cache_dir = isolated_env / "data" / "lexica/en"
    assert not (cache_dir / "anew.csv").exists()
    assert not cache_dir.exists() or list(cache_dir.iterdir()) == []


def test_mirror_failure_falls_back_to_the_canonical_url(
    shared_data: Path,
    tmp_path: Path,
    isolated_env: Path,
    http_server: Serve,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    canonical = http_server(shared_data)
    empty_mirror = http_server(tmp_path)  # answers 404 for everything
    monkeypatch.setenv("WORDLENS_MIRROR_URL", empty_mirror.url)
    monkeypatch.setattr(
        ResourceFile, "url", property(lambda self: f"{canonical.url}/{self.relpath}")
    )
    assert fetch("yp130") == [isolated_env / "data" / "similarity/EN-YP-130.txt"]
    assert empty_mirror.requests == ["/similarity/EN-YP-130.txt"]
    assert canonical.requests == ["/similarity/EN-YP-130.txt"]


def test_failed_downloads_are_listed(
    tmp_path: Path, http_server: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = http_server(tmp_path)
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url)
    monkeypatch.setattr(ResourceFile, "url", property(lambda self: f"{server.url}/up/{self.path}"))
    with pytest.raises(ResourceNotFoundError) as caught:
        fetch("mc30")
    message = str(caught.value)
    assert f"download {server.url}/similarity/EN-MC-30.txt: HTTP Error 404" in message
    assert f"download {server.url}/up/data/word-sim/EN-MC-30.txt: HTTP Error 404" in message


@pytest.mark.parametrize("variable", ["WORDLENS_OFFLINE", "HF_HUB_OFFLINE"])
def test_offline_refuses_to_download_and_lists_the_places_looked(
    variable: str,
    shared_data: Path,
    tmp_path: Path,
    isolated_env: Path,
    http_server: Serve,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = http_server(shared_data)
    mirrors = [tmp_path / "mirror-a", tmp_path / "mirror-b"]
    monkeypatch.setenv("WORDLENS_DATA_PATH", os.pathsep.join(map(str, mirrors)))
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url)
    monkeypatch.setenv(variable, "1")

    with pytest.raises(ResourceNotFoundError) as caught:
        load_lexicon("warriner")

    message = str(caught.value)
    relpath = "lexica/en/warriner.csv"
    for place in [*mirrors, isolated_env / "data"]:
        assert str(place / relpath) in message
    assert "download: skipped (offline mode)" in message
    assert "set WORDLENS_DATA_PATH" in message
    assert "pass an explicit path" in message
    assert "`wordlens data fetch warriner`" in message
    assert server.requests == []
    assert not (isolated_env / "data").exists()


def test_offline_message_when_no_data_path_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORDLENS_OFFLINE", "yes")
    with pytest.raises(ResourceNotFoundError, match=r"\$WORDLENS_DATA_PATH: not set"):
        fetch("ws353")


def test_file_url_mirror_and_malformed_mirror_url(
    shared_data: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORDLENS_MIRROR_URL", shared_data.as_uri())
    assert fetch("mc30") == [isolated_env / "data" / "similarity/EN-MC-30.txt"]
    monkeypatch.setenv("WORDLENS_MIRROR_URL", "localhost:8000/data")
    with pytest.raises(WordlensError, match="must be an http://, https:// or file:// URL"):
        fetch("rg65")


def test_an_unwritable_user_cache_is_named_before_downloading(
    tmp_path: Path, shared_data: Path, http_server: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WORDLENS_HOME under a regular file (unwritable even for root): a clear error naming the
    cache directory and the ways out, not a NotADirectoryError traceback; nothing requested."""
    from wordlens.errors import CacheError

    server = http_server(shared_data)
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url + "/")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WORDLENS_HOME", str(blocker / "home"))
    with pytest.raises(WordlensError, match=r"cannot download lexica/en/bellezza\.csv") as caught:
        fetch("bellezza")
    assert isinstance(caught.value, CacheError)
    assert f"{blocker / 'home' / 'data' / 'lexica' / 'en'} (" in str(caught.value)
    assert "WORDLENS_HOME" in str(caught.value) and "WORDLENS_DATA_PATH" in str(caught.value)
    assert server.requests == []
