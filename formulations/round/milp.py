"""The round model as a MILP in PuLP, solved by HiGHS (``pulp.HiGHS``, via highspy) or CBC.

Built as variables, one function per constraint family, objective (docs/formulations.md §1.4);
solved through the engine layer (:mod:`formulations.engines.milp`, §3).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulp

from formulations.engines import EngineOptions
from formulations.engines import milp as engine
from formulations.families import apply
from formulations.round.assignment import RoundAssignment
from formulations.round.backend import RawSolve, decode, hint_values
from formulations.round.families import FAMILIES
from formulations.round.preprocess import RoundData
from formulations.round.ties import Stage, break_ties, deadline_of

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


def build(data: RoundData) -> tuple[pulp.LpProblem, MilpVars]:
    """The PuLP model: variables, the constraint families of :data:`FAMILIES`, objective."""
    prob = pulp.LpProblem("round", pulp.LpMaximize)
    v = add_variables(prob, data)
    apply(__name__, FAMILIES, prob, data, v)
    set_objective(prob, data, v)
    return prob, v


def warm_start(data: RoundData, v: MilpVars, hint: RoundAssignment) -> dict[pulp.LpVariable, int]:
    """A known assignment as MILP start values by variable."""
    x, y, n, i = hint_values(data, hint)
    start: dict[pulp.LpVariable, int] = {}
    for p, chosen in x.items():
        start[v.x[p]] = chosen
        start[v.i[p]] = i[p]
    for c, used in y.items():
        start[v.y[c]] = used
        if data.candidates[c].host_gpus > 1:
            start[v.n[c]] = n[c]
    return start


def restrict(
    prob: pulp.LpProblem,
    data: RoundData,
    v: MilpVars,
    primary: int,
    fixed: list[tuple[Stage, int]],
    stage: Stage,
) -> None:
    """Turn the model into a tie stage: primary ≥ its optimum, earlier stages fixed, objective
    the stage's weighted sum, minimized.

    The sense is switched to minimization rather than maximizing the negated sum: CBC 2.10 with a
    warm start on such a maximization returned the start as "optimal" (seen in the tie tests).
    """
    score = pulp.lpSum(cand.coef * v.y[c] for c, cand in enumerate(data.candidates))
    prob += score >= primary, "tie_primary"
    for k, (done, value) in enumerate(fixed):
        prob += pulp.lpSum(w * v.n[c] for c, w in done.coef.items()) == value, f"tie_fixed_{k}"
    prob.sense = pulp.LpMinimize
    prob.setObjective(pulp.lpSum(w * v.n[c] for c, w in stage.coef.items()))


def _run(
    data: RoundData,
    *,
    backend: str,
    seed: int,
    deadline: float | None,
    hint: RoundAssignment | None,
    tie: tuple[int, list[tuple[Stage, int]], Stage] | None = None,
) -> RawSolve:
    """One solve: the primary model, or with ``tie`` = (primary, fixed, stage) a tie stage."""
    prob, v = build(data)
    if tie is not None:
        restrict(prob, data, v, *tie)
    start = None if hint is None or backend != "cbc" else warm_start(data, v, hint)
    run = engine.solve(
        prob,
        EngineOptions(deadline=deadline, seed=seed, workers=1),
        backend=backend,
        gap_rel=0.0,
        gap_abs=ABS_GAP,
        start=start,
    )
    if not run.status.has_solution:
        return RawSolve(run.status, None, None, run.runtime_s, run.info)
    assignment = decode(
        data,
        chosen=lambda p: round(run.value(v.x[p])) == 1,
        used=lambda c: round(run.value(v.y[c])) == 1,
        taken=lambda c: round(run.value(v.n[c])),
        idle=lambda p: round(run.value(v.i[p])),
    )
    return RawSolve(run.status, assignment, run.bound, run.runtime_s, run.info)


def solve_milp(
    data: RoundData,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    backend: str = "highs",
    hint: RoundAssignment | None = None,
) -> RawSolve:
    """Build the MILP, solve it through :mod:`formulations.engines.milp`, then break ties.

    Parameters
    ----------
    data
        Preprocessed round problem.
    time_limit
        Wall-clock seconds for the primary solve and the tie stages together (``None``: none).
    seed
        Solver random seed.
    backend
        ``"highs"`` (``pulp.HiGHS``) or ``"cbc"`` (``pulp.PULP_CBC_CMD``).
    hint
        A known assignment, a warm start for CBC (HiGHS gets none here, as it always had).

    CBC runs one thread; HiGHS keeps its default thread count (§3). A proven primary optimum is
    then tie-broken by :func:`formulations.round.ties.break_ties` (the same rule as CP-SAT); the
    status and bound are the primary solve's.
    """
    deadline = deadline_of(time_limit)
    first = _run(data, backend=backend, seed=seed, deadline=deadline, hint=hint)

    def stage_solve(
        primary: int,
        fixed: list[tuple[Stage, int]],
        stage: Stage,
        best: RoundAssignment,
        until: float | None,
    ) -> RawSolve:
        return _run(
            data, backend=backend, seed=seed, deadline=until, hint=best, tie=(primary, fixed, stage)
        )

    return break_ties(data, first, stage_solve, deadline)
