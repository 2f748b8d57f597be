"""Constants and helpers of the hand-computed simulator cases (docs/model.md §2–§5).

Every expected number below is derived in the test's docstring from the model formulas, not
copied from a run. Shared constants:

* Duration-only jobs use the generic profile: u_max = median of the eight catalog u_max values
  (0.3, 0.3, 0.55, 0.85, 0.95, 1.0, 1.0, 1.0) = (0.85 + 0.95) / 2 = 0.9; at the full batch
  sens = press = 0.8 · u_max = 0.72; memory = median of the listed memories
  (2.094, 2.230, 4.224, 4.304, 5.252, 6.432, 8.058, 10.532 GB) = (4.304 + 5.252) / 2 = 4.778 GB.
* Default contention (time slicing): κ = 1.5, ε = 0.05, so two duration-only jobs on one GPU
  slow each other by ξ = 1.05 · (1 + 1.5 · 0.72 · 0.72) = 1.05 · 1.7776 = 1.86648.
"""

from __future__ import annotations

from typing import Any

from sjfbsbf.core.model import Cluster
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.view import ClusterView

REL = 1e-12
U_GENERIC = 0.8 * 0.9
XI_GENERIC = 1.05 * (1.0 + 1.5 * U_GENERIC * U_GENERIC)
MEM_GENERIC = (4.304 + 5.252) / 2


class PlannedSharing:
    """Test-only sharing policy: start each job, once pending, on fixed GPUs.

    ``plan`` maps job id -> (GPU ids, accumulation). A job starts at the first decision where it
    is pending; nothing else is ever decided. Non-preemptive, sharing allowed.
    """

    name = "test-planned-sharing"
    preemptive = False
    sharing = True

    def __init__(self, plan: dict[int, tuple[tuple[int, ...], int]]) -> None:
        self.plan = plan

    def decide(self, view: ClusterView) -> Decision:
        starts = [
            Start(j, self.plan[j][0], self.plan[j][1]) for j in view.pending() if j in self.plan
        ]
        return Decision(tuple(starts))

    def stats(self) -> dict[str, Any]:
        return {}


def row(result: SimResult, job_id: int) -> Any:
    """The per-job row of ``job_id``."""
    jobs = result.jobs.set_index("job_id")
    return jobs.loc[job_id]


def one_gpu_cluster(mem: float = 12.0) -> Cluster:
    return Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=mem)
