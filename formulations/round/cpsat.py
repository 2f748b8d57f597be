"""The round model in OR-Tools CP-SAT (snake_case API), the same model as :mod:`.milp`.

Built as variables, one function per constraint family, objective (docs/formulations.md §1.4);
solved through the engine layer (:mod:`formulations.engines.cpsat`, §3). Reproducible: a fixed
``random_seed`` and ``num_workers``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from formulations.engines import EngineOptions
from formulations.engines import cpsat as engine
from formulations.families import apply
from formulations.round.assignment import RoundAssignment
from formulations.round.backend import RawSolve, decode, hint_values
from formulations.round.families import FAMILIES
from formulations.round.preprocess import RoundData
from formulations.round.ties import Stage, break_ties, deadline_of


@dataclass
class CpVars:
    """The model's variables (see :class:`formulations.round.milp.MilpVars`)."""

    x: dict[int, cp_model.IntVar]
    y: dict[int, cp_model.IntVar]
    n: dict[int, cp_model.IntVar]
    i: dict[int, cp_model.IntVar]


def add_variables(model: cp_model.CpModel, data: RoundData) -> CpVars:
    """x, y (Booleans), n, i (integers) with their domains."""
    x = {p: model.new_bool_var(f"x_{p}") for p in range(len(data.pairs))}
    y = {c: model.new_bool_var(f"y_{c}") for c in range(len(data.candidates))}
    n = {
        c: y[c] if cand.host_gpus == 1 else model.new_int_var(0, cand.host_gpus, f"n_{c}")
        for c, cand in enumerate(data.candidates)
    }
    i = {p: model.new_int_var(0, pair.max_idle, f"i_{p}") for p, pair in enumerate(data.pairs)}
    return CpVars(x, y, n, i)


