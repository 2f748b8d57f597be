"""Round files (sjfbsbf.round/1, formulations/round/io.py) and the regression suite of rounds in
``instances/rounds/``: rounds where SJF-BSBF's greedy lost most on the default workload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formulations.policy import _tolerance
from formulations.round.greedy import greedy_round
from formulations.round.io import SCHEMA, read_round, round_from_dict, round_to_dict, write_round
from formulations.round.solve import solve
from sjfbsbf.core.errors import InstanceError

ROUNDS = sorted((Path(__file__).resolve().parents[2] / "instances" / "rounds").glob("*.json"))


def test_the_suite_of_rounds_is_there() -> None:
    assert len(ROUNDS) >= 6


@pytest.mark.parametrize("path", ROUNDS, ids=lambda p: p.stem)
def test_recorded_round_the_greedy_loses(path: Path) -> None:
    """Every backend finds the recorded exact score; the greedy scores the recorded, lower one."""
    problem, meta = read_round(path)
    tol = _tolerance(problem)
    greedy = greedy_round(problem).score(problem)
    assert greedy == pytest.approx(meta["greedy"], abs=1e-9)
    for solver in ("cpsat", "milp"):
        result = solve(problem, solver, time_limit=30)
        assert result.status.value == "optimal", solver
        assert result.objective is not None
        assert result.objective == pytest.approx(meta["exact"], abs=tol), solver
        assert result.objective > greedy + tol  # the greedy loses here, as recorded
    if problem.size[0] <= 4 and problem.size[1] <= 6:
        brute = solve(problem, "brute")
        assert brute.objective == pytest.approx(meta["exact"], abs=tol)


@pytest.mark.parametrize("path", ROUNDS[:1], ids=lambda p: p.stem)
def test_round_trip(path: Path, tmp_path: Path) -> None:
    problem, meta = read_round(path)
    copy = tmp_path / "copy.json"
    write_round(problem, copy, meta)
    again, meta_again = read_round(copy)
    assert again == problem and meta_again == meta
    assert round_to_dict(again, meta) == json.loads(path.read_text(encoding="utf-8"))


def _good() -> dict[str, object]:
    return {
        "schema": SCHEMA,
        "jobs": [{"id": 1, "gpus": 2, "options": [1, 2], "memory": [9.0, 6.0]}],
        "hosts": [{"id": 2, "gpus": 2, "room": 7.0}],
        "idle": 0,
        "benefit": [[1, 2, 2, 30.0]],
    }


def test_a_minimal_round_reads() -> None:
    problem = round_from_dict(_good(), "r.json")
    assert problem.benefit == {(1, 2, 2): 30.0} and problem.threshold == 0.0
    assert greedy_round(problem).score(problem) == 30.0


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"schema": "sjfbsbf.round/2"}, "schema", "unsupported schema"),
        ({"extra": 1}, "extra", "unknown key"),
        ({"idle": "0"}, None, "idle must be an integer"),
        ({"jobs": {"id": 1}}, None, "expected a list"),
        ({"benefit": [[1, 2, 2]]}, None, "benefit entries are"),
        ({"benefit": [[9, 2, 2, 30.0]]}, None, "9"),
        ({"hosts": [{"id": 2, "gpus": 2}]}, None, "exactly the keys"),
    ],
)
def test_malformed_rounds_are_refused_in_one_line(
    change: dict[str, object], field: str | None, fragment: str
) -> None:
    data = _good() | change
    with pytest.raises(InstanceError) as info:
        round_from_dict(data, "bad.json")
    message = str(info.value)
    assert message.startswith("bad.json") and "\n" not in message and fragment in message
    assert info.value.field == field


def test_missing_key_is_named(tmp_path: Path) -> None:
    data = _good()
    del data["benefit"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InstanceError) as info:
        read_round(path)
    assert info.value.field == "benefit" and "missing" in str(info.value)
