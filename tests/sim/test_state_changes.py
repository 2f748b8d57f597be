"""The simulator state's bookkeeping, by hand (docs/model.md §4): what a job leaves behind when it
stops running, a retune beside a partner, progress segments at a resume, and the per-job table's
types.

Duration-only jobs use the generic profile (tests/sim/hand_cases.py); the retune case uses vgg16
at its full batch of 16 and the default contention model (time slicing, κ = 1.5, ε = 0.05).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from hand_cases import REL, one_gpu_cluster, row

from sjfbsbf.core.catalog import get_catalog
from sjfbsbf.core.interference import occupant
from sjfbsbf.core.model import Instance, Job
from sjfbsbf.core.perf import step_time
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


class Watching:
    """srtf, recording at every decision each job's placement and whether it runs."""

    name = "test-watching-srtf"
    preemptive = True
    sharing = False
    clairvoyant = True  # it lists every job of the instance (view.world)

    def __init__(self) -> None:
        self.inner = make_policy("srtf")
        self.seen: list[tuple[float, int, tuple[int, ...] | None, bool]] = []

    def decide(self, view: ClusterView) -> Decision:
        world = view.world
        assert world is not None
        for j in (job.id for job in world.instance.jobs):
            self.seen.append((world.time, j, world.placement(j), world.is_running(j)))
        return self.inner.decide(view)

    def stats(self) -> dict[str, Any]:
        return {}


def preempted_at_its_resume() -> Instance:
    """1 GPU. Job 0 (1000 s) at 0, job 1 (100 s) at 10, job 2 (20 s) at 140 (whole seconds)."""
    jobs = (Job(0, 0, 1, duration=1000), Job(1, 10, 1, duration=100), Job(2, 140, 1, duration=20))
    return Instance(one_gpu_cluster(), jobs)


def test_a_job_preempted_exactly_when_its_overhead_ends_is_charged_no_progress() -> None:
    """srtf, restart overhead 30 s, dt 1 s. At 10 job 1 (100 s) preempts job 0 (990 s left) and
    runs 10 → 110. Job 0 resumes at 110 and sits in its overhead until 140, when job 2 (20 s)
    arrives and preempts it again, at the very tick its progress would have restarted: it made
    none since 10. Job 2 runs 140 → 160; job 0 resumes at 160, works from 190 and needs its
    990 s: finish 1180, two preemptions. Its progress segments are 0 → 10 and 190 → 1180; none is
    empty (the resume at 140 is not a segment of zero length)."""
    res = simulate(preempted_at_its_resume(), make_policy("srtf"), restart_overhead=30.0)
    assert [(row(res, j).start, row(res, j).finish) for j in (1, 2)] == [
        (10.0, 110.0),
        (140.0, 160.0),
    ]
    assert row(res, 0).finish == pytest.approx(1180.0, rel=REL)
    assert list(res.jobs.preemptions) == [2, 0, 0]
    assert res.segments is not None
    mine = res.segments[res.segments.job_id == 0]
    assert [(float(a), float(b)) for a, b in zip(mine.start, mine.end, strict=True)] == [
        (0.0, 10.0),
        (190.0, pytest.approx(1180.0, rel=REL)),
    ]
    assert (res.segments.end > res.segments.start).all()


def test_a_job_that_is_not_running_has_no_placement() -> None:
    """At every decision of the run above, a job holds GPUs (``placement`` is a tuple) exactly
    while it runs: before it arrives, while it waits after a preemption and after it finished,
    ``placement`` is ``None``."""
    policy = Watching()
    simulate(preempted_at_its_resume(), policy, restart_overhead=30.0)
    assert {(t, j) for t, j, _, _ in policy.seen} >= {(140.0, 0), (140.0, 1), (160.0, 0)}
    for t, j, placement, running in policy.seen:
        assert (placement is not None) == running, (t, j, placement)
        assert placement is None or placement == (0,)


class RetuneBesidePartner:
    """Start jobs 0 and 1 together on GPU 0 at s = 1; at ``at`` retune job 0 to s = 2."""

    name = "test-retune-beside-partner"
    preemptive = False
    sharing = True

    def __init__(self, at: float) -> None:
        self.at = at

    def decide(self, view: ClusterView) -> Decision:
        if view.time == 0.0:
            return Decision((Start(0, (0,), 1), Start(1, (0,), 1)), wake_at=self.at)
        if view.time == self.at:
            return Decision(retunes=((0, 2),))
        return Decision()

    def stats(self) -> dict[str, Any]:
        return {}


def test_a_retune_changes_the_pace_of_the_partner_on_its_gpus() -> None:
    """vgg16 jobs 0 (20,000 iterations) and 1 (500 iterations) share GPU 0 (12 GB) from 0. At
    100 s job 0 retunes to s = 2 (micro-batch 8): its utilisation, so the pressure it puts on
    job 1, drops, and job 1 speeds up from that moment. With job 1's solo step τ₁ and its
    slowdowns ξ = (1 + ε)(1 + κ · u₁ · u₀) beside job 0 at s = 1 and at s = 2: job 1 does
    100 / (τ₁ ξ₁) steps by 100 s, and finishes at 100 + (500 − that) · τ₁ ξ₂ (job 0, 20,000
    iterations at a slower pace, is still running then)."""
    catalog = get_catalog("default")
    profile = catalog["vgg16"]
    jobs = (Job(0, 0.0, 1, "vgg16", 16, 20_000), Job(1, 0.0, 1, "vgg16", 16, 500))
    inst = Instance(one_gpu_cluster(), jobs)
    res = simulate(inst, RetuneBesidePartner(100.0))
    model = time_slicing()
    tau_1 = step_time(jobs[1], profile, 1, False, inst.cluster)
    occ_1 = occupant(jobs[1], profile, 1)
    xi_before = model.slowdown(occ_1, occupant(jobs[0], profile, 1))
    xi_after = model.slowdown(occ_1, occupant(jobs[0], profile, 2))
    assert xi_after < xi_before
    done = 100.0 / (tau_1 * xi_before)
    assert done < 500
    assert row(res, 1).finish == pytest.approx(100.0 + (500 - done) * tau_1 * xi_after, rel=REL)
    assert row(res, 1).finish < row(res, 0).finish
    assert (row(res, 0).accumulation, row(res, 1).accumulation) == (2, 1)


def test_the_per_job_table_has_its_documented_types() -> None:
    """Whole-number arrivals and durations (Python ints) still give float times, and counts
    stay integers: the table's types do not depend on how the instance was written
    (docs/model.md §4, per-job table)."""
    res = simulate(preempted_at_its_resume(), make_policy("srtf"), restart_overhead=30.0)
    jobs = res.jobs
    # model, partners, vc and user are text (object in pandas 2, str in pandas 3)
    texts = ["model", "partners", "vc", "user"]
    assert all(pd.api.types.is_string_dtype(jobs[name]) for name in texts)
    types = {name: str(kind) for name, kind in jobs.drop(columns=texts).dtypes.items()}
    floats = (
        "arrival",
        "start",
        "finish",
        "jct",
        "queueing_delay",
        "exclusive_s",
        "shared_s",
        "stretch",
        "contention",
        "ftf",
    )
    assert types == {
        "job_id": "int64",
        **{name: "float64" for name in floats},
        "gpus": "int64",
        "sub_batch": "Int64",
        "accumulation": "int64",
        "preemptions": "int64",
    }
