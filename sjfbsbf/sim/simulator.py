"""The time-stepped simulator that scores every policy and every solver schedule.

The rules are those of docs/model.md §4. Time advances in ticks of ``dt`` seconds (tick k is time
k·dt). At a tick the simulator frees the GPUs of jobs that finished during the previous tick,
admits arrivals, and, when something changed (an arrival, a completion, the end of a restart
overhead, a wake-up the policy asked for) or the tick is the first at or after a multiple of
``interval`` while jobs wait, asks the policy for a decision, checks it with
:func:`~sjfbsbf.sim.feasibility.check_decision` and applies it. Rates are set at tick boundaries and
stay constant until the next processed tick; ticks where nothing can change are skipped, so the
cost grows with events, not with simulated seconds. Completion times are exact inside a tick.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable

from sjfbsbf.core.errors import SchedulingError
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.feasibility import check_decision
from sjfbsbf.sim.policy import Policy
from sjfbsbf.sim.result import SimResult, build_result
from sjfbsbf.sim.state import FINISHED, PENDING, RUNNING, SimState
from sjfbsbf.sim.ticks import DEFAULT_INTERVAL, IntervalClock, tick_ceil
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.watchdog import ProgressWatchdog, stall_limit
from sjfbsbf.sim.world import WorldView

__all__ = ["DEFAULT_RESTART_OVERHEAD", "SchedulingError", "check_sim_parameters", "simulate"]

#: Default restart overhead of a preempted job (s); see docs/model.md.
DEFAULT_RESTART_OVERHEAD = 30.0


def simulate(
    instance: Instance,
    policy: Policy,
    *,
    dt: float = 1.0,
    interval: float = DEFAULT_INTERVAL,
    restart_overhead: float = DEFAULT_RESTART_OVERHEAD,
    interference: Interference | None = None,
    record_segments: bool = True,
    progress: Callable[[int, int], None] | None = None,
    beliefs: Beliefs | None = None,
) -> SimResult:
    """Simulate ``policy`` on ``instance``.

    Parameters
    ----------
    instance
        The problem.
    policy
        A fresh policy object (see :func:`sjfbsbf.policies.make_policy`).
    dt
        Tick length (s): positive, finite and at most ``interval`` (docs/model.md §4).
    interval
        The policy is also asked at every multiple of this (s) while jobs wait.
    restart_overhead
        Seconds without progress after a preempted job resumes (rounded up to whole ticks).
    interference
        Interference model (default: time slicing, κ = 1.5, ε = 0.05).
    record_segments
        Keep every constant-rate progress segment of every job, and every holding of GPUs
        (the result's ``segments`` and ``placements``).
    progress
        Called as ``progress(finished, total)`` whenever a job finishes.
    beliefs
        What the policy believes: a duration estimator and an interference belief
        (docs/model.md §4.1; default: the truth for both). The simulator and the feasibility
        checker always use the truth. A policy that declares ``clairvoyant = True`` (a replay
        of a given schedule) also gets the truth, through ``view.world``.

    Returns
    -------
    SimResult
        Per-job and per-tick tables, metrics and the policy's statistics.

    Raises
    ------
    ValueError
        If ``dt`` or ``interval`` is not positive and finite, ``dt > interval``, or
        ``restart_overhead`` is negative or not finite.
    InstanceError
        If the estimator needs a field the instance lacks (``user``: a job's ``estimate``).
    TypeError
        If ``interference`` is not an interference model (e.g. a preset's name: build it with
        :func:`sjfbsbf.core.presets.make_interference`).
    """
    check_sim_parameters(dt, interval, restart_overhead)
    if interference is not None and not isinstance(interference, Interference):
        raise TypeError(
            f"interference must be an interference model, not {type(interference).__name__} "
            f"{str(interference)[:80]!r} (make_interference(name) builds a preset)"
        )
    run = _Run(
        instance,
        policy,
        (dt, interval, restart_overhead),
        interference or time_slicing(),
        beliefs,
    )
    if not record_segments:
        run.state.segments = None
        run.state.holdings = None
    run.progress = progress
    run.loop()
    return build_result(
        run.state,
        policy_name=policy.name,
        ticks=run.rows,
        segments=run.state.segments,
        holdings=run.state.holdings,
        stats=policy.stats(),
        params={
            "dt": dt,
            "interval": interval,
            "restart_overhead": restart_overhead,
            "decisions": run.decisions,
            "ticks_processed": len(run.rows),
            "gpus_per_node": instance.cluster.gpus_per_node,  # for figures (node boundaries)
            "num_gpus": instance.cluster.num_gpus,
            **({} if beliefs is None or beliefs.is_oracle else {"beliefs": beliefs.label()}),
        },
    )


#: Most ticks a run may span (its arrivals plus every job's exclusive run time, in ticks): tick
#: indices stay exact up to 2^52; 2^42 leaves a factor of 1,024 for slowdowns and overheads.
MAX_RUN_TICKS = 2**42


def check_tick_count(
    instance: Instance, dt: float, exclusive: Iterable[float] | None = None
) -> None:
    """Refuse, before anything runs, a ``dt`` too fine for ``instance``: the last arrival plus
    every job's exclusive run time (its longest serial schedule) over :data:`MAX_RUN_TICKS`
    ticks (a ten-year job at dt = 1e-9 s used to stop mid-run with a traceback).

    Raises
    ------
    ValueError
        One line with the span, the tick count and the smallest ``dt`` that fits.
    """
    from sjfbsbf.core.catalog import generic_profile, get_catalog
    from sjfbsbf.core.perf import exclusive_duration

    if exclusive is None:
        catalog = get_catalog(instance.catalog)
        generic = generic_profile(catalog)
        exclusive = [
            exclusive_duration(
                j, generic if j.model is None else catalog[j.model], instance.cluster
            )
            for j in instance.jobs
        ]
    span = instance.jobs[-1].arrival + float(sum(exclusive))
    if span / dt > MAX_RUN_TICKS:
        raise ValueError(
            f"dt = {dt:g} s is too fine for this instance: its arrivals and run times span up to "
            f"{span:.3g} s, {span / dt:.3g} ticks (at most {MAX_RUN_TICKS:.3g}); use dt ≥ "
            f"{span / MAX_RUN_TICKS:.3g} s"
        )


def check_sim_parameters(dt: float, interval: float, restart_overhead: float) -> None:
    """Raise ``ValueError`` unless the simulation parameters are valid (docs/model.md §4).

    ``dt`` and ``interval`` must be positive and finite, ``dt ≤ interval`` (a tick longer than
    the decision interval would merge interval decisions), ``restart_overhead`` finite and ≥ 0.
    """
    for name, value in (("dt", dt), ("interval", interval)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive, finite number of seconds, got {value}")
    if dt > interval:
        raise ValueError(f"dt ({dt:g} s) must be at most the decision interval ({interval:g} s)")
    if not (math.isfinite(restart_overhead) and restart_overhead >= 0):
        raise ValueError(
            f"restart_overhead must be a non-negative, finite number of seconds, "
            f"got {restart_overhead}"
        )


class _Run:
    """One simulation: the event loop and the application of decisions."""

    def __init__(
        self,
        instance: Instance,
        policy: Policy,
        times: tuple[float, float, float],
        interference: Interference,
        beliefs: Beliefs | None,
    ) -> None:
        dt, interval, restart_overhead = times
        self.restart_ticks = tick_ceil(restart_overhead, dt)
        self.state = SimState(instance, interference, self.restart_ticks * dt)
        check_tick_count(instance, dt, self.state.exclusive)
        self.world = WorldView(self.state)
        # The policy's view: beliefs, arrived jobs only; the truth only for a replay.
        self.view = ClusterView(
            self.state,
            beliefs,
            world=self.world,
            clairvoyant=bool(getattr(policy, "clairvoyant", False)),
        )
        self.policy = policy
        self.dt = dt
        self.clock = IntervalClock(interval, dt)
        self.completions: list[tuple[int, int, int]] = []  # (release tick, job index, version)
        # (tick progress resumes, job index, stint): a job's stint is its preemption count when
        # it resumed, so the event of a stint cut short by another preemption is stale.
        self.restarts: list[tuple[int, int, int]] = []
        self.wakes: list[int] = []
        # Running jobs inside their restart overhead: running jobs outside it do useful work.
        self.in_overhead: set[int] = set()
        self.watchdog = ProgressWatchdog(policy.name, stall_limit(instance.num_jobs))
        self.rows: list[tuple[float, int, int, float, int, int]] = []
        self.progress: Callable[[int, int], None] | None = None
        self.decisions = 0

    # -- the loop -------------------------------------------------------------------------------
    def loop(self) -> None:
        s = self.state
        n = s.instance.num_jobs
        arrival_ticks = [tick_ceil(a, self.dt) for a in s.arrival]
        next_arrival = 0
        k = arrival_ticks[0]
        while s.finished_count < n:
            t = k * self.dt
            if len(s.running) > len(self.in_overhead):  # some job worked since the last tick
                self.watchdog.progressed()
            changed = self._release(k, t)
            by_policy = False  # an overhead end or a wake-up: events the policy caused
            while self.restarts and self.restarts[0][0] <= k:
                _, i, stint = heapq.heappop(self.restarts)
                if self._restart_is_current(i, stint):
                    self.in_overhead.discard(i)
                    changed = by_policy = True
            while next_arrival < n and arrival_ticks[next_arrival] <= k:
                s.status[next_arrival] = PENDING
                s.pending.add(next_arrival)
                s.epoch += 1
                next_arrival += 1
                s.admitted = next_arrival
                changed = True
                self.watchdog.progressed()
            while self.wakes and self.wakes[0] <= k:
                heapq.heappop(self.wakes)
                changed = by_policy = True
            if changed or (s.pending and self.clock.is_boundary(k)):
                decision = self._decide(k, t)
                self.watchdog.decided(t, decision, by_policy)
                if (
                    decision.empty
                    and s.pending
                    and not s.running
                    and next_arrival >= n
                    and not self.wakes
                ):
                    raise SchedulingError(
                        f"t={t}: {len(s.pending)} jobs wait on an idle cluster and policy "
                        f"'{self.policy.name}' starts none of them"
                    )
            self.rows.append(
                (t, s.busy_gpus, s.shared_gpus, s.memory_used(), len(s.running), len(s.pending))
            )
            candidates = []
            if next_arrival < n:
                candidates.append(arrival_ticks[next_arrival])
            top = self._next_completion()
            if top is not None:
                candidates.append(top)
            restart = self._next_restart()
            if restart is not None:
                candidates.append(restart)
            if self.wakes:
                candidates.append(self.wakes[0])
            if s.pending:
                candidates.append(self.clock.first_at_or_after(k + 1))
            if not candidates:
                if s.finished_count < n:
                    raise SchedulingError(f"t={t}: no event left but jobs are unfinished")
                break
            k = max(min(candidates), k + 1)

    def _next_completion(self) -> int | None:
        s = self.state
        while self.completions:
            tick, i, version = self.completions[0]
            if version == s.version[i] and s.status[i] == RUNNING:
                return tick
            heapq.heappop(self.completions)
        return None

    def _restart_is_current(self, i: int, stint: int) -> bool:
        """Whether a restart event belongs to job ``i``'s current stint (docs/model.md §4)."""
        s = self.state
        return s.status[i] == RUNNING and int(s.preemptions[i]) == stint

    def _next_restart(self) -> int | None:
        """Tick of the earliest current restart event; stale ones are dropped."""
        while self.restarts:
            tick, i, stint = self.restarts[0]
            if self._restart_is_current(i, stint):
                return tick
            heapq.heappop(self.restarts)
        return None

    # -- state changes --------------------------------------------------------------------------
    def _release(self, k: int, t: float) -> bool:
        """Finish every job whose release tick is ``k``; free its GPUs."""
        s = self.state
        done: list[tuple[int, float]] = []
        while self.completions and self.completions[0][0] <= k:
            _, i, version = heapq.heappop(self.completions)
            if version == s.version[i] and s.status[i] == RUNNING:
                done.append((i, s.predicted_finish(i)))
        if not done:
            return False
        finished = {i for i, _ in done}
        touched: set[int] = set()
        # Settle and mark every finished job before removing any: removing one job settles its
        # co-residents at t, and a partner that also finished in this tick must not be charged
        # progress, attained or shared time past its own finish.
        for i, finish in sorted(done):
            s.settle(i, finish)
            s.done[i] = s.work[i]
            s.finish[i] = finish
            s.status[i] = FINISHED
        for i, _ in sorted(done):
            touched |= s.remove(i, t)
            s.finished_order.append(i)
        for i in finished:
            s.running.discard(i)
            self.in_overhead.discard(i)
            s.finished_count += 1
        self.watchdog.progressed()
        s.epoch += 1
        self._refresh(touched - finished, t)
        if self.progress is not None:
            self.progress(s.finished_count, s.instance.num_jobs)
        return True

    def _refresh(self, jobs: set[int], t: float) -> None:
        """Recompute slowdowns (hence rates and predicted finishes) of running ``jobs`` at t."""
        s = self.state
        for i in sorted(jobs):  # all running: co-residents of a job that left, or just placed
            s.settle(i, t)
            s.xi[i] = s.slowdown_of(i)
            s.version[i] += 1
            release = tick_ceil(s.predicted_finish(i), self.dt)
            heapq.heappush(self.completions, (release, i, int(s.version[i])))

    def _decide(self, k: int, t: float) -> Decision:
        """Ask the policy at tick ``k`` (time ``t = k·dt``), check the decision and apply it."""
        s = self.state
        self.view._advance(t)
        decision = self.policy.decide(self.view)
        check_decision(
            self.world, decision, preemptive=self.policy.preemptive, sharing=self.policy.sharing
        )
        self.decisions += 1
        if not decision.empty:
            s.epoch += 1
        for job_id in decision.preempts:
            i = s.index[job_id]
            s.settle(i, t)
            touched = s.remove(i, t)
            s.status[i] = PENDING
            s.running.discard(i)
            self.in_overhead.discard(i)
            s.pending.add(i)
            s.preemptions[i] += 1
            s.version[i] += 1
            self._refresh(touched, t)
        for job_id, accumulation in decision.retunes:
            i = s.index[job_id]
            s.settle(i, t)
            self._refresh(s.retune(i, accumulation, t) | {i}, t)
        for start in decision.starts:
            i = s.index[start.job_id]
            touched = s.place(i, start.gpus, start.accumulation, t)
            s.pending.discard(i)
            s.running.add(i)
            s.status[i] = RUNNING
            if s.preemptions[i] > 0 and self.restart_ticks > 0:
                s.resume_at[i] = (k + self.restart_ticks) * self.dt
                heapq.heappush(self.restarts, (k + self.restart_ticks, i, int(s.preemptions[i])))
                self.in_overhead.add(i)
            else:
                s.resume_at[i] = t
            if s.first_start[i] != s.first_start[i]:  # NaN: first start
                s.first_start[i] = t
            self._refresh(touched | {i}, t)
        if decision.wake_at is not None:
            heapq.heappush(self.wakes, max(tick_ceil(decision.wake_at, self.dt), k + 1))
        return decision
