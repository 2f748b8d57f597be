"""``--estimator``, ``--interference-belief`` and ``compare --seeds/--baseline`` (docs/model.md
§4.1): one-line refusals, what the table and files say, and that the numbers are the library's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from sjfbsbf.cli import app
from sjfbsbf.experiments.regimes import ratio_ci
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads import default_workload

runner = CliRunner()


def _one_line(result: Result, code: int, *fragments: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--estimator", "psychic"], ["'--estimator'", "unknown estimator 'psychic'"]),
        (["--estimator", "lognormal"], ["'--estimator'", "needs sigma="]),
        (["--estimator", "lognormal:sigma=9"], ["'--estimator'", "sigma must be in [0, 5]"]),
        (["--interference-belief", "noisy"], ["'--interference-belief'", "needs sigma="]),
        (["--interference-belief", "mps:x=1"], ["'--interference-belief'", "unknown parameter"]),
        (["--seeds", "3-1"], ["'--seeds'", "ends before it starts"]),
        (["--seeds", "a-b"], ["'--seeds'", "seed range A-B"]),
        (["--seeds", "0-1", "--seed", "2"], ["'--seeds'", "not both"]),
        (["--baseline", "sjf"], ["'--baseline'", "only applies with --seeds"]),
        (
            ["--seeds", "0-1", "--policies", "sjf,fifo", "--baseline", "srtf"],
            ["'--baseline'", "not among the compared policies"],
        ),
    ],
)
def test_bad_belief_and_seed_options_are_one_line(
    args: list[str], fragments: list[str], tmp_path: Path
) -> None:
    result = runner.invoke(app, ["compare", *args, "--out", str(tmp_path / "o")])
    _one_line(result, 2, *fragments)
    assert not (tmp_path / "o").exists()


def test_seeds_with_an_instance_file_are_refused(small_instance: Path) -> None:
    result = runner.invoke(app, ["compare", str(small_instance), "--seeds", "0-2"])
    _one_line(result, 2, "'--seeds'", "default workload")


def test_the_user_estimator_names_the_job_without_an_estimate(small_instance: Path) -> None:
    result = runner.invoke(
        app, ["simulate", str(small_instance), "-p", "sjf", "--estimator", "user"]
    )
    _one_line(result, 1, str(small_instance), "job 0", "field 'estimate'")


def test_simulate_under_a_belief_prints_it_and_the_library_numbers(
    small_instance: Path, tmp_path: Path
) -> None:
    out = tmp_path / "jobs.csv"
    args = ["simulate", str(small_instance), "-p", "srtf", "--jobs-csv", str(out)]
    result = runner.invoke(app, [*args, "--estimator", "lognormal:sigma=1.0,seed=4"])
    assert result.exit_code == 0, result.output
    assert "beliefs: estimator=lognormal:sigma=1,seed=4, interference belief=oracle" in (
        result.stdout
    )
    from sjfbsbf.core.instance_io import read_instance

    expected = simulate(
        read_instance(small_instance),
        make_policy("srtf"),
        beliefs=Beliefs("lognormal:sigma=1,seed=4"),
    )
    table = pd.read_csv(out)
    assert table["finish"].tolist() == expected.jobs["finish"].round(6).tolist()  # 1 µs


def test_compare_seeds_prints_means_intervals_and_ratios(tmp_path: Path) -> None:
    args = ["compare", "--seeds", "0-2", "--policies", "sjf,tiresias", "--baseline", "tiresias"]
    result = runner.invoke(app, [*args, "--estimator", "lognormal:sigma=1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Average JCT over 3 seeds" in result.stdout and "÷ tiresias" in result.stdout
    runs = pd.read_csv(tmp_path / "compare-runs.csv")
    summary = pd.read_csv(tmp_path / "compare.csv", index_col="policy")
    assert sorted(runs["seed"].unique()) == [0, 1, 2] and len(runs) == 6
    assert (tmp_path / "compare.png").exists()
    # Each run is the library's: seed k's workload, the estimator's stream keyed by k.
    by_seed = []
    for seed in range(3):
        beliefs = Beliefs("lognormal:sigma=1", seed=seed)
        sjf = simulate(default_workload(seed), make_policy("sjf"), beliefs=beliefs)
        tiresias = simulate(default_workload(seed), make_policy("tiresias"), beliefs=beliefs)
        by_seed.append((sjf.metrics["avg_jct"], tiresias.metrics["avg_jct"]))
    sjf_runs = runs[runs["policy"] == "sjf"].sort_values("seed")["avg_jct"].tolist()
    assert sjf_runs == [round(a, 6) for a, _ in by_seed]  # written at 1 µs
    ratio, low, high = ratio_ci([a for a, _ in by_seed], [b for _, b in by_seed])
    row = summary.loc["sjf"]
    assert (row["ratio"], row["ratio_low"], row["ratio_high"]) == tuple(
        round(x, 6) for x in (ratio, low, high)
    )
    assert row["low"] <= row["mean"] <= row["high"]
    assert f"{row['ratio']:.3f}" in result.stdout


def test_solve_prints_the_gaps_under_beliefs_beside_the_oracle_ones(tmp_path: Path) -> None:
    instance = Path(__file__).resolve().parents[2] / "instances" / "n4-g2-all-a.json"
    out = tmp_path / "gaps.csv"
    args = ["solve", str(instance), "--solver", "bounds", "--out", str(out)]
    result = runner.invoke(app, [*args, "--estimator", "lognormal:sigma=1"])
    assert result.exit_code == 0, result.output
    assert "price of not knowing" in result.stdout
    table = pd.read_csv(out)
    assert sorted(set(table["beliefs"])) == [
        "estimator=lognormal:sigma=1, interference belief=oracle",
        "oracle",
    ]
    assert len(table) == 12
    refused = runner.invoke(app, ["solve", str(instance), "--estimator", "user"])
    _one_line(refused, 1, "n4-g2-all-a.json", "field 'estimate'")


def test_gap_refuses_the_user_estimator_on_the_suite() -> None:
    result = runner.invoke(app, ["gap", "--estimator", "user"])
    _one_line(result, 2, "'--estimator'", "no estimates")
