"""Placements kept by the simulator and the Gantt charts drawn from them
(sjfbsbf.experiments.gantt, ``simulate --gantt``, ``solve --gantt``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from offline_cases import tiny
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.experiments.gantt import gantt_bars, plot_gantt
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads import default_workload

DT = 60.0


def _two_on_one_gpu() -> Instance:
    return Instance(
        Cluster(1, 1, 12.0), (Job(0, 0.0, 1, duration=59.9), Job(1, 0.0, 1, duration=119.9))
    )


def test_placements_of_fifo_on_one_gpu_are_the_hand_computed_holdings() -> None:
    """Job 0 holds GPU 0 over the tick it ends in (0–60 s), job 1 then runs two ticks."""
    result = simulate(_two_on_one_gpu(), make_policy("fifo"), dt=DT, interval=DT)
    placements = result.placements
    assert placements is not None
    assert placements[["job_id", "start", "end", "gpus", "accumulation"]].to_dict("records") == [
        {"job_id": 0, "start": 0.0, "end": 60.0, "gpus": "0", "accumulation": 1},
        {"job_id": 1, "start": 60.0, "end": 180.0, "gpus": "0", "accumulation": 1},
    ]
    assert placements["sub_batch"].isna().all()  # duration-only jobs have no batch
    bars = gantt_bars(result)
    assert (bars["lanes"] == 1).all() and len(bars) == 2


def test_a_shared_gpu_splits_into_half_rows_only_while_shared() -> None:
    """'share': dqn runs alone in slot 0, a2c joins it for one slot; each holding is cut where
    the other starts or ends, the shared pieces take the two halves of the row."""
    result = simulate(tiny("share"), make_policy("sjf-ffs"), dt=DT, interval=DT)
    bars = gantt_bars(result)
    shared = bars[bars["lanes"] == 2]
    assert sorted(shared["job_id"]) == [0, 1]
    assert set(shared["lane"]) == {0, 1}
    assert shared["start"].nunique() == 1 and shared["end"].nunique() == 1
    alone = bars[(bars["job_id"] == 0) & (bars["lanes"] == 1)]
    assert float(alone["start"].min()) == 0.0 and float(alone["end"].min()) == 60.0
    assert result.jobs.loc[result.jobs["job_id"] == 1, "partners"].item() == "0"


@pytest.mark.parametrize("policy", ["sjf", "sjf-ffs", "sjf-bsbf", "srtf", "tiresias"])
def test_placements_agree_with_the_per_job_table(policy: str) -> None:
    """On a seeded workload: every job's first holding starts at its start, its last one ends at
    or after its finish, within one tick; no GPU holds more than two jobs at once; a
    preemptive policy gives a job one holding per run."""
    instance = default_workload(seed=3, n_jobs=60)
    result = simulate(instance, make_policy(policy), dt=DT, interval=DT)
    placements = result.placements
    assert placements is not None
    jobs = result.jobs.set_index("job_id")
    for job_id, group in placements.groupby("job_id"):
        assert float(group["start"].min()) == pytest.approx(float(jobs.at[job_id, "start"]))
        release = float(group["end"].max())
        finish = float(jobs.at[job_id, "finish"])
        assert finish <= release + 1e-9 < finish + DT + 1e-6
        assert len(group) >= 1 + int(jobs.at[job_id, "preemptions"])
    assert set(placements["job_id"]) == set(jobs.index)
    bars = gantt_bars(result)
    for _, on_gpu in bars.groupby("gpu"):
        cuts = sorted(set(on_gpu["start"]) | set(on_gpu["end"]))
        for left, right in itertools.pairwise(cuts):
            inside = on_gpu[(on_gpu["start"] < right) & (left < on_gpu["end"])]
            assert len(inside) <= 2
            assert (inside["lanes"] == len(inside)).all()


def test_a_retune_closes_one_holding_and_opens_the_next_on_the_same_gpus() -> None:
    """sjf-bsbf with ``retune``: a job whose accumulation changes keeps its GPUs; its holdings
    follow each other without a gap, with different accumulations, and the last one's factor is
    the per-job table's."""
    instance = default_workload(seed=1, n_jobs=80)
    result = simulate(instance, make_policy("sjf-bsbf", retune=True), dt=DT, interval=DT)
    placements = result.placements
    assert placements is not None
    jobs = result.jobs.set_index("job_id")
    retuned = 0
    for job_id, group in placements.groupby("job_id"):
        group = group.sort_values("start")
        if group["accumulation"].nunique() > 1:
            retuned += 1
            assert group["gpus"].nunique() == 1
            assert (group["start"].to_numpy()[1:] == group["end"].to_numpy()[:-1]).all()
            assert (
                group["accumulation"].to_numpy()[1:] != group["accumulation"].to_numpy()[:-1]
            ).all()
        assert int(group["accumulation"].iloc[-1]) == int(jobs.at[job_id, "accumulation"])
    assert retuned > 0


def test_no_placements_without_segments_and_bad_suffixes_are_refused(tmp_path: Path) -> None:
    result = simulate(_two_on_one_gpu(), make_policy("fifo"), dt=DT, record_segments=False)
    assert result.placements is None
    with pytest.raises(ValueError, match="no placements"):
        gantt_bars(result)
    kept = simulate(_two_on_one_gpu(), make_policy("fifo"), dt=DT)
    with pytest.raises(ValueError, match=r"\.png or \.pdf"):
        plot_gantt(kept, tmp_path / "chart.svg")


def test_plot_gantt_writes_png_and_pdf(tmp_path: Path) -> None:
    result = simulate(tiny("partners"), make_policy("sjf-bsbf"), dt=DT, interval=DT)
    plot_gantt(result, tmp_path / "g.png")
    plot_gantt(result, tmp_path / "g.pdf", title="partners")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"
    figure = plot_gantt(result)  # no file: the figure, e.g. for Jupyter
    assert figure.axes[0].get_title().startswith("sjf-bsbf")


def test_cli_simulate_and_solve_write_gantt_charts(tmp_path: Path) -> None:
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    out = tmp_path / "charts" / "sim.png"
    done = CliRunner().invoke(
        app, ["simulate", str(path), "-p", "sjf-ffs", "--dt", "60", "--gantt", str(out)]
    )
    assert done.exit_code == 0, done.output
    assert out.read_bytes()[:4] == b"\x89PNG" and "Gantt chart" in done.output
    solved = tmp_path / "solve.pdf"
    done = CliRunner().invoke(
        app, ["solve", str(path), "--time-limit", "10", "--gantt", str(solved)]
    )
    assert done.exit_code == 0, done.output
    assert solved.read_bytes()[:5] == b"%PDF-"
    bad = CliRunner().invoke(
        app, ["simulate", str(path), "-p", "fifo", "--gantt", str(tmp_path / "g.svg")]
    )
    assert bad.exit_code == 2 and not (tmp_path / "g.svg").exists()
