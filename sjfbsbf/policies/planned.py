"""``planned``: replay a fixed schedule (e.g. an offline optimum) and fail loudly if it cannot.

A schedule gives every job a start time (a tick), its GPU ids and its accumulation factor, all
kept for the job's life (non-preemptive). :class:`Planned` starts each job at its planned tick
and asks to be woken at the next planned start (``Decision.wake_at``). When a planned start is
infeasible at its tick — the job has not arrived (or already runs), a GPU already holds two jobs
or has no room in memory, the tick was missed — it raises :class:`PlanError` naming the job, the
time and the reason. The simulator's feasibility checker still checks every decision.

Pure core: no solver is imported here; ``formulations`` produces schedules of this type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.world import WorldView

#: Two times closer than this (s) are the same tick.
TIME_TOLERANCE_S = 1e-6


class PlanError(RuntimeError):
    """A planned start cannot be carried out at its tick (or the plan itself is malformed)."""


@dataclass(frozen=True, slots=True)
class PlannedStart:
    """One job's place in a schedule.

    Parameters
    ----------
    job_id
        The job.
    start
        Start time (s); must be a tick of the simulation that replays the schedule.
    gpus
        GPU ids, exactly the job's GPU count, kept for its life.
    accumulation
        Accumulation factor s (micro-batch B / s), kept for its life.
    """

    job_id: int
    start: float
    gpus: tuple[int, ...]
    accumulation: int = 1


#: A schedule: one planned start per job (ordered by job id by convention).
Schedule = tuple[PlannedStart, ...]


def as_schedule(plan: Iterable[PlannedStart] | Mapping[int, PlannedStart]) -> Schedule:
    """Normalise a plan to a :data:`Schedule` sorted by job id.

    Raises
    ------
    PlanError
        If a job appears twice, a start is negative or not finite, or GPU ids repeat.
    """
    entries = list(plan.values()) if isinstance(plan, Mapping) else list(plan)
    seen: set[int] = set()
    for entry in entries:
        if entry.job_id in seen:
            raise PlanError(f"job {entry.job_id} is planned twice")
        seen.add(entry.job_id)
        if not entry.start >= 0 or entry.start == float("inf"):
            raise PlanError(f"job {entry.job_id}: start {entry.start} is not a time >= 0")
        if len(set(entry.gpus)) != len(entry.gpus):
            raise PlanError(f"job {entry.job_id}: GPU ids repeat in {entry.gpus}")
    return tuple(
        PlannedStart(e.job_id, float(e.start), tuple(sorted(e.gpus)), int(e.accumulation))
        for e in sorted(entries, key=lambda e: e.job_id)
    )


class Planned:
    """Start each job at its planned tick on its planned GPUs and accumulation.

    Parameters
    ----------
    schedule
        One :class:`PlannedStart` per job of the instance (a mapping by job id also works).

    Raises
    ------
    PlanError
        At construction if the plan is malformed; at the first decision if it does not cover
        exactly the instance's jobs; at a planned start's tick if that start is infeasible
        (job not arrived or not pending, GPU holding two jobs, memory overflow, GPU count, unknown
        accumulation) or if the tick was missed.
    """

    name = "planned"
    preemptive = False
    sharing = True
    #: A replay of a schedule made with the truth (an offline optimum): it reads the world
    #: through ``view.world`` (docs/model.md §4.1). No belief applies to it.
    clairvoyant = True

    def __init__(self, schedule: Iterable[PlannedStart] | Mapping[int, PlannedStart]) -> None:
        self.schedule: Schedule = as_schedule(schedule)
        self._todo: dict[int, PlannedStart] = {e.job_id: e for e in self.schedule}
        self._checked = False
        self._started = 0

    def decide(self, view: ClusterView) -> Decision:
        """Start the jobs planned for this tick; ask to be woken at the next planned start."""
        world = view.world
        if world is None:
            raise PlanError("planned replays a schedule: it needs the world view (clairvoyant)")
        if not self._checked:
            self._check_cover(world)
        now = world.time
        due = sorted(
            (e for e in self._todo.values() if e.start <= now + TIME_TOLERANCE_S),
            key=lambda e: e.job_id,
        )
        residents = world.residents()
        memory = world.memory_by_gpu()
        pending = set(world.pending())
        starts = []
        for entry in due:
            if entry.start < now - TIME_TOLERANCE_S:
                raise PlanError(
                    f"t={now:g}: job {entry.job_id} was planned to start at t={entry.start:g}, "
                    "a tick at which the policy was not asked (is the start a tick of this dt?)"
                )
            self._check_start(world, entry, pending, residents, memory)
            starts.append(Start(entry.job_id, entry.gpus, entry.accumulation))
            del self._todo[entry.job_id]
        self._started += len(starts)
        upcoming = [e.start for e in self._todo.values()]
        wake = min(upcoming) if upcoming else None
        return Decision(tuple(starts), wake_at=wake)

    def _check_cover(self, view: WorldView) -> None:
        ids = {job.id for job in view.instance.jobs}
        planned = set(self._todo)
        if ids != planned:
            missing = sorted(ids - planned)
            extra = sorted(planned - ids)
            raise PlanError(
                f"the schedule must plan every job of the instance exactly once "
                f"(missing: {missing}, unknown: {extra})"
            )
        self._checked = True

    @staticmethod
    def _check_start(
        view: WorldView,
        entry: PlannedStart,
        pending: set[int],
        residents: list[list[int]],
        memory: list[float],
    ) -> None:
        """Raise :class:`PlanError` if ``entry`` cannot start now; else book it on the GPUs."""
        now = view.time
        job_id = entry.job_id
        job = view.job(job_id)
        where = f"t={now:g}: planned start of job {job_id}"
        if job_id not in pending:
            if view.is_running(job_id):
                reason = "the job is already running"
            elif view.is_finished(job_id):
                reason = "the job has already finished"
            else:
                reason = f"the job has not arrived (arrival {job.arrival:g} s)"
            raise PlanError(f"{where} is infeasible: {reason}")
        if len(entry.gpus) != job.gpus:
            raise PlanError(
                f"{where} is infeasible: it needs {job.gpus} GPUs, plan gives {len(entry.gpus)}"
            )
        options = view.accumulation_options(job_id)
        if entry.accumulation not in options:
            raise PlanError(
                f"{where} is infeasible: accumulation {entry.accumulation} is not an option "
                f"of the job (allowed: {sorted(options)})"
            )
        mem = view.memory_gb(job_id, entry.accumulation)
        capacity = view.cluster.gpu_mem_gb
        for g in entry.gpus:
            if not 0 <= g < view.cluster.num_gpus:
                raise PlanError(f"{where} is infeasible: unknown GPU {g}")
            if len(residents[g]) >= 2:
                raise PlanError(f"{where} is infeasible: GPU {g} already holds jobs {residents[g]}")
            if memory[g] + mem > capacity + MEMORY_TOLERANCE_GB:
                raise PlanError(
                    f"{where} is infeasible: GPU {g} memory overflow "
                    f"({memory[g] + mem:.3f} GB > {capacity:g} GB)"
                )
        for g in entry.gpus:
            residents[g].append(job_id)
            memory[g] += mem

    def stats(self) -> dict[str, Any]:
        """How many planned starts were carried out."""
        return {"planned_starts": self._started}
