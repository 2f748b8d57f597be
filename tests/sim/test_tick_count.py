"""A dt too fine for the instance is refused before anything runs (issue 35 item 13): a valid
ten-year job at dt = 1e-9 s used to stop mid-run with "more than 2^52 ticks"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import MAX_TIME_S, Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim import simulator
from sjfbsbf.sim.simulator import MAX_RUN_TICKS, check_tick_count, simulate

LONG = Instance(Cluster(1, 1, 12.0), (Job(0, 0.0, 1, duration=MAX_TIME_S),))


def test_the_limit_at_and_beside_its_boundary() -> None:
    at = MAX_TIME_S / MAX_RUN_TICKS  # exactly the limit
    check_tick_count(LONG, at)
    check_tick_count(LONG, at * 1.000001)
    with pytest.raises(ValueError, match="too fine for this instance"):
        check_tick_count(LONG, at * 0.999999)


def test_simulate_refuses_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    started = []
    monkeypatch.setattr(simulator._Run, "loop", lambda self: started.append(1))
    with pytest.raises(ValueError, match=r"use dt ≥ 7\.1\de-05 s"):
        simulate(LONG, make_policy("sjf"), dt=1e-9, interval=1e-9)
    assert not started


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_the_command_line_refuses_in_one_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "long.json"
    write_instance(LONG, path)
    args = [command, str(path), "--dt", "1e-9", "--interval", "1e-9"]
    args += ["-p", "sjf"] if command == "simulate" else ["--out", str(tmp_path / "o")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "'--dt'" in result.stderr
    assert "too fine for this instance" in result.stderr
