"""Exact formulations (MILP with PuLP/HiGHS, CP-SAT with OR-Tools) of the scheduling decisions."""

# -- round model (DESIGN §4.1) and the exact-round policy ------------------------------------------
from formulations.policy import SolverPolicy
from formulations.result import SolveResult, SolveStatus
from formulations.round import RoundHost, RoundJob, RoundProblem
from formulations.round import solve as solve_round
from sjfbsbf.policies import register as _register

# Needs the solver packages, so it stays out of default comparisons.
_register("exact-round", SolverPolicy, default=False)

# -- offline model (DESIGN §4.2) ----------------------------------------------------------------
from formulations.offline import solve_offline  # noqa: E402

__all__ = [
    "RoundHost",
    "RoundJob",
    "RoundProblem",
    "SolveResult",
    "SolveStatus",
    "SolverPolicy",
    "solve_offline",
    "solve_round",
]
