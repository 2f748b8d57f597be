"""What the view hands out for speed equals the slow way of computing it (docs/model.md §4).

The state updates idle GPUs per node, GPUs holding one job and the jobs alone on all their GPUs
at each placement and removal, and the view hands them out. At every decision of random runs
(every registered policy: exclusive, sharing and preemptive ones, so jobs start, share, finish
and are preempted) a wrapper policy recomputes each from ``view.gpu_jobs`` and compares. The
per-job arrays (``exclusive_durations``, ``attained_services``, ``remaining_exclusives``, ...)
must equal the one-job methods to the last bit, since policies rank by them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from test_properties import POLICIES, PROPERTY_SETTINGS, instances

from sjfbsbf.core.model import Instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


class Rescanning:
    """Wraps a policy; before each decision, checks the view's occupancy against a rescan."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.preemptive = inner.preemptive
        self.sharing = inner.sharing
        self.checked = 0
        self.clairvoyant = True  # to list every job of the instance (view.world)

    def decide(self, view: ClusterView) -> Decision:
        cluster = view.cluster
        residents = [view.gpu_jobs(g) for g in range(cluster.num_gpus)]
        idle = [g for g, r in enumerate(residents) if not r]
        per = cluster.gpus_per_node
        assert view.free_gpus() == idle
        assert view.free_count == len(idle)
        assert view.free_by_node() == [
            [g for g in idle if g // per == n] for n in range(cluster.nodes)
        ]
        assert view.single_gpus() == [g for g, r in enumerate(residents) if len(r) == 1]
        running = view.running()
        alone = []
        for j in running:
            placement = view.placement(j)
            assert placement is not None
            if all(residents[g] == (j,) for g in placement):
                alone.append(j)
        assert view.hosts() == alone
        pending = set(view.pending())
        assert view.world is not None
        for job in view.world.instance.jobs:
            assert view.is_pending(job.id) == (job.id in pending)
            assert view.is_running(job.id) == (job.id in running)
        assert not view.is_pending(-1) and not view.is_running(-1)
        # The per-job arrays are the one-job methods' floats, exactly.
        jobs = running + view.pending()
        expected = {
            "exclusive_durations": [view.exclusive_duration(j) for j in jobs],
            "gpu_counts": [view.job(j).gpus for j in jobs],
            "arrivals": [view.job(j).arrival for j in jobs],
            "attained_services": [view.attained_service(j) for j in jobs],
            "remaining_exclusives": [
                view.remaining_exclusive(j, 1, fewest_nodes=True) for j in jobs
            ],
            "running_mask": [view.is_running(j) for j in jobs],
        }
        for name, values in expected.items():
            assert getattr(view, name)(jobs).tolist() == values, name
        # What a sharing policy weighs a host by: each running job now (relabelled too).
        cap = cluster.gpu_mem_gb
        assert view.running_remaining_exclusives(running).tolist() == [
            view.remaining_exclusive(j) for j in running
        ]
        assert view.least_free_memory(running).tolist() == [
            min(cap - view.gpu_memory_used(g) for g in view.placement(j) or ()) for j in running
        ]
        assert view.running_occupants(running) == [
            view.occupant(j, view.accumulation(j)) for j in running
        ]
        # The lists handed out are fresh: changing them changes nothing.
        view.free_by_node()[0].clear()
        view.free_gpus().clear()
        assert view.free_gpus() == idle
        self.checked += 1
        return self.inner.decide(view)

    def stats(self) -> dict[str, Any]:
        return self.inner.stats()


@PROPERTY_SETTINGS
@given(
    inst=instances(),
    policy=st.sampled_from(POLICIES),
    overhead=st.sampled_from([0.0, 7.0, 30.0]),
    relabel=st.booleans(),
)
def test_what_the_view_hands_out_equals_the_slow_way(
    inst: Any, policy: str, overhead: float, relabel: bool
) -> None:
    """``relabel``: ids in reverse order and not 0..n-1, so the view maps ids to its indices."""
    if relabel:
        n = inst.num_jobs
        jobs = tuple(replace(j, id=3 * (n - j.id) + 5) for j in inst.jobs)
        inst = Instance(inst.cluster, jobs)
    wrapper = Rescanning(make_policy(policy))
    simulate(inst, wrapper, restart_overhead=overhead)
    assert wrapper.checked > 0
