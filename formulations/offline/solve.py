"""``solve_offline``: the whole schedule of a small instance, exactly (DESIGN §4.2, §4.3).

One entry point over the backends: CP-SAT, the MILP (HiGHS or CBC) and, for tiny instances, brute
force. The solver's schedule is replayed in the simulator (``planned`` policy): that average JCT
is the re-scored value callers report; the model's objective is kept beside it as the check.
"""

from __future__ import annotations

import math
from typing import Any

from formulations.offline.backend import RawSolve, model_finish, to_schedule
from formulations.offline.preprocess import OfflineData, preprocess
from formulations.offline.replay import replay
from formulations.result import SolveResult, SolveStatus
from sjfbsbf.interference import Interference, time_slicing
from sjfbsbf.model import Instance

#: Backends of :func:`solve_offline`.
SOLVERS = ("cpsat", "milp", "brute")
#: Default slot length of the offline model (s): the suite's tick.
DEFAULT_DT = 60.0
#: Relative tolerance added to :attr:`OfflineData.tolerance_s` for solver numerics.
RELATIVE_TOLERANCE = 1e-6


def objective_tolerance(data: OfflineData, value: float) -> float:
    """Largest expected |model − simulator| (or |MILP − CP-SAT|) average JCT difference (s)."""
    return data.tolerance_s + RELATIVE_TOLERANCE * abs(value)


def solve_offline(
    instance: Instance,
    solver: str = "cpsat",
    *,
    dt: float = DEFAULT_DT,
    time_limit: float | None = 60.0,
    seed: int = 0,
    num_workers: int = 1,
    milp_backend: str = "highs",
    horizon: int | None = None,
    interference: Interference | None = None,
    hint: bool = True,
) -> SolveResult:
    """Solve the offline problem of ``instance`` with slots of ``dt`` seconds.

    Parameters
    ----------
    instance
        The problem (small: the model is time-indexed).
    solver
        ``"cpsat"``, ``"milp"`` or ``"brute"`` (tiny instances; exhaustive over the simulator).
    dt
        Slot length = the simulator's tick used to replay the schedule (s).
    time_limit
        Seconds for the solver (``None``: none; brute force ignores it).
    seed
        Random seed (CP-SAT ``random_seed``; HiGHS's is fixed at 0).
    num_workers
        CP-SAT workers / MILP threads.
    milp_backend
        ``"highs"`` (``pulp.HiGHS`` via highspy) or ``"cbc"``.
    horizon
        Slots to model; ``None`` derives a safe one. Too short gives ``INFEASIBLE``.
    interference
        Interference model (default: time slicing, as the simulator).
    hint
        Start from the best non-preemptive heuristic's schedule (CP-SAT hint, HiGHS start).

    Returns
    -------
    SolveResult
        ``objective`` and ``bound``: the model's average JCT and its proven lower bound (s; the
        better of the backend's and the preprocessing's, so also after a time limit);
        ``solution``: the schedule (:data:`~sjfbsbf.policies.planned.Schedule`);
        ``info["replayed_avg_jct"]``: its simulated average JCT (the value to report);
        ``info["tolerance_s"]``: the bound on |objective − replayed| from integer rounding;
        ``info["model_finish"]``: job id -> finish time the model predicts.

    Raises
    ------
    ValueError
        For an unknown solver or a bad argument.
    """
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if num_workers < 1:
        raise ValueError("num_workers must be at least 1")
    model = interference or time_slicing()
    if solver == "brute":
        from formulations.offline.brute import solve_brute

        return solve_brute(instance, dt, interference=model)
    data = preprocess(instance, dt, interference=model, horizon=horizon)
    base_info: dict[str, Any] = {
        "dt": dt,
        "horizon": data.horizon,
        "tolerance_s": data.tolerance_s,
        "heuristic": data.heuristic.policy if data.heuristic else None,
        "heuristic_avg_jct": data.heuristic.avg_jct if data.heuristic else None,
    }
    if data.infeasible is not None:
        base_info["reason"] = data.infeasible
        return SolveResult(SolveStatus.INFEASIBLE, None, None, 0.0, solver, None, base_info)
    raw: RawSolve
    if solver == "cpsat":
        from formulations.offline.cpsat import solve_cpsat

        raw = solve_cpsat(
            data, time_limit=time_limit, seed=seed, num_workers=num_workers, hint=hint
        )
    else:
        from formulations.offline.milp import solve_milp

        raw = solve_milp(
            data,
            time_limit=time_limit,
            backend=milp_backend,
            threads=num_workers,
            seed=seed,
            hint=hint,
        )
    info = {**base_info, **raw.info}
    schedule = None
    if raw.status.has_solution:
        schedule = to_schedule(data, raw.plans)
        info["model_finish"] = {
            data.jobs[i].job_id: model_finish(data, plan) for i, plan in raw.plans.items()
        }
        result = replay(instance, schedule, dt, model)
        replayed = float(result.jobs["jct"].mean())
        info["replayed_avg_jct"] = replayed
        info["replay_finish"] = {
            int(j): float(f)
            for j, f in zip(result.jobs["job_id"], result.jobs["finish"], strict=True)
        }
        assert raw.objective is not None
        info["replay_within_tolerance"] = abs(raw.objective - replayed) <= objective_tolerance(
            data, raw.objective
        )
    bound = raw.bound
    if raw.status is not SolveStatus.INFEASIBLE:
        # The preprocessing's bound (Σ shortest JCTs, SRPT) is proven too; keep the better one.
        trivial = data.lower_bound_total / len(data.jobs)
        bound = trivial if bound is None else max(bound, trivial)
        if raw.objective is not None:
            bound = min(bound, raw.objective)
    return SolveResult(raw.status, raw.objective, bound, raw.runtime_s, solver, schedule, info)
