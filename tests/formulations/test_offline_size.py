"""The offline model's size is estimated, and an oversized model refused, before it is built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from formulations.offline import preprocess, solve_offline
from formulations.offline.size import ModelSize, ModelTooLarge, cells, check_size
from sjfbsbf.core.model import Cluster, Instance, Job


def _long_jobs(days: float) -> Instance:
    """Two duration-only jobs of ``days`` days on one node of 2 GPUs."""
    seconds = days * 86400.0
    jobs = (Job(0, 0.0, 1, duration=seconds), Job(1, 0.0, 2, duration=seconds))
    return Instance(Cluster(1, 2, 12.0), jobs, name="long")


def test_cells_counts_jobs_slots_gpus_and_pairs() -> None:
    # 3 jobs × 10 slots × 4 GPUs + 3 pairs × 10 slots
    assert cells(3, 10, 4) == 120 + 30
    assert ModelSize(3, 10, 4, 60.0).cells == 150


def test_check_size_says_what_would_fit() -> None:
    size = ModelSize(jobs=20, slots=1000, gpus=8, dt=60.0)  # 160,000 + 190,000 cells
    check_size(size, limit=400_000)  # fits
    check_size(size, limit=None)  # no limit
    with pytest.raises(ModelTooLarge) as caught:
        check_size(size, limit=100_000)
    message = str(caught.value)
    assert "350,000 cells" in message and "limit of 100,000" in message
    assert "coarser dt (500 s or more)" in message  # 60 × 3.5 → 210 → the next 1-2-5 step
    assert "at most 8 jobs" in message  # cells(8, 1000, 8) = 92,000 ≤ 100,000 < cells(9, ...)
    assert "\n" not in message


def test_year_long_jobs_are_refused_before_the_model_is_built() -> None:
    instance = _long_jobs(365.0)  # 525,600 slots of 60 s
    with pytest.raises(ModelTooLarge, match="coarser dt"):
        solve_offline(instance, "cpsat", dt=60.0)
    with pytest.raises(ModelTooLarge):
        preprocess(instance, 60.0)
    # A coarse enough slot fits: 30-day slots (13 of them per job).
    result = solve_offline(instance, "cpsat", dt=30 * 86400.0, time_limit=10.0)
    assert result.status.has_solution


def test_force_lifts_the_limit() -> None:
    instance = _long_jobs(2.0)  # 2,880 slots of 60 s: 2 × 2,880 × 2 + 2,880 = 14,400 cells
    with pytest.raises(ModelTooLarge):
        preprocess(instance, 60.0, max_cells=10_000)
    data = preprocess(instance, 60.0, max_cells=None)
    assert data.horizon >= 2 * 2880 - 1


def test_cli_refuses_in_one_line_and_force_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    year = 365 * 86400.0
    path.write_text(
        json.dumps(
            {
                "schema": "sjfbsbf.instance/1",
                "cluster": {"nodes": 1, "gpus_per_node": 2, "gpu_mem_gb": 12},
                "jobs": [
                    {"id": 0, "arrival": 0, "gpus": 1, "duration": year},
                    {"id": 1, "arrival": 0, "gpus": 2, "duration": year},
                ],
            }
        ),
        encoding="utf-8",
    )
    command = [sys.executable, "-c", "from sjfbsbf.cli import app; app()", "solve", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"sjfbsbf: error: {path}: the offline model would have about")
    assert "--force builds it anyway" in lines[0]
    help_text = subprocess.run(
        [*command[:3], "solve", "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "--force" in help_text
