"""The feasibility checker called directly on a state: retunes, repeated preemptions, and the
full text of its refusals (docs/model.md §4).

A retune changes a running job's accumulation on its own GPUs: the checker refuses one of a job
that is not running, retuned twice or preempted in the same decision, one that changes the global
batch, one whose new memory overflows a GPU, and one into a pair the sharing rule forbids; and
the decision's later starts see the retuned job at its new memory and accumulation. Each refusal
is checked with its message, and each boundary with a decision just inside it. The last tests
pin the whole message of the refusals the simulator-driven tests (test_feasibility.py) match
only in part.

Memory (docs/model.md §2): ResNet-18 at B = 128 holds 6.432 GB at s = 1 and
0.4 · 6.432 + 0.6 · 6.432 / s at s = 2, 4, 8 (4.5024, 3.5376, 3.0552 GB); a duration-only job
holds 4.778 GB.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB, check_decision
from sjfbsbf.sim.state import PENDING, RUNNING, SimState
from sjfbsbf.sim.world import WorldView

RESNET = ("resnet18", 128, 1_000)


class FullBatchAlone:
    """Test-only interference: time slicing, but a job at its full batch (s = 1) may not share.

    Duration-only occupants (no batch) may share with anyone.
    """

    def __init__(self) -> None:
        self._base = time_slicing()

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return self._base.slowdown(victim, other)

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        return all(o.batch is None or o.micro_batch != o.batch for o in (a, b))


def running(
    jobs: tuple[Job, ...],
    starts: tuple[Start, ...],
    *,
    mem: float = 48.0,
    gpus: int = 2,
    interference: Any = None,
) -> WorldView:
    """A view at t = 0 where ``starts`` were applied by the simulator's own state updates."""
    inst = Instance(Cluster(nodes=1, gpus_per_node=gpus, gpu_mem_gb=mem), jobs)
    state = SimState(inst, interference or time_slicing(), 0.0)
    for i in range(len(jobs)):
        state.status[i] = PENDING  # every job arrived at 0
        state.pending.add(i)
    for start in starts:
        i = state.index[start.job_id]
        state.place(i, start.gpus, start.accumulation, 0.0)
        state.pending.discard(i)
        state.running.add(i)
        state.status[i] = RUNNING
    return WorldView(state, 0.0)


def check(view: WorldView, decision: Decision, *, preemptive: bool = True) -> None:
    check_decision(view, decision, preemptive=preemptive, sharing=True)


def refused(view: WorldView, decision: Decision, message: str, **kw: bool) -> None:
    with pytest.raises(FeasibilityError, match=message):
        check(view, decision, **kw)


def test_preempting_a_job_twice_is_refused() -> None:
    view = running((Job(0, 0.0, 1, duration=10.0),), (Start(0, (0,)),))
    check(view, Decision(preempts=(0,)))
    refused(view, Decision(preempts=(0, 0)), r"^t=0.0: preempts job 0 twice$")


def test_a_retune_of_a_job_not_running_twice_or_preempted_is_refused() -> None:
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, *RESNET))
    view = running(jobs, (Start(0, (0,)),))
    check(view, Decision(retunes=((0, 2),)))
    message = r"^t=0.0: retunes job {}, which is not running \(or twice, or preempted\)$"
    refused(view, Decision(retunes=((1, 2),)), message.format(1))  # pending
    refused(view, Decision(retunes=((0, 2), (0, 4))), message.format(0))
    refused(view, Decision(preempts=(0,), retunes=((0, 2),)), message.format(0))


def test_a_retune_that_changes_the_global_batch_names_the_allowed_factors() -> None:
    view = running((Job(0, 0.0, 1, *RESNET),), (Start(0, (0,)),))
    refused(
        view,
        Decision(retunes=((0, 3),)),
        r"^t=0.0: job 0 retune to accumulation 3 would change its global batch "
        r"\(allowed: \[1, 2, 4, 8\]\)$",
    )


def overflowing_by(used: float, slack: float) -> float:
    """A capacity c with ``used − c`` equal to ``slack`` in floats (``c + slack == used``)."""
    cap = used - slack
    for _ in range(64):
        if cap + slack == used:
            return cap
        cap = math.nextafter(cap, math.inf if cap + slack < used else -math.inf)
    raise AssertionError("no such float")  # pragma: no cover


