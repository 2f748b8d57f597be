"""A sweep on a two-node local Ray cluster gives the local backend's rows (issue 36: CI skipped
every Ray test). ``ray start --head`` and a second ``ray start --address`` on this machine, one CPU
each, so the runs spread over both nodes; both are stopped at the end. Skipped without Ray."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("ray")

SWEEP = """\
name = "cluster"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 8
nodes = 1
gpus_per_node = 4

[sim]
dt = 10.0

[[variants]]
policy = "fifo"

[[variants]]
policy = "sjf-bsbf"
"""
#: Ray's own settings for a small, quiet, offline cluster; Ray 2.60's nodes authenticate with a
#: token (a fresh one per test, in the environment only: nothing written to ~/.ray).
ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _ray(*args: str, env: dict[str, str]) -> None:
    ray = Path(sys.executable).with_name("ray")
    done = subprocess.run(
        [str(ray), *args], capture_output=True, text=True, timeout=180, env=env, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """The address of a two-node Ray cluster on this machine, and the environment to reach it."""
    # A short temp dir: Ray's socket paths must stay under the 107-byte limit.
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    env = {**os.environ, **ENV, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    address = f"127.0.0.1:{_free_port()}"
    small = ["--num-cpus=1", "--num-gpus=0", "--object-store-memory=100000000"]
    try:
        _ray("start", "--head", f"--port={address.split(':')[1]}", f"--temp-dir={temp}",
             "--include-dashboard=false", "--disable-usage-stats", *small, env=env)  # fmt: skip
        _ray("start", f"--address={address}", *small, env=env)
        yield address, {**env, "RAY_ADDRESS": address}
    finally:
        subprocess.run(
            [str(Path(sys.executable).with_name("ray")), "stop", "--force"],
            capture_output=True, timeout=120, env=env, check=False,
        )  # fmt: skip
        shutil.rmtree(temp, ignore_errors=True)


def _sweep(path: Path, out: Path, backend: str, env: dict[str, str]) -> pd.DataFrame:
    command = [sys.executable, "-m", "sjfbsbf", "sweep", str(path), "--out", str(out)]
    done = subprocess.run(
        [*command, "--backend", backend, "--workers", "2"],
        capture_output=True, text=True, timeout=600, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = pd.read_parquet(out / "results.parquet").drop(columns="runtime_s")
    return rows.sort_values("key").reset_index(drop=True).astype(str)


def test_a_two_node_cluster_gives_the_local_rows(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    _, env = cluster
    code = (
        "import json, ray; ray.init(); print(json.dumps(sum(1 for n in ray.nodes() if n['Alive'])))"
    )
    nodes = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
        check=True,
    )  # fmt: skip
    assert json.loads(nodes.stdout.strip().splitlines()[-1]) == 2
    path = tmp_path / "s.toml"
    path.write_text(SWEEP, encoding="utf-8")
    local = _sweep(path, tmp_path / "local", "local", {**os.environ})
    on_ray = _sweep(path, tmp_path / "ray", "ray", env)
    assert len(local) == 4
    pd.testing.assert_frame_equal(local, on_ray)
