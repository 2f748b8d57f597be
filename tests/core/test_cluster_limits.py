"""The cluster-size limits (issue 35 item 8: one job on 100,000 × 1,024 GPUs, the stated maximum,
died with MemoryError after 48 s): at most 2^22 GPUs in all, tested at, one below and one above the
boundary, in Python, in an instance file, in a sweep file; and the largest cluster simulates within
2 GiB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import MAX_GPUS, MAX_GPUS_PER_NODE, MAX_NODES, Cluster
from sjfbsbf.experiments.sweep_params import ParamError
from sjfbsbf.experiments.sweep_workloads import canonical_workload

WIDEST = MAX_GPUS // MAX_GPUS_PER_NODE  # 4,096 nodes of 1,024 GPUs: exactly the limit


def test_the_limits_are_consistent() -> None:
    assert MAX_GPUS == 2**22 == WIDEST * MAX_GPUS_PER_NODE
    assert MAX_GPUS < MAX_NODES * MAX_GPUS_PER_NODE  # the total binds before each dimension


@pytest.mark.parametrize(("nodes", "ok"), [(WIDEST - 1, True), (WIDEST, True), (WIDEST + 1, False)])
def test_at_one_below_and_one_above_the_total(nodes: int, ok: bool) -> None:
    if ok:
        assert Cluster(nodes, MAX_GPUS_PER_NODE).num_gpus == nodes * MAX_GPUS_PER_NODE
        return
    with pytest.raises(InstanceError, match=r"4,097 nodes × 1,024 GPUs per node = 4,195,328 GPUs"):
        Cluster(nodes, MAX_GPUS_PER_NODE)


def test_the_total_counts_gpus_not_nodes() -> None:
    """A cluster of many small nodes meets the same total: 2^21 nodes would be refused for
    their number first, so 100,000 nodes × 41 GPUs (4.1 M) passes and × 42 (4.2 M) does not."""
    assert Cluster(MAX_NODES, 41).num_gpus == 4_100_000
    with pytest.raises(InstanceError, match="4,200,000 GPUs"):
        Cluster(MAX_NODES, 42)


@pytest.mark.parametrize(("nodes", "ok"), [(WIDEST, True), (WIDEST + 1, False)])
def test_a_sweep_file_is_refused_when_read(nodes: int, ok: bool) -> None:
    workload = {"kind": "default", "nodes": nodes, "gpus_per_node": MAX_GPUS_PER_NODE}
    if ok:
        assert canonical_workload(workload)["nodes"] == nodes
        return
    with pytest.raises(ParamError, match="more than 4,194,304 GPUs") as info:
        canonical_workload(workload)
    assert info.value.key == "nodes"


def test_the_command_line_refuses_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(
        json.dumps(
            {
                "schema": "sjfbsbf.instance/1",
                "cluster": {
                    "nodes": WIDEST + 1,
                    "gpus_per_node": MAX_GPUS_PER_NODE,
                    "gpu_mem_gb": 12,
                },
                "jobs": [{"id": 0, "arrival": 0, "gpus": 1, "duration": 60}],
            }
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["simulate", str(path), "-p", "fifo"])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"sjfbsbf: error: {path}, cluster, field 'nodes': 4,097 nodes × 1,024 GPUs per node = "
        "4,195,328 GPUs; a cluster has at most 4,194,304"
    ]


@pytest.mark.slow
def test_the_largest_cluster_simulates_within_2_gib() -> None:
    """One job on 4,096 × 1,024 GPUs, every default policy, in a fresh process: peak RSS
    (measured 586 MiB) stays under 2 GiB, the bound the limit promises."""
    code = (
        "import resource\n"
        "from sjfbsbf.core.model import Cluster, Instance, Job\n"
        "from sjfbsbf.policies import make_policy, policy_names\n"
        "from sjfbsbf.sim.simulator import simulate\n"
        f"cluster = Cluster({WIDEST}, {MAX_GPUS_PER_NODE})\n"
        "inst = Instance(cluster, (Job(0, 0.0, 8, duration=100.0),))\n"
        "for name in policy_names(defaults_only=True):\n"
        "    assert simulate(inst, make_policy(name)).jobs.jct.iloc[0] == 100.0\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    peak_kib = int(done.stdout.split()[-1])
    assert peak_kib < 2 * 1024 * 1024, peak_kib  # the child's own ru_maxrss, KiB on Linux
