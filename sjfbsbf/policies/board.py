"""A policy's scratch copy of GPU occupancy while it builds one decision.

Sharing policies place several jobs in one decision; each choice changes which GPUs are idle,
which hold one job, and which running jobs can still host a sharer. The board tracks that
without touching simulator state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sjfbsbf.decision import Start
from sjfbsbf.state import ClusterView


@dataclass
class Board:
    """GPU occupancy as the decision under construction leaves it.

    Attributes
    ----------
    residents
        GPU id -> ids of the jobs on it.
    memory
        GPU id -> memory in use (GB).
    accumulation
        Job id -> accumulation factor, for running and newly started jobs.
    starts
        Starts decided so far.
    """

    view: ClusterView
    residents: list[list[int]] = field(default_factory=list)
    memory: list[float] = field(default_factory=list)
    accumulation: dict[int, int] = field(default_factory=dict)
    placement: dict[int, tuple[int, ...]] = field(default_factory=dict)
    starts: list[Start] = field(default_factory=list)

    @classmethod
    def from_view(cls, view: ClusterView) -> Board:
        """The board of the current state."""
        n = view.cluster.num_gpus
        board = cls(view)
        board.residents = [list(view.gpu_jobs(g)) for g in range(n)]
        board.memory = [view.gpu_memory_used(g) for g in range(n)]
        for job_id in view.running():
            board.accumulation[job_id] = view.accumulation(job_id)
            placement = view.placement(job_id)
            assert placement is not None
            board.placement[job_id] = placement
        return board

    def free_by_node(self) -> list[list[int]]:
        """Idle GPU ids grouped by node."""
        per = self.view.cluster.gpus_per_node
        out: list[list[int]] = [[] for _ in range(self.view.cluster.nodes)]
        for g, r in enumerate(self.residents):
            if not r:
                out[g // per].append(g)
        return out

    def idle(self) -> list[int]:
        """Idle GPU ids, ascending."""
        return [g for g, r in enumerate(self.residents) if not r]

    def room(self, gpu: int) -> float:
        """Free memory on a GPU (GB)."""
        return self.view.cluster.gpu_mem_gb - self.memory[gpu]

    def is_host(self, job_id: int) -> bool:
        """Whether a job runs alone on every one of its GPUs (so it may take one sharer)."""
        return all(len(self.residents[g]) == 1 for g in self.placement[job_id])

    def hosts(self) -> list[int]:
        """Jobs (running or started in this decision) that can still host a sharer, by id."""
        return sorted(j for j in self.placement if self.is_host(j))

    def start(self, job_id: int, gpus: tuple[int, ...], accumulation: int) -> None:
        """Record a start and update occupancy."""
        gpus = tuple(sorted(gpus))
        mem = self.view.memory_gb(job_id, accumulation)
        for g in gpus:
            self.residents[g].append(job_id)
            self.memory[g] += mem
        self.accumulation[job_id] = accumulation
        self.placement[job_id] = gpus
        self.starts.append(Start(job_id, gpus, accumulation))
