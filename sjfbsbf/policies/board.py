"""A policy's scratch copy of GPU occupancy while it builds one decision.

Sharing policies place several jobs in one decision; each choice changes which GPUs are idle,
which hold one job, and which running jobs can still host a sharer. The board tracks that
without touching simulator state, and caches per-host facts for the decision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sjfbsbf.core.interference import ContentionModel, Occupant
from sjfbsbf.sim.decision import Start
from sjfbsbf.sim.state import ClusterView


@dataclass(frozen=True, slots=True)
class HostInfo:
    """What a pending job needs to know about one host candidate.

    Attributes
    ----------
    gpus
        The host's GPUs (each holds only the host).
    room
        Smallest free memory over those GPUs (GB).
    occupant
        The host's occupant at its accumulation.
    remaining
        The host's exclusive remaining time at its accumulation (s).
    """

    gpus: tuple[int, ...]
    room: float
    occupant: Occupant
    remaining: float


@dataclass(frozen=True, slots=True)
class HostTable:
    """The host candidates of :meth:`Board.hosts` as parallel arrays (for vectorised estimates).

    ``sensitivity`` and ``pressure`` are the hosts' values under the simulator's interference
    model when it is a :class:`~sjfbsbf.core.interference.ContentionModel` (read through
    :meth:`~sjfbsbf.core.interference.ContentionModel.sensitivity` and ``pressure``), NaN otherwise.
    """

    ids: np.ndarray
    infos: tuple[HostInfo, ...]
    gpu_count: np.ndarray
    room: np.ndarray
    remaining: np.ndarray
    sensitivity: np.ndarray
    pressure: np.ndarray


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
    placement
        Job id -> GPUs, for running and newly started jobs.
    starts
        Starts decided so far.
    """

    def __init__(self, view: ClusterView) -> None:
        self.view = view
        self.residents = view.residents()
        self.memory = view.memory_by_gpu()
        self.accumulation: dict[int, int] = {}
        self.placement: dict[int, tuple[int, ...]] = {}
        self.starts: list[Start] = []
        self._idle = {g for g, r in enumerate(self.residents) if not r}
        self._hosts: dict[int, HostInfo | None] = {}
        self._table: HostTable | None = None
        self._free_times: list[float] | None = None
        for job_id in view.running():
            placement = view.placement(job_id)
            assert placement is not None
            self.accumulation[job_id] = view.accumulation(job_id)
            self.placement[job_id] = placement
            if self.is_host(job_id):
                self._hosts[job_id] = None

    @classmethod
    def from_view(cls, view: ClusterView) -> Board:
        """The board of the current state."""
        return cls(view)

    def free_by_node(self) -> list[list[int]]:
        """Idle GPU ids grouped by node (ascending within a node)."""
        per = self.view.cluster.gpus_per_node
        out: list[list[int]] = [[] for _ in range(self.view.cluster.nodes)]
        for g in sorted(self._idle):
            out[g // per].append(g)
        return out

    def idle(self) -> list[int]:
        """Idle GPU ids, ascending."""
        return sorted(self._idle)

    @property
    def idle_count(self) -> int:
        """Number of idle GPUs."""
        return len(self._idle)

    def room(self, gpu: int) -> float:
        """Free memory on a GPU (GB)."""
        return self.view.cluster.gpu_mem_gb - self.memory[gpu]

    def occupant(self, job_id: int) -> Occupant:
        """The occupant of a running or newly started job at its accumulation on the board."""
        return self.view.occupant(job_id, self.accumulation[job_id])

    def is_host(self, job_id: int) -> bool:
        """Whether a job runs alone on every one of its GPUs (so it may take one sharer)."""
        return all(len(self.residents[g]) == 1 for g in self.placement[job_id])

    def hosts(self) -> dict[int, HostInfo]:
        """Jobs (running or started in this decision) that can still host a sharer."""
        view = self.view
        out: dict[int, HostInfo] = {}
        for job_id, info in self._hosts.items():
            if info is None:
                gpus = self.placement[job_id]
                s = self.accumulation[job_id]
                info = HostInfo(
                    gpus=gpus,
                    room=min(self.room(g) for g in gpus),
                    occupant=view.occupant(job_id, s),
                    remaining=view.remaining_exclusive(job_id, s),
                )
                self._hosts[job_id] = info
            out[job_id] = info
        return out

    def host_table(self) -> HostTable:
        """:meth:`hosts` as arrays, ordered by host id; cached until the board changes."""
        if self._table is None:
            hosts = self.hosts()
            ids = sorted(hosts)
            infos = tuple(hosts[h] for h in ids)
            model = self.view.interference
            if isinstance(model, ContentionModel):
                sens = [model.sensitivity(i.occupant) for i in infos]
                press = [model.pressure(i.occupant) for i in infos]
            else:
                sens = press = [float("nan")] * len(infos)
            self._table = HostTable(
                ids=np.array(ids, dtype=np.int64),
                infos=infos,
                gpu_count=np.array([len(i.gpus) for i in infos], dtype=np.int64),
                room=np.array([i.room for i in infos], dtype=float),
                remaining=np.array([i.remaining for i in infos], dtype=float),
                sensitivity=np.array(sens, dtype=float),
                pressure=np.array(press, dtype=float),
            )
        return self._table

    def free_times(self) -> list[float]:
        """When each GPU frees up (s from now), ascending; cached until the board changes.

        A GPU frees when the last of its jobs ends: running jobs at their current rates
        (predicted finish), jobs started in this decision after their exclusive time.
        """
        if self._free_times is None:
            view = self.view
            ends: dict[int, float] = {}
            for job_id in self.placement:
                if view.placement(job_id) is not None:
                    ends[job_id] = max(0.0, view.predicted_finish(job_id) - view.time)
                else:  # started in this decision
                    ends[job_id] = view.remaining_exclusive(job_id, self.accumulation[job_id])
            self._free_times = sorted(
                max((ends[j] for j in residents), default=0.0) for residents in self.residents
            )
        return self._free_times

    def start(self, job_id: int, gpus: tuple[int, ...], accumulation: int) -> None:
        """Record a start and update occupancy and host candidates."""
        self._table = None
        self._free_times = None
        gpus = tuple(sorted(gpus))
        mem = self.view.memory_gb(job_id, accumulation)
        for g in gpus:
            for other in self.residents[g]:
                self._hosts.pop(other, None)
            self.residents[g].append(job_id)
            self.memory[g] += mem
            self._idle.discard(g)
        self.accumulation[job_id] = accumulation
        self.placement[job_id] = gpus
        self.starts.append(Start(job_id, gpus, accumulation))
        if self.is_host(job_id):
            self._hosts[job_id] = None

    def retune(self, job_id: int, accumulation: int) -> None:
        """Record that a running job changes its accumulation factor."""
        self._table = None
        self._free_times = None
        delta = self.view.memory_gb(job_id, accumulation) - self.view.memory_gb(
            job_id, self.accumulation[job_id]
        )
        for g in self.placement[job_id]:
            self.memory[g] += delta
        self.accumulation[job_id] = accumulation
        if job_id in self._hosts:
            self._hosts[job_id] = None
