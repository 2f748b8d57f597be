"""The round model as a MILP in PuLP, solved by HiGHS (``pulp.HiGHS``, via highspy) or CBC.

Built as variables, one function per constraint family, objective (docs/formulations.md §2).
PuLP 3.3.2 reports ``prob.status`` "Optimal" also for a time-limited incumbent; the status here is
read from ``prob.sol_status`` (1 proven optimal, 2 integer feasible).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import pulp

from formulations.result import SolveStatus
from formulations.round.assignment import RoundAssignment
from formulations.round.backend import RawSolve, decode, hint_values
from formulations.round.preprocess import RoundData

#: The integer objective lets the search stop once the gap is below one unit.
ABS_GAP = 0.5


@dataclass
class MilpVars:
    """The model's variables.

    Attributes
    ----------
    x
        Pair index -> binary: the job shares with this option.
    y
        Candidate index -> binary: the job takes GPUs from this host.
    n
        Candidate index -> integer GPUs taken from the host (``y`` itself for 1-GPU hosts).
    i
        Pair index -> integer idle GPUs taken.
    """

    x: dict[int, pulp.LpVariable]
    y: dict[int, pulp.LpVariable]
    n: dict[int, pulp.LpVariable]
    i: dict[int, pulp.LpVariable]


def add_variables(prob: pulp.LpProblem, data: RoundData) -> MilpVars:
    """x, y, n, i with their bounds."""
    new = prob.add_variable
    x = {p: new(f"x_{p}", 0, 1, cat=pulp.LpBinary) for p in range(len(data.pairs))}
    y = {c: new(f"y_{c}", 0, 1, cat=pulp.LpBinary) for c in range(len(data.candidates))}
    n = {
        c: y[c] if cand.host_gpus == 1 else new(f"n_{c}", 0, cand.host_gpus, cat=pulp.LpInteger)
        for c, cand in enumerate(data.candidates)
    }
    i = {
        p: new(f"i_{p}", 0, pair.max_idle, cat=pulp.LpInteger) for p, pair in enumerate(data.pairs)
    }
    return MilpVars(x, y, n, i)


def add_one_option(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """Each job shares with at most one option (else it waits)."""
    for job, pairs in data.pairs_of_job.items():
        if len(pairs) > 1:
            prob += pulp.lpSum(v.x[p] for p in pairs) <= 1, f"one_option_{job}"


def add_link(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """A host is used only with the option chosen: y ≤ x."""
    for p, pair in enumerate(data.pairs):
        for c in pair.candidates:
            prob += v.y[c] <= v.x[p], f"link_{c}"


def add_gpu_take(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """A used host gives 1 to all of its GPUs, an unused one none: y ≤ n ≤ |G_b|·y."""
    for c, cand in enumerate(data.candidates):
        if cand.host_gpus > 1:
            prob += v.n[c] >= v.y[c], f"take_min_{c}"
            prob += v.n[c] <= cand.host_gpus * v.y[c], f"take_max_{c}"


def add_exact_gpus(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """A sharing job gets exactly G_a GPUs: Σ n + i = G_a·x."""
    for p, pair in enumerate(data.pairs):
        taken = pulp.lpSum(v.n[c] for c in pair.candidates)
        prob += taken + v.i[p] == pair.gpus * v.x[p], f"exact_gpus_{p}"


def add_host_capacity(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """A host takes at most one sharer."""
    for host, cands in data.candidates_of_host.items():
        if len(cands) > 1:
            prob += pulp.lpSum(v.y[c] for c in cands) <= 1, f"host_capacity_{host}"


def add_idle_capacity(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """Idle GPUs are not over-used."""
    if data.pairs:
        prob += pulp.lpSum(v.i.values()) <= data.problem.idle, "idle_capacity"


def add_max_partners(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """At most ``max_partners`` hosts per job: Σ y ≤ P·x."""
    limit = data.problem.max_partners
    if limit is None:
        return
    for p, pair in enumerate(data.pairs):
        if len(pair.candidates) > limit:
            prob += pulp.lpSum(v.y[c] for c in pair.candidates) <= limit * v.x[p], f"partners_{p}"


def add_threshold(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """A sharing job's integer score exceeds the threshold: Σ coef·y ≥ need·x."""
    need = data.threshold_coef
    if need is None:
        return
    for p, pair in enumerate(data.pairs):
        score = pulp.lpSum(data.candidates[c].coef * v.y[c] for c in pair.candidates)
        prob += score >= need * v.x[p], f"threshold_{p}"


