"""Run one offline solve on the chosen backend (CP-SAT or the MILP) for ``solve_offline``."""

from __future__ import annotations

from collections.abc import Callable

from formulations.offline.backend import JobPlan, RawSolve
from formulations.offline.data import OfflineData


def run_backend(
    data: OfflineData,
    solver: str,
    time_limit: float | None,
    seed: int,
    num_workers: int,
    milp_backend: str,
    hint: bool,
    excluded: list[dict[int, JobPlan]],
    deadline: float | None,
    deterministic: bool = True,
    observer: Callable[[str, float], None] | None = None,
) -> RawSolve:
    """Solve ``data`` once with the CP-SAT model or the MILP (``solver``), cutting off
    ``excluded`` (the arguments of :func:`formulations.offline.solve_offline`; ``deterministic``
    and ``observer`` concern CP-SAT only: the MILP's limit is always wall-clock)."""
    if solver == "cpsat":
        from formulations.offline.cpsat import solve_cpsat

        return solve_cpsat(
            data,
            time_limit=time_limit,
            seed=seed,
            num_workers=num_workers,
            hint=hint,
            exclude=excluded,
            deadline=deadline,
            deterministic=deterministic,
            observer=observer,
        )
    from formulations.offline.milp import solve_milp

    return solve_milp(
        data,
        time_limit=time_limit,
        backend=milp_backend,
        threads=num_workers,
        seed=seed,
        hint=hint,
        exclude=excluded,
        deadline=deadline,
    )
