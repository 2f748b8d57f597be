"""What a policy returns: jobs to start (with GPUs and sub-batch), jobs to preempt, a wake-up."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Start:
    """Start (or resume) a pending job.

    Parameters
    ----------
    job_id
        The job.
    gpus
        GPU ids to place it on; exactly the job's GPU count.
    accumulation
        Number of micro-batches s per step (micro-batch b = B / s); 1 = full batch.
    """

    job_id: int
    gpus: tuple[int, ...]
    accumulation: int = 1


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's decision at one tick. Preemptions are applied before starts.

    Parameters
    ----------
    starts
        Jobs to start.
    preempts
        Ids of running jobs to stop (only for preemptive policies).
    wake_at
        Ask to be called again at the first tick at or after this time (e.g. a queue threshold).
    retunes
        ``(job id, accumulation)`` pairs: running jobs that change their accumulation factor
        (e.g. back to the full batch once their partner left). Applied before starts.
    """

    starts: tuple[Start, ...] = ()
    preempts: tuple[int, ...] = ()
    wake_at: float | None = None
    retunes: tuple[tuple[int, int], ...] = ()

    @property
    def empty(self) -> bool:
        """Whether the decision changes nothing."""
        return not self.starts and not self.preempts and not self.retunes


NO_DECISION = Decision()
