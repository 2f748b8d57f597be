"""The solver engine layer (docs/formulations.md §3): one status rule, limits, quiet output.

Every exact model runs its solver through ``formulations.engines``; these tests pin the status
rule, check each backend's facts on tiny models (optimal, infeasible, stopped at a limit) and
that no solver writes to standard output, whoever calls it.
"""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
from pathlib import Path

import pulp
import pytest
from ortools.sat.python import cp_model

from formulations.engines import EngineOptions, status_of
from formulations.engines import cpsat as cpsat_engine
from formulations.engines import milp as milp_engine
from formulations.result import SolveStatus

ROOT = Path(__file__).resolve().parents[2]
MILP = ("highs", "cbc")


@pytest.mark.parametrize(
    ("optimal", "infeasible", "solution", "stopped"),
    list(itertools.product([False, True], repeat=4)),
)
def test_status_rule(optimal: bool, infeasible: bool, solution: bool, stopped: bool) -> None:
    """First match wins: proof of optimality, proof of infeasibility, a solution, the limit."""
    status = status_of(optimal=optimal, infeasible=infeasible, solution=solution, stopped=stopped)
    if optimal:
        assert status is SolveStatus.OPTIMAL
    elif infeasible:
        assert status is SolveStatus.INFEASIBLE
    elif solution:
        assert status is SolveStatus.FEASIBLE
    elif stopped:
        assert status is SolveStatus.TIME_LIMIT
    else:
        assert status is SolveStatus.UNKNOWN


# -- CP-SAT ---------------------------------------------------------------------------------------
def _cp_knapsack(infeasible: bool = False) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(4)]
    model.add(sum((i + 2) * v for i, v in enumerate(x)) <= 7)
    if infeasible:
        model.add(sum(x) >= 4)
    model.maximize(sum((i + 1) ** 2 * v for i, v in enumerate(x)))
    return model, x


def test_cpsat_optimal_with_bound_and_values() -> None:
    model, x = _cp_knapsack()
    run = cpsat_engine.solve(model, EngineOptions(time_limit=10.0))
    assert run.status is SolveStatus.OPTIMAL
    assert run.objective == run.bound == 17.0  # items 0 and 3 (weights 2 + 5, values 1 + 16)
    assert [run.value(v) for v in x] == [1, 0, 0, 1]
    assert run.limit is None and run.info["solver_status"] == "OPTIMAL"


def test_cpsat_infeasible() -> None:
    model, _ = _cp_knapsack(infeasible=True)
    run = cpsat_engine.solve(model, EngineOptions())
    assert run.status is SolveStatus.INFEASIBLE
    assert run.objective is None and run.bound is None


def _cp_hard() -> cp_model.CpModel:
    """A subset-sum on 60 large random weights: no solution within a millisecond."""
    rng = random.Random(0)
    model = cp_model.CpModel()
    weights = [rng.randrange(10**6, 10**7) for _ in range(60)]
    x = [model.new_bool_var(f"x{i}") for i in range(60)]
    model.add(sum(w * v for w, v in zip(weights, x, strict=True)) == sum(weights) // 2 + 1)
    model.minimize(sum(x))
    return model


@pytest.mark.parametrize("deterministic", [False, True])
def test_cpsat_stopped_without_a_solution_is_time_limit(deterministic: bool) -> None:
    run = cpsat_engine.solve(
        _cp_hard(), EngineOptions(time_limit=1e-3, deterministic=deterministic)
    )
    assert run.status is SolveStatus.TIME_LIMIT
    assert run.objective is None and run.bound is not None
    assert run.limit == ("deterministic time" if deterministic else "wall-clock")


def test_cpsat_parameters_are_passed_by_name() -> None:
    """A named CP-SAT parameter takes effect: stopped after the hinted first solution."""
    params = (("stop_after_first_solution", True), ("cp_model_presolve", False))
    model, x = _cp_knapsack()
    run = cpsat_engine.solve(
        model, EngineOptions(cpsat_parameters=params), hints=[(v, 0) for v in x]
    )
    assert run.status is SolveStatus.FEASIBLE and run.objective == 0.0
    assert run.bound is not None and run.bound > 17.0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("no_such_parameter", 1),
        ("FIXED_SEARCH", 1),  # an enum constant, not a field
        ("num_workers", "two"),
        ("num_workers", True),
        ("optimize_with_lb_tree_search", 2.5),
    ],
)
def test_cpsat_refuses_an_unknown_or_mistyped_parameter(
    name: str, value: bool | int | float | str
) -> None:
    model, _ = _cp_knapsack()
    with pytest.raises(ValueError, match=name):
        cpsat_engine.solve(model, EngineOptions(cpsat_parameters=((name, value),)))


