"""The column-generation bound (formulations.bounds.colgen, docs/formulations.md §2.10 item 7):
exact pricing against brute-force enumeration, the LP of every column against column
generation, valid Lagrangian bounds at every round, below every proven optimum of the suite and
below brute force on drawn instances, a hand-computed column."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formulations.bounds.colgen import (
    Column,
    Master,
    colgen_bound,
    column_cost,
    column_space,
    enumerate_columns,
    full_master,
    price,
)
from formulations.bounds.fluid import fluid_bound
from formulations.offline import solve_offline
from formulations.offline.brute import solve_brute
from formulations.offline.preprocess import preprocess
from formulations.result import SolveStatus
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import make_interference
from tests.offline_cases import DT, FAST_TINY, catalog_job, recorded_suite, tiny

#: Suite instances small enough to enumerate every column (a few thousand each).
ENUMERABLE = ("n4-g2-light-a", "n5-2x2-light-a", "n6-g4-all-a")
#: Those whose every-column master solves in about a second (n5-2x2-light-a takes 15 s).
QUICK = ("n4-g2-light-a", "n6-g4-all-a")


def _value(column: Column, alone: np.ndarray, benefit: np.ndarray) -> float:
    """A column's value under slot costs, computed slot by slot."""
    total = column.cost
    for q, shared in enumerate(column.shared):
        t = column.start + q
        total += alone[t] - (benefit[column.option, t] if shared else 0.0)
    return total


def _check_pricing(
    instance: Instance, rng: np.random.Generator, levels: int, wide: bool = True
) -> None:
    """Per job, option and start, the priced column is a column, its value is what pricing
    says, and no enumerated column is cheaper: under duals drawn from ``levels`` values (ties),
    and under a sharing benefit that grows steeply with the slot, so the cheapest columns hold
    their GPUs as long as they may (n_j slots) and share wherever they can. ``wide``: windows
    without the heuristic's bound (room for the longest columns)."""
    data = preprocess(instance, DT, use_heuristic_bound=not wide)
    steep = np.arange(data.horizon) * 1000.0
    for by_option, drawn in ((True, True), (False, True), (True, False)):
        space = column_space(data, by_option=by_option)
        for j, job in enumerate(data.jobs):
            alone = rng.integers(0, levels, data.horizon) * 7.5
            benefit = rng.integers(-levels, levels, (len(job.options), data.horizon)) * 5.0
            if not drawn:
                alone, benefit = np.zeros(data.horizon), np.tile(steep, (len(job.options), 1))
            cheapest: dict[tuple[int, int], float] = {}
            for column in enumerate_columns(space, j):
                key = (column.option, column.start)
                value = _value(column, alone, benefit)
                cheapest[key] = min(cheapest.get(key, math.inf), value)
            priced = price(space, j, alone, benefit)
            assert {(c.option, c.start) for _, c in priced} == set(cheapest)
            for value, column in priced:
                cost = column_cost(space, j, column.option, column.start, column.shared)
                assert cost == pytest.approx(column.cost, abs=1e-9)
                assert _value(column, alone, benefit) == pytest.approx(value, abs=1e-6)
                assert value == pytest.approx(cheapest[column.option, column.start], abs=1e-6)


@pytest.mark.parametrize("name", FAST_TINY)
def test_pricing_finds_the_cheapest_column_of_the_tiny_cases(name: str) -> None:
    _check_pricing(tiny(name), np.random.default_rng(7), 4)


def test_pricing_of_a_job_nobody_fits_beside_never_shares() -> None:
    """A lone job has no shared pace: however much sharing would be worth, no column shares."""
    lone = Instance(Cluster(1, 1, 12.0), (Job(0, 0.0, 1, duration=150.0),))
    _check_pricing(lone, np.random.default_rng(3), 4)
    data = preprocess(lone, DT, use_heuristic_bound=False)
    space = column_space(data)
    benefit = np.full((1, data.horizon), 1e6)
    priced = price(space, 0, np.zeros(data.horizon), benefit)
    assert priced and not any(any(c.shared) for _, c in priced)


