"""The Ray backend for real (needs ``pip install 'sjfbsbf[ray]'``; skipped without it).

``test_sweep_run.py`` covers the Ray code path with a stand-in module; this runs a local Ray
instance and checks that it gives the local backend's rows and failure records.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sjfbsbf.core.errors import SweepRunsFailed
from sjfbsbf.experiments.sweep import load_sweep, run_sweep

pytest.importorskip("ray")

SWEEP = """\
name = "tiny"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 8
nodes = 1
gpus_per_node = 4
gpu_mem_gb = [2.0, 12.0]

[sim]
dt = 10.0

[[variants]]
policy = "fifo"

[[variants]]
policy = "sjf"
"""


def test_ray_gives_the_local_rows_and_failures(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SWEEP, encoding="utf-8")
    sweep = load_sweep(path)
    tables = {}
    for backend in ("local", "ray"):
        out = tmp_path / backend
        with pytest.raises(SweepRunsFailed, match="4 of 8 runs failed"):
            run_sweep(sweep, out, backend=backend, workers=2)
        rows = pd.read_parquet(out / "results.parquet").drop(columns="runtime_s")
        tables[backend] = rows.sort_values("key").reset_index(drop=True).astype(str)
        assert len(list((out / "runs").glob("*.json"))) == 8  # 4 results, 4 failure records
    pd.testing.assert_frame_equal(tables["local"], tables["ray"])
