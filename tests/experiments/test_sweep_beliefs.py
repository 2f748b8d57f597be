"""A sweep's ``[sim] estimator`` and ``interference_belief`` (docs/model.md §4.1, §9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments.sweep import execute, load_sweep
from sjfbsbf.experiments.sweep_workloads import build_instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.simulator import simulate

SWEEP = """\
name = "beliefs"
seeds = [3]

[[workloads]]
kind = "default"
n_jobs = 20
nodes = 1
gpus_per_node = 4

[sim]
dt = 10.0
{extra}

[[variants]]
policy = "srtf"
"""


def runs(tmp_path: Path, extra: str = "") -> list:
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(extra=extra), encoding="utf-8")
    return list(load_sweep(path).runs)


def test_oracle_beliefs_leave_the_run_key_as_it_was(tmp_path: Path) -> None:
    (plain,) = runs(tmp_path)
    (oracle,) = runs(tmp_path, 'estimator = "oracle"\ninterference_belief = "oracle"')
    assert oracle.key == plain.key
    assert "estimator" not in plain.sim and "interference_belief" not in plain.sim


def test_beliefs_are_keyed_by_their_canonical_text(tmp_path: Path) -> None:
    listed = runs(tmp_path, 'estimator = ["oracle", "lognormal:sigma=1", "history"]')
    assert [r.sim.get("estimator") for r in listed] == [None, "lognormal:sigma=1", "history"]
    (spelled,) = runs(tmp_path, 'estimator = "lognormal: sigma=1.0"')
    assert spelled.key == listed[1].key
    assert len({r.key for r in listed}) == 3


@pytest.mark.parametrize(
    ("extra", "key", "message"),
    [
        ('estimator = "guess"', "sim.estimator", "unknown estimator 'guess'"),
        ("estimator = 3", "sim.estimator", "must be a text"),
        ('interference_belief = "noisy"', "sim.interference_belief", "needs sigma="),
        ('estimator = "user"', "workloads[0].kind", "estimator 'user' reads every job's"),
        ('throughputs = "x.json"', "sim.throughputs", "interference_belief"),
    ],
)
def test_bad_beliefs_are_refused_when_the_sweep_loads(
    tmp_path: Path, extra: str, key: str, message: str
) -> None:
    with pytest.raises(SweepError, match=message) as info:
        runs(tmp_path, extra)
    assert key in str(info.value)


def test_a_run_believes_with_its_seed_as_the_stream_key(tmp_path: Path) -> None:
    (run,) = runs(tmp_path, 'estimator = "lognormal:sigma=1"\ninterference_belief = "mps"')
    row = execute(run)
    instance = build_instance(run.workload, run.seed)
    beliefs = Beliefs("lognormal:sigma=1", "mps", seed=3)
    expected = simulate(instance, make_policy("srtf"), dt=10.0, beliefs=beliefs)
    assert row["avg_jct"] == expected.metrics["avg_jct"]
    assert row["sim_estimator"] == "lognormal:sigma=1"
    oracle = simulate(instance, make_policy("srtf"), dt=10.0)
    assert row["avg_jct"] != oracle.metrics["avg_jct"]