def test_a_column_may_hold_its_gpus_for_n_j_slots_and_no_more() -> None:
    """n_j (the most slots a simulated job holds its GPUs) bounds a column's length exactly."""
    data = preprocess(tiny("share"), DT, use_heuristic_bound=False)
    space = column_space(data)
    job, n = data.jobs[0], space.longest[0]
    start = job.first_start
    assert start + n <= job.last_end  # the windows allow a longer column: n_j decides
    assert column_cost(space, 0, 0, start, (False,) * n) == pytest.approx(DT * (start + n - 1))
    assert column_cost(space, 0, 0, start, (False,) * (n + 1)) is None


@pytest.mark.parametrize("name", ENUMERABLE)
def test_pricing_finds_the_cheapest_column_of_small_suite_instances(name: str) -> None:
    _check_pricing(recorded_suite()[name][1], np.random.default_rng(11), 3, wide=False)


@pytest.mark.parametrize(
    "name",
    [*QUICK, *(pytest.param(n, marks=pytest.mark.slow) for n in ENUMERABLE if n not in QUICK)],
)
def test_column_generation_reaches_the_lp_of_every_column(name: str) -> None:
    """Column generation's optimum equals the master LP over every enumerated column; every
    round's Lagrangian bound lies below it; the integer master lies between it and the
    recorded optimum."""
    optimum, instance = recorded_suite()[name]
    data = preprocess(instance, optimum.dt)
    run = colgen_bound(data)
    assert run.bound.status is SolveStatus.OPTIMAL and run.bound.bound is not None
    full = full_master(data)
    assert full.status is SolveStatus.OPTIMAL and full.bound is not None
    assert run.bound.bound == pytest.approx(full.bound, rel=1e-7)
    assert run.master == pytest.approx(full.bound, rel=1e-7)
    for _, _, lagrangian in run.history:
        assert lagrangian <= full.bound * (1 + 1e-9)
    integer = full_master(data, integer=True)
    assert integer.bound is not None
    assert full.bound * (1 - 1e-9) <= integer.bound
    u = optimum.replayed_avg_jct
    assert u is not None and integer.bound <= u + optimum.tolerance_s + 1e-6 * u


def test_a_lone_job_costs_its_hand_computed_jct() -> None:
    """One job arriving at 30 s for 119.9 s: it starts at 60 s and holds slots 1 and 2 (its
    windows allow nothing else); the column finishes at 179.9 s, and it is the bound."""
    instance = Instance(Cluster(1, 2, 12.0), (Job(0, 30.0, 1, duration=119.9),))
    data = preprocess(instance, DT)
    columns = list(enumerate_columns(column_space(data), 0))
    assert [(c.start, c.shared) for c in columns] == [(1, (False, False))]
    assert columns[0].cost == pytest.approx(179.9 - 30.0, abs=0.01)
    assert colgen_bound(data).bound.bound == pytest.approx(columns[0].cost, abs=1e-9)


def test_a_shared_column_costs_its_hand_computed_finish() -> None:
    """Job 0 of the "share" case (just under two slots of dqn work W, arriving at 0; alone P,
    shared ψ units per slot at its fastest option): alone for two slots it finishes (W − P)/P
    into the second; alone, shared, alone it needs a third slot and finishes (W − P − ψ)/P
    into it; shared throughout, (W − 2ψ)/ψ into the third; one shared slot cannot finish."""
    data = preprocess(tiny("share"), DT)
    space = column_space(data)
    job = data.jobs[0]
    start = job.first_start
    assert job.last_end >= start + 2
    o = max(range(len(job.options)), key=lambda a: job.options[a].alone)
    work, alone, together = job.work, job.options[o].alone, space.shared_pace[0][o]
    assert 0 < together < alone < work <= 2 * alone
    assert alone + together < work <= 3 * together

    def cost(*shared: bool) -> float | None:
        return column_cost(space, 0, o, start, shared)

    assert cost(False, False) == pytest.approx(DT * (start + 1 + (work - alone) / alone))
    three = DT * (start + 2 + (work - alone - together) / alone)
    assert cost(False, True, False) == pytest.approx(three)
    assert cost(True, True, True) == pytest.approx(
        DT * (start + 2 + (work - 2 * together) / together)
    )
    assert cost(True) is None and cost(False, True) is None


