"""The offline MILP's variables: :class:`MilpVars` and :func:`add_variables` (docs/formulations.md
§2.3).

Binaries y, e, x, z; the auxiliary co-run and occupancy variables are continuous in [0, 1] and only
bounded from below by the constraints (minimising completion times drives them to the products
of binaries they stand for); progress in slots of work (work units ÷ L), so rows are of order one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import pulp

from formulations.offline.data import OfflineData
from formulations.offline.pairs import slowing_options

Var: TypeAlias = pulp.LpVariable
Expr: TypeAlias = pulp.LpAffineExpression


@dataclass
class MilpVars:
    """The model's variables, keyed by job position (i, k), slot t, GPU g, option o, pair index.

    Attributes
    ----------
    y, e
        Start and last-occupied-slot indicators ``[i, t]`` (binary).
    r
        Running (occupying) in slot ``[i, t]`` (continuous, equal to a 0/1 expression).
    x
        Placement ``[i, g]`` (binary).
    z
        Option ``[i, o]`` (binary).
    node
        Node used ``[i, v]`` (only for jobs whose step time depends on spanning).
    occ
        Occupancy ``[i, g, t]`` ≥ x + r − 1 (slots where three jobs might run).
    p
        Pair shares a GPU ``[pair]``; ``v`` co-runs on one ``[pair, t]``; ``ever`` ``[pair]``.
    w
        Option combination of a pair ``[pair, c]`` (= z_ic · z_kc; continuous, integral when
        z is).
    last
        Partner runs in the job's last slot ``[i, k]``.
    prog
        Work (slots of work) in a non-last slot ``[i, t]``; ``rest`` in the last slot ``[i]``.
    frac
        Share of the last slot used ``[i]``.
    """

    y: dict[tuple[int, int], Var]
    e: dict[tuple[int, int], Var]
    r: dict[tuple[int, int], Var]
    x: dict[tuple[int, int], Var]
    z: dict[tuple[int, int], Var]
    node: dict[tuple[int, int], Var]
    occ: dict[tuple[int, int, int], Var]
    p: dict[int, Var]
    v: dict[tuple[int, int], Var]
    ever: dict[int, Var]
    common: dict[tuple[int, int], Var]
    w: dict[tuple[int, int], Var]
    last: dict[tuple[int, int], Var]
    prog: dict[tuple[int, int], Var]
    rest: dict[int, Var]
    frac: dict[int, Var]


def add_variables(prob: pulp.LpProblem, data: OfflineData) -> MilpVars:
    """All variables with their domains."""
    new = prob.add_variable
    cont, binary = pulp.LpContinuous, pulp.LpBinary
    y, e, r, x, z, node, prog, rest, frac = {}, {}, {}, {}, {}, {}, {}, {}, {}
    for i, job in enumerate(data.jobs):
        for t in job.start_slots:
            y[i, t] = new(f"y_{i}_{t}", cat=binary)
        for t in job.end_slots:
            e[i, t] = new(f"e_{i}_{t}", cat=binary)
        top = job.max_progress / data.work_units_per_slot
        for t in job.slots:
            r[i, t] = new(f"r_{i}_{t}", 0, 1, cont)
            prog[i, t] = new(f"prog_{i}_{t}", 0, top, cont)
        rest[i] = new(f"rest_{i}", 0, top, cont)
        frac[i] = new(f"frac_{i}", 0, 1, cont)
        for g in data.gpus:
            x[i, g] = new(f"x_{i}_{g}", cat=binary)
        for o in range(len(job.options)):
            z[i, o] = new(f"z_{i}_{o}", cat=binary)
        if job.link_spans:
            for n in range(len(data.nodes)):
                node[i, n] = new(f"node_{i}_{n}", 0, 1, cont)
    occ = {}
    for t in range(data.horizon):
        present = [i for i, job in enumerate(data.jobs) if t in job.slots]
        if len(present) > 2:
            for i in present:
                for g in data.gpus:
                    occ[i, g, t] = new(f"occ_{i}_{g}_{t}", 0, 1, cont)
    p, v, ever, common, w, last = {}, {}, {}, {}, {}, {}
    for q, pair in enumerate(data.pairs):
        p[q] = new(f"p_{q}", 0, 1, cont)
        for g in data.gpus:
            common[q, g] = new(f"common_{q}_{g}", 0, 1, cont)
        if not pair.any_fit:
            continue
        for t in pair.overlap:
            v[q, t] = new(f"v_{q}_{t}", 0, 1, cont)
        for c in range(len(pair.options)):
            w[q, c] = new(f"w_{q}_{c}", 0, 1, cont)
        if pair.conflicts:
            ever[q] = new(f"ever_{q}", 0, 1, cont)
        for a in (pair.first, pair.second):
            if slowing_options(data, pair, a):
                last[a, pair.other(a)] = new(f"last_{a}_{pair.other(a)}", 0, 1, cont)
    return MilpVars(y, e, r, x, z, node, occ, p, v, ever, common, w, last, prog, rest, frac)
