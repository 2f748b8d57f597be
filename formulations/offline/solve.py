"""``solve_offline``: the whole schedule of a small instance, exactly (docs/formulations.md §2).

One entry point over the backends: CP-SAT, the MILP (HiGHS or CBC) and, for tiny instances, brute
force. The model is a relaxation of the simulator (progress rounded up, §2.5), so its optimum is a
lower bound; the replay decides (§2.9). Each model schedule is replayed in the simulator
(``planned`` policy); if the replay disagrees with the model beyond the stated tolerance (a job the
model releases a tick earlier than the simulator, or a plan the simulator cannot run), that
schedule is cut off by a no-good constraint and the model is solved again. The result
(:class:`~formulations.offline.result.OfflineResult`) returns the best replayed schedule, the best
non-preemptive heuristic's included, so a solve that finds nothing better still returns a
schedule; its ``replayed_avg_jct`` is the simulator's value, its ``objective`` the model's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from formulations.offline.backend import JobPlan, model_finish, to_schedule
from formulations.offline.data import OfflineData
from formulations.offline.dispatch import run_backend
from formulations.offline.heuristic import HeuristicRun
from formulations.offline.observe import SolveProgress, Tracker
from formulations.offline.origin import later_origin, moved, moved_back
from formulations.offline.preprocess import preprocess
from formulations.offline.replay import replay_value
from formulations.offline.result import OfflineResult
from formulations.offline.size import MAX_MODEL_CELLS, ModelTooLarge
from formulations.result import SolveStatus
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies.planned import Schedule

if TYPE_CHECKING:
    from formulations.offline.bound_steps import EarlyBounds  # bounds imports offline

#: Backends of :func:`solve_offline` (``"bounds"``: no model, the heuristics and the bounds).
SOLVERS = ("cpsat", "milp", "brute", "bounds")
#: The ``"bounds"`` solver builds no model: it refuses only instances this many times larger
#: than the model's size limit (:mod:`formulations.offline.size`).
BOUNDS_SIZE_FACTOR = 10
#: Incumbent-search simulations of the ``"bounds"`` solver (50 jobs on 8 GPUs: about 2 s).
BOUNDS_SEARCH = 300
#: Default slot length of the offline model (s): the suite's tick.
DEFAULT_DT = 60.0
#: Relative tolerance added to :attr:`OfflineData.tolerance_s` for solver numerics.
RELATIVE_TOLERANCE = 1e-6
#: Most model solves in one call: each after the first cuts off a schedule whose replay
#: disagreed with the model (§2.9).
MAX_ROUNDS = 20
#: CP-SAT's limit is deterministic time; the whole call (preprocessing, building, solving,
#: replays) also stops at ``factor · time_limit + extra`` wall-clock seconds (§2.6).
WALL_GUARD_FACTOR = 3.0
WALL_GUARD_EXTRA_S = 30.0


def objective_tolerance(data: OfflineData, value: float) -> float:
    """Largest expected |model − simulator| (or |MILP − CP-SAT|) average JCT difference (s)."""
    return data.tolerance_s + RELATIVE_TOLERANCE * abs(value)


@dataclass(frozen=True)
class _Best:
    """The best replayed schedule so far."""

    schedule: Schedule
    avg_jct: float
    source: str
    model_objective: float | None
    finish: dict[int, float]


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
    max_rounds: int = MAX_ROUNDS,
    max_model_cells: int | None = MAX_MODEL_CELLS,
    relaxation: bool = True,
    colgen: bool | None = None,
    placement_free: float | None = None,
    placement_free_lb_tree: bool = False,
    search: int | None = None,
    deterministic: bool = True,
    progress: Callable[[SolveProgress], None] | None = None,
) -> OfflineResult:
    """Solve the offline problem of ``instance`` with slots of ``dt`` seconds.

    Parameters
    ----------
    instance
        The problem (small: the model is time-indexed).
    solver
        ``"cpsat"``, ``"milp"``, ``"brute"`` (tiny instances; exhaustive over the simulator) or
        ``"bounds"`` (no model: the best heuristic's schedule and the lower bounds, for
        instances too large for the model; its size limit is ``BOUNDS_SIZE_FACTOR`` times the
        model's).
    dt
        Slot length = the simulator's tick used to replay the schedule (s).
    time_limit
        Budget (``None``: none; brute force ignores it). With ``deterministic`` (the default)
        it is for all model solves together: CP-SAT counts deterministic time (reproducible with
        one worker), and the whole call stops at 3 · limit + 30 wall-clock seconds; the MILP
        counts wall-clock seconds from the start of the call, preprocessing and model building
        included. Without it, wall-clock seconds for the whole call: heuristics and search, the
        relaxation and fluid bounds, model building, solving and replays (§2.6).
    deterministic
        ``True``: the reproducible mode above (the suite, the tests, ``make_suite.py``).
        ``False``: ``time_limit`` caps the call's wall-clock time; what it stops is not
        reproducible.
    seed
        Random seed (CP-SAT ``random_seed``, HiGHS ``random_seed``).
    num_workers
        CP-SAT workers / CBC threads.
    milp_backend
        ``"highs"`` (``pulp.HiGHS`` via highspy) or ``"cbc"``.
    horizon
        Slots to model; ``None`` derives a safe one. Too short gives ``INFEASIBLE``.
    interference
        Interference model (default: time slicing, as the simulator).
    hint
        Start from the best non-preemptive heuristic's schedule (CP-SAT hint, HiGHS start).
    max_rounds
        Most model solves (each after the first cuts off a schedule the replay disagreed with).
    max_model_cells
        Refuse a larger model before building it (:mod:`formulations.offline.size`; ``None``: no
        limit).
    relaxation
        Solve the placement-free relaxation and the fluid LP first (:mod:`formulations.bounds`;
        HiGHS, the relaxation with a node limit, deterministic, not counted in
        ``time_limit``): their bounds join the preprocessing's and the model's
        (docs/formulations.md §2.10). Always on for ``"bounds"``.
    colgen
        Also run the column-generation bound with them (:func:`formulations.bounds.colgen_bound`,
        §2.10 item 7; to its LP optimum, or under the wall clock to the deadline). ``None``: on
        for ``"bounds"``, off for the model.
    placement_free
        If given and the solve ends unproven with a schedule, run the placement-free CP-SAT
        bound (:func:`formulations.bounds.placement_free_bound`, §2.10 item 6) with this
        deterministic-time limit (its own budget, beyond ``time_limit``; wall-clock guard
        3 × it + 30 s): its bound joins L, and when it meets the best replayed schedule the
        result is OPTIMAL (``info["proven_by"]`` says so).
    placement_free_lb_tree
        Run that bound with CP-SAT's lb-tree search (a higher bound in a short budget, later
        proofs; §2.10 item 6).
    search
        Simulations of the incumbent search after the heuristics (:mod:`.search`, §2.2): a
        better schedule tightens the windows and the hint. ``None``: ``BOUNDS_SEARCH`` for
        ``"bounds"``, 0 (none) for the model.
    progress
        Called with a :class:`~formulations.offline.observe.SolveProgress` at each phase and
        at each better schedule or bound (CP-SAT reports its incumbents and bounds while it
        solves); it does not change the result.

    Returns
    -------
    OfflineResult
        ``status``: ``OPTIMAL`` when the best replayed schedule is within the model tolerance of
        the lower bound, ``FEASIBLE`` otherwise (a schedule always comes back when the heuristics
        fit the horizon). ``schedule``: the best replayed schedule. ``replayed_avg_jct``: its
        simulated average JCT (s). ``objective``: the model's average JCT of it (``None`` when it
        came from a heuristic). ``bound``: a proven lower bound on every schedule's simulated
        average JCT (up to the tolerance). ``info``: ``source`` (``"model"`` or
        ``"heuristic:<policy>"``), ``rounds`` (one record per model solve), ``tolerance_s``,
        ``model_finish`` / ``replay_finish`` (job id -> s), ``limit`` (what stopped a
        time-limited solve), ``replay_within_tolerance``, ``origin_s`` (only for an instance
        solved from its first arrival, docs/formulations.md §2.7).

    Raises
    ------
    ValueError
        For an unknown solver or a bad argument.
    ModelTooLarge
        If the model would exceed ``max_model_cells`` (from t = 0, and from the first arrival
        when that is tried, docs/formulations.md §2.7); the message says what would fit.
    """
    arguments = dict(locals())  # for a solve from a later origin (below)
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if num_workers < 1:
        raise ValueError("num_workers must be at least 1")
    if max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    if search is None:
        search = BOUNDS_SEARCH if solver == "bounds" else 0
    if search < 0:  # also refused for brute force, which runs no heuristics
        raise ValueError(f"search must be a non-negative number of simulations, got {search}")
    model = interference or time_slicing()
    if solver == "brute":
        from formulations.offline.brute import solve_brute

        return solve_brute(instance, dt, interference=model)
    tracker = Tracker(progress)
    deadline = None
    if time_limit is not None and not deterministic:
        deadline = time.monotonic() + time_limit  # the whole call (§2.6)
    elif time_limit is not None:
        wall = time_limit if solver == "milp" else WALL_GUARD_FACTOR * time_limit
        deadline = time.monotonic() + wall + (0.0 if solver == "milp" else WALL_GUARD_EXTRA_S)
    cells = max_model_cells
    if solver == "bounds":
        relaxation = True
        cells = None if max_model_cells is None else BOUNDS_SIZE_FACTOR * max_model_cells
    tracker.phase("heuristics")
    try:
        data = preprocess(
            instance,
            dt,
            interference=model,
            horizon=horizon,
            max_cells=cells,
            search=search,
            seed=seed,
            deadline=None if deterministic else deadline,
        )
    except ModelTooLarge:  # too large from t = 0: from the first arrival, if it fits (§2.7)
        offset = 0.0 if horizon is not None else later_origin(instance, dt)
        if offset == 0.0:
            raise
        if time_limit is not None and not deterministic and deadline is not None:
            arguments["time_limit"] = max(deadline - time.monotonic(), 1e-3)
        later = solve_offline(**(arguments | {"instance": moved(instance, offset)}))
        return moved_back(later, instance, offset, model)
    combinatorial = data.lower_bound_total / len(data.jobs)  # Σ LB_j, SRPT (§2.2)
    if data.heuristic is not None:
        tracker.observe("incumbent", data.heuristic.avg_jct)
    if data.infeasible is None:
        tracker.observe("bound", combinatorial)
    early: EarlyBounds | None = None  # the bounds before the model (relaxation, fluid, colgen)
    if relaxation and data.infeasible is None:
        from formulations.offline.bound_steps import early_bounds  # bounds imports offline

        with_colgen = solver == "bounds" if colgen is None else colgen
        early = early_bounds(data, seed, None if deterministic else deadline, tracker, with_colgen)
        data = early.data
    info: dict[str, Any] = {
        "dt": dt,
        "horizon": data.horizon,
        "tolerance_s": data.tolerance_s,
        "heuristic": data.heuristic.policy if data.heuristic else None,
        "heuristic_avg_jct": data.heuristic.avg_jct if data.heuristic else None,
        "num_workers": num_workers,
        "seed": seed,
        "search": search,
        "clock": "deterministic" if deterministic else "wall",
    }
    if early is not None:
        info |= early.records()

    def result(
        status: SolveStatus,
        schedule: Schedule | None = None,
        objective: float | None = None,
        replayed: float | None = None,
        bound: float | None = None,
        runtime: float = 0.0,
    ) -> OfflineResult:
        return OfflineResult(
            status, schedule, objective, replayed, bound, runtime, solver, dt, info, instance, model
        )

    if data.infeasible is not None:
        info["reason"] = data.infeasible
        return result(SolveStatus.INFEASIBLE)

    best: _Best | None = None
    if data.heuristic is not None:
        run = data.heuristic
        best = _Best(run.schedule, run.avg_jct, f"heuristic:{run.policy}", None, run.finish)
    trivial = data.lower_bound_total / len(data.jobs)
    model_bound: float | None = None  # lower bound over the schedules not cut off
    excluded: list[dict[int, JobPlan]] = []
    rounds: list[dict[str, Any]] = []
    runtime = budget_used = 0.0
    proven = False
    backend_status = SolveStatus.UNKNOWN
    if best is not None and best.avg_jct <= trivial + objective_tolerance(data, trivial):
        proven = True  # the heuristic meets the preprocessing's bound: no model to solve
    for number in range(0 if proven or solver == "bounds" else max_rounds):
        remaining = None if time_limit is None else time_limit - budget_used
        if not deterministic and deadline is not None:
            remaining = deadline - time.monotonic()
        if (remaining is not None and remaining <= 0) or (
            deadline is not None and time.monotonic() >= deadline
        ):
            info["limit"] = info.get("limit", "time limit")
            break
        tracker.phase(f"model {number + 1}")
        raw = run_backend(
            data,
            solver,
            remaining,
            seed,
            num_workers,
            milp_backend,
            hint,
            excluded,
            deadline,
            deterministic=deterministic,
            observer=tracker.observe,
        )
        runtime += raw.runtime_s
        used = float(raw.info.get("budget_used", raw.runtime_s))
        budget_used += used
        backend_status = raw.status
        record: dict[str, Any] = {
            "status": raw.status.value,
            "model_objective": raw.objective,
            "budget_used": used,
            "runtime_s": raw.runtime_s,
        }
        rounds.append(record)
        info.update({k: v for k, v in raw.info.items() if k != "budget_used"})
        if raw.bound is not None and raw.status is not SolveStatus.INFEASIBLE:
            model_bound = raw.bound if model_bound is None else max(model_bound, raw.bound)
            tracker.observe("bound", model_bound)
        if raw.status is SolveStatus.INFEASIBLE:
            if number == 0 and best is not None:
                raise RuntimeError(
                    "the offline model rejects every schedule, although the heuristic's "
                    f"({best.source}) lies in its decision space: a bug in the model"
                )
            # Every schedule not cut off is worse than the heuristic's bound: the best replayed
            # one (the cut-off ones were replayed) is optimal.
            proven = True
            break
        if not raw.status.has_solution:
            break
        assert raw.objective is not None
        schedule = to_schedule(data, raw.plans)
        replayed, finish = replay_value(instance, schedule, dt, model)
        within = replayed is not None and abs(raw.objective - replayed) <= objective_tolerance(
            data, raw.objective
        )
        record.update({"replayed_avg_jct": replayed, "replay_within_tolerance": within})
        if replayed is not None and _better(replayed, best):
            best = _Best(schedule, replayed, "model", raw.objective, finish)
            info["model_finish"] = {
                data.jobs[i].job_id: model_finish(data, plan) for i, plan in raw.plans.items()
            }
        if raw.status is not SolveStatus.OPTIMAL:
            break  # stopped by the limit: no proof this round
        lower = raw.objective
        if best is not None and best.avg_jct <= lower + objective_tolerance(data, lower):
            proven = True
            break
        excluded.append(raw.plans)  # the replay disagreed: cut it off and solve again
    else:
        if solver == "bounds" and not proven:
            info["limit"] = info.get("limit", "no model (bounds only)")
        elif not proven:  # every round ran (none ran when the preprocessing's bound proved it)
            info["limit"] = f"{max_rounds} rounds"
    free_bound: float | None = None
    if placement_free is not None and not proven and best is not None and solver != "bounds":
        from formulations.offline.bound_steps import placement_free_step

        incumbent = None  # the model's better schedule narrows the windows (§2.2)
        if best.source == "model":
            total = best.avg_jct * len(data.jobs)
            incumbent = HeuristicRun("model", best.schedule, total, best.finish)
        wall = WALL_GUARD_FACTOR * placement_free + WALL_GUARD_EXTRA_S
        free_data, found = placement_free_step(
            instance,
            data,
            incumbent,
            placement_free,
            wall if deterministic else placement_free,
            placement_free_lb_tree,
            seed=seed,
            num_workers=num_workers,
            horizon=horizon,
            interference=model,
            deterministic=deterministic,
            tracker=tracker,
        )
        info["placement_free"] = found.as_info() | {
            "horizon": free_data.horizon,
            "lb_tree_search": placement_free_lb_tree,
        }
        free_bound = found.bound
        if free_bound is not None and best.avg_jct <= free_bound + objective_tolerance(
            data, free_bound
        ):
            proven = True
            info["proven_by"] = "placement-free"
            info.pop("limit", None)
    info["rounds"] = rounds
    info["budget_used"] = budget_used
    info["bounds"] = {  # each lower bound on the average JCT (s) that L is the best of
        "combinatorial": combinatorial,
        **(early.values() if early is not None else dict.fromkeys(early_names())),
        "model": model_bound,
        "placement_free": free_bound,
    }
    info["excluded"] = len(excluded)
    info["backend_status"] = backend_status.value

    if best is None:
        status = (
            backend_status if backend_status is not SolveStatus.OPTIMAL else SolveStatus.UNKNOWN
        )
        bound = None if model_bound is None else max(model_bound, trivial)
        return result(status, bound=bound, runtime=runtime)
    # Schedules cut off or run by a heuristic were replayed (≥ best); the rest are ≥ the model's
    # bound; every schedule is ≥ the preprocessing's bound (§2.2).
    lower = trivial if model_bound is None else max(trivial, model_bound)
    if free_bound is not None:
        lower = max(lower, free_bound)
    if proven and backend_status is SolveStatus.INFEASIBLE:
        lower = best.avg_jct
    lower_bound = min(best.avg_jct, lower)
    info["replay_finish"] = best.finish
    info["source"] = best.source
    info["replay_within_tolerance"] = best.model_objective is not None and abs(
        best.model_objective - best.avg_jct
    ) <= objective_tolerance(data, best.model_objective)
    if best.source != "model":
        info.pop("model_finish", None)
    final = SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE
    tracker.observe("incumbent", best.avg_jct)
    tracker.phase("done")
    return result(final, best.schedule, best.model_objective, best.avg_jct, lower_bound, runtime)


def _better(replayed: float, best: _Best | None) -> bool:
    """Whether a model schedule replaying at ``replayed`` replaces ``best`` (ties: the model's)."""
    if best is None:
        return True
    if best.source == "model":
        return replayed < best.avg_jct - 1e-9
    return replayed <= best.avg_jct + 1e-9


def early_names() -> tuple[str, ...]:
    """The names of the bounds computed before the model (``info["bounds"]``)."""
    from formulations.offline.bound_steps import EARLY_BOUNDS  # bounds imports offline

    return EARLY_BOUNDS