def test_a_column_that_cannot_finish_or_shares_alone_is_none() -> None:
    instance = tiny("share")
    data = preprocess(instance, DT)
    space = column_space(data)
    job = data.jobs[0]
    start = job.first_start
    assert column_cost(space, 0, 0, start, (False,)) is None  # two slots of work in one
    outside = start - 1 if start else job.last_start + 1
    assert column_cost(space, 0, 0, outside, (False,) * 3) is None
    assert column_cost(space, 0, 0, start, ()) is None
    late = data.jobs[1]  # arrives in slot 1: a start in slot 0 is before it, however short
    assert late.first_start == 1
    assert column_cost(space, 1, 0, 0, (False, False)) is None
    assert column_cost(space, 1, 0, 1, (False, False)) is not None
    alone = Instance(Cluster(1, 1, 12.0), (Job(0, 0.0, 1, duration=60.0),))
    lone = column_space(preprocess(alone, DT))
    assert lone.shared_pace == ((0,),)
    assert column_cost(lone, 0, 0, 0, (True,)) is None


def test_the_bound_holds_under_a_time_limit_and_refuses_no_rounds() -> None:
    """Stopped after its first round, the bound is that round's Lagrangian bound (valid, below
    the LP optimum) and says what stopped it."""
    optimum, instance = recorded_suite()["n6-g4-all-a"]
    data = preprocess(instance, optimum.dt)
    full = colgen_bound(data)
    stopped = colgen_bound(data, time_limit=0.0)
    assert stopped.bound.status is SolveStatus.FEASIBLE
    assert stopped.bound.limit == "wall-clock" and stopped.iterations == 1
    assert stopped.bound.bound is not None and full.bound.bound is not None
    assert stopped.bound.bound <= full.bound.bound
    capped = colgen_bound(data, max_iterations=2)
    assert capped.bound.limit == "iterations" and capped.iterations == 2
    with pytest.raises(ValueError, match="max_iterations must be at least 1, not 0"):
        colgen_bound(data, max_iterations=0)


def test_the_best_lagrangian_bound_is_kept_when_a_later_round_is_lower() -> None:
    """The Lagrangian bound is not monotone (n5-g2-light-a: its fourth round is below its
    third); stopped after the fourth, the run reports the third's. At the optimum the last
    master's value and the bound agree."""
    optimum, instance = recorded_suite()["n5-g2-light-a"]
    data = preprocess(instance, optimum.dt)
    full = colgen_bound(data)
    values = [lagrangian for _, _, lagrangian in full.history]
    assert values[3] < values[2]
    stopped = colgen_bound(data, max_iterations=4)
    assert stopped.bound.bound == pytest.approx(max(values[:4]), rel=1e-12)
    assert full.master == pytest.approx(full.bound.bound, rel=1e-9)
    big, large = recorded_suite()["n12-g8-all-c"]
    run = colgen_bound(preprocess(large, big.dt))
    assert run.bound.status is SolveStatus.OPTIMAL
    assert run.master == pytest.approx(run.bound.bound, rel=1e-9)


def test_the_bound_is_below_every_proven_optimum_of_the_suite() -> None:
    """All 49 proven instances (about 10 s): to its LP optimum, ≤ the optimum + tolerance."""
    checked = 0
    for optimum, instance in recorded_suite().values():
        if optimum.status != "optimal":
            continue
        data = preprocess(instance, optimum.dt)
        run = colgen_bound(data)
        u = optimum.replayed_avg_jct
        assert run.bound.status is SolveStatus.OPTIMAL, optimum.name
        assert run.bound.bound is not None and u is not None
        assert run.bound.bound <= u + optimum.tolerance_s + 1e-6 * u, optimum.name
        checked += 1
    assert checked >= 49


@st.composite
def _drawn(draw: st.DrawFn) -> Instance:
    gpus = draw(st.integers(1, 2))
    cluster = Cluster(1, gpus, 12.0)
    jobs = []
    for job_id in range(draw(st.integers(1, 3))):
        arrival = draw(st.integers(0, 2))
        slots = draw(st.integers(1, 2))
        size = draw(st.integers(1, gpus))
        if draw(st.booleans()):
            model = draw(st.sampled_from(["dqn", "a2c", "shufflenet_v2", "bert"]))
            jobs.append(catalog_job(job_id, arrival, size, model, slots, cluster))
        else:
            offset = draw(st.sampled_from([0.0, 1e-6, -1e-6, 0.5]))
            duration = slots * DT + offset
            jobs.append(Job(job_id, arrival * DT + abs(offset), size, duration=duration))
    return Instance(cluster, tuple(jobs), name="drawn")


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_drawn(), st.sampled_from(["time-slicing", "mps"]))
def test_the_bound_is_below_brute_force_on_drawn_instances(instance: Instance, preset: str) -> None:
    """≤ the best schedule brute force finds (every start tick, GPU set and accumulation,
    simulated), with times on, just off and between slot boundaries."""
    model = make_interference(preset)
    data = preprocess(instance, DT, interference=model)
    run = colgen_bound(data)
    assert run.bound.status is SolveStatus.OPTIMAL and run.bound.bound is not None
    exact = solve_brute(instance, DT, interference=model, max_combinations=3_000)
    assert exact.replayed_avg_jct is not None
    assert run.bound.bound <= exact.replayed_avg_jct + data.tolerance_s + 1e-9


