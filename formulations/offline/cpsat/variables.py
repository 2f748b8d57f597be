"""The offline CP-SAT model's variables: :class:`CpVars` and :func:`add_variables`.

See docs/formulations.md §2.3.

Booleans where the MILP has binaries and [0, 1] auxiliaries; integers for progress (work units)
and the last slot's used time (units of dt / F).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from ortools.sat.python import cp_model

from formulations.offline.data import OfflineData
from formulations.offline.pairs import slowing_options

Lit: TypeAlias = cp_model.IntVar


@dataclass
class CpVars:
    """The model's variables (names and keys as in :class:`formulations.offline.milp.MilpVars`).

    ``frac`` counts ``dt / F`` units of the last slot; ``prog`` and ``rest`` count work units.
    """

    y: dict[tuple[int, int], Lit]
    e: dict[tuple[int, int], Lit]
    r: dict[tuple[int, int], Lit]
    x: dict[tuple[int, int], Lit]
    z: dict[tuple[int, int], Lit]
    node: dict[tuple[int, int], Lit]
    occ: dict[tuple[int, int, int], Lit]
    p: dict[int, Lit]
    v: dict[tuple[int, int], Lit]
    ever: dict[int, Lit]
    common: dict[tuple[int, int], Lit]
    w: dict[tuple[int, int], Lit]
    last: dict[tuple[int, int], Lit]
    prog: dict[tuple[int, int], cp_model.IntVar]
    rest: dict[int, cp_model.IntVar]
    frac: dict[int, cp_model.IntVar]


def add_variables(model: cp_model.CpModel, data: OfflineData) -> CpVars:
    """All variables with their domains."""
    y, e, r, x, z, node, prog, rest, frac = {}, {}, {}, {}, {}, {}, {}, {}, {}
    units = data.time_units_per_slot
    for i, job in enumerate(data.jobs):
        for t in job.start_slots:
            y[i, t] = model.new_bool_var(f"y_{i}_{t}")
        for t in job.end_slots:
            e[i, t] = model.new_bool_var(f"e_{i}_{t}")
        for t in job.slots:
            r[i, t] = model.new_bool_var(f"r_{i}_{t}")
            prog[i, t] = model.new_int_var(0, job.max_progress, f"prog_{i}_{t}")
        rest[i] = model.new_int_var(0, job.max_progress, f"rest_{i}")
        frac[i] = model.new_int_var(0, units, f"frac_{i}")
        for g in data.gpus:
            x[i, g] = model.new_bool_var(f"x_{i}_{g}")
        for o in range(len(job.options)):
            z[i, o] = model.new_bool_var(f"z_{i}_{o}")
        if job.link_spans:
            for n in range(len(data.nodes)):
                node[i, n] = model.new_bool_var(f"node_{i}_{n}")
    occ = {}
    for t in range(data.horizon):
        present = [i for i, job in enumerate(data.jobs) if t in job.slots]
        if len(present) > 2:
            for i in present:
                for g in data.gpus:
                    occ[i, g, t] = model.new_bool_var(f"occ_{i}_{g}_{t}")
    p, v, ever, common, w, last = {}, {}, {}, {}, {}, {}
    for q, pair in enumerate(data.pairs):
        p[q] = model.new_bool_var(f"p_{q}")
        for g in data.gpus:
            common[q, g] = model.new_bool_var(f"common_{q}_{g}")
        if not pair.any_fit:
            continue
        for t in pair.overlap:
            v[q, t] = model.new_bool_var(f"v_{q}_{t}")
        for c in range(len(pair.options)):
            w[q, c] = model.new_bool_var(f"w_{q}_{c}")
        if pair.conflicts:
            ever[q] = model.new_bool_var(f"ever_{q}")
        for a in (pair.first, pair.second):
            if slowing_options(data, pair, a):
                last[a, pair.other(a)] = model.new_bool_var(f"last_{a}_{pair.other(a)}")
    return CpVars(y, e, r, x, z, node, occ, p, v, ever, common, w, last, prog, rest, frac)
