"""The policies' view: what a real scheduler could know at time t (docs/model.md §4.1).

A policy sees arrived jobs only (their GPUs, model and batch, VC, user and estimate: a
:class:`JobInfo`, never the length), observed progress, what runs where, and *beliefs*: a
duration estimator and an interference belief (:class:`~sjfbsbf.sim.beliefs.Beliefs`). Every
believed time is (W'_j − progress) × the job's true step time at that accumulation and placement
(step times are observable by profiling a few iterations; the number of iterations is not), with
W'_j the believed work after the overrun rule. Under ``oracle`` the estimate methods call the
world's (:class:`~sjfbsbf.sim.world.WorldView`), so every number is the same float as before.

Units of work on this view: iterations for a catalog job, exclusive-equivalent seconds for a
duration-only job (its step time here is 1 s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Interference, Occupant, sharing_rule
from sjfbsbf.core.perf import step_time as solo_step_time
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.beliefs import ORACLE, Beliefs, believed_interference
from sjfbsbf.sim.estimators import DurationEstimator, make_estimator
from sjfbsbf.sim.occupancy import JobIds, StateReader
from sjfbsbf.sim.state import FUTURE, RUNNING, SimState
from sjfbsbf.sim.world import WorldView

__all__ = ["OVERRUN_FACTOR", "ClusterView", "JobIds", "JobInfo", "overrun"]

#: A job whose progress reaches its believed work W' is believed to need f·W' (again and again).
OVERRUN_FACTOR = 2.0
#: Rounds of the float fix-up of :func:`overrun` (one suffices; more means a bug).
_OVERRUN_ROUNDS = 8


@dataclass(frozen=True, slots=True)
class JobInfo:
    """What a scheduler knows of an arrived job: its request, not its length.

    Attributes
    ----------
    id, arrival, gpus
        Id, submission time (s) and GPU count G.
    model, batch
        Catalog model and per-GPU batch B (``None`` for a duration-only job).
    estimate
        The user's estimate of its exclusive run time (s), if the instance gives one.
    vc, user
        Virtual cluster and user, if the instance gives them.
    """

    id: int
    arrival: float
    gpus: int
    model: str | None
    batch: int | None
    estimate: float | None
    vc: str | None
    user: str | None

    @property
    def is_duration_only(self) -> bool:
        """Whether the job has no catalog model (only a length, which is not shown)."""
        return self.model is None


def overrun(work: np.ndarray, progress: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The overrun rule: believed work W'·f^k with the smallest k >= 0 such that W'·f^k exceeds
    the progress (f = :data:`OVERRUN_FACTOR`), and k, per job.

    So a job that passes its estimate is believed to need twice its estimate, then four times,
    …: its believed remaining work stays positive and jumps up at each overrun.
    """
    k = np.zeros(len(work), dtype=np.int64)
    over = progress >= work
    if over.any():
        ratio = progress[over] / work[over]
        k[over] = np.floor(np.log(ratio) / np.log(OVERRUN_FACTOR)).astype(np.int64) + 1
        for _ in range(_OVERRUN_ROUNDS):  # the logarithm may be off by one ulp either way
            low = work * OVERRUN_FACTOR**k <= progress
            high = (k > 0) & (work * OVERRUN_FACTOR ** np.maximum(k - 1, 0) > progress)
            if not (low.any() or high.any()):
                break
            k += low.astype(np.int64) - high.astype(np.int64)
        else:
            raise RuntimeError("overrun rule did not settle")  # pragma: no cover
    return work * OVERRUN_FACTOR**k, k


