"""Golden per-job tables: seeded runs of every policy, exact-round included, and the suite.

Recorded once (``python tests/golden/cases.py``) and compared by
``tests/experiments/test_golden.py``, so that moving code never changes a result. A change that
alters a result on purpose re-records the tables in the same commit and says why in its message.

Each case is a name and a function returning per-job tables (one per policy), built only from
seeded workloads, the suite's instance files and the recorded optimal schedules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
SUITE = ROOT / "instances"
#: Columns kept: everything a schedule decides (arrival and the derived jct are implied).
COLUMNS = [
    "job_id",
    "start",
    "finish",
    "shared_s",
    "partners",
    "sub_batch",
    "accumulation",
    "preemptions",
]
BASELINES = ("fifo", "sjf", "srtf", "tiresias", "sjf-ffs", "sjf-bsbf")


def _table(result: Any, **keys: Any) -> pd.DataFrame:
    frame = result.jobs[COLUMNS].copy()
    for column, value in reversed(keys.items()):
        frame.insert(0, column, value)
    return frame


def _policies(instance: Any, names: tuple[str, ...], **sim: Any) -> Iterator[pd.DataFrame]:
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    for name in names:
        yield _table(simulate(instance, make_policy(name), **sim), policy=name)


def default_workload() -> Iterator[pd.DataFrame]:
    """``sjfbsbf compare``'s embedded workload (seed 0), every baseline, default simulator."""
    from sjfbsbf.workloads.generators import default_workload as make

    yield from _policies(make(0), BASELINES)


def gavel_fitted_dt7() -> Iterator[pd.DataFrame]:
    """Seed 1, 80 jobs, the asymmetric preset, a tick that does not divide the interval."""
    from sjfbsbf.core.presets import make_interference
    from sjfbsbf.workloads.generators import default_workload as make

    preset = make_interference("gavel-fitted")
    yield from _policies(make(1, n_jobs=80), BASELINES, dt=7.0, interference=preset)


def testbed() -> Iterator[pd.DataFrame]:
    """The batch-arrival testbed shape (seed 0, 30 jobs)."""
    from sjfbsbf.workloads.generators import testbed_workload

    yield from _policies(testbed_workload(30, np.random.default_rng(0)), BASELINES)


def sjf_bsbf_options() -> Iterator[pd.DataFrame]:
    """sjf-bsbf's options that change decisions, on the default workload."""
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate
    from sjfbsbf.workloads.generators import default_workload as make

    instance = make(0)
    for label, options in (
        ("wait_aware", {"wait_aware": True}),
        ("threshold=0.05", {"threshold": 0.05}),
        ("retune", {"retune": True}),
        ("full", {"sub_batch": "full"}),
    ):
        policy = make_policy("sjf-bsbf", **options)
        yield _table(simulate(instance, policy), policy=f"sjf-bsbf {label}")


def exact_round() -> Iterator[pd.DataFrame]:
    """exact-round (CP-SAT, 1 worker, seed 0) and (HiGHS) on 30 jobs of the default workload."""
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate
    from sjfbsbf.workloads.generators import default_workload as make

    instance = make(3, n_jobs=30)
    for solver in ("cpsat", "milp"):
        policy = make_policy("exact-round", solver=solver)
        yield _table(simulate(instance, policy), policy=f"exact-round {solver}")


def suite() -> Iterator[pd.DataFrame]:
    """Every suite instance: every baseline at its recorded dt, and the recorded optimum."""
    from formulations.offline.replay import interval_for, replay
    from formulations.offline.suite import load_suite

    # by name as text, the order the tables were recorded in (load_suite's is natural order)
    for optimum, instance in sorted(load_suite(SUITE), key=lambda pair: pair[0].name):
        dt = optimum.dt
        for frame in _policies(instance, BASELINES, dt=dt, interval=interval_for(dt)):
            frame.insert(0, "instance", optimum.name)
            yield frame
        result = replay(instance, optimum.schedule, dt)
        frame = _table(result, policy=f"optimum ({optimum.status})")
        frame.insert(0, "instance", optimum.name)
        yield frame


CASES: dict[str, Callable[[], Iterator[pd.DataFrame]]] = {
    "default_workload": default_workload,
    "gavel_fitted_dt7": gavel_fitted_dt7,
    "testbed": testbed,
    "sjf_bsbf_options": sjf_bsbf_options,
    "exact_round": exact_round,
    "suite": suite,
}


def compute(case: str) -> pd.DataFrame:
    """The case's per-job table, all policies stacked."""
    return pd.concat(list(CASES[case]()), ignore_index=True)


def path(case: str) -> Path:
    return GOLDEN / f"{case}.csv"


def read(case: str) -> pd.DataFrame:
    """The recorded table (read back with the same dtypes as :func:`compute`)."""
    frame = pd.read_csv(path(case), keep_default_na=False, dtype={"partners": str})
    frame["sub_batch"] = frame["sub_batch"].replace("", pd.NA).astype("Int64")
    return frame


def record(cases: list[str]) -> None:
    for case in cases:
        compute(case).to_csv(path(case), index=False, float_format="%.17g")
        print(f"wrote {path(case).relative_to(ROOT)}")


if __name__ == "__main__":
    record(sys.argv[1:] or list(CASES))
