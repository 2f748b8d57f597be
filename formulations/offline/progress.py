"""Progress tables of the offline model in integer work units (docs/formulations.md §2.2, §2.5).

A job's work is ``W = floor(L · D / dt)`` units, ``D`` its exclusive duration at the full batch and
``L`` = :data:`WORK_UNITS_PER_SLOT`; a full slot at option o slowed by ξ brings
``ceil(W · dt / (D_o · ξ))`` units (:func:`slot_progress`). Required work rounded down and
progress rounded up make the model never slower than the simulator. Here: each job's options
(accumulation factor, spanning) with their full-slot progress alone, every job's largest slowdown,
the per-job tolerance of §2.5 and the best per-GPU throughput θ of a pair.
"""

from __future__ import annotations

import math
from itertools import combinations

from formulations.offline.data import OptionData
from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Interference, Occupant, can_share, occupant
from sjfbsbf.core.model import Instance, Job
from sjfbsbf.core.perf import exclusive_duration, memory_gb, micro_batch_options
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB

#: Work units one full slot brings a job alone at its full batch (L).
WORK_UNITS_PER_SLOT = 100_000

#: Resolution of the time a job uses in its last slot, in CP-SAT (s).
TIME_RESOLUTION_S = 0.01

#: Relative slack absorbing float noise when rounding an exact integer ratio.
_FLOOR_SLACK = 1e-9


def floor_units(value: float) -> int:
    """``floor`` that treats values within float noise below an integer as that integer."""
    return math.floor(value * (1.0 + _FLOOR_SLACK))


def ceil_units(value: float) -> int:
    """``ceil`` that treats values within float noise above an integer as that integer."""
    return math.ceil(value * (1.0 - _FLOOR_SLACK))


def slot_progress(work: int, dt: float, duration_s: float, slowdown: float = 1.0) -> int:
    """Work units one full slot brings a job of ``work`` units, rounded up (at least 1).

    The job takes ``duration_s`` alone at this option, ``duration_s · slowdown`` beside its
    partner; rounding up keeps the model never slower than the simulator (§2.5).
    """
    return max(1, ceil_units(work * dt / (duration_s * slowdown)))


def profiles(instance: Instance) -> list[ModelProfile]:
    """Each job's catalog profile (the catalog's generic one for duration-only jobs)."""
    catalog = get_catalog(instance.catalog)
    generic = generic_profile(catalog)
    return [generic if j.model is None else catalog[j.model] for j in instance.jobs]


def _spans_values(instance: Instance, job: Job, profile: ModelProfile) -> tuple[bool, ...]:
    cluster = instance.cluster
    if job.gpus > cluster.gpus_per_node:
        return (True,)
    if cluster.nodes == 1 or job.gpus == 1 or profile.generic or job.batch is None:
        return (False,)
    return (False, True)


def job_options(
    instance: Instance, job: Job, profile: ModelProfile, work: int, dt: float
) -> tuple[OptionData, ...]:
    """The job's options (accumulation × spanning) with duration, memory, progress alone."""
    out = []
    for s in sorted(micro_batch_options(job, profile)):
        for spans in _spans_values(instance, job, profile):
            duration = exclusive_duration(job, profile, instance.cluster, s, spans)
            out.append(
                OptionData(
                    accumulation=s,
                    spans=spans,
                    duration_s=duration,
                    memory_gb=memory_gb(job, profile, s),
                    alone=slot_progress(work, dt, duration),
                )
            )
    return tuple(out)


def occupants(instance: Instance, tables: list[ModelProfile]) -> list[dict[int, Occupant]]:
    """Each job's occupant (what the interference model reads) per accumulation factor."""
    return [
        {s: occupant(job, p, s) for s in micro_batch_options(job, p)}
        for job, p in zip(instance.jobs, tables, strict=True)
    ]


def largest_slowdowns(occupants: list[dict[int, Occupant]], model: Interference) -> list[float]:
    """ξ^max_j: the largest slowdown any partner allowed to share can cause each job (≥ 1)."""
    n = len(occupants)
    xi_max = []
    for i in range(n):
        worst = 1.0
        for k in range(n):
            if k != i:
                for occ_i in occupants[i].values():
                    for occ_k in occupants[k].values():
                        if can_share(model, occ_i, occ_k):
                            worst = max(worst, model.slowdown(occ_i, occ_k))
        xi_max.append(worst)
    return xi_max


def job_tolerances(
    options: list[tuple[OptionData, ...]],
    xi_max: list[float],
    works: list[int],
    dt: float,
    time_units: int,
) -> list[float]:
    """Per-job bound on |model − simulated| JCT while both release at the same ticks (§2.5).

    The model is faster than the simulator by < 1 work unit per slot (progress rounded up
    against work rounded down) and slower by < one time unit in the last slot (CP-SAT rounds
    its used time up).
    """
    job_tol = []
    for i in range(len(options)):
        longest = max(o.duration_s for o in options[i]) * xi_max[i]
        slots_run = math.ceil(longest / dt) + 1
        per_unit = longest / works[i]
        job_tol.append(dt / time_units + slots_run * per_unit)
    return job_tol


def throughput(
    instance: Instance,
    options: list[tuple[OptionData, ...]],
    occupants: list[dict[int, Occupant]],
    works: list[int],
    tops: list[int],
    model: Interference,
    dt: float,
) -> float:
    """θ: the best per-GPU work of any pair that fits, in fastest-alone slots (at least 1)."""
    mem_cap = instance.cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB
    best = 1.0
    for i, k in combinations(range(len(options)), 2):
        for opt_i in options[i]:
            for opt_k in options[k]:
                occ_i = occupants[i][opt_i.accumulation]
                occ_k = occupants[k][opt_k.accumulation]
                if occ_i.memory_gb + occ_k.memory_gb > mem_cap or not can_share(
                    model, occ_i, occ_k
                ):
                    continue
                prog_i = slot_progress(works[i], dt, opt_i.duration_s, model.slowdown(occ_i, occ_k))
                prog_k = slot_progress(works[k], dt, opt_k.duration_s, model.slowdown(occ_k, occ_i))
                best = max(
                    best, min(prog_i, opt_i.alone) / tops[i] + min(prog_k, opt_k.alone) / tops[k]
                )
    return best
