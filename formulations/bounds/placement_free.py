"""The placement-free CP-SAT model: the offline CP-SAT model without GPU ids
(docs/formulations.md §2.10, item 6).

The offline model (§2.3–2.4) places every job on GPU ids and counts, per GPU and slot, at most
two jobs. Its pair structure — p_q (the pair shares a GPU, for life), v_qt (it co-runs in slot
t), w_qc (its option combination), z_io (options) — does not need the ids. This model keeps every
family of the CP-SAT model that does not read them and replaces the five that do (placement,
capacity, corun, no-idle-wait, symmetry) by GPU counting: per pair that fits and slot both may
run, h_qt ∈ [v_qt, min(G_i, G_k) v_qt] GPUs shared; v_qt ⇒ p_q; p_q ∧ r_it ∧ r_kt ⇒ v_qt; a pair
that never fits never shares (p_q = 0); per job and slot Σ_k h ≤ G_i r_it; per slot
Σ_i G_i r_it − Σ_q h_qt ≤ |Γ|.

*Valid:* a schedule of the model, with p, v, w, z, y, e, r, prog, rest, frac as they are and
h_qt = the GPUs the pair has in common while both run, satisfies every kept family and the
counting rows (each GPU holds at most two jobs, so the GPUs in use number Σ G r − Σ h). The
no-idle-wait and symmetry families are reductions of the model (they keep at least one optimal
schedule); leaving them out only enlarges the set. So the optimum — and CP-SAT's bound when it
stops — bounds the model's optimum from below, in the same integer units (Σ finish in dt / F).
Where the optimum it proves equals the replayed value of a schedule of the model, that schedule
is optimal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ortools.sat.python import cp_model

from formulations.bounds.relaxation import RelaxationBound
from formulations.engines import EngineOptions
from formulations.engines import cpsat as engine
from formulations.offline.backend import avg_jct_from_total
from formulations.offline.cpsat import constraints
from formulations.offline.cpsat.objective import set_objective
from formulations.offline.cpsat.solve import hints as schedule_hints
from formulations.offline.cpsat.variables import CpVars, add_variables
from formulations.offline.data import OfflineData
from formulations.offline.families import FAMILIES
from formulations.result import SolveStatus

#: The CP-SAT families that read GPU ids; replaced by GPU counting.
GPU_FAMILIES = frozenset({"placement", "capacity", "corun", "no_idle_wait", "symmetry"})
#: Deterministic-time limit of :func:`placement_free_bound` (CP-SAT's deterministic seconds).
TIME_LIMIT = 60.0


def build_placement_free(data: OfflineData) -> tuple[cp_model.CpModel, CpVars, dict[Any, Any]]:
    """The model, its CP-SAT variables and the shared-GPU counts h_qt (keyed ``(q, t)``).

    The GPU-id variables of :func:`formulations.offline.cpsat.variables.add_variables` are made
    and left free (no constraint reads them; CP-SAT's presolve removes them).
    """
    model = cp_model.CpModel()
    v = add_variables(model, data)
    for family in FAMILIES:
        if family.name not in GPU_FAMILIES:
            getattr(constraints, family.function)(model, data, v)
    shared: dict[tuple[int, int], Any] = {}
    of_job: dict[tuple[int, int], list[Any]] = {}
    of_slot: dict[int, list[Any]] = {}
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        if not pair.any_fit:
            model.add(v.p[q] == 0)
            continue
        both = min(data.jobs[i].gpus, data.jobs[k].gpus)
        for t in pair.overlap:
            corun = v.v[q, t]
            model.add_bool_or([v.p[q].Not(), v.r[i, t].Not(), v.r[k, t].Not(), corun])
            model.add_implication(corun, v.p[q])
            h = shared[q, t] = model.new_int_var(0, both, f"h_{q}_{t}")
            model.add(h <= both * corun)
            model.add(h >= corun)
            of_job.setdefault((i, t), []).append(h)
            of_job.setdefault((k, t), []).append(h)
            of_slot.setdefault(t, []).append(h)
    for (i, t), counts in of_job.items():
        model.add(sum(counts) <= data.jobs[i].gpus * v.r[i, t])
    for t in range(data.horizon):
        present = data.present(t)
        if present:
            held = sum(data.jobs[i].gpus * v.r[i, t] for i in present)
            model.add(held - sum(of_slot.get(t, [])) <= len(data.gpus))
    set_objective(model, data, v)
    return model, v, shared


def placement_free_bound(
    data: OfflineData,
    *,
    time_limit: float | None = TIME_LIMIT,
    workers: int = 1,
    seed: int = 0,
    hinted: bool = True,
    deadline: float | None = None,
    lb_tree_search: bool = False,
    deterministic: bool = True,
) -> RelaxationBound:
    """Solve the placement-free model with CP-SAT; its optimum (or CP-SAT's bound when the
    limit stops it) bounds the model's average JCT from below.

    Parameters
    ----------
    data
        The offline model's data (its windows and the heuristic's bound, as for the model).
    time_limit
        CP-SAT's deterministic-time limit (reproducible with one worker; ``None``: none).
    workers, seed
        CP-SAT's workers and random seed.
    hinted
        Hint the heuristic's starts, last slots and options (its GPU ids are not in the model).
    deadline
        A ``time.monotonic()`` wall-clock guard (``None``: none); a run it stops is not
        reproducible (``limit`` says so).
    lb_tree_search
        CP-SAT's ``optimize_with_lb_tree_search``: a search that raises the bound faster in a
        short budget but proves optima later (docs/formulations.md §2.10 item 6, measured).
    deterministic
        ``False``: ``time_limit`` is wall-clock seconds (not reproducible).

    Returns
    -------
    RelaxationBound
        ``bound`` in seconds of average JCT (``None`` without one); status OPTIMAL when CP-SAT
        proved the model's optimum.
    """
    if data.infeasible is not None:
        return RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0)
    model, v, _ = build_placement_free(data)
    hints: Iterable[tuple[Any, int]] = ()
    if hinted:
        gpu_ids = {id(lit) for lit in v.x.values()}
        hints = [(lit, value) for lit, value in schedule_hints(data, v) if id(lit) not in gpu_ids]
    options = EngineOptions(
        time_limit=time_limit,
        deterministic=deterministic,
        workers=workers,
        seed=seed,
        deadline=deadline,
        cpsat_parameters=(("optimize_with_lb_tree_search", True),) if lb_tree_search else (),
    )
    run = engine.solve(model, options, hints=hints)
    units = run.bound
    if run.status is SolveStatus.OPTIMAL and run.objective is not None:
        units = run.objective
    bound = None if units is None else _avg_jct(data, units)
    return RelaxationBound(run.status, bound, run.runtime_s, run.limit)


def _avg_jct(data: OfflineData, units: float) -> float:
    """Average JCT (s) of a total of finish units (dt / F each), as the CP-SAT backend."""
    return avg_jct_from_total(data, units * data.dt / data.time_units_per_slot)
