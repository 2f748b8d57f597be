"""The one feasibility checker, run on every decision (docs/model.md §4).

It raises :class:`~sjfbsbf.core.errors.FeasibilityError` on: an unknown, not-arrived, finished or
already-running job started; a job started twice; a wrong GPU count or repeated / unknown GPU ids;
a GPU holding more than two jobs; GPU memory overflow; an accumulation factor (at a start or a
retune) that is not one of the job's options, which are exactly the s whose micro-batch
b = B / s is a whole number the profile allows, so the global batch never changes; a
preemption of a job that is not running, or any preemption by a non-preemptive policy; sharing
by an exclusive policy; two jobs on one GPU that the interference model's sharing rule forbids
(``can_share``, e.g. a pair measured out of memory; docs/model.md §3); a wake-up time that is
not finite.
"""

from __future__ import annotations

import math

from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.interference import sharing_rule
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.world import WorldView

#: Memory slack (GB) tolerated for float rounding when checking capacity.
MEMORY_TOLERANCE_GB = 1e-9


def check_decision(view: WorldView, decision: Decision, *, preemptive: bool, sharing: bool) -> None:
    """Check ``decision`` against the state seen through ``view``.

    Parameters
    ----------
    view
        The state before the decision.
    decision
        The decision to check.
    preemptive
        Whether the policy may preempt.
    sharing
        Whether the policy may put two jobs on one GPU.

    Raises
    ------
    FeasibilityError
        On the first violation found, naming the job and GPU concerned.
    """
    now = view.time
    cluster = view.cluster
    # GPU occupancy after preemptions: gpu -> list of (job id, memory).
    touched: dict[int, list[tuple[int, float]]] = {}

    def residents(gpu: int) -> list[tuple[int, float]]:
        if gpu not in touched:
            touched[gpu] = [
                (k, view.memory_gb(k, view.accumulation(k))) for k in view.gpu_jobs(gpu)
            ]
        return touched[gpu]

    rule = sharing_rule(view.interference)
    new_acc: dict[int, int] = {}  # retuned and started jobs: accumulation after the decision

    def forbidden(job_id: int, s: int, others: list[tuple[int, float]]) -> int | None:
        """The first co-resident the sharing rule forbids ``job_id`` (at ``s``) to meet."""
        if rule is None:
            return None
        occ = view.occupant(job_id, s)
        for k, _ in others:
            if k != job_id:
                s_k = new_acc[k] if k in new_acc else view.accumulation(k)
                if not rule(occ, view.occupant(k, s_k)):
                    return k
        return None

    preempted: set[int] = set()
    for job_id in decision.preempts:
        if not preemptive:
            raise FeasibilityError(f"t={now}: non-preemptive policy preempts job {job_id}")
        if not view.is_running(job_id):
            raise FeasibilityError(f"t={now}: preempts job {job_id}, which is not running")
        if job_id in preempted:
            raise FeasibilityError(f"t={now}: preempts job {job_id} twice")
        preempted.add(job_id)
        placement = view.placement(job_id)
        assert placement is not None
        for g in placement:
            touched[g] = [(k, m) for k, m in residents(g) if k != job_id]

    retuned: set[int] = set()
    for job_id, accumulation in decision.retunes:
        if not view.is_running(job_id) or job_id in preempted or job_id in retuned:
            raise FeasibilityError(
                f"t={now}: retunes job {job_id}, which is not running (or twice, or preempted)"
            )
        retuned.add(job_id)
        options = view.accumulation_options(job_id)
        if accumulation not in options:
            raise FeasibilityError(
                f"t={now}: job {job_id} retune to accumulation {accumulation} would change its "
                f"global batch (allowed: {sorted(options)})"
            )
        mem = view.memory_gb(job_id, accumulation)
        placement = view.placement(job_id)
        assert placement is not None
        for g in placement:
            current = [(k, m) if k != job_id else (k, mem) for k, m in residents(g)]
            used = sum(m for _, m in current)
            if used > cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB:
                raise FeasibilityError(
                    f"t={now}: GPU {g} memory overflow when job {job_id} is retuned: "
                    f"{used:.3f} GB > {cluster.gpu_mem_gb} GB"
                )
            touched[g] = current
        new_acc[job_id] = accumulation
        for g in placement:
            other = forbidden(job_id, accumulation, touched[g])
            if other is not None:
                raise FeasibilityError(
                    f"t={now}: job {job_id} retuned to accumulation {accumulation} may not share "
                    f"GPU {g} with job {other} (the interference model forbids the pair)"
                )

    started: set[int] = set()
    for start in decision.starts:
        job_id = start.job_id
        if job_id in started:
            raise FeasibilityError(f"t={now}: starts job {job_id} twice")
        started.add(job_id)
        if not view.is_pending(job_id):
            raise FeasibilityError(
                f"t={now}: starts job {job_id}, which is not pending (not arrived, running "
                "or finished)"
            )
        job = view.job(job_id)
        gpus = start.gpus
        if len(gpus) != job.gpus:
            raise FeasibilityError(
                f"t={now}: job {job_id} needs {job.gpus} GPUs, decision gives {len(gpus)}"
            )
        if len(set(gpus)) != len(gpus):
            raise FeasibilityError(f"t={now}: job {job_id} is given a GPU twice: {gpus}")
        options = view.accumulation_options(job_id)
        if start.accumulation not in options:
            raise FeasibilityError(
                f"t={now}: job {job_id} accumulation {start.accumulation} would change its "
                f"global batch (allowed: {sorted(options)})"
            )
        mem = view.memory_gb(job_id, start.accumulation)
        for g in gpus:
            if not 0 <= g < cluster.num_gpus:
                raise FeasibilityError(f"t={now}: job {job_id} placed on unknown GPU {g}")
            current = residents(g)
            if current and not sharing:
                raise FeasibilityError(
                    f"t={now}: exclusive policy puts job {job_id} on busy GPU {g}"
                )
            if len(current) >= 2:
                raise FeasibilityError(
                    f"t={now}: GPU {g} would hold more than two jobs "
                    f"({[k for k, _ in current]} + {job_id})"
                )
            used = sum(m for _, m in current) + mem
            if used > cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB:
                raise FeasibilityError(
                    f"t={now}: GPU {g} memory overflow with job {job_id}: "
                    f"{used:.3f} GB > {cluster.gpu_mem_gb} GB"
                )
            other = forbidden(job_id, start.accumulation, current)
            if other is not None:
                raise FeasibilityError(
                    f"t={now}: job {job_id} may not share GPU {g} with job {other} "
                    "(the interference model forbids the pair, e.g. measured out of memory)"
                )
            current.append((job_id, mem))
        new_acc[job_id] = start.accumulation
    if decision.wake_at is not None and not math.isfinite(decision.wake_at):
        raise FeasibilityError(f"t={now}: wake_at must be a finite time, got {decision.wake_at}")
