"""Fixtures for the resource tests: the shared data folder, an isolated environment and a local
HTTP server standing in for a download mirror."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

_REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("WORDLENS_SHARED") or _REPO.parent / "shared") / "data"

_ENV = (
    "WORDLENS_DATA_PATH",
    "WORDLENS_MIRROR_URL",
    "WORDLENS_OFFLINE",
    "HF_HUB_OFFLINE",
    "XDG_CACHE_HOME",
)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No resource settings from the caller's environment; the user home is a fresh tmp dir."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "wordlens-home"
    monkeypatch.setenv("WORDLENS_HOME", str(home))
    return home


@pytest.fixture
def shared_data() -> Path:
    """The read-only shared data root: ``$WORDLENS_SHARED/data``, else ``<repo>/../shared/data``."""
    assert SHARED_DATA.is_dir(), f"shared data not found at {SHARED_DATA}; set WORDLENS_SHARED"
    return SHARED_DATA


@pytest.fixture
def shared_env(monkeypatch: pytest.MonkeyPatch, shared_data: Path) -> Path:
    """Resolve resources from the shared data root, never from the network."""
    monkeypatch.setenv("WORDLENS_DATA_PATH", str(shared_data))
    monkeypatch.setenv("WORDLENS_OFFLINE", "1")
    return shared_data


class Server:
    """A running local HTTP server: its base URL and the paths it was asked for."""

    def __init__(self, url: str, requests: list[str]) -> None:
        self.url = url
        self.requests = requests


@pytest.fixture
def http_server() -> Iterator[Callable[[Path], Server]]:
    """Start ``http.server`` on 127.0.0.1 (free port) serving a directory read-only."""
    servers: list[ThreadingHTTPServer] = []

    def start(root: Path) -> Server:
        requests: list[str] = []

        class Handler(SimpleHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                super().do_GET()

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        host, port = server.server_address[:2]
        return Server(f"http://{host!s}:{port}", requests)

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