def add_one_option(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """Each job shares with at most one option (else it waits)."""
    for pairs in data.pairs_of_job.values():
        if len(pairs) > 1:
            model.add_at_most_one(v.x[p] for p in pairs)


def add_link(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """A host is used only with the option chosen: y ⇒ x."""
    for p, pair in enumerate(data.pairs):
        for c in pair.candidates:
            model.add_implication(v.y[c], v.x[p])


def add_gpu_take(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """A used host gives 1 to all of its GPUs (n ≥ 1 if y), an unused one none (n = 0 if ¬y)."""
    for c, cand in enumerate(data.candidates):
        if cand.host_gpus > 1:
            model.add(v.n[c] >= 1).only_enforce_if(v.y[c])
            model.add(v.n[c] == 0).only_enforce_if(~v.y[c])


def add_exact_gpus(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """A sharing job gets exactly G_a GPUs: Σ n + i = G_a·x."""
    for p, pair in enumerate(data.pairs):
        model.add(sum(v.n[c] for c in pair.candidates) + v.i[p] == pair.gpus * v.x[p])


def add_host_capacity(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """A host takes at most one sharer."""
    for cands in data.candidates_of_host.values():
        if len(cands) > 1:
            model.add_at_most_one(v.y[c] for c in cands)


def add_idle_capacity(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """Idle GPUs are not over-used."""
    if data.pairs:
        model.add(sum(v.i.values()) <= data.problem.idle)


def add_max_partners(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """At most ``max_partners`` hosts per job: Σ y ≤ P·x."""
    limit = data.problem.max_partners
    if limit is None:
        return
    for p, pair in enumerate(data.pairs):
        if len(pair.candidates) > limit:
            model.add(sum(v.y[c] for c in pair.candidates) <= limit * v.x[p])


def add_threshold(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """A sharing job's integer score exceeds the threshold: Σ coef·y ≥ need if x."""
    need = data.threshold_coef
    if need is None:
        return
    for p, pair in enumerate(data.pairs):
        score = sum(data.candidates[c].coef * v.y[c] for c in pair.candidates)
        model.add(score >= need).only_enforce_if(v.x[p])


def set_objective(model: cp_model.CpModel, data: RoundData, v: CpVars) -> None:
    """Maximize Σ coef·y (the summed pair benefits in integer units)."""
    model.maximize(sum(cand.coef * v.y[c] for c, cand in enumerate(data.candidates)))


def build(data: RoundData) -> tuple[cp_model.CpModel, CpVars]:
    """The CP-SAT model: variables, the constraint families of :data:`FAMILIES`, objective."""
    model = cp_model.CpModel()
    v = add_variables(model, data)
    apply(__name__, FAMILIES, model, data, v)
    set_objective(model, data, v)
    return model, v


def hints(data: RoundData, v: CpVars, hint: RoundAssignment) -> list[tuple[cp_model.IntVar, int]]:
    """A known assignment as CP-SAT solution hints ``(variable, value)``."""
    x, y, n, i = hint_values(data, hint)
    out = []
    for p, value in x.items():
        out.append((v.x[p], value))
        out.append((v.i[p], i[p]))
    for c, value in y.items():
        out.append((v.y[c], value))
        if data.candidates[c].host_gpus > 1:
            out.append((v.n[c], n[c]))
    return out


def restrict(
    model: cp_model.CpModel,
    data: RoundData,
    v: CpVars,
    primary: int,
    fixed: list[tuple[Stage, int]],
    stage: Stage,
) -> None:
    """Turn the model into a tie stage: primary ≥ its optimum, earlier stages fixed, objective
    the stage's weighted sum (minimized)."""
    model.add(sum(cand.coef * v.y[c] for c, cand in enumerate(data.candidates)) >= primary)
    for done, value in fixed:
        model.add(sum(w * v.n[c] for c, w in done.coef.items()) == value)
    model.minimize(sum(w * v.n[c] for c, w in stage.coef.items()))


def _run(
    data: RoundData,
    *,
    seed: int,
    num_workers: int,
    deadline: float | None,
    hint: RoundAssignment | None,
    tie: tuple[int, list[tuple[Stage, int]], Stage] | None = None,
) -> RawSolve:
    """One solve: the primary model, or with ``tie`` = (primary, fixed, stage) a tie stage."""
    model, v = build(data)
    if tie is not None:
        restrict(model, data, v, *tie)
    run = engine.solve(
        model,
        EngineOptions(deadline=deadline, seed=seed, workers=num_workers),
        hints=() if hint is None else hints(data, v, hint),
    )
    info = dict(run.info, num_workers=num_workers)
    if not run.status.has_solution:
        return RawSolve(run.status, None, None, run.runtime_s, info)
    assignment = decode(
        data,
        chosen=lambda p: run.value(v.x[p]) == 1,
        used=lambda c: run.value(v.y[c]) == 1,
        taken=lambda c: int(run.value(v.n[c])),
        idle=lambda p: int(run.value(v.i[p])),
    )
    return RawSolve(run.status, assignment, run.bound, run.runtime_s, info)


def solve_cpsat(
    data: RoundData,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    num_workers: int = 1,
    hint: RoundAssignment | None = None,
) -> RawSolve:
    """Build the CP-SAT model, solve it through :mod:`formulations.engines.cpsat`, break ties.

    Parameters
    ----------
    data
        Preprocessed round problem.
    time_limit
        Wall-clock seconds for the primary solve and the tie stages together (``None``: none).
    seed
        ``random_seed``.
    num_workers
        Search workers (1 or a fixed small number, for reproducibility).
    hint
        A known assignment given as a solution hint.

    A proven primary optimum is then tie-broken by :func:`formulations.round.ties.break_ties`
    (the same rule as the MILP); the status and bound are the primary solve's.
    """
    deadline = deadline_of(time_limit)
    first = _run(data, seed=seed, num_workers=num_workers, deadline=deadline, hint=hint)

    def stage_solve(
        primary: int,
        fixed: list[tuple[Stage, int]],
        stage: Stage,
        best: RoundAssignment,
        until: float | None,
    ) -> RawSolve:
        return _run(
            data,
            seed=seed,
            num_workers=num_workers,
            deadline=until,
            hint=best,
            tie=(primary, fixed, stage),
        )

    return break_ties(data, first, stage_solve, deadline)