def test_cpsat_hint_is_given() -> None:
    model, x = _cp_knapsack()
    hints = [(v, value) for v, value in zip(x, [1, 0, 0, 1], strict=True)]
    run = cpsat_engine.solve(model, EngineOptions(), hints=hints)
    assert len(model.proto.solution_hint.vars) == 4
    assert run.status is SolveStatus.OPTIMAL


# -- MILP -----------------------------------------------------------------------------------------
def _lp_knapsack(infeasible: bool = False) -> tuple[pulp.LpProblem, list[pulp.LpVariable]]:
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    x = [prob.add_variable(f"x{i}", cat=pulp.LpBinary) for i in range(4)]
    prob += pulp.lpSum((i + 1) ** 2 * v for i, v in enumerate(x)) + 10
    prob += pulp.lpSum((i + 2) * v for i, v in enumerate(x)) <= 7
    if infeasible:
        prob += pulp.lpSum(x) >= 4
    return prob, x


@pytest.mark.parametrize("backend", MILP)
def test_milp_optimal_with_bound_in_the_model_sense(backend: str) -> None:
    """The bound is on PuLP's objective: a maximization, with its constant (HiGHS gets neither)."""
    prob, x = _lp_knapsack()
    run = milp_engine.solve(prob, EngineOptions(time_limit=10.0), backend=backend, gap_rel=0.0)
    assert run.status is SolveStatus.OPTIMAL
    assert run.objective == pytest.approx(27.0)
    assert [round(run.value(v)) for v in x] == [1, 0, 0, 1]
    if backend == "highs":
        assert run.bound == pytest.approx(27.0)
    else:
        assert run.bound is None  # CBC reports none
    assert run.limit is None


@pytest.mark.parametrize("backend", MILP)
def test_milp_infeasible(backend: str) -> None:
    prob, _ = _lp_knapsack(infeasible=True)
    run = milp_engine.solve(prob, EngineOptions(), backend=backend)
    assert run.status is SolveStatus.INFEASIBLE
    assert run.objective is None and run.bound is None


@pytest.mark.parametrize("backend", MILP)
def test_milp_start_is_taken(backend: str) -> None:
    """A start (HiGHS ``setSolution``, CBC warm start) does not change the optimum."""
    prob, x = _lp_knapsack()
    start = dict(zip(x, [1.0, 1.0, 0.0, 0.0], strict=True))
    run = milp_engine.solve(prob, EngineOptions(), backend=backend, start=start)
    assert run.status is SolveStatus.OPTIMAL
    assert run.objective == pytest.approx(27.0)


def test_milp_unknown_backend() -> None:
    prob, _ = _lp_knapsack()
    with pytest.raises(ValueError, match="MILP backend"):
        milp_engine.solve(prob, EngineOptions(), backend="glpk")


# -- one place runs the solvers, and none writes to stdout -----------------------------------------
def test_only_the_engines_run_solvers() -> None:
    """No module of ``formulations`` outside ``engines/`` creates a solver or calls one."""
    needles = (
        "CpSolver(", "pulp.HiGHS(", "PULP_CBC_CMD(", ".solve(solver", "stdout_to_stderr",
        "Highs(", "import highspy",
    )  # fmt: skip
    engines = ROOT / "formulations" / "engines"
    for path in (ROOT / "formulations").rglob("*.py"):
        if engines in path.parents:
            continue
        text = path.read_text(encoding="utf-8")
        for needle in needles:
            assert needle not in text, f"{path.relative_to(ROOT)} uses {needle}"


