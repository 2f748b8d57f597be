"""A policy's scratch copy of GPU occupancy while it builds one decision.

Sharing policies place several jobs in one decision; each choice changes which GPUs are idle,
which hold one job, and which running jobs can still host a sharer. The board tracks that
without touching simulator state, and caches per-host facts for the decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress

import numpy as np

from sjfbsbf.core.interference import ContentionModel, Occupant
from sjfbsbf.policies.placement import place_on_free
from sjfbsbf.sim.decision import Start
from sjfbsbf.sim.view import ClusterView


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

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Room, remaining, sensitivity, pressure and GPU count: what the compiled loops of
        :mod:`sjfbsbf.policies.benefit_kernel` read."""
        return self.room, self.remaining, self.sensitivity, self.pressure, self.gpu_count


class Board:
    """GPU occupancy as the decision under construction leaves it.

    The board reads the simulator's state through the view and keeps only what this decision
    changed (copy on write), so building one costs nothing per GPU or per running job.

    Attributes
    ----------
    starts
        Starts decided so far.
    """

    def __init__(self, view: ClusterView) -> None:
        self.view = view
        self.starts: list[Start] = []
        self._residents: dict[int, list[int]] = {}  # GPUs this decision changed
        self._memory: dict[int, float] = {}
        self._accumulation: dict[int, int] = {}  # started or retuned in this decision
        self._placement: dict[int, tuple[int, ...]] = {}  # started in this decision
        self._free: list[list[int]] | None = None  # idle GPUs per node, once something started
        self._idle_count = view.free_count
        # Host candidates with their facts (None: not computed yet), built when first needed.
        self._hosts: dict[int, HostInfo | None] | None = None
        self._table: HostTable | None = None
        # Hosts lost and new hosts since the table was last brought up to date.
        self._table_lost: list[int] = []
        self._table_added: list[int] = []
        self._free_times: list[float] | None = None
        self._singles: tuple[np.ndarray, np.ndarray] | None = None
        self._idle: list[int] | None = None

    @classmethod
    def from_view(cls, view: ClusterView) -> Board:
        """The board of the current state."""
        return cls(view)

    def idle(self) -> list[int]:
        """Idle GPU ids, ascending (do not modify the list); cached until the board changes."""
        if self._idle is None:
            if self._free is None:
                self._idle = self.view.free_gpus()
            else:
                self._idle = [g for node in self._free for g in node]
        return self._idle

    @property
    def idle_count(self) -> int:
        """Number of idle GPUs."""
        return self._idle_count

    def residents(self, gpu: int) -> list[int]:
        """Ids of the jobs on a GPU (do not modify the list)."""
        found = self._residents.get(gpu)
        return list(self.view.gpu_jobs(gpu)) if found is None else found

    def memory(self, gpu: int) -> float:
        """Memory in use on a GPU (GB)."""
        found = self._memory.get(gpu)
        return self.view.gpu_memory_used(gpu) if found is None else found

    def room(self, gpu: int) -> float:
        """Free memory on a GPU (GB)."""
        return self.view.cluster.gpu_mem_gb - self.memory(gpu)

    def accumulation(self, job_id: int) -> int:
        """Accumulation factor of a running or newly started job, as the board leaves it."""
        found = self._accumulation.get(job_id)
        return self.view.accumulation(job_id) if found is None else found

    def place_alone(self, gpus: int) -> tuple[int, ...] | None:
        """Idle GPUs for a job of ``gpus`` GPUs (:func:`place_on_free`), or ``None`` if too
        few are idle."""
        if self._idle_count < gpus:
            return None
        return place_on_free(
            self._free if self._free is not None else self.view.free_by_node(), gpus
        )

    def placement(self, job_id: int) -> tuple[int, ...]:
        """GPUs of a running or newly started job."""
        found = self._placement.get(job_id)
        if found is None:
            found = self.view.placement(job_id)
            assert found is not None, f"job {job_id} neither runs nor started"
        return found

    def singles(self) -> tuple[np.ndarray, np.ndarray]:
        """GPUs holding exactly one job (ascending) and their free memory (GB), as arrays;
        cached until the board changes."""
        if self._singles is None:
            view = self.view
            gpus = set(view.single_gpus())
            for g, residents in self._residents.items():
                if len(residents) == 1:
                    gpus.add(g)
                else:
                    gpus.discard(g)
            ids = sorted(gpus)
            cap = view.cluster.gpu_mem_gb
            self._singles = (
                np.array(ids, dtype=np.int64),
                np.array([cap - self.memory(g) for g in ids], dtype=float),
            )
        return self._singles

    def occupant(self, job_id: int) -> Occupant:
        """The occupant of a running or newly started job at its accumulation on the board."""
        return self.view.occupant(job_id, self.accumulation(job_id))

    def is_host(self, job_id: int) -> bool:
        """Whether a job runs alone on every one of its GPUs (so it may take one sharer)."""
        return all(len(self.residents(g)) == 1 for g in self.placement(job_id))

    def hosts(self) -> dict[int, HostInfo]:
        """Jobs (running or started in this decision) that can still host a sharer."""
        facts = self._host_facts()
        missing = [j for j, info in facts.items() if info is None]
        # Hosts this decision has not touched (not started or retuned in it; a start on their
        # GPUs would have ended them as hosts) are read from the view's arrays at once.
        untouched = [j for j in missing if j not in self._accumulation]
        if untouched:
            view = self.view
            remaining = view.running_remaining_exclusives(untouched).tolist()
            room = view.least_free_memory(untouched).tolist()
            occupants = view.running_occupants(untouched)
            for k, job_id in enumerate(untouched):
                gpus = view.placement(job_id)
                assert gpus is not None
                facts[job_id] = HostInfo(gpus, room[k], occupants[k], remaining[k])
        for job_id in missing:
            if facts[job_id] is None:
                facts[job_id] = self._host_info(job_id)
        return dict(facts)  # type: ignore[arg-type]

    def _host_info(self, job_id: int) -> HostInfo:
        gpus = self.placement(job_id)
        s = self.accumulation(job_id)
        return HostInfo(
            gpus=gpus,
            room=min(self.room(g) for g in gpus),
            occupant=self.view.occupant(job_id, s),
            remaining=self.view.remaining_exclusive(job_id, s),
        )

    def host_table(self) -> HostTable:
        """:meth:`hosts` as arrays, ordered by host id; brought up to date after starts."""
        if self._table is None:
            hosts = self.hosts()
            ids = sorted(hosts)
            self._table = self._rows(ids, tuple(hosts[h] for h in ids))
            self._table_lost, self._table_added = [], []
        elif self._table_lost or self._table_added:
            self._update_table()
        return self._table

    def _rows(self, ids: list[int], infos: tuple[HostInfo, ...]) -> HostTable:
        model = self.view.interference
        if isinstance(model, ContentionModel):
            sens = [model.sensitivity(i.occupant) for i in infos]
            press = [model.pressure(i.occupant) for i in infos]
        else:
            sens = press = [float("nan")] * len(infos)
        return HostTable(
            ids=np.array(ids, dtype=np.int64),
            infos=infos,
            gpu_count=np.array([len(i.gpus) for i in infos], dtype=np.int64),
            room=np.array([i.room for i in infos], dtype=float),
            remaining=np.array([i.remaining for i in infos], dtype=float),
            sensitivity=np.array(sens, dtype=float),
            pressure=np.array(press, dtype=float),
        )

    def _update_table(self) -> None:
        """Bring the host table up to date with the starts since it was last asked for: rows
        of the hosts lost dropped, rows of the new hosts (jobs started alone that are still
        hosts) inserted. The rows of the other hosts do not change (their GPUs were not
        touched)."""
        table = self._table
        assert table is not None and self._hosts is not None
        lost, added = self._table_lost, self._table_added
        self._table_lost, self._table_added = [], []
        new = set(added)
        lost = [h for h in lost if h not in new]  # rows of the table
        if lost:
            keep = np.ones(len(table.ids), dtype=bool)
            keep[np.searchsorted(table.ids, lost)] = False
            table = HostTable(
                ids=table.ids[keep],
                infos=tuple(compress(table.infos, keep.tolist())),
                gpu_count=table.gpu_count[keep],
                room=table.room[keep],
                remaining=table.remaining[keep],
                sensitivity=table.sensitivity[keep],
                pressure=table.pressure[keep],
            )
        added = sorted(h for h in added if h in self._hosts)
        if added:
            infos = [self._host_info(h) for h in added]
            for h, info in zip(added, infos, strict=True):
                self._hosts[h] = info
            rows = self._rows(added, tuple(infos))
            at = np.searchsorted(table.ids, added)
            merged = list(table.infos)
            for offset, (where, info) in enumerate(zip(at.tolist(), infos, strict=True)):
                merged.insert(where + offset, info)
            table = HostTable(
                ids=np.insert(table.ids, at, rows.ids),
                infos=tuple(merged),
                gpu_count=np.insert(table.gpu_count, at, rows.gpu_count),
                room=np.insert(table.room, at, rows.room),
                remaining=np.insert(table.remaining, at, rows.remaining),
                sensitivity=np.insert(table.sensitivity, at, rows.sensitivity),
                pressure=np.insert(table.pressure, at, rows.pressure),
            )
        self._table = table

    def free_times(self) -> list[float]:
        """When each GPU frees up (s from now), ascending; cached until the board changes.

        A GPU frees when the last of its jobs ends: running jobs at their current rates
        (predicted finish), jobs started in this decision after their exclusive time.
        """
        if self._free_times is None:
            view = self.view
            now = view.time
            ends = [0.0] * view.cluster.num_gpus  # idle GPUs free now
            for job_id in view.running():
                end = max(0.0, view.predicted_finish(job_id) - now)
                for g in self.placement(job_id):
                    ends[g] = max(ends[g], end)
            for start in self.starts:
                end = view.remaining_exclusive(start.job_id, start.accumulation)
                for g in start.gpus:
                    ends[g] = max(ends[g], end)
            self._free_times = sorted(ends)
        return self._free_times

    def start(self, job_id: int, gpus: tuple[int, ...], accumulation: int) -> None:
        """Record a start and update occupancy and host candidates."""
        self._free_times = None
        self._singles = None
        self._idle = None
        gpus = tuple(sorted(gpus))
        mem = self.view.memory_gb(job_id, accumulation)
        if self._free is None:
            self._free = self.view.free_by_node()
        per = self.view.cluster.gpus_per_node
        lost: list[int] = []
        for g in gpus:
            residents = self.residents(g)
            if self._hosts is not None:
                for other in residents:  # a sharer joins them: they can host no more
                    if other in self._hosts:
                        del self._hosts[other]
                        lost.append(other)
            if not residents:
                self._free[g // per].remove(g)
                self._idle_count -= 1
            self._residents[g] = [*residents, job_id]
            self._memory[g] = self.memory(g) + mem
        self._accumulation[job_id] = accumulation
        self._placement[job_id] = gpus
        self.starts.append(Start(job_id, gpus, accumulation))
        if self._hosts is not None and self.is_host(job_id):
            self._hosts[job_id] = None
            self._table_added.append(job_id)
        self._table_lost.extend(lost)

    def retune(self, job_id: int, accumulation: int) -> None:
        """Record that a running job changes its accumulation factor."""
        self._table = None  # rebuilt from the host facts when next asked
        self._free_times = None
        self._singles = None
        delta = self.view.memory_gb(job_id, accumulation) - self.view.memory_gb(
            job_id, self.accumulation(job_id)
        )
        for g in self.placement(job_id):
            self._memory[g] = self.memory(g) + delta
        self._accumulation[job_id] = accumulation
        if self._hosts is not None and job_id in self._hosts:
            self._hosts[job_id] = None

    def _host_facts(self) -> dict[int, HostInfo | None]:
        """The host candidates, in the order they became hosts: the view's hosts, then the jobs
        started in this decision, less those on a GPU this decision has shared."""
        if self._hosts is None:
            shared = {j for r in self._residents.values() if len(r) > 1 for j in r}
            candidates = [*self.view.hosts(), *(start.job_id for start in self.starts)]
            self._hosts = {j: None for j in candidates if j not in shared}
        return self._hosts
