"""Files a real ``wordlens`` run writes get the permissions the process umask allows, as
:func:`open` would give them (not always 0600, the mode of :func:`tempfile.mkstemp`)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.models.test_cache import worker_env

WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]


@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_every_file_a_run_writes_has_the_mode_the_umask_gives(tmp_path: Path, umask: int) -> None:
    out, cache, home = tmp_path / "out", tmp_path / "cache", tmp_path / "home"
    args = ["weat", "-m", "minilm-l6", "--tests", "1", "--out", str(out), "--cache-dir", str(cache)]
    done = subprocess.run(
        [*WORDLENS, *args],
        cwd=REPO,
        env={**worker_env(), "WORDLENS_HOME": str(home)},
        capture_output=True,
        text=True,
        umask=umask,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(
        path for root in (out, cache, home) for path in root.rglob("*") if path.is_file()
    )
    assert {"weat.parquet", "weat.csv", "weat.json", "run.json", "report.html"} <= {
        path.name for path in written
    }
    assert any(path.suffix == ".safetensors" for path in written)
    modes = {str(path.relative_to(tmp_path)): stat.S_IMODE(path.stat().st_mode) for path in written}
    assert modes == dict.fromkeys(modes, 0o666 & ~umask)
