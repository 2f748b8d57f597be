"""The progress watchdog: whatever a policy does, a simulation ends (docs/model.md §4).

A run is *stalled* while no job progresses: no job did useful work since the previous processed
tick (every running job sat inside its restart overhead, or nothing ran), and no job arrived or
finished. During a stall the watchdog counts the decisions the policy is responsible for:

* decisions that change something (a start, a preemption, a retune), and
* decisions triggered by the policy itself (a wake-up it asked for, the end of a restart
  overhead it caused), even if they change nothing.

Empty decisions the simulator takes on its own (interval boundaries while jobs wait) are not
counted: they are bounded by simulated time, and a policy that waits on an idle cluster until a
planned start (``planned``) must not be stopped. When the count exceeds :func:`stall_limit`
(100 + 10 × jobs) the run stops with :class:`~sjfbsbf.core.errors.SchedulingError` naming the
policy, the time span and the jobs the counted decisions touched.

Why it ends every run: each reset is a job arrival or completion (finitely many) or at least one
tick of useful work by some job (finite total work, positive rates), and between resets at most
the limit of counted decisions happens; an uncounted decision changes nothing, so running jobs
leave their overhead and progress, or jobs wait on an idle cluster with nothing ahead, which the
simulator already refuses. Why it does not fire on legitimate runs: a job started for the first
time progresses at once; without arrivals or completions srtf keeps its choice during a stall
(its remaining times include the overhead and ignore the placement, docs/model.md §5);
tiresias acts in a stall only at queue crossings (≤ jobs × thresholds) and the overhead ends
that follow them; ``planned`` has one wake-up per planned start. All stay far below the limit.
Cost: O(1) per decision plus the size of the decision.
"""

from __future__ import annotations

from sjfbsbf.core.errors import SchedulingError
from sjfbsbf.sim.decision import Decision

#: Counted decisions allowed in one stall: STALL_BASE + STALL_PER_JOB × number of jobs.
STALL_BASE = 100
STALL_PER_JOB = 10
#: Job ids named in the error message at most.
_NAMED_JOBS = 12


def stall_limit(num_jobs: int) -> int:
    """Counted decisions allowed in one stall for an instance of ``num_jobs`` jobs."""
    return STALL_BASE + STALL_PER_JOB * num_jobs


class ProgressWatchdog:
    """Counts the policy's decisions while no job progresses; raises past the limit.

    Parameters
    ----------
    policy_name
        Named in the error.
    limit
        Counted decisions allowed in one stall (see :func:`stall_limit`).
    """

    def __init__(self, policy_name: str, limit: int) -> None:
        self.policy_name = policy_name
        self.limit = limit
        self.count = 0
        self.since: float | None = None
        self.jobs: set[int] = set()

    def progressed(self) -> None:
        """A job did useful work, arrived or finished: the stall (if any) is over."""
        self.count = 0
        self.since = None
        self.jobs.clear()

    def decided(self, t: float, decision: Decision, by_policy: bool) -> None:
        """Record a decision taken at time ``t`` during the current stall.

        Parameters
        ----------
        t
            Simulated time of the decision.
        decision
            What the policy decided.
        by_policy
            Whether the tick was triggered by the policy (a wake-up it asked for or the end of
            a restart overhead) rather than by the clock or an arrival.

        Raises
        ------
        SchedulingError
            If the stall now holds more counted decisions than the limit.
        """
        if decision.empty and not by_policy:
            return
        self.count += 1
        if self.since is None:
            self.since = t
        if len(self.jobs) < _NAMED_JOBS:
            self.jobs.update(start.job_id for start in decision.starts)
            self.jobs.update(decision.preempts)
        if self.count > self.limit:
            named = sorted(self.jobs)[:_NAMED_JOBS]
            raise SchedulingError(
                f"t={t:g}: policy '{self.policy_name}' made {self.count} decisions in a row "
                f"since t={self.since:g} while no job progressed (no work done, no arrival, "
                f"no completion); jobs involved: {named or 'none (only wake-ups)'}"
            )
