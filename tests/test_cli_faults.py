"""Real faults on the command line: SIGINT, SIGTERM and SIGKILL to a running ``wordlens``
process (each then rerun to the end), and ``cache clear`` given names that are not fingerprints.

The signalled processes are real subprocesses; each is signalled once the first shard of its
run is in the activation cache, so finished work exists and more is still to come.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.conftest import REPO
from tests.models.cache_targets import warriner_words
from tests.models.test_cache import shard_keys, shards_of, worker_env
from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache

runner = CliRunner()
WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]


def run_wordlens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WORDLENS, *args], cwd=REPO, env=worker_env(), capture_output=True, text=True
    )


def wordlens_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``wordlens *args`` in this process (typer's CliRunner: no interpreter to start), for the
    runs that are not signalled, as a subprocess's exit code, stdout and stderr; an exception
    escaping the command is raised."""
    result = runner.invoke(app, list(args), prog_name="wordlens")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def signal_after_first_shard(
    args: list[str], cache_root: Path, signum: int
) -> subprocess.CompletedProcess[str]:
    """Start ``wordlens *args`` as a terminal's foreground job, send ``signum`` once a shard is
    in ``cache_root``, wait (:func:`signal_when`)."""
    return signal_when(args, lambda: bool(shards_of(cache_root)), signum)


def signal_when(
    args: list[str], ready: Callable[[], bool], signum: int
) -> subprocess.CompletedProcess[str]:
    """Start ``wordlens *args`` as a terminal's foreground job, send ``signum`` once ``ready()``
    holds, wait.

    A job a shell starts in the background (``make test &``, a CI step run with ``&``) inherits
    SIGINT ignored, and Python then never raises KeyboardInterrupt: Ctrl-C cannot reach such a
    process. A user's Ctrl-C comes from a foreground terminal, so the child restores Python's
    default SIGINT handler and unblocks the two signals before the command runs (two full test
    runs started in the background failed here, each run finishing three times in a row).
    """
    foreground = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM}); "
        "from wordlens.cli import app; app(prog_name='wordlens')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", foreground, *args],
        cwd=REPO,
        env=worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not ready() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "wordlens finished before it could be signalled"
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def cached_rows(cache_root: Path) -> int:
    return sum(len(shard_keys(shard)) for shard in shards_of(cache_root))


WORDS = 5000
"""Words the signalled runs embed: enough batches after the first shard (about 9 s on minilm-l6
on 2 cores) that the signal lands mid-run even when the machine is loaded (with 2,000 words the
whole window was 3.6 s, and a full test run once saw three runs in a row finish first)."""


@pytest.fixture(scope="module")
def words_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("words") / "words.txt"
    path.write_text("\n".join(warriner_words(WORDS)) + "\n")
    return path


def embed_args(words_file: Path, out: Path, cache_root: Path) -> list[str]:
    """:data:`WORDS` words alone in batches of about 16 (seconds on minilm-l6)."""
    return [
        *("embed", "--model", "minilm-l6", "--words-file", str(words_file), "--context", "none"),
        *("--layers", "0,6", "--token-budget", "64", "--out", str(out)),
        *("--cache-dir", str(cache_root)),
    ]