class ClusterView(StateReader):
    """The policies' read-only view: arrived jobs, observed progress, occupancy and beliefs.

    Parameters
    ----------
    state
        The simulator's state.
    beliefs
        What the policies believe (default: :data:`~sjfbsbf.sim.beliefs.ORACLE`, the truth).
    time
        The time the view reads the state at.
    world
        The world view of the same state (made if not given).
    clairvoyant
        Hand the world view out as :attr:`world` (only for replays of a given schedule).

    A job that has not arrived is unknown here: every per-job method raises ``KeyError`` for it,
    as for an id that does not exist.
    """

    def __init__(
        self,
        state: SimState,
        beliefs: Beliefs | None = None,
        time: float = 0.0,
        *,
        world: WorldView | None = None,
        clairvoyant: bool = False,
    ) -> None:
        super().__init__(state, time)
        self._world = world if world is not None else WorldView(state, time)
        self._world._time = time
        self._clairvoyant = clairvoyant
        self._beliefs = beliefs if beliefs is not None else ORACLE
        self._rule = sharing_rule(state.interference)
        self._belief_model = believed_interference(
            self._beliefs, state.interference, self._profiles()
        )
        self._xi_oracle = self._belief_model is state.interference
        self._estimator: DurationEstimator | None = make_estimator(
            self._beliefs.estimator_spec, state.instance, state.exclusive, self._beliefs.seed
        )
        self._infos: list[JobInfo] | None = None
        self._changes = 0  # belief changes so far (history updates, overrun crossings)
        if self._estimator is not None:
            jobs = state.instance.jobs
            duration_only = np.array([j.duration is not None for j in jobs], dtype=bool)
            durations = np.array([j.duration or 1.0 for j in jobs], dtype=float)
            #: World work units -> belief units (a duration-only job's one step = its seconds).
            self._unit = np.where(duration_only, durations, 1.0)
            self._duration_only = duration_only
            #: Step time in belief units at s = 1 on the fewest nodes.
            self._fewest_b = np.where(duration_only, 1.0, self._world.fewest_steps())
            self._learned = 0
            self._version = 0
            self._k = np.zeros(len(jobs), dtype=np.int64)

    def _profiles(self) -> list[ModelProfile]:
        catalog = get_catalog(self._s.instance.catalog)
        return [*catalog.values(), generic_profile(catalog)]

    # -- the simulator's hook -------------------------------------------------------------------
    def _advance(self, time: float) -> None:
        """Move both views to ``time`` and bring the beliefs up to date: the estimator learns
        the jobs finished since, and belief changes are counted (:attr:`belief_version`)."""
        self._time = time
        self._world._time = time
        estimator = self._estimator
        if estimator is None:
            return
        s = self._s
        if self._learned < len(s.finished_order):
            estimator.learn(s.finished_order[self._learned :])
            self._learned = len(s.finished_order)
        if estimator.version != self._version:
            self._changes += estimator.version - self._version
            self._version = estimator.version
        if s.running:
            run = np.fromiter(s.running, dtype=np.int64, count=len(s.running))
            _, k = self._work(run, self._progress(run))
            self._changes += int(np.abs(k - self._k[run]).sum())
            self._k[run] = k

    # -- what the view may show -----------------------------------------------------------------
    def _i(self, job_id: int) -> int:
        i = self._s.index.get(job_id)
        if i is not None and i < self._s.admitted:  # admitted in index order: arrived
            return i
        if i is None or self._s.status[i] == FUTURE:
            raise KeyError(f"no arrived job with id {job_id!r}")
        return i

    def _indices(self, job_ids: JobIds) -> np.ndarray:
        try:
            indices = super()._indices(job_ids)
        except KeyError as exc:
            raise KeyError(f"no arrived job with id {exc.args[0]!r}") from None
        if len(indices):
            if indices.min() >= 0 and indices.max() < self._s.admitted:  # all arrived
                return indices
            status = self._s.status
            outside = (indices < 0) | (indices >= len(status))
            if outside.any():
                raise KeyError(f"no arrived job with id {int(np.asarray(job_ids)[outside][0])}")
            late = status[indices] == FUTURE
            if late.any():
                raise KeyError(f"no arrived job with id {int(np.asarray(job_ids)[late][0])}")
        return indices

    @property
    def epoch(self) -> int:
        """State version: equal at two decisions iff no job arrived, finished, started, stopped
        or changed its accumulation, and no belief changed (:attr:`belief_version`), in between
        (only time moved, and believed remaining times of running jobs fell with it)."""
        return self._s.epoch + self._changes

    @property
    def belief_version(self) -> int:
        """Number of belief changes so far: an estimator update (``history`` learning from a
        finished job) or a running job crossing its believed work (the overrun rule). Always 0
        under the static estimators' first estimates and under ``oracle``."""
        return self._changes

    @property
    def beliefs(self) -> Beliefs:
        """What this view believes (names and parameters, no values)."""
        return self._beliefs

    @property
    def world(self) -> WorldView | None:
        """The truth, only for a policy that declares ``clairvoyant = True`` (``planned``, a
        replay of a solver's schedule); ``None`` otherwise."""
        return self._world if self._clairvoyant else None

    @property
    def interference(self) -> Interference:
        """The interference model the policies believe (the world's under ``oracle``)."""
        return self._belief_model

    @property
    def sharing_rule(self) -> Callable[[Occupant, Occupant], bool] | None:
        """The world's rule of which pairs may share a GPU (``can_share``), or ``None`` when
        every pair may (memory permitting). Not a belief: a policy never proposes a pair the
        world refuses."""
        return self._rule

    def job(self, job_id: int) -> JobInfo:
        """What is known of an arrived job (``KeyError`` for any other id)."""
        i = self._i(job_id)
        if self._infos is None:
            self._infos = [
                JobInfo(j.id, j.arrival, j.gpus, j.model, j.batch, j.estimate, j.vc, j.user)
                for j in self._s.instance.jobs
            ]
        return self._infos[i]

    # -- beliefs about lengths ------------------------------------------------------------------
    def _progress(self, indices: np.ndarray) -> np.ndarray:
        """Observed work done, in belief units (iterations; seconds for duration-only jobs)."""
        return self._world.progress_now(indices) * self._unit[indices]

    def _work(self, indices: np.ndarray, progress: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Believed work after the overrun rule, and its overrun count k."""
        assert self._estimator is not None
        believed = self._estimator.believed(indices) / self._fewest_b[indices]
        return overrun(believed, progress)

    def _step_b(self, i: int, accumulation: int, spans: bool) -> float:
        """Solo step time in belief units (1 s for a duration-only job)."""
        s = self._s
        job = s.instance.jobs[i]
        if job.duration is not None:
            return 1.0
        return solo_step_time(job, s.profiles[i], accumulation, spans, s.cluster)

    def progress(self, job_id: int) -> float:
        """Work the job has done: iterations, or exclusive-equivalent seconds for a
        duration-only job."""
        i = self._i(job_id)
        done = self._world.progress_now(np.array([i], dtype=np.int64))[0]
        job = self._s.instance.jobs[i]
        return float(done * job.duration if job.duration is not None else done)

    def believed_work(self, job_id: int) -> float:
        """The job's believed total work (units of :meth:`progress`), after the overrun rule."""
        i = self._i(job_id)
        if self._estimator is None:
            job = self._s.instance.jobs[i]
            return float(job.duration if job.duration is not None else self._s.work[i])
        index = np.array([i], dtype=np.int64)
        return float(self._work(index, self._progress(index))[0][0])

    def exclusive_duration(self, job_id: int) -> float:
        """Believed exclusive duration of the whole job at the full batch on the fewest nodes
        (s)."""
        if self._estimator is None:
            self._i(job_id)  # arrived jobs only
            return self._world.exclusive_duration(job_id)
        return float(self.exclusive_durations([job_id])[0])

    def remaining_work_share(self, job_id: int) -> float:
        """Believed share of the job's work still to do, in (0, 1] (1 − progress ÷ believed
        work)."""
        if self._estimator is None:
            self._i(job_id)
            return self._world.remaining_work_share(job_id)
        i = self._i(job_id)
        index = np.array([i], dtype=np.int64)
        progress = self._progress(index)
        return float(1.0 - progress[0] / self._work(index, progress)[0][0])

    def remaining_exclusive(
        self, job_id: int, accumulation: int | None = None, *, fewest_nodes: bool = False
    ) -> float:
        """Believed exclusive time (s) to finish the job alone, plus the restart overhead it
        still owes (observable): as :meth:`WorldView.remaining_exclusive
        <sjfbsbf.sim.world.WorldView.remaining_exclusive>` with the believed work."""
        if self._estimator is None:
            self._i(job_id)
            return self._world.remaining_exclusive(job_id, accumulation, fewest_nodes=fewest_nodes)
        s = self._s
        i = self._i(job_id)
        if accumulation is None:
            accumulation = int(s.accumulation[i]) if s.status[i] == RUNNING else 1
        placement = None if fewest_nodes else s.placement[i]
        spans = (
            s.cluster.spans_nodes(placement)
            if placement is not None
            else s.instance.jobs[i].gpus > s.cluster.gpus_per_node
        )
        index = np.array([i], dtype=np.int64)
        progress = self._progress(index)
        left = self._work(index, progress)[0][0] - progress[0]
        owed = self._world.owed_overheads(index)[0]
        return float(left * self._step_b(i, accumulation, spans) + owed)

    def slowdown(self, job_id: int) -> float:
        """Believed slowdown of a running job now: the interference belief's worst pair over
        its GPUs (1 when alone)."""
        if self._xi_oracle:
            self._i(job_id)
            return self._world.slowdown(job_id)
        s = self._s
        i = self._i(job_id)
        placement = s.placement[i]
        occ = s.occupants[i]
        if placement is None or occ is None:
            return 1.0
        xi = 1.0
        model = self._belief_model
        for k in sorted({k for g in placement for k in s.gpu_jobs[g] if k != i}):
            other = s.occupants[k]
            assert other is not None
            xi = max(xi, model.slowdown(occ, other))
        return float(xi)

    def predicted_finish(self, job_id: int) -> float:
        """Believed finish time of a running job if nothing changes: when its overhead ends,
        plus its believed remaining work at its current step time × believed slowdown."""
        if self._estimator is None and self._xi_oracle:
            self._i(job_id)
            return self._world.predicted_finish(job_id)
        s = self._s
        i = self._i(job_id)
        start = max(self._time, float(s.resume_at[i]))
        if self._estimator is None:
            left = self._world.remaining_exclusive(job_id) - max(0.0, s.resume_at[i] - self._time)
            return float(start + left * self.slowdown(job_id))
        index = np.array([i], dtype=np.int64)
        progress = self._progress(index)
        left = self._work(index, progress)[0][0] - progress[0]
        placement = s.placement[i]
        assert placement is not None, "running jobs only"
        step = self._step_b(i, int(s.accumulation[i]), s.cluster.spans_nodes(placement))
        return float(start + left * step * self.slowdown(job_id))

    def step_time(self, job_id: int, accumulation: int, spans_nodes: bool) -> float:
        """Solo time of one unit of work (:meth:`progress`'s units; 1 s for a duration-only
        job)."""
        return self._step_b(self._i(job_id), accumulation, spans_nodes)

    # -- many jobs at once (numpy; equal to the one-job methods) --------------------------------
    def exclusive_durations(self, job_ids: JobIds) -> np.ndarray:
        """:meth:`exclusive_duration` of each job, as an array."""
        i = self._indices(job_ids)
        if self._estimator is None:
            return self._world.exclusive_durations_at(i)
        return self._work(i, self._progress(i))[0] * self._fewest_b[i]

    def remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j, 1, fewest_nodes=True)`` of each job, as an array (the same
        floats): what preemptive policies rank by (docs/model.md §5)."""
        i = self._indices(job_ids)
        if self._estimator is None:
            return self._world.remaining_exclusives_at(i)
        progress = self._progress(i)
        left = self._work(i, progress)[0] - progress
        return left * self._fewest_b[i] + self._world.owed_overheads(i)

    def running_remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j)`` of each running job (its accumulation and placement now),
        as an array (the same floats): what SJF-BSBF weighs a host by (docs/model.md §6)."""
        i = self._indices(job_ids)
        if self._estimator is None:
            return self._world.running_remaining_exclusives_at(i)
        s = self._s
        assert np.all(s.status[i] == RUNNING), "running jobs only"
        progress = self._progress(i)
        left = self._work(i, progress)[0] - progress
        step = np.where(self._duration_only[i], 1.0, s.step[i])
        return left * step + np.maximum(0.0, s.resume_at[i] - self._time)