def set_objective(prob: pulp.LpProblem, data: RoundData, v: MilpVars) -> None:
    """Maximize Σ coef·y (the summed pair benefits in integer units)."""
    prob += pulp.lpSum(cand.coef * v.y[c] for c, cand in enumerate(data.candidates))


CONSTRAINTS = (
    add_one_option,
    add_link,
    add_gpu_take,
    add_exact_gpus,
    add_host_capacity,
    add_idle_capacity,
    add_max_partners,
    add_threshold,
)


def build(data: RoundData) -> tuple[pulp.LpProblem, MilpVars]:
    """The PuLP model: variables, constraint families, objective."""
    prob = pulp.LpProblem("round", pulp.LpMaximize)
    v = add_variables(prob, data)
    for family in CONSTRAINTS:
        family(prob, data, v)
    set_objective(prob, data, v)
    return prob, v


def _solver(backend: str, time_limit: float | None, seed: int, warm: bool) -> pulp.LpSolver:
    if backend == "highs":
        return pulp.HiGHS(
            msg=False, timeLimit=time_limit, gapRel=0.0, gapAbs=ABS_GAP, random_seed=seed
        )
    if backend == "cbc":
        # PuLP 3.3 warns that the bundled CBC goes away in PuLP 4; pinned to <4 (DESIGN §4.3).
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "PULP_CBC_CMD is deprecated", DeprecationWarning)
            # randomCbcSeed 0 means "time of day" to CBC: shift by one to stay reproducible.
            return pulp.PULP_CBC_CMD(
                msg=False,
                timeLimit=time_limit,
                gapRel=0.0,
                gapAbs=ABS_GAP,
                threads=1,
                warmStart=warm,
                options=[f"randomCbcSeed {seed + 1}"],
            )
    raise ValueError(f"unknown MILP backend {backend!r}; use 'highs' or 'cbc'")


def _status(prob: pulp.LpProblem, time_limit: float | None) -> SolveStatus:
    if prob.sol_status == pulp.LpSolutionOptimal:
        return SolveStatus.OPTIMAL
    if prob.sol_status == pulp.LpSolutionIntegerFeasible:
        return SolveStatus.FEASIBLE
    if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
        return SolveStatus.INFEASIBLE
    if prob.status == pulp.LpStatusNotSolved and time_limit is not None:
        return SolveStatus.TIME_LIMIT
    return SolveStatus.UNKNOWN


def _bound(prob: pulp.LpProblem, backend: str) -> float | None:
    if backend != "highs":
        return None
    info = prob.solverModel.getInfo()
    # PuLP hands HiGHS the negated objective of a maximization.
    bound = -float(info.mip_dual_bound)
    return bound if abs(bound) < float("inf") else None


def solve_milp(
    data: RoundData,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    backend: str = "highs",
    hint: RoundAssignment | None = None,
) -> RawSolve:
    """Build and solve the MILP.

    Parameters
    ----------
    data
        Preprocessed round problem.
    time_limit
        Seconds (``None``: none).
    seed
        Solver random seed.
    backend
        ``"highs"`` (``pulp.HiGHS``) or ``"cbc"`` (``pulp.PULP_CBC_CMD``).
    hint
        A known assignment used as a warm start (CBC only; ``pulp.HiGHS`` takes none).
    """
    prob, v = build(data)
    warm = hint is not None and backend == "cbc"
    if warm:
        assert hint is not None
        x, y, n, i = hint_values(data, hint)
        for p, chosen in x.items():
            v.x[p].setInitialValue(chosen)
            v.i[p].setInitialValue(i[p])
        for c, used in y.items():
            v.y[c].setInitialValue(used)
            if data.candidates[c].host_gpus > 1:
                v.n[c].setInitialValue(n[c])
    solver = _solver(backend, time_limit, seed, warm)
    start = time.perf_counter()
    prob.solve(solver)
    runtime = time.perf_counter() - start
    status = _status(prob, time_limit)
    info = {
        "backend": backend,
        "solver_status": pulp.LpStatus[prob.status],
        "sol_status": prob.sol_status,
        "variables": len(prob.variables()),
        "constraints": prob.numConstraints(),
    }
    if not status.has_solution:
        return RawSolve(status, None, None, runtime, info)

    def value(var: pulp.LpVariable) -> int:
        return round(var.value() or 0.0)

    assignment = decode(
        data,
        chosen=lambda p: value(v.x[p]) == 1,
        used=lambda c: value(v.y[c]) == 1,
        taken=lambda c: value(v.n[c]),
        idle=lambda p: value(v.i[p]),
    )
    return RawSolve(status, assignment, _bound(prob, backend), runtime, info)
