"""Gavel/Philly traces with the shared trace options (load_gavel_trace_with, docs/model.md §8):
a tiny hand-written trace and throughput table, no real data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.gavel import load_gavel_trace, throughputs_from_dict
from sjfbsbf.workloads.gavel_options import load_gavel_trace_with
from sjfbsbf.workloads.generators import offered_load
from sjfbsbf.workloads.trace_window import TraceOptions

R18 = "ResNet-18 (batch size 32)"
TABLE = {"v100": {f"('{R18}', 1)": {"null": 10.0}, f"('{R18}', 2)": {"null": 18.0}}}
CLUSTER = Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=12.0)


def line(steps: int, arrival: float, gpus: int) -> str:
    return f"{R18}\tpython3 main.py\t--num_steps\t1\t{steps}\t{arrival:.6f}\t{gpus}"


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    """Eight jobs, one every 100 s; job 5 asks for 8 GPUs (twice the cluster), on line 7 (a
    blank line 3 is skipped but counted)."""
    lines = [line(1000, 100.0 * i, 8 if i == 5 else 1 + i % 2) for i in range(8)]
    path = tmp_path / "t.trace"
    path.write_text("\n".join([*lines[:2], "", *lines[2:]]) + "\n", encoding="utf-8")
    return path


def test_no_options_is_the_gavel_loader(trace: Path) -> None:
    table = throughputs_from_dict(TABLE, source="tiny")
    for mode in ("duration", "catalog"):
        plain = load_gavel_trace(trace, table, cluster=CLUSTER, mode=mode)  # type: ignore[arg-type]
        same, report = load_gavel_trace_with(
            trace,
            table,
            cluster=CLUSTER,
            options=TraceOptions(),
            mode=mode,  # type: ignore[arg-type]
        )
        assert same.jobs == plain.jobs
        assert report.capped == (5,) and report.jobs == 8 and report.records == 8


def test_drop_and_refuse_see_the_trace_gpu_count(trace: Path) -> None:
    table = throughputs_from_dict(TABLE, source="tiny")
    dropped, report = load_gavel_trace_with(
        trace, table, cluster=CLUSTER, options=TraceOptions(oversize="drop")
    )
    assert [j.id for j in dropped.jobs] == [0, 1, 2, 3, 4, 6, 7] and report.dropped == (5,)
    with pytest.raises(InstanceError) as info:
        load_gavel_trace_with(
            trace, table, cluster=CLUSTER, options=TraceOptions(oversize="refuse")
        )
    assert (info.value.row, info.value.field) == ("line 7", "num_gpus")


def test_window_sample_and_target_load(trace: Path) -> None:
    table = throughputs_from_dict(TABLE, source="tiny")
    options = TraceOptions(start=150.0, end=650.0, oversize="drop")  # jobs 2..6, job 5 dropped
    inst, _ = load_gavel_trace_with(trace, table, cluster=CLUSTER, options=options)
    assert [j.id for j in inst.jobs] == [2, 3, 4, 6] and inst.jobs[0].arrival == 0.0
    draws = [
        [j.id for j in load_gavel_trace_with(
            trace, table, cluster=CLUSTER, options=TraceOptions(sample=3),
            rng=np.random.default_rng(seed))[0].jobs]
        for seed in (0, 0, 1, 2, 3)
    ]  # fmt: skip
    assert draws[0] == draws[1] and len({tuple(d) for d in draws}) > 1
    assert all(len(d) == 3 for d in draws)
    loaded, report = load_gavel_trace_with(
        trace, table, cluster=CLUSTER, options=TraceOptions(target_load=0.5)
    )
    assert offered_load(loaded) == pytest.approx(0.5) and report.time_scale != 1.0
    with pytest.raises(ValueError, match="rng"):
        load_gavel_trace_with(trace, table, cluster=CLUSTER, options=TraceOptions(sample=3))
