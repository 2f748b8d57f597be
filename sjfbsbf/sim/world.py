"""The world view: the simulator's truth, read by the simulator itself, the feasibility checker
and clairvoyant replays (docs/model.md §4).

:class:`WorldView` adds to the observable facts of :class:`~sjfbsbf.sim.occupancy.StateReader`
what no real scheduler knows: the instance (every job, arrived or not, with its length), true
exclusive and remaining times, the true slowdowns and the interference model the simulator
applies. Policies get the belief view (:class:`~sjfbsbf.sim.view.ClusterView`) instead, except
a policy that declares itself ``clairvoyant`` (``planned``, a replay of a solver's schedule).
"""

from __future__ import annotations

import numpy as np

from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance, Job
from sjfbsbf.core.perf import step_time as solo_step_time
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.occupancy import JobIds, StateReader
from sjfbsbf.sim.state import PENDING, RUNNING, SimState

__all__ = ["JobIds", "WorldView"]


class WorldView(StateReader):
    """Read-only view of the simulator state with the truth: true lengths and interference.

    Job ids (not internal indices) are used throughout. The view reads the live state; it has no
    mutators, and arrays it hands out are read-only copies or views.
    """

    def __init__(self, state: SimState, time: float = 0.0) -> None:
        super().__init__(state, time)
        self._fewest_step: np.ndarray | None = None  # solo step at s = 1 on the fewest nodes

    @property
    def epoch(self) -> int:
        """State version: equal at two decisions iff no job arrived, finished, started, stopped or
        changed its accumulation in between (only time moved)."""
        return self._s.epoch

    @property
    def instance(self) -> Instance:
        """The instance being simulated (every job, arrived or not)."""
        return self._s.instance

    @property
    def interference(self) -> Interference:
        """The interference model the simulator applies."""
        return self._s.interference

    def job(self, job_id: int) -> Job:
        """The job with id ``job_id`` (its full record, length included)."""
        return self._s.instance.jobs[self._s.index[job_id]]

    def profile(self, job_id: int) -> ModelProfile:
        """Performance profile of a job (the generic one for duration-only jobs)."""
        return self._s.profiles[self._s.index[job_id]]

    def exclusive_duration(self, job_id: int) -> float:
        """Exclusive duration of the whole job at the full batch on the fewest nodes (s)."""
        return float(self._s.exclusive[self._i(job_id)])

    def remaining_work_share(self, job_id: int) -> float:
        """Share of the job's work still to do, in [0, 1]."""
        i = self._i(job_id)
        return 1.0 - self._s.progress_at(i, self._time) / float(self._s.work[i])

    def remaining_exclusive(
        self, job_id: int, accumulation: int | None = None, *, fewest_nodes: bool = False
    ) -> float:
        """Exclusive time (s) to finish the job alone, plus the restart overhead it still owes.

        At ``accumulation`` (default: the current one if running, else 1), on its current
        placement if running, else (or with ``fewest_nodes``) on the fewest nodes. The overhead
        is what is left of it for a running job, the full :attr:`restart_overhead` for a
        preempted pending job, none for a finished one; preemptive policies rank by this with
        ``fewest_nodes`` (§5).
        """
        s = self._s
        i = self._i(job_id)
        job = s.instance.jobs[i]
        remaining = s.work[i] - s.progress_at(i, self._time)
        if accumulation is None:
            accumulation = int(s.accumulation[i]) if s.status[i] == RUNNING else 1
        placement = None if fewest_nodes else s.placement[i]
        spans = job.gpus > s.cluster.gpus_per_node
        if placement is not None:
            spans = s.cluster.spans_nodes(placement)
        step = solo_step_time(job, s.profiles[i], accumulation, spans, s.cluster)
        if s.status[i] == RUNNING:
            restart = max(0.0, s.resume_at[i] - self._time)
        elif s.status[i] == PENDING and s.preemptions[i] > 0:
            restart = s.restart_overhead
        else:
            restart = 0.0
        return float(remaining * step + restart)

    def slowdown(self, job_id: int) -> float:
        """Current slowdown of a running job (1 when alone)."""
        return float(self._s.xi[self._i(job_id)])

    def predicted_finish(self, job_id: int) -> float:
        """Finish time of a running job if nothing changes."""
        return self._s.predicted_finish(self._i(job_id))

    def step_time(self, job_id: int, accumulation: int, spans_nodes: bool) -> float:
        """Solo time of one unit of work of a job (s; a duration-only job's unit is all of it)."""
        i = self._i(job_id)
        return solo_step_time(
            self._s.instance.jobs[i], self._s.profiles[i], accumulation, spans_nodes, self.cluster
        )

    # -- many jobs at once (numpy; equal to the one-job methods) --------------------------------
    def exclusive_durations(self, job_ids: JobIds) -> np.ndarray:
        """:meth:`exclusive_duration` of each job, as an array."""
        return self._s.exclusive[self._indices(job_ids)]

    def exclusive_durations_at(self, indices: np.ndarray) -> np.ndarray:
        """:meth:`exclusive_durations` of the jobs at these internal indices."""
        return self._s.exclusive[indices]

    def progress_now(self, indices: np.ndarray) -> np.ndarray:
        """Work done (world units: steps; a duration-only job's one step) by the jobs of the
        internal ``indices`` at the view's time, as an array."""
        s = self._s
        t = self._time
        running = s.status[indices] == RUNNING
        done = s.done[indices]
        start = np.maximum(s.last[indices], s.resume_at[indices])
        moving = done + (t - start) / (s.step[indices] * s.xi[indices])  # NaN: never ran
        return np.where(running & (t > start), moving, done)

    def owed_overheads(self, indices: np.ndarray) -> np.ndarray:
        """Restart overhead still owed by the jobs of the internal ``indices`` (s), as in
        :meth:`remaining_exclusive`."""
        s = self._s
        running = s.status[indices] == RUNNING
        waiting = (s.status[indices] == PENDING) & (s.preemptions[indices] > 0)
        return np.where(
            running,
            np.maximum(0.0, s.resume_at[indices] - self._time),
            np.where(waiting, s.restart_overhead, 0.0),
        )

    def remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j, 1, fewest_nodes=True)`` of each job, as an array (the same
        floats): what preemptive policies rank by (docs/model.md §5)."""
        return self.remaining_exclusives_at(self._indices(job_ids))

    def remaining_exclusives_at(self, i: np.ndarray) -> np.ndarray:
        """:meth:`remaining_exclusives` of the jobs at these internal indices."""
        remaining = self._s.work[i] - self.progress_now(i)
        return remaining * self.fewest_steps()[i] + self.owed_overheads(i)

    def running_remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j)`` of each running job (its accumulation and placement now),
        as an array (the same floats): what SJF-BSBF weighs a host by (docs/model.md §6)."""
        return self.running_remaining_exclusives_at(self._indices(job_ids))

    def running_remaining_exclusives_at(self, i: np.ndarray) -> np.ndarray:
        """:meth:`running_remaining_exclusives` of the jobs at these internal indices."""
        s = self._s
        assert np.all(s.status[i] == RUNNING), "running jobs only"
        t = self._time
        done = s.done[i]
        start = np.maximum(s.last[i], s.resume_at[i])
        step = s.step[i]
        progress = np.where(t > start, done + (t - start) / (step * s.xi[i]), done)
        return (s.work[i] - progress) * step + np.maximum(0.0, s.resume_at[i] - t)

    def fewest_steps(self) -> np.ndarray:
        """Solo step time of every job at s = 1 on the fewest nodes, by internal index
        (computed once)."""
        if self._fewest_step is None:
            s = self._s
            per = s.cluster.gpus_per_node
            self._fewest_step = np.array(
                [
                    solo_step_time(job, profile, 1, job.gpus > per, s.cluster)
                    for job, profile in zip(s.instance.jobs, s.profiles, strict=True)
                ],
                dtype=float,
            )
        return self._fewest_step
