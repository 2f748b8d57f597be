"""Solving a late-starting instance from its first arrival (docs/formulations.md §2.7).

The model is time-indexed from t = 0, so an instance whose jobs all arrive late (4 jobs 10 years
in: 5 million empty slots of 60 s) would be refused for its size although nothing happens before
its first arrival. When that is why it is refused, :func:`solve_offline` solves the same instance
with every time moved earlier by :func:`later_origin` (a whole number of decision intervals and of
ticks, so ticks, interval boundaries and hence every simulation line up exactly) and moves the
result back with :func:`moved_back`, which replays the schedule on the instance as given.
"""

from __future__ import annotations

import dataclasses
import math

from formulations.offline.replay import interval_for, replay_value
from formulations.offline.result import OfflineResult
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.policies.planned import TIME_TOLERANCE_S
from sjfbsbf.sim.ticks import tick_ceil

#: Largest relative difference allowed between the moved and the original replay's average JCT
#: (float noise of times near 10 years is about 1e-7 s).
REPLAY_REL_TOLERANCE = 1e-9


def later_origin(instance: Instance, dt: float) -> float:
    """The time (s) the instance can be solved from: the last decision-interval boundary at or
    before its first arrival, if that is also a tick and moving every arrival there keeps its
    tick (checked exactly); else 0 (solve from t = 0)."""
    interval = interval_for(dt)
    first = min(job.arrival for job in instance.jobs)
    count = math.floor(first / interval)
    offset = count * interval
    if count < 1 or offset > first or offset % dt != 0:
        return 0.0
    ticks = tick_ceil(offset, dt)
    for job in instance.jobs:
        if tick_ceil(job.arrival - offset, dt) + ticks != tick_ceil(job.arrival, dt):
            return 0.0
    return offset


def moved(instance: Instance, offset: float) -> Instance:
    """``instance`` with every arrival ``offset`` seconds earlier."""
    jobs = tuple(dataclasses.replace(job, arrival=job.arrival - offset) for job in instance.jobs)
    return dataclasses.replace(instance, jobs=jobs)


def moved_back(
    result: OfflineResult, instance: Instance, offset: float, model: Interference
) -> OfflineResult:
    """The result of the moved instance as a result of ``instance``: starts and finishes
    ``offset`` later, the schedule replayed on ``instance`` (its average JCT is the one
    reported), ``info["origin_s"] = offset``; average JCTs and bounds do not move.

    Raises
    ------
    RuntimeError
        If the replay on ``instance`` fails or differs from the moved one's by more than float
        noise (the two simulations must agree; a bug otherwise).
    """
    info = dict(result.info)
    info["origin_s"] = offset
    if "model_finish" in info:
        info["model_finish"] = {j: f + offset for j, f in info["model_finish"].items()}
    schedule = result.schedule
    replayed = result.replayed_avg_jct
    if schedule is not None:
        schedule = tuple(dataclasses.replace(e, start=e.start + offset) for e in schedule)
        replayed, finish = replay_value(instance, schedule, result.dt, model)
        expected = result.replayed_avg_jct
        if (
            replayed is None
            or expected is None
            or abs(replayed - expected) > (TIME_TOLERANCE_S + REPLAY_REL_TOLERANCE * abs(expected))
        ):
            raise RuntimeError(
                f"the schedule solved from t = {offset:g} s replays to {expected} s there but to "
                f"{replayed} s on the instance as given: a bug in moving the origin"
            )
        info["replay_finish"] = finish
    bound = result.bound
    if bound is not None and replayed is not None:
        bound = min(bound, replayed)
    return dataclasses.replace(
        result,
        schedule=schedule,
        replayed_avg_jct=replayed,
        bound=bound,
        info=info,
        instance=instance,
        interference=model,
    )
