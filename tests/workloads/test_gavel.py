"""Gavel throughput table, trace loader and measured-table interference model.

Tests on the real data read it from ``../shared/data`` beside the repository and skip cleanly
where it is absent; error paths use small files written to ``tmp_path``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sjfbsbf.core.catalog import get_catalog
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.interference import ContentionModel, Interference, Occupant
from sjfbsbf.core.interference_measured import MeasuredTableModel, gavel_occupant
from sjfbsbf.core.interference_table import GavelThroughputs, slowdown_statistics, split_job_type
from sjfbsbf.core.model import Cluster
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.workloads.gavel import (
    MODEL_MAP,
    MODEL_MAP_REASONS,
    load_gavel_trace,
    load_gavel_trace_report,
    load_throughputs,
    read_gavel_trace,
    slice_trace,
    throughputs_from_dict,
)

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "gavel"
THROUGHPUTS = DATA / "simulation_throughputs.json"
TRACE_DIR = DATA / "traces" / "msr-seed0"
TRACES = sorted(TRACE_DIR.glob("*.trace")) if TRACE_DIR.is_dir() else []

CLUSTER = Cluster()  # 4 x 8 GPUs, 12 GB


@pytest.fixture(scope="module")
def table() -> GavelThroughputs:
    if not THROUGHPUTS.is_file():
        pytest.skip(f"Gavel data not found at {DATA}")
    return load_throughputs(THROUGHPUTS)


@pytest.fixture(scope="module")
def traces() -> list[Path]:
    if len(TRACES) != 15:
        pytest.skip(f"Gavel traces not found at {TRACE_DIR}")
    return TRACES


# --- a tiny in-memory table for the error paths (no real data needed) -------------------------

R18 = "ResNet-18 (batch size 32)"
LM = "LM (batch size 5)"
TINY = {
    "v100": {
        f"('{R18}', 1)": {"null": 10.0, f"('{R18}', 1)": [6.0, 6.0], f"('{LM}', 1)": [5.0, 4.0]},
        f"('{R18}', 2)": {"null": 18.0, f"('{R18}', 2)": [0.0, 0.0]},
        f"('{LM}', 1)": {"null": 8.0, f"('{R18}', 1)": [4.0, 5.0], f"('{LM}', 1)": [0.0, 0.0]},
    }
}
GOOD_LINE = f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t0.000000\t1"


@pytest.fixture
def tiny() -> GavelThroughputs:
    return throughputs_from_dict(TINY, source="tiny")


def write_trace(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "bad.trace"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- throughput table ---------------------------------------------------------------------------


def test_throughput_table_layout(table: GavelThroughputs) -> None:
    assert {"k80", "p100", "v100"} <= set(table.gpu_types)
    assert len(table.job_types("v100")) == 26
    assert table.families("v100") == (
        "A3C",
        "CycleGAN",
        "LM",
        "Recommendation",
        "ResNet-18",
        "ResNet-50",
        "Transformer",
    )
    assert table.batch_sizes("ResNet-50") == (16, 32, 64, 128)
    assert table.measured_gpu_counts("ResNet-18 (batch size 32)") == (1, 2, 4, 8)
    assert table.measured_gpu_counts("A3C") == (1,)
    # Only single-GPU pairs are kept: 26 x 26 ordered entries.
    assert len(table.colocated["v100"]) == 26 * 26
    with pytest.raises(TypeError):
        table.solo["v100"][("x", 1)] = 1.0  # type: ignore[index]


def test_weak_scaling_rule(table: GavelThroughputs) -> None:
    r18 = "ResNet-18 (batch size 32)"
    assert table.throughput_for(r18, 8) == (table.solo_throughput(r18, 8), 8)
    assert table.throughput_for(r18, 16) == (table.solo_throughput(r18, 8), 8)
    assert table.throughput_for(r18, 7) == (table.solo_throughput(r18, 4), 4)
    assert table.throughput_for("A3C", 4) == (table.solo_throughput("A3C", 1), 1)
    with pytest.raises(KeyError):
        table.throughput_for("nope", 1)


def test_suspicious_pairs(table: GavelThroughputs) -> None:
    flagged = table.suspicious_pairs("v100")
    assert len(flagged) == 80
    assert len(table.suspicious_pairs("p100")) == 0
    assert len(table.suspicious_pairs("k80")) == 0
    for victim, other in flagged:
        assert table.colocated["v100"][(victim, other)][0] == table.solo_throughput(victim)
        assert table.slowdown(victim, other) == 1.0
    involving_r18 = [p for p in flagged if "ResNet-18" in p[0] or "ResNet-18" in p[1]]
    assert len(involving_r18) == 77  # 3 flagged entries involve no ResNet-18 at all


def test_slowdown_statistics(table: GavelThroughputs) -> None:
    v100 = slowdown_statistics(table, "v100")
    p100 = slowdown_statistics(table, "p100")
    # Measured values (see the module docs): V100 27.6% (33.0% counting OOM pairs), P100 13.5%.
    assert 0.20 <= v100["share_losing"] <= 0.40
    assert 0.25 <= v100["share_losing_or_oom"] <= 0.40
    assert 0.10 <= p100["share_losing"] <= 0.20
    assert 1.5 <= v100["xi_median"] <= 1.75
    assert 1.6 <= p100["xi_median"] <= 1.8
    assert 4.0 <= v100["xi_p95"] <= 6.0
    assert 2.5 <= p100["xi_p95"] <= 3.0
    assert v100["xi_min"] >= 1.0
    assert v100["excluded_suspicious"] == 69
    assert p100["excluded_suspicious"] == 0
    raw = slowdown_statistics(table, "v100", exclude_suspicious=False)
    assert raw["pairs"] == v100["pairs"] + v100["excluded_suspicious"]
    assert raw["xi_min"] == 1.0  # the filled-in entries


# --- traces -------------------------------------------------------------------------------------


def test_all_traces_load(table: GavelThroughputs, traces: list[Path]) -> None:
    total = capped = 0
    gpu_counts: set[int] = set()
    for path in traces:
        instance, report = load_gavel_trace_report(path, table, cluster=CLUSTER)
        assert instance.num_jobs == report.num_jobs == len(read_gavel_trace(path))
        assert instance.name == f"gavel-{path.stem}"
        for job in instance.jobs:
            assert job.duration is not None and math.isfinite(job.duration)
            assert job.duration > 0
            assert 1 <= job.gpus <= CLUSTER.num_gpus
        for job_id in report.capped_jobs:
            assert instance.job(job_id).gpus == CLUSTER.num_gpus
        total += instance.num_jobs
        capped += report.capped
        gpu_counts |= set(report.gpu_counts)
    assert total == 15_264
    assert gpu_counts == {1, 2, 4, 7, 8, 12, 16, 20, 24, 32, 64}
    assert capped == 1  # the one 64-GPU job, on 32 GPUs


def test_durations_and_capping(table: GavelThroughputs, traces: list[Path]) -> None:
    path = TRACE_DIR / "11cb48.trace"
    rows = read_gavel_trace(path)
    instance, report = load_gavel_trace_report(path, table, cluster=CLUSTER, max_gpus=8)
    assert report.capped == sum(r.num_gpus > 8 for r in rows) > 0
    assert report.max_gpus == 8
    assert sum(report.extrapolated.values()) > 0
    for job_id, row in enumerate(rows):
        job = instance.job(job_id)
        rate, _ = table.throughput_for(row.job_type, row.num_gpus)
        assert job.duration == pytest.approx(row.total_steps / rate)
        assert job.gpus == min(row.num_gpus, 8)
        assert job.arrival == row.arrival_s
    first = rows[0]
    assert instance.job(0).duration == first.total_steps / table.solo_throughput(
        first.job_type, first.num_gpus
    )
    assert report.load(CLUSTER.num_gpus) > 0


def test_arrival_scale(table: GavelThroughputs, traces: list[Path]) -> None:
    path = TRACE_DIR / "0e4a51.trace"
    base = load_gavel_trace(path, table, cluster=CLUSTER)
    half = load_gavel_trace(path, table, cluster=CLUSTER, arrival_scale=0.5)
    assert [j.arrival / 2 for j in base.jobs] == [j.arrival for j in half.jobs]
    with pytest.raises(ValueError, match="arrival_scale"):
        load_gavel_trace(path, table, cluster=CLUSTER, arrival_scale=0.0)


def test_catalog_mode(table: GavelThroughputs, traces: list[Path]) -> None:
    path = TRACE_DIR / "0e4a51.trace"
    by_duration = load_gavel_trace(path, table, cluster=CLUSTER)
    instance, report = load_gavel_trace_report(path, table, cluster=CLUSTER, mode="catalog")
    catalog = get_catalog("default")
    assert set(report.models) <= set(MODEL_MAP.values())
    assert set(MODEL_MAP) == set(MODEL_MAP_REASONS) == set(table.families())
    for a, b in zip(by_duration.jobs, instance.jobs, strict=True):
        assert a.id == b.id and a.gpus == b.gpus and a.arrival == b.arrival
        assert a.duration is not None and b.model is not None and b.iterations is not None
        exclusive = exclusive_duration(b, catalog[b.model], CLUSTER)
        # iterations = round(duration / step): the exclusive durations agree to half a step.
        assert abs(exclusive - a.duration) <= exclusive / b.iterations / 2 + 1e-6


def test_slice_trace(table: GavelThroughputs, traces: list[Path]) -> None:
    instance = load_gavel_trace(TRACE_DIR / "0e4a51.trace", table, cluster=CLUSTER)
    head = slice_trace(instance, first=50)
    assert head.num_jobs == 50 and head.jobs[0].arrival == 0.0
    assert [j.id for j in head.jobs] == [j.id for j in instance.jobs[:50]]
    window = slice_trace(instance, start=1e6, end=2e6)
    originals = [j for j in instance.jobs if 1e6 <= j.arrival < 2e6]
    assert [j.id for j in window.jobs] == [j.id for j in originals]
    assert window.jobs[0].arrival == 0.0
    offset = originals[0].arrival
    assert [j.arrival + offset for j in window.jobs] == [j.arrival for j in originals]
    both = slice_trace(instance, start=1e6, first=3, rebase=False)
    assert [j.arrival for j in both.jobs] == [j.arrival for j in originals[:3]]
    assert both.name == "gavel-0e4a51[1e+06:,first=3]"
    with pytest.raises(ValueError):
        slice_trace(instance, start=1e12)
    with pytest.raises(ValueError):
        slice_trace(instance, first=0)


# --- measured table model -----------------------------------------------------------------------


def test_measured_table_model(table: GavelThroughputs) -> None:
    model = MeasuredTableModel(table)
    assert isinstance(model, Interference)
    a, b = "ResNet-50 (batch size 64)", "LM (batch size 20)"
    xa = model.slowdown(gavel_occupant(a), gavel_occupant(b))
    xb = model.slowdown(gavel_occupant(b), gavel_occupant(a))
    measured = table.colocated["v100"][(a, b)]
    assert xa == pytest.approx(table.solo_throughput(a) / measured[0])
    assert xb == pytest.approx(table.solo_throughput(b) / measured[1])
    assert xa != xb  # asymmetric
    # The occupant's micro-batch picks the measured batch size (nearest in log2).
    assert split_job_type(model.job_type_of(gavel_occupant("ResNet-50", 48)) or "") == (
        "ResNet-50",
        64,
    )
    assert model.job_type_of(gavel_occupant("ResNet-50 (batch size 128)", 32)) == (
        "ResNet-50 (batch size 32)"
    )
    assert model.job_type_of(gavel_occupant("A3C", 7)) == "A3C"


def test_measured_table_model_fallbacks(table: GavelThroughputs) -> None:
    model = MeasuredTableModel(table)
    median = slowdown_statistics(table, "v100")["xi_median"]
    victim, other = sorted(table.suspicious_pairs("v100"))[0]
    pair = gavel_occupant(victim), gavel_occupant(other)
    assert not model.is_measured(*pair)
    assert model.slowdown(*pair) == median
    assert MeasuredTableModel(table, include_suspicious=True).slowdown(*pair) == 1.0
    generic = Occupant("generic", None, None, 5.0, 0.5, 0.5)
    assert model.slowdown(generic, pair[0]) == median
    assert model.fits(generic, pair[0])
    assert MeasuredTableModel(table, fallback=2.5).slowdown(generic, pair[0]) == 2.5
    contention = ContentionModel()
    delegate = MeasuredTableModel(table, fallback=contention)
    assert delegate.slowdown(generic, generic) == contention.slowdown(generic, generic)
    with pytest.raises(ValueError):
        MeasuredTableModel(table, fallback=0.5)
    with pytest.raises(ValueError):
        MeasuredTableModel(table, gpu_type="a100")


def test_measured_table_model_out_of_memory(table: GavelThroughputs) -> None:
    model = MeasuredTableModel(table)
    victim, other = next(p for p, v in table.colocated["v100"].items() if v == (0.0, 0.0))
    pair = gavel_occupant(victim), gavel_occupant(other)
    assert not model.fits(*pair)
    with pytest.raises(ValueError, match="fits"):
        model.slowdown(*pair)


def test_tiny_table(tiny: GavelThroughputs) -> None:
    assert tiny.slowdown(R18, LM) == 2.0
    assert tiny.slowdown(LM, R18) == 2.0
    assert not tiny.fits(LM, LM)
    assert tiny.slowdown(LM, LM) is None
    assert tiny.unordered_pairs() == ((LM, LM), (LM, R18), (R18, R18))
    stats = slowdown_statistics(tiny, "v100")
    assert stats["pairs"] == 2 and stats["oom_pairs"] == 1
    assert stats["losing_pairs"] == 1  # R18 + R18: 0.6 + 0.6 > 1 gains; R18 + LM: 0.5 + 0.5 loses


# --- error paths --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t0.0", "num_gpus"),  # missing column
        (f"{R18}\tpython3 main.py\t--num_steps\t1", "total_steps"),  # missing columns
        (f"{R18}\tpython3 main.py\t--num_steps\t1\tmany\t0.0\t1", "total_steps"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t-5\t0.0\t1", "total_steps"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t-1.0\t1", "arrival_time_s"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\tsoon\t1", "arrival_time_s"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t0.0\t0", "num_gpus"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t0.0\ttwo", "num_gpus"),
        (f"{R18}\tpython3 main.py\t--num_steps\tyes\t1000\t0.0\t1", "needs_data_dir"),
        (f"{R18}\tpython3 main.py\t--num_steps\t1\t1000\t0.0\t1\textra", "column 8"),
        ("VGG-11 (batch size 32)\tpython3 main.py\t--num_steps\t1\t1000\t0.0\t1", "job_type"),
    ],
)
def test_malformed_trace_line(
    tmp_path: Path, tiny: GavelThroughputs, line: str, field: str
) -> None:
    path = write_trace(tmp_path, GOOD_LINE, line)
    with pytest.raises(InstanceError) as info:
        load_gavel_trace(path, tiny, cluster=CLUSTER)
    error = info.value
    assert error.source == str(path)
    assert error.row == "line 2"
    assert error.field == field
    assert str(path) in str(error) and "line 2" in str(error) and field in str(error)


def test_job_larger_than_cluster(tmp_path: Path, tiny: GavelThroughputs) -> None:
    # A blank line is skipped but still counted in line numbers: the 64-GPU job is on line 3.
    path = write_trace(tmp_path, GOOD_LINE, "", GOOD_LINE[: GOOD_LINE.rindex("\t")] + "\t64")
    with pytest.raises(InstanceError) as info:
        load_gavel_trace(path, tiny, cluster=CLUSTER, max_gpus=64)
    assert (info.value.source, info.value.row, info.value.field) == (str(path), "line 3", "gpus")
    instance, report = load_gavel_trace_report(path, tiny, cluster=CLUSTER)
    assert report.capped_jobs == (1,) and instance.job(1).gpus == 32
    assert report.extrapolated == {64: 1}  # the 2-GPU throughput stands in for 64 GPUs
    assert instance.job(1).duration == 1000 / 18.0


def test_empty_and_unreadable(tmp_path: Path, tiny: GavelThroughputs) -> None:
    empty = tmp_path / "empty.trace"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InstanceError, match="no jobs"):
        read_gavel_trace(empty)
    with pytest.raises(InstanceError, match="cannot read"):
        read_gavel_trace(tmp_path / "missing.trace")
    with pytest.raises(ValueError, match="mode"):
        load_gavel_trace(write_trace(tmp_path, GOOD_LINE), tiny, cluster=CLUSTER, mode="x")  # type: ignore[arg-type]


def test_bad_throughput_file(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"v100": {"ResNet-18": {"null": 1.0}}}', encoding="utf-8")
    with pytest.raises(InstanceError, match="tuple") as info:
        load_throughputs(path)
    assert info.value.source == str(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(InstanceError, match="JSON"):
        load_throughputs(path)
    path.write_text('{"v100": {"(\'A\', 1)": {"null": 1.0, "(\'A\', 1)": [1.0]}}}')
    with pytest.raises(InstanceError, match="two"):
        load_throughputs(path)


def test_philly_windows_differ_by_seed(gavel_data: Path) -> None:
    """The philly-windows workload on Gavel's b436b2 (2,000 jobs): each seed a different window
    of 1,000 consecutive jobs, rebased to 0, on a cluster sized for that window."""
    from sjfbsbf.experiments.sweep_workloads import build_instance

    workload = {"kind": "gavel", "trace": "data:gavel-traces/b436b2.trace", "window": 1000}
    first, second = (build_instance(workload, seed) for seed in (0, 1))
    for instance in (first, second):
        assert instance.num_jobs == 1000 and instance.jobs[0].arrival == 0.0
        ids = sorted(j.id for j in instance.jobs)
        assert ids == list(range(ids[0], ids[0] + 1000))
    assert first.name != second.name and first.jobs != second.jobs
