"""A sweep's run records (:mod:`sjfbsbf.experiments.sweep_records`): what makes one usable.

``read_record`` reuses a record only when it is a run record of this key whose status is
``failed`` with its error, or ``ok`` with a results row of this key holding every metric as a
number and its two tables beside it; each other case is refused with the reason the sweep
prints. A row is checked to carry what one run gives (compared with a simulation run here
directly), and an input file edited after it was hashed stops the run.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sjfbsbf.core.errors import SweepError
from sjfbsbf.core.presets import make_interference
from sjfbsbf.experiments import sweep_records
from sjfbsbf.experiments.constants import with_constants
from sjfbsbf.experiments.sweep_records import (
    RUN_SCHEMA,
    attempt,
    execute,
    failure_record,
    read_record,
)
from sjfbsbf.experiments.sweep_spec import RunSpec
from sjfbsbf.experiments.sweep_workloads import build_instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.metrics import METRIC_LABELS
from sjfbsbf.sim.simulator import simulate

KEY = "0123456789abcdef"
WORKLOAD: dict[str, Any] = {
    "kind": "default",
    "n_jobs": 6,
    "nodes": 1,
    "gpus_per_node": 4,
    "gpu_mem_gb": 12.0,
}


def _run(policy: str = "sjf", **fields: Any) -> RunSpec:
    return RunSpec(
        sweep="s",
        workload=dict(WORKLOAD),
        seed=3,
        label="lbl",
        policy=policy,
        **({"sim": {"dt": 10.0}} | fields),
    )


def _ok_record(key: str = KEY, n_jobs: int = 2) -> dict[str, Any]:
    row: dict[str, Any] = {"key": key, "n_jobs": n_jobs}
    row |= {metric: 1.5 for metric in METRIC_LABELS}
    return {"schema": RUN_SCHEMA, "key": key, "status": "ok", "config": {}, "row": row}


def _write(directory: Path, record: Any, *, job_rows: int = 2, tables: bool = True) -> Path:
    path = directory / f"{KEY}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    if tables:
        pd.DataFrame({"job_id": range(job_rows)}).to_parquet(
            directory / f"{KEY}.jobs.parquet", index=False
        )
        pd.DataFrame({"start": [0.0], "end": [1.0]}).to_parquet(
            directory / f"{KEY}.utilisation.parquet", index=False
        )
    return path


def _problem(tmp_path: Path, record: Any, **kwargs: Any) -> str | None:
    found, problem = read_record(_write(tmp_path, record, **kwargs), KEY)
    assert (found is None) == (problem is not None)
    return problem


# -- usable records --------------------------------------------------------------------------------
def test_an_ok_record_with_every_metric_and_its_tables_is_used(tmp_path: Path) -> None:
    record = _ok_record()
    record["row"]["makespan"] = 7  # an integer is a number too
    found, problem = read_record(_write(tmp_path, record), KEY)
    assert problem is None and found == record


def test_a_failed_record_with_its_error_is_used_without_tables(tmp_path: Path) -> None:
    record = {
        "schema": RUN_SCHEMA,
        "key": KEY,
        "status": "failed",
        "error": {"type": "InstanceError", "message": "job 3: too big"},
    }
    found, problem = read_record(_write(tmp_path, record, tables=False), KEY)
    assert problem is None and found == record


def test_an_absent_record_is_neither_used_nor_a_problem(tmp_path: Path) -> None:
    assert read_record(tmp_path / "none.json", KEY) == (None, None)


# -- refused records -------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", sorted(METRIC_LABELS))
def test_a_record_with_a_null_metric_is_refused(tmp_path: Path, metric: str) -> None:
    record = _ok_record()
    record["row"][metric] = None
    assert _problem(tmp_path, record) == f"results row without {metric}"


def test_every_metric_missing_is_named_in_order(tmp_path: Path) -> None:
    record = _ok_record()
    record["row"]["avg_jct"] = "1.5"  # a number written as text
    del record["row"]["makespan"]
    record["row"]["gpu_utilization"] = [0.5]
    assert _problem(tmp_path, record) == "results row without avg_jct, makespan, gpu_utilization"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: [r], f"not a run record (schema {RUN_SCHEMA})"),
        (
            lambda r: {**r, "schema": "sjfbsbf.sweep-run/0"},
            f"not a run record (schema {RUN_SCHEMA})",
        ),
        (lambda r: {k: v for k, v in r.items() if k != "schema"}, "not a run record"),
        (lambda r: {**r, "key": "fedcba9876543210"}, f"holds run 'fedcba9876543210', not '{KEY}'"),
        (lambda r: {k: v for k, v in r.items() if k != "key"}, f"holds run None, not '{KEY}'"),
        (lambda r: {**r, "status": "maybe"}, "unknown status 'maybe'"),
        (lambda r: {k: v for k, v in r.items() if k != "status"}, "unknown status None"),
        (lambda r: {k: v for k, v in r.items() if k != "row"}, "no results row for this run"),
        (lambda r: {**r, "row": [1.5]}, "no results row for this run"),
        (lambda r: {**r, "row": {**r["row"], "key": "x"}}, "no results row for this run"),
    ],
)
def test_a_record_of_another_kind_key_or_status_is_refused(
    tmp_path: Path, change: Any, problem: str
) -> None:
    found = _problem(tmp_path, change(_ok_record()))
    assert found is not None and found.startswith(problem)


@pytest.mark.parametrize(
    "error",
    [
        None,
        "InstanceError: job 3",
        {"type": "InstanceError"},
        {"message": "job 3"},
        {"type": "InstanceError", "message": None},
        {"type": 1, "message": "job 3"},
    ],
)
def test_a_failure_record_without_its_error_is_refused(tmp_path: Path, error: Any) -> None:
    record = {"schema": RUN_SCHEMA, "key": KEY, "status": "failed", "error": error}
    assert _problem(tmp_path, record, tables=False) == "a failure record without its error"


def test_an_ok_record_without_its_tables_or_with_a_short_table_is_refused(tmp_path: Path) -> None:
    missing = f"{KEY}.jobs.parquet, {KEY}.utilisation.parquet missing"
    assert _problem(tmp_path, _ok_record(), tables=False) == missing
    short = f"{KEY}.jobs.parquet has 1 rows, the record 2 jobs"
    assert _problem(tmp_path, _ok_record(), job_rows=1) == short


def test_a_record_that_is_not_json_is_refused_with_the_readers_reason(tmp_path: Path) -> None:
    path = tmp_path / f"{KEY}.json"
    path.write_text('{"schema": ', encoding="utf-8")
    assert read_record(path, KEY) == (
        None,
        "not valid JSON (line 1, column 12: Expecting value)",
    )


# -- records written by a run ------------------------------------------------------------------
def test_a_runs_row_carries_its_run_and_the_simulations_metrics() -> None:
    run = _run(policy="sjf-bsbf")
    details: dict[str, Any] = {}
    row = execute(run, details)
    direct = simulate(build_instance(WORKLOAD, 3), make_policy("sjf-bsbf"), dt=10.0)
    assert {m: row[m] for m in METRIC_LABELS} == {m: direct.metrics[m] for m in METRIC_LABELS}
    assert (row["key"], row["policy"], row["seed"]) == (run.key, "sjf-bsbf", 3)
    assert row["options"] == "{}"
    assert (row["n_jobs"], row["num_gpus"]) == (6, 4)
    assert row["runtime_s"] >= 0.0
    # The policy's counters as JSON with sorted keys (sjf-bsbf adds "retunes" after "outcomes").
    stats = json.loads(row["stats"])
    assert stats == json.loads(json.dumps(direct.stats, default=str)) and len(stats) > 1
    assert list(stats) == sorted(direct.stats)
    assert {k: row[f"wl_{k}"] for k in WORKLOAD} == WORKLOAD
    assert row["sim_dt"] == 10.0
    assert "interference_fallback_pairs" not in row
    assert len(details["jobs"]) == 6 and len(details["utilisation"]) >= 1


def _metrics(row: dict[str, Any]) -> dict[str, Any]:
    return {m: row[m] for m in METRIC_LABELS}


def test_the_runs_options_are_given_to_its_policy() -> None:
    # mix_idle=False keeps sjf-bsbf from sharing here: other metrics than without the option.
    direct = simulate(build_instance(WORKLOAD, 3), make_policy("sjf-bsbf", mix_idle=False), dt=10.0)
    row = execute(_run(policy="sjf-bsbf", options={"mix_idle": False}))
    assert _metrics(row) == direct.metrics
    assert _metrics(execute(_run(policy="sjf-bsbf"))) != direct.metrics


def test_the_runs_interference_and_constants_are_simulated() -> None:
    # mps with kappa and eps set: the row has the metrics of that world built here by hand,
    # not those of mps with its own constants nor those of the default time slicing.
    instance = build_instance(WORKLOAD, 3)
    instance, world = with_constants(instance, make_interference("mps"), kappa=0.4, eps=0.2)
    direct = simulate(instance, make_policy("sjf-bsbf"), interference=world, dt=10.0)
    sim = {"dt": 10.0, "interference": "mps", "kappa": 0.4, "eps": 0.2}
    row = execute(_run(policy="sjf-bsbf", sim=sim))
    assert _metrics(row) == direct.metrics
    assert (row["sim_interference"], row["sim_kappa"], row["sim_eps"]) == ("mps", 0.4, 0.2)
    for other in ({"dt": 10.0}, {"dt": 10.0, "interference": "mps"}):
        assert _metrics(execute(_run(policy="sjf-bsbf", sim=other))) != direct.metrics


def test_the_runs_beliefs_are_seeded_with_its_seed() -> None:
    # One GPU, so that the believed lengths decide the order (σ = 2: far from the truth).
    workload = WORKLOAD | {"gpus_per_node": 1}
    sim = {"dt": 10.0, "estimator": "lognormal:sigma=2"}
    run = RunSpec(sweep="s", workload=workload, seed=3, label="l", policy="sjf", sim=sim)
    instance = build_instance(workload, 3)
    beliefs = Beliefs("lognormal:sigma=2", "oracle", 3)
    direct = simulate(instance, make_policy("sjf"), beliefs=beliefs, dt=10.0)
    oracle = simulate(instance, make_policy("sjf"), dt=10.0)
    assert direct.metrics["avg_jct"] != oracle.metrics["avg_jct"]
    assert _metrics(execute(run)) == direct.metrics


class _Measured:
    """A stand-in for the measured table model: ξ = 1.5, two pairs given the fallback."""

    def slowdown(self, victim: Any, other: Any) -> float:
        return 1.5

    def fallback_pairs(self) -> tuple[tuple[str, str], ...]:
        return (("a", "b"), ("a", "c"))


def test_a_measured_models_fallback_pairs_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_records, "sim_models", lambda sim, seed: (_Measured(), None))
    assert execute(_run())["interference_fallback_pairs"] == 2


def test_counters_that_json_cannot_write_are_written_as_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def odd_counter(*args: Any, **kwargs: Any) -> Any:
        result = simulate(*args, **kwargs)
        result.stats["where"] = Path("a")
        return result

    monkeypatch.setattr(sweep_records, "simulate", odd_counter)
    assert json.loads(execute(_run())["stats"]) == {"where": "a"}


def test_the_runtime_is_the_simulations_wall_time() -> None:
    started = time.perf_counter()
    row = execute(_run())
    assert 0.0 <= row["runtime_s"] <= time.perf_counter() - started


def test_options_are_written_sorted_as_json() -> None:
    run = _run(policy="sjf-bsbf", options={"threshold": 0.5, "retune": True})
    assert execute(run)["options"] == '{"retune": true, "threshold": 0.5}'


def test_a_metric_that_is_not_finite_is_written_as_null(monkeypatch: pytest.MonkeyPatch) -> None:
    def infinite(*args: Any, **kwargs: Any) -> Any:
        result = simulate(*args, **kwargs)
        result.metrics["p99_jct"] = float("inf")
        result.metrics["p95_jct"] = float("nan")
        return result

    monkeypatch.setattr(sweep_records, "simulate", infinite)
    row = execute(_run())
    assert row["p99_jct"] is None and row["p95_jct"] is None
    assert isinstance(row["avg_jct"], float) and row["avg_jct"] > 0


def test_an_attempt_gives_an_ok_record_with_the_runs_config() -> None:
    run = _run()
    record = attempt(run)
    assert {k: record[k] for k in ("schema", "key", "status", "config")} == {
        "schema": RUN_SCHEMA,
        "key": run.key,
        "status": "ok",
        "config": run.config(),
    }
    assert record["row"]["key"] == run.key and set(record["details"]) == {"jobs", "utilisation"}


def test_an_attempt_that_raises_gives_a_failure_record() -> None:
    run = _run(policy="no-such-policy")
    record = attempt(run)
    assert set(record) == {"schema", "key", "status", "config", "error"}
    assert (record["schema"], record["key"], record["status"]) == (RUN_SCHEMA, run.key, "failed")
    assert record["config"] == run.config()
    assert record["error"]["type"] == "ValueError"
    assert record["error"]["message"].startswith("unknown policy 'no-such-policy'")
    assert failure_record(run, KeyError("k"))["error"] == {"type": "KeyError", "message": "'k'"}


# -- inputs edited after they were hashed ----------------------------------------------------------
def _hashed_input(tmp_path: Path, text: str) -> tuple[Path, RunSpec]:
    path = tmp_path / "table.csv"
    path.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    return path, _run(inputs=(("data/table.csv", digest),), stamps=((str(path), 0, 0),))


def test_an_input_with_its_hashed_content_lets_the_run_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep_records, "_CHECKED", {})
    _, run = _hashed_input(tmp_path, "a,b\n1,2\n")
    assert execute(run)["n_jobs"] == 6


def test_an_input_edited_after_hashing_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep_records, "_CHECKED", {})
    path, run = _hashed_input(tmp_path, "a,b\n1,2\n")
    sweep_records._check_stamps(run)
    path.write_text("a,b\n1,3\n", encoding="utf-8")  # same size: the content is what counts
    with pytest.raises(SweepError) as info:
        sweep_records._check_stamps(run)
    assert str(info.value) == (
        f"input file {path} (data/table.csv) changed after the sweep hashed it "
        "(SHA-256 differs); run the sweep again"
    )
    assert attempt(run)["status"] == "failed"


def test_an_unchanged_input_is_hashed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_records, "_CHECKED", {})
    hashed: list[str] = []
    original = sweep_records.file_digest

    def counting(path: str) -> tuple[str, tuple[int, int]]:
        hashed.append(path)
        return original(path)

    monkeypatch.setattr(sweep_records, "file_digest", counting)
    path, run = _hashed_input(tmp_path, "a,b\n1,2\n")
    sweep_records._check_stamps(run)
    sweep_records._check_stamps(run)
    assert hashed == [str(path)]
    path.write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    with pytest.raises(SweepError):
        sweep_records._check_stamps(run)
    assert hashed == [str(path), str(path)]
