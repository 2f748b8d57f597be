"""What every offline backend hands back, and the decoding of its values into a schedule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formulations.offline.data import OfflineData
from formulations.result import SolveStatus
from sjfbsbf.policies.planned import PlannedStart, Schedule
from sjfbsbf.sim.ticks import tick_ceil


@dataclass(frozen=True)
class JobPlan:
    """One job's decoded solution.

    Attributes
    ----------
    start_slot, end_slot
        First and last occupied slot.
    gpus
        GPU ids.
    option
        Index of the chosen option in ``JobData.options``.
    last_fraction
        Share of the last slot used, in [0, 1].
    """

    start_slot: int
    end_slot: int
    gpus: tuple[int, ...]
    option: int
    last_fraction: float


@dataclass(frozen=True)
class RawSolve:
    """A backend's answer before re-scoring.

    Attributes
    ----------
    status
        Outcome.
    plans
        Job position -> :class:`JobPlan` (empty without a solution).
    objective
        Model objective, average JCT (s), or ``None``.
    bound
        Best proven lower bound on it (s), or ``None``.
    runtime_s
        Solver wall time (building excluded).
    info
        Backend details.
    """

    status: SolveStatus
    plans: dict[int, JobPlan]
    objective: float | None
    bound: float | None
    runtime_s: float
    info: dict[str, Any] = field(default_factory=dict)


def to_schedule(data: OfflineData, plans: dict[int, JobPlan]) -> Schedule:
    """The :data:`~sjfbsbf.policies.planned.Schedule` of decoded job plans, by job id."""
    out = []
    for position, plan in plans.items():
        job = data.jobs[position]
        option = job.options[plan.option]
        out.append(
            PlannedStart(job.job_id, plan.start_slot * data.dt, plan.gpus, option.accumulation)
        )
    return tuple(sorted(out, key=lambda e: e.job_id))


def model_finish(data: OfflineData, plan: JobPlan) -> float:
    """Finish time the model predicts for a job plan (s)."""
    return (plan.end_slot + plan.last_fraction) * data.dt


def decision_keys(plans: dict[int, JobPlan]) -> list[tuple[str, int, int]]:
    """Keys ``(name, job position, slot / GPU / option)`` of the y, z, x at 1 in ``plans``.

    Start slot, option and GPU set fix a schedule; a no-good cut over these keys
    (``add_exclusions`` in both backends) removes exactly that schedule from the model.
    """
    keys: list[tuple[str, int, int]] = []
    for position, plan in sorted(plans.items()):
        keys.append(("y", position, plan.start_slot))
        keys.append(("z", position, plan.option))
        keys.extend(("x", position, g) for g in plan.gpus)
    return keys


def avg_jct_from_total(data: OfflineData, total_finish: float) -> float:
    """Average JCT (s) from the sum of finish times (s)."""
    return (total_finish - data.arrival_total) / len(data.jobs)


def schedule_values(
    data: OfflineData, schedule: Schedule, finish: dict[int, float]
) -> dict[tuple[str, int, int], int] | None:
    """Values of y, e, x, z for a schedule with known finish times (s).

    Keys are ``(name, job position, slot / GPU / option)``. ``None`` if the schedule lies
    outside the windows (or uses an option the model does not have).
    """
    values: dict[tuple[str, int, int], int] = {}
    spans_of = data.instance.cluster.spans_nodes
    for entry in schedule:
        i = data.position(entry.job_id)
        job = data.jobs[i]
        start = round(entry.start / data.dt)
        end = max(start, tick_ceil(finish[entry.job_id], data.dt) - 1)
        if start not in job.start_slots or end not in job.end_slots:
            return None
        chosen = [
            o
            for o, opt in enumerate(job.options)
            if opt.accumulation == entry.accumulation and opt.spans == spans_of(entry.gpus)
        ]
        if not chosen:
            chosen = [
                o for o, opt in enumerate(job.options) if opt.accumulation == entry.accumulation
            ]
        if not chosen:
            return None
        for t in job.start_slots:
            values["y", i, t] = int(t == start)
        for t in job.end_slots:
            values["e", i, t] = int(t == end)
        for g in data.gpus:
            values["x", i, g] = int(g in entry.gpus)
        for o in range(len(job.options)):
            values["z", i, o] = int(o == chosen[0])
    return values