@pytest.fixture(scope="module")
def uninterrupted(words_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("uninterrupted")
    done = wordlens_in_process(*embed_args(words_file, folder / "v.npy", folder / "cache"))
    assert done.returncode == 0, done.stderr
    return folder / "v.npy"


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [(signal.SIGINT, 130, "interrupted;"), (signal.SIGTERM, 143, "terminated (SIGTERM);")],
)
def test_a_signalled_run_keeps_its_batches_and_a_rerun_completes_it(
    words_file: Path, uninterrupted: Path, tmp_path: Path, signum: int, code: int, said: str
) -> None:
    cache_root, out = tmp_path / "cache", tmp_path / "v.npy"
    args = embed_args(words_file, out, cache_root)
    for _attempt in range(3):
        stopped = signal_after_first_shard(args, cache_root, signum)
        if stopped.returncode != 0:
            break
        # On a loaded machine the run can finish between the first shard and the signal's
        # arrival (seen once under load 6): that run was not interrupted; start over.
        shutil.rmtree(cache_root)
        out.unlink(missing_ok=True)
        out.with_suffix(".json").unlink(missing_ok=True)
    assert stopped.returncode == code, stopped.stderr
    assert f"{said} finished batches are kept in the activation cache" in stopped.stderr
    assert "Traceback" not in stopped.stderr and not out.exists()
    kept = cached_rows(cache_root)
    assert 0 < kept < WORDS

    rerun = wordlens_in_process(*args)
    assert rerun.returncode == 0, rerun.stderr
    np.testing.assert_array_equal(np.load(out), np.load(uninterrupted))
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar == json.loads(uninterrupted.with_suffix(".json").read_text())
    assert cached_rows(cache_root) == WORDS  # the rerun added the rest, nothing twice


STUDY = """\
name: killed
cache_dir: cache
models:
  - model: minilm-l6
    token_budget: 32
methods:
  weat: {context: template, tests: [1, 2], permutations: 500, layers: [0, 3, 6]}
"""


def test_a_study_killed_and_rerun_writes_the_tables_of_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    for folder in (killed, whole):
        folder.mkdir()
        (folder / "study.yaml").write_text(STUDY)
    done = wordlens_in_process("study", "run", str(whole / "study.yaml"))
    assert done.returncode == 0, done.stderr

    stopped = signal_after_first_shard(
        ["study", "run", str(killed / "study.yaml")], killed / "cache", signal.SIGKILL
    )
    assert stopped.returncode == -signal.SIGKILL
    assert cached_rows(killed / "cache") > 0
    rerun = wordlens_in_process("study", "run", str(killed / "study.yaml"))
    assert rerun.returncode == 0, rerun.stderr

    cells = Path("wordlens-results/killed/cells/minilm-l6/weat")  # the study's default out
    for name in ("weat.parquet", "weat.csv"):
        assert (killed / cells / name).read_bytes() == (whole / cells / name).read_bytes()
    pd.testing.assert_frame_equal(
        pd.read_parquet(killed / cells / "weat.parquet"),
        pd.read_parquet(whole / cells / "weat.parquet"),
        check_exact=True,
    )
    headline = [
        json.loads((folder / cells / "cell.json").read_text())["headline"]
        for folder in (killed, whole)
    ]
    assert headline[0] == headline[1] and headline[0]


def test_cache_clear_deletes_only_a_fingerprint_of_the_cache(
    tmp_path: Path, minilm: WordEmbedder
) -> None:
    cache_root = tmp_path / "cache"
    minilm.embed(targets_from_template(["cat"]), layers=[0], cache=ActivationCache(cache_root))
    (fingerprint,) = [entry.name for entry in cache_root.iterdir()]
    (store,) = ActivationCache(cache_root).stores()
    beside = tmp_path / "beside.txt"
    beside.write_text("must survive")
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.txt").write_text("must survive")
    not_fingerprints = [
        "..",
        ".",
        str(other),
        str(tmp_path),
        f"{fingerprint}/{store.path.name}",
        f"{fingerprint}/..",
        "no-such-fingerprint",
        "",
    ]
    for name in not_fingerprints:
        result = runner.invoke(
            app, ["cache", "clear", "--cache-dir", str(cache_root), "--fingerprint", name]
        )
        assert result.exit_code == 2, (name, result.output)
        assert "not a model fingerprint" in result.output and "nothing was deleted" in result.output
        assert beside.read_text() == (other / "data.txt").read_text() == "must survive"
        assert shards_of(cache_root), name
    cleared = runner.invoke(
        app, ["cache", "clear", "--cache-dir", str(cache_root), "--fingerprint", fingerprint]
    )
    assert cleared.exit_code == 0, cleared.output
    assert not (cache_root / fingerprint).exists() and cache_root.is_dir()
    assert beside.exists() and (other / "data.txt").exists()
