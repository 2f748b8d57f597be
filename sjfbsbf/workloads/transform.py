"""Transformations of instances: slices of a trace."""

from __future__ import annotations

from dataclasses import replace

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
