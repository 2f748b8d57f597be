"""Transformations of instances: slices of a trace, random windows of consecutive jobs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sjfbsbf.core.model import Instance


def slice_trace(
    instance: Instance,
    *,
    first: int | None = None,
    start: float | None = None,
    end: float | None = None,
    rebase: bool = True,
) -> Instance:
    """A part of an instance: jobs arriving in ``[start, end)``, then the first ``first`` of them.

    Jobs keep their ids (so they can be traced back to trace lines); order is by (arrival, id).

    Parameters
    ----------
    instance
        Any instance (e.g. from :func:`load_gavel_trace`).
    first
        Keep only the first this many jobs (after the window).
    start, end
        Arrival window in seconds, on the instance's time axis (``None``: unbounded).
    rebase
        Shift arrivals so the first kept job arrives at 0.

    Raises
    ------
    ValueError
        If ``first`` < 1, ``end`` <= ``start``, or no job is left.
    """
    if first is not None and first < 1:
        raise ValueError(f"first must be a positive integer, got {first}")
    if start is not None and end is not None and end <= start:
        raise ValueError(f"need start < end, got [{start}, {end})")
    jobs = [
        j
        for j in instance.jobs
        if (start is None or j.arrival >= start) and (end is None or j.arrival < end)
    ]
    if first is not None:
        jobs = jobs[:first]
    if not jobs:
        raise ValueError("no job left in the slice")
    if rebase:
        origin = jobs[0].arrival
        jobs = [replace(j, arrival=j.arrival - origin) for j in jobs]
    parts = []
    if start is not None or end is not None:
        parts.append(f"{'' if start is None else f'{start:g}'}:{'' if end is None else f'{end:g}'}")
    if first is not None:
        parts.append(f"first={first}")
    name = f"{instance.name}[{','.join(parts)}]" if parts else instance.name
    return Instance(instance.cluster, tuple(jobs), catalog=instance.catalog, name=name)


def random_window(instance: Instance, size: int, rng: np.random.Generator) -> Instance:
    """``size`` consecutive jobs (in arrival order) from a uniformly random start, rebased to 0.

    The start is ``rng.integers(n - size + 1)`` over the ``n`` jobs ordered by (arrival, id), so
    every window of ``size`` jobs is equally likely; jobs keep their ids. The name gains
    ``[window=START:END]`` (job positions, END exclusive).

    Parameters
    ----------
    instance
        Any instance (e.g. a whole trace from :func:`~sjfbsbf.workloads.gavel.load_gavel_trace`).
    size
        How many jobs to keep (1 to the instance's job count).
    rng
        Draws the start (one integer), e.g. ``numpy.random.default_rng(seed)``.

    Raises
    ------
    ValueError
        If ``size`` is not an integer >= 1 or exceeds the instance's job count (both named).
    """
    n = instance.num_jobs
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"window must be a positive integer, got {size!r}")
    if size > n:
        raise ValueError(f"window of {size:,} jobs is larger than the trace ({n:,} jobs)")
    start = int(rng.integers(n - size + 1))
    jobs = instance.jobs[start : start + size]
    origin = jobs[0].arrival
    return Instance(
        instance.cluster,
        tuple(replace(j, arrival=j.arrival - origin) for j in jobs),
        catalog=instance.catalog,
        name=f"{instance.name}[window={start}:{start + size}]",
    )