def test_a_retune_counts_its_own_new_memory_beside_the_partners_old_one() -> None:
    """ResNet-18 (s = 8, 3.0552 GB) shares GPU 0 with another at s = 8; retuning the first to
    s = 1 holds 6.432 + 3.0552 = 9.4872 GB: over a 9.4 GB GPU, within a 9.5 GB one (the new
    memory counted twice would be 12.864, the old twice 6.1104)."""
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, *RESNET))
    starts = (Start(0, (0,), 8), Start(1, (0,), 8))
    check(running(jobs, starts, mem=9.5), Decision(retunes=((0, 1),)))
    refused(
        running(jobs, starts, mem=9.4),
        Decision(retunes=((0, 1),)),
        r"^t=0.0: GPU 0 memory overflow when job 0 is retuned: 9.487 GB > 9.4 GB$",
    )


def test_a_retune_fits_up_to_the_memory_tolerance_and_not_beyond() -> None:
    """The retuned GPU may hold exactly its capacity plus the 1e-9 GB float tolerance."""
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, duration=10.0))
    starts = (Start(0, (0,), 8), Start(1, (0,)))
    probe = running(jobs, starts)
    used = probe.memory_gb(0, 1) + probe.memory_gb(1, 1)
    for cap in (used, overflowing_by(used, MEMORY_TOLERANCE_GB)):
        check(running(jobs, starts, mem=cap), Decision(retunes=((0, 1),)))
    beyond = math.nextafter(overflowing_by(used, MEMORY_TOLERANCE_GB), -math.inf)
    refused(running(jobs, starts, mem=beyond), Decision(retunes=((0, 1),)), "memory overflow")


def test_a_start_beside_a_retuned_job_sees_its_new_memory() -> None:
    """Job 0 alone on GPU 0 at s = 8 (3.0552 GB) is retuned to s = 1 (6.432 GB) while job 1
    (4.778 GB) starts beside it: 11.21 GB, over an 11 GB GPU (at the old memory it would fit)."""
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, duration=10.0))
    view = running(jobs, (Start(0, (0,), 8),), mem=11.0)
    check(view, Decision((Start(1, (0,)),)))
    check(view, Decision(retunes=((0, 1),)))
    refused(
        view,
        Decision((Start(1, (0,)),), retunes=((0, 1),)),
        r"^t=0.0: GPU 0 memory overflow with job 1: 11.210 GB > 11.0 GB$",
    )


def test_a_start_beside_a_retuned_job_is_judged_at_its_new_accumulation() -> None:
    """Under a rule that keeps full-batch jobs alone, job 1 may start beside job 0 only when
    job 0 runs (or is retuned in the same decision) below its full batch."""
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, *RESNET))
    rule = FullBatchAlone()
    at_1 = running(jobs, (Start(0, (0,), 1),), interference=rule)
    beside = (Start(1, (0,), 2),)
    refused(at_1, Decision(beside), "job 1 may not share GPU 0 with job 0")
    check(at_1, Decision(beside, retunes=((0, 2),)))
    at_2 = running(jobs, (Start(0, (0,), 2),), interference=rule)
    check(at_2, Decision(beside))
    refused(at_2, Decision(beside, retunes=((0, 1),)), "job 1 may not share GPU 0 with job 0")


def test_a_retune_into_a_pair_the_rule_forbids_is_refused() -> None:
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, *RESNET))
    view = running(jobs, (Start(0, (0,), 2), Start(1, (0,), 2)), interference=FullBatchAlone())
    check(view, Decision(retunes=((0, 4),)))
    refused(
        view,
        Decision(retunes=((0, 1),)),
        r"^t=0.0: job 0 retuned to accumulation 1 may not share GPU 0 with job 1 ",
    )


def test_a_start_of_a_job_that_is_not_pending_says_why_in_full() -> None:
    jobs = (Job(0, 0.0, 1, duration=10.0), Job(1, 0.0, 1, duration=10.0))
    view = running(jobs, (Start(0, (0,)),))
    refused(
        view,
        Decision((Start(0, (1,)),)),
        r"^t=0.0: starts job 0, which is not pending \(not arrived, running or finished\)$",
    )


def test_a_start_into_a_forbidden_pair_says_why_in_full() -> None:
    jobs = (Job(0, 0.0, 1, *RESNET), Job(1, 0.0, 1, *RESNET))
    view = running(jobs, (Start(0, (0,), 1),), interference=FullBatchAlone())
    refused(
        view,
        Decision((Start(1, (0,), 2),)),
        r"^t=0.0: job 1 may not share GPU 0 with job 0 \(the interference model forbids the "
        r"pair, e.g. measured out of memory\)$",
    )


@pytest.mark.parametrize("wake_at", [math.inf, -math.inf, math.nan])
def test_a_wake_up_that_is_not_finite_is_refused(wake_at: float) -> None:
    view = running((Job(0, 0.0, 1, duration=10.0),), ())
    check(view, Decision(wake_at=5.0))
    refused(
        view, Decision(wake_at=wake_at), rf"^t=0.0: wake_at must be a finite time, got {wake_at}$"
    )