def test_the_master_solves_after_another_highs_model_in_the_process() -> None:
    """HiGHS fixes its thread count once per process: a master that set its own count after
    the fluid LP (PuLP's HiGHS) ran could not solve, and its first round was taken for the
    optimum (n20-g8-all-a: 167.76 reported as optimal against 183.06). Run after the fluid LP
    here, column generation still reaches the LP over every column."""
    optimum, instance = recorded_suite()["n6-g4-all-a"]
    data = preprocess(instance, optimum.dt)
    assert fluid_bound(data).bound is not None
    run = colgen_bound(data)
    assert run.bound.status is SolveStatus.OPTIMAL and run.iterations > 1
    assert run.bound.bound == pytest.approx(full_master(data).bound, rel=1e-7)


def test_a_master_highs_could_not_solve_is_reported_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When HiGHS does not reach a restricted master's optimum, the run stops with the bounds
    of the rounds before (valid), says why, and is not called optimal."""
    optimum, instance = recorded_suite()["n6-g4-all-a"]
    data = preprocess(instance, optimum.dt)
    solve, calls = Master.solve, []

    def failing(self: Master) -> float | None:
        calls.append(1)
        return solve(self) if len(calls) == 1 else None

    monkeypatch.setattr(Master, "solve", failing)
    run = colgen_bound(data)
    assert run.bound.status is SolveStatus.UNKNOWN and run.iterations == 2
    assert run.bound.limit is not None and run.bound.limit.startswith("HiGHS: ")
    monkeypatch.setattr(Master, "solve", solve)
    assert run.bound.bound is not None
    assert run.bound.bound <= colgen_bound(data).bound.bound  # type: ignore[operator]


def test_the_bounds_solver_runs_it_and_the_model_only_when_asked() -> None:
    """``solve_offline(..., "bounds")`` runs column generation to its optimum and L is the best
    of every bound; the model's solvers leave it out unless ``colgen=True``."""
    optimum, instance = recorded_suite()["n12-g8-all-c"]
    result = solve_offline(instance, "bounds", dt=optimum.dt, search=0)
    bounds = result.info["bounds"]
    assert result.info["colgen"]["status"] == "optimal" and result.info["colgen"]["rounds"] > 1
    assert bounds["colgen"] == result.info["colgen"]["bound"]
    assert bounds["colgen"] > bounds["combinatorial"]
    assert result.replayed_avg_jct is not None and result.bound is not None
    best = max(value for value in bounds.values() if value is not None)
    assert result.bound == pytest.approx(min(result.replayed_avg_jct, best), abs=1e-12)
    small, tiny_instance = recorded_suite()["n4-g2-light-a"]
    plain = solve_offline(tiny_instance, "cpsat", dt=small.dt, time_limit=10)
    assert plain.info["bounds"]["colgen"] is None and "colgen" not in plain.info
    asked = solve_offline(tiny_instance, "cpsat", dt=small.dt, time_limit=10, colgen=True)
    assert asked.info["bounds"]["colgen"] is not None
    assert asked.info["bounds"]["colgen"] <= small.replayed_avg_jct + small.tolerance_s  # type: ignore[operator]


def test_a_deadline_already_past_stops_after_one_round() -> None:
    optimum, instance = recorded_suite()["n6-g4-all-a"]
    data = preprocess(instance, optimum.dt)
    run = colgen_bound(data, time_limit=None, deadline=time.monotonic())
    assert run.iterations == 1 and run.bound.limit == "wall-clock"
    assert run.bound.status is SolveStatus.FEASIBLE