def test_exact_round_milp_keeps_the_highs_banner_off_stdout() -> None:
    """HiGHS prints its banner from native code to descriptor 1 (issue: exact-round printed it)."""
    code = (
        "import formulations; from sjfbsbf.policies import make_policy; "
        "from sjfbsbf.sim.simulator import simulate; "
        "from sjfbsbf.workloads.generators import default_workload; "
        "r = simulate(default_workload(3, n_jobs=30), make_policy('exact-round', solver='milp')); "
        "assert r.stats['rounds'] > 0"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("backend", ["cpsat", *MILP])
def test_log_goes_to_stderr_never_stdout(backend: str) -> None:
    """With ``log`` the solver's output is on stderr; without it, nowhere."""
    code = (
        "import sys; from formulations.engines import EngineOptions\n"
        f"backend = {backend!r}\n"
        "log = sys.argv[1] == 'log'\n"
        "if backend == 'cpsat':\n"
        "    from ortools.sat.python import cp_model\n"
        "    from formulations.engines.cpsat import solve\n"
        "    m = cp_model.CpModel(); x = m.new_bool_var('x'); m.maximize(x)\n"
        "    run = solve(m, EngineOptions(log=log))\n"
        "else:\n"
        "    import pulp\n"
        "    from formulations.engines.milp import solve\n"
        "    p = pulp.LpProblem('p', pulp.LpMaximize); x = p.add_variable('x', cat='Binary')\n"
        "    p += x\n"
        "    run = solve(p, EngineOptions(log=log), backend=backend)\n"
        "print('status', run.status.value)\n"
    )
    for mode in ("log", "quiet"):
        done = subprocess.run(
            [sys.executable, "-c", code, mode],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "status optimal\n", (mode, done.stdout)
        if mode == "log":
            assert done.stderr.strip(), "the log should be on stderr"
        elif backend != "cbc":  # CBC's subprocess is silent without msg
            assert "HiGHS" not in done.stderr and "CP-SAT" not in done.stderr


@pytest.mark.parametrize(("workers", "threads"), [(1, None), (2, 2)])
def test_cbc_runs_serial_unless_asked_for_threads(
    workers: int, threads: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "-threads 1" runs CBC's threaded code, which can hang on a lock (coin-or/Cbc#640)."""
    seen: dict[str, object] = {}
    original = pulp.PULP_CBC_CMD

    def spy(**kwargs: object) -> pulp.LpSolver:
        seen.update(kwargs)
        return original(**kwargs)

    monkeypatch.setattr(pulp, "PULP_CBC_CMD", spy)
    prob, _ = _lp_knapsack()
    run = milp_engine.solve(prob, EngineOptions(time_limit=10.0, workers=workers), backend="cbc")
    assert run.status is SolveStatus.OPTIMAL
    assert seen["threads"] == threads


def test_the_column_lp_grows_warm_and_reads_duals_status_and_bounds() -> None:
    """ColumnLP: a cheaper column added after a solve enters and moves the row's dual; an LP
    with no column meeting its row is infeasible; an integer column gives a MIP with a bound."""
    from formulations.engines.columns import ColumnLP

    lp = ColumnLP()
    assert lp.add_rows([1.0], [math.inf]) == 0  # x + y ≥ 1
    lp.add_column(3.0, [0], [1.0])
    assert lp.solve() is SolveStatus.OPTIMAL
    assert lp.objective == pytest.approx(3.0) and lp.row_duals()[0] == pytest.approx(3.0)
    assert lp.add_column(2.0, [0], [1.0]) == 1 and lp.columns == 2
    assert lp.solve() is SolveStatus.OPTIMAL
    assert lp.objective == pytest.approx(2.0) and lp.row_duals()[0] == pytest.approx(2.0)
    empty = ColumnLP()
    empty.add_rows([1.0], [2.0])
    empty.add_column(1.0, [0], [1.0], upper=0.5)  # cannot reach 1
    assert empty.solve() is SolveStatus.INFEASIBLE and "nfeasible" in empty.describe()
    mip = ColumnLP()
    mip.add_rows([0.5], [1.5])
    mip.add_column(1.0, [0], [1.0], integer=True)
    assert mip.solve(time_limit=10.0) is SolveStatus.OPTIMAL
    assert mip.objective == pytest.approx(1.0) and mip.bound == pytest.approx(1.0)
