"""A policy that both preempts and shares (gandiva is the first): the checker accepts unpacking
one job of a shared GPU and packing another there in the same decision, and refuses a third job
on the GPU, preemption by a sharing policy that is not preemptive and sharing by a preemptive
policy that does not share (docs/model.md §4: preemptions are applied before starts)."""

from __future__ import annotations

from typing import Any

import pytest

from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView

ONE_GPU = Cluster(nodes=1, gpus_per_node=1)
#: Duration-only jobs hold the generic 4.8 GB: two fit on a 12 GB GPU.
JOBS = tuple(Job(i, 0.0, 1, duration=100.0) for i in range(4))


class Packer:
    """Packs 0 and 1 on GPU 0 at t = 0; at its next decision (the interval boundary at 60 s, jobs
    wait) unpacks 1 and packs 2 (and 3 with ``third``); afterwards packs whatever waits, two per
    GPU."""

    name = "test-packer"

    def __init__(self, *, preemptive: bool, sharing: bool, third: bool = False) -> None:
        self.preemptive = preemptive
        self.sharing = sharing
        self.third = third
        self.swapped = False

    def decide(self, view: ClusterView) -> Decision:
        if view.time > 0 and not self.swapped:
            self.swapped = True
            starts = [Start(2, (0,))] + ([Start(3, (0,))] if self.third else [])
            return Decision(tuple(starts), preempts=(1,))
        room = 2 - len(view.gpu_jobs(0))
        waiting = [j for j in view.pending() if j != 3 or self.swapped]
        return Decision(tuple(Start(j, (0,)) for j in waiting[:room]))

    def stats(self) -> dict[str, Any]:
        return {}


def test_unpacking_and_packing_on_one_gpu_in_one_decision_is_accepted() -> None:
    result = simulate(Instance(ONE_GPU, JOBS), Packer(preemptive=True, sharing=True))
    table = result.jobs.set_index("job_id")
    assert table.loc[1, "preemptions"] == 1
    assert table.loc[2, "start"] == 60.0
    assert "0" in table.loc[2, "partners"].split(";")


def test_a_third_job_on_the_gpu_is_refused() -> None:
    with pytest.raises(
        FeasibilityError, match=r"GPU 0 would hold more than two jobs \(\[0, 2\] \+ 3\)"
    ):
        simulate(Instance(ONE_GPU, JOBS), Packer(preemptive=True, sharing=True, third=True))


def test_a_sharing_policy_that_is_not_preemptive_may_not_unpack() -> None:
    with pytest.raises(FeasibilityError, match="preempt"):
        simulate(Instance(ONE_GPU, JOBS), Packer(preemptive=False, sharing=True))


def test_a_preemptive_policy_that_does_not_share_may_not_pack() -> None:
    with pytest.raises(FeasibilityError, match="exclusive policy puts job"):
        simulate(Instance(ONE_GPU, JOBS), Packer(preemptive=True, sharing=False))
