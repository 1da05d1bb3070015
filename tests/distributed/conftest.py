"""A real Ray cluster on 127.0.0.1 for the distributed tests: a head with no CPUs (it schedules
nothing) and two worker nodes of one CPU each, started with ``ray start`` as subprocesses.

Teardown ends exactly the processes of this cluster, by pid: those whose command line names the
cluster's own temporary directory (GCS, raylets, agents) and their descendants (the worker
processes, whose titles Ray rewrites). ``ray stop`` is not used: it kills every Ray process of
the machine by name, including other users' clusters.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
import torch

RAY = str(Path(sys.executable).with_name("ray"))
#: Bytes of object store per node (Ray's minimum is 75 MB); the test payloads are small.
OBJECT_STORE_BYTES = 100_000_000
#: CPUs of each worker node: one actor each.
WORKER_NODES = 2


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class LocalRayCluster:
    """A head and worker nodes on this machine, all under ``temp_dir``."""

    address: str
    temp_dir: Path
    head_port: int

    def processes(self) -> list[psutil.Process]:
        """The cluster's live processes: those naming its temp dir, and their descendants."""
        marker = str(self.temp_dir)
        roots = []
        for process in psutil.process_iter(["cmdline"]):
            if any(marker in part for part in process.info["cmdline"] or ()):
                roots.append(process)
        found = {process.pid: process for process in roots}
        for root in roots:
            try:
                found.update({child.pid: child for child in root.children(recursive=True)})
            except psutil.NoSuchProcess:
                continue
        found.pop(os.getpid(), None)
        return list(found.values())

    def stop(self) -> None:
        """SIGKILL every process of the cluster (as ``ray stop --force`` does: raylets and the
        GCS ignore SIGTERM for many seconds), wait for them, remove the temp dir."""
        processes = self.processes()
        for process in processes:
            try:
                process.send_signal(signal.SIGKILL)
            except psutil.NoSuchProcess:
                continue
        psutil.wait_procs(processes, timeout=30)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _ray_start(arguments: list[str], temp_dir: Path) -> None:
    """``ray start`` with ports of its own (several nodes share this machine) and token
    authentication off, explicitly: left unset, a head finding a ``~/.ray/auth_token`` (which an
    in-process ``ray.init()`` writes) demands a token that the worker nodes do not send."""
    ports = [
        f"--node-manager-port={free_port()}",
        f"--object-manager-port={free_port()}",
        f"--dashboard-agent-listen-port={free_port()}",
        f"--dashboard-agent-grpc-port={free_port()}",
        f"--runtime-env-agent-port={free_port()}",
        f"--metrics-export-port={free_port()}",
    ]
    command = [
        RAY,
        "start",
        "--node-ip-address=127.0.0.1",
        f"--object-store-memory={OBJECT_STORE_BYTES}",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
        *ports,
        *arguments,
    ]
    started = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"},
        check=False,
    )
    if started.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{started.stdout}\n{started.stderr}")


def start_local_cluster() -> LocalRayCluster:
    """A head (no CPUs) and :data:`WORKER_NODES` one-CPU worker nodes on 127.0.0.1; stopped
    again if any of them fails to start."""
    # short: Ray's unix socket paths under the temp dir must stay below 108 characters
    temp_dir = Path(tempfile.mkdtemp(prefix="wlray-", dir="/tmp"))
    port = free_port()
    cluster = LocalRayCluster(f"127.0.0.1:{port}", temp_dir, port)
    try:
        _ray_start(
            [
                "--head",
                f"--port={port}",
                f"--dashboard-port={free_port()}",
                "--num-cpus=0",
                "--include-dashboard=false",
            ],
            temp_dir,
        )
        for _ in range(WORKER_NODES):
            _ray_start([f"--address={cluster.address}", "--num-cpus=1"], temp_dir)
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[LocalRayCluster]:
    """The cluster, shared by the session's distributed tests; torn down at the end."""
    cluster = start_local_cluster()
    try:
        yield cluster
    finally:
        import ray

        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()
    # a second run of the suite must find nothing left of this one
    assert not cluster.processes(), "Ray processes survived the teardown"


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """The local runs use one torch thread, as the one-CPU actors do (Ray sets their
    ``OMP_NUM_THREADS``): CPU kernels sum in another order with another thread count, so only
    then must the two backends agree bit for bit (else to float32 rounding, ~1e-6)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
