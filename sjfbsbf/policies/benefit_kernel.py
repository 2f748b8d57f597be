"""SJF-BSBF's benefit estimate over every host at once, compiled (docs/model.md §6).

Under a :class:`~sjfbsbf.core.interference.ContentionModel` (every preset) the pair benefit of
:func:`~sjfbsbf.policies.benefit.pair_benefit`, the memory test and the GPU sums run in loops
compiled by numba (:mod:`sjfbsbf.policies.benefit_loops`) with the same floating-point
operations in the same order and no fast-math, so every benefit is the float numpy computes
(``tests/sim/test_benefit_kernel.py`` checks them bit for bit). numba is imported, and the
loops compiled (cached on disk), on first use, so importing the package stays fast.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from sjfbsbf.core.interference import ContentionModel

_loops: ModuleType | None = None


def _compiled() -> ModuleType:
    global _loops
    if _loops is None:
        from sjfbsbf.policies import benefit_loops

        _loops = benefit_loops
    return _loops


def _model(model: ContentionModel, tolerance: float) -> np.ndarray:
    return np.array([model.kappa, model.eps, tolerance], dtype=float)


def host_benefits(
    model: ContentionModel,
    job: tuple[float, float, float | None, float, float, float],
    retune: bool,
    tolerance: float,
    hosts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Pair benefit of one option of a pending job beside each host, and which hosts fit.

    Parameters
    ----------
    model
        The contention model (κ, ε).
    job
        T_a (full batch), T_a' (the option), the wait (``None``: each host's T_b, the paper's
        estimate), memory per GPU at the option (GB), sensitivity and pressure.
    retune
        Whether the job returns to the full batch once its host has left.
    tolerance
        Memory tolerance (GB).
    hosts
        The host table's room, remaining, sensitivity, pressure and GPU count columns.

    Returns
    -------
    tuple
        Benefits (float array), whether each host fits with a positive benefit (bool array),
        how many hosts fit, their GPUs, and the GPUs of those with a positive benefit.
    """
    t_full, t_sub, wait, memory, sens_a, press_a = job
    values = np.array(
        [t_full, t_sub, 0.0 if wait is None else wait, memory, sens_a, press_a], dtype=float
    )
    flags = np.array([wait is not None, retune], dtype=np.bool_)
    n = len(hosts[0])
    benefit = np.empty(n)
    positive = np.empty(n, dtype=np.bool_)
    fit_hosts, fit_gpus, positive_gpus = _compiled().host_loop(
        values, flags, _model(model, tolerance), *hosts, benefit, positive
    )
    return benefit, positive, int(fit_hosts), int(fit_gpus), int(positive_gpus)


def greedy(
    model: ContentionModel,
    first: int,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray],
    rule: tuple[float, int | None, bool, bool, bool],
    tolerance: float,
    idle_count: int,
    hosts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, tuple[int, int, int]]:
    """SJF-BSBF's greedy (docs/model.md §6) over jobs from ``first`` on, until one fits alone.

    Each job that does not fit on the idle GPUs takes its best plan (:func:`~sjfbsbf.policies.
    plans.build_plan` per option, :func:`~sjfbsbf.policies.plans.better_plan` across options)
    if its score exceeds the threshold: hosts taken are no longer hosts, idle GPUs taken are no
    longer idle. Otherwise it waits, for want of a host, of a positive benefit (it fits beside
    some host) or of memory, as :meth:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf.best_plan` says.

    Parameters
    ----------
    model
        The contention model (κ, ε).
    first
        Index of the first job.
    jobs
        GPU counts of the jobs (int array), where each job's options start in the rows (int
        array, one more entry than jobs) and the rows (float array: T_a, T_a', memory,
        sensitivity, pressure per option, in increasing accumulation).
    rule
        The threshold, ``max_partners``, whether a sharer retunes once its host has left,
        whether only the first option that fits counts (``sub_batch="largest"``) and whether
        a plan may take idle GPUs (``mix_idle``).
    tolerance
        Memory tolerance (GB).
    idle_count
        Idle GPUs.
    hosts
        The host table's room, remaining, sensitivity, pressure and GPU count columns, rows
        sorted by host id.

    Returns
    -------
    tuple
        The index of the job that fits alone (the number of jobs if none); per plan started,
        in order, (job index, row, idle GPUs taken, first and end index into the hosts array)
        and its score; the hosts array (table rows, in the order each plan takes them); and
        how many jobs waited for want of a host, of a positive benefit, of memory.
    """
    gpus, row_start, rows = jobs
    threshold, max_partners, retune, largest, mix_idle = rule
    n_jobs, n_hosts = len(gpus), len(hosts[0])
    settings = np.array(
        [
            model.kappa,
            model.eps,
            tolerance,
            threshold,
            -1.0 if max_partners is None else float(max_partners),
        ],
        dtype=float,
    )
    flags = np.array([retune, largest, mix_idle], dtype=np.bool_)
    plans = np.empty((n_jobs, 5), dtype=np.int64)
    scores = np.empty(n_jobs)
    taken = np.empty(n_hosts, dtype=np.int64)
    waits = np.zeros(3, dtype=np.int64)
    stop, n_plans = _compiled().greedy(
        first, gpus, row_start, rows, settings, flags, idle_count, *hosts,
        plans, scores, taken, waits,
    )  # fmt: skip
    counts = (int(waits[0]), int(waits[1]), int(waits[2]))
    return int(stop), plans[:n_plans], scores[:n_plans], taken, counts


def best_hosts(
    benefit: np.ndarray,
    positive: np.ndarray,
    gpu_count: np.ndarray,
    needed: int,
    max_partners: int | None,
) -> np.ndarray:
    """Row indices of the hosts a plan takes, in the order it takes them.

    The best benefit first among the ``positive`` rows, ties to the lowest row (the host table
    is sorted by id, so the lowest id: :func:`~sjfbsbf.policies.plans.build_plan`'s order), until
    their GPUs reach ``needed`` or ``max_partners`` hosts are taken.
    """
    most = -1 if max_partners is None else max_partners
    return np.asarray(_compiled().best_hosts(benefit, positive, gpu_count, needed, most))
