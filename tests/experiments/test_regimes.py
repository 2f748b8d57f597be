"""The regime map (sjfbsbf.experiments.regimes): paired bootstrap ratios, verdicts, planes, and
the maps and tables ``sjfbsbf figs`` draws for a regime sweep."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.experiments.regimes import (
    default_plane,
    is_regime_sweep,
    map_cells,
    ratio_ci,
    regime_cells,
    regime_markdown,
    sweep_cells,
    verdict_counts,
)
from sjfbsbf.experiments.sweep import load_sweep, run_sweep

positive = st.floats(min_value=1.0, max_value=1e4, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(positive, positive), min_size=2, max_size=12))
def test_ratio_of_means_and_an_interval_within_the_per_seed_ratios(pairs) -> None:
    """A resample's ratio of means is a b-weighted mean of per-seed ratios, so the interval lies
    between the smallest and largest per-seed ratio and holds the ratio of the means."""
    num, den = map(np.array, zip(*pairs, strict=True))
    ratio, low, high = ratio_ci(num, den)
    assert ratio == pytest.approx(num.mean() / den.mean())
    per_seed = num / den
    assert per_seed.min() * (1 - 1e-9) <= low <= high <= per_seed.max() * (1 + 1e-9)
    assert ratio_ci(num, den) == (ratio, low, high)  # fixed bootstrap seed


def test_the_same_interval_as_scipy_bootstrap() -> None:
    """Ours is scipy.stats.bootstrap's paired percentile interval without its overhead: the two
    draw different resamples, so they agree to the resampling noise."""
    from scipy.stats import bootstrap

    rng = np.random.default_rng(7)
    den = rng.uniform(500, 3000, size=10)
    num = den * rng.uniform(0.7, 1.1, size=10)
    ratio, low, high = ratio_ci(num, den)
    ref = bootstrap(
        (num, den),
        lambda x, y, axis=-1: x.mean(axis=axis) / y.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=20000,
        method="percentile",
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert low == pytest.approx(ref.low, rel=0.01) and high == pytest.approx(ref.high, rel=0.01)
    assert low < ratio < high


def test_degenerate_intervals() -> None:
    assert ratio_ci([2.0], [4.0]) == (0.5, 0.5, 0.5)
    assert ratio_ci([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) == (0.5, 0.5, 0.5)


def test_pairing_matters() -> None:
    """Seeds vary a lot but the numerator is 10% below on every one: paired, the interval
    excludes 1; the same values shuffled against each other would not."""
    den = np.array([100.0, 400.0, 1600.0, 250.0, 900.0, 3000.0])
    num = den * np.array([0.88, 0.9, 0.91, 0.89, 0.92, 0.9])
    _, low, high = ratio_ci(num, den)
    assert high < 1
    _, low, high = ratio_ci(num, den[::-1])
    assert low < 1 < high


def table_of(ratios: dict[str, float], seeds: int = 6) -> pd.DataFrame:
    """Rows of a fake sweep: per mix a constant-ish ratio of sjf-bsbf to tiresias."""
    rng = np.random.default_rng(0)
    rows = []
    for mix, r in ratios.items():
        for seed in range(seeds):
            base = 1000.0 * (1 + seed)
            noise = 1.0 if r != 1.0 else rng.choice([0.8, 1.25])
            rows.append({"wl_mix": mix, "seed": seed, "label": "tiresias", "avg_jct": base})
            rows.append({"wl_mix": mix, "seed": seed, "label": "sjf-bsbf",
                         "avg_jct": base * r * noise})  # fmt: skip
    return pd.DataFrame(rows)


def test_verdicts() -> None:
    cells = regime_cells(
        table_of({"light": 0.8, "heavy": 1.2, "full": 1.0}), "sjf-bsbf", "tiresias", ["wl_mix"]
    ).set_index("wl_mix")
    assert cells.loc["light", "verdict"] == "better" and cells.loc["light", "value"] == 0.8
    assert cells.loc["heavy", "verdict"] == "worse"
    assert cells.loc["full", "verdict"] == "tie"
    assert set(cells["seeds"]) == {6}


def test_a_cell_without_one_of_the_policies_is_left_out() -> None:
    table = table_of({"light": 0.8, "heavy": 1.2})
    table = table[~((table["wl_mix"] == "heavy") & (table["label"] == "tiresias"))]
    cells = regime_cells(table, "sjf-bsbf", "tiresias", ["wl_mix"])
    assert cells["wl_mix"].tolist() == ["light"]


TINY = """\
name = "tiny-regimes"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 8
nodes = 1
gpus_per_node = 4
rate_factor = [1.0, 2.0]
mix = ["light", "heavy"]
gpu_mem_gb = [12.0, 48.0]

[sim]
dt = 10.0
interference = ["time-slicing", "mps"]

[[variants]]
policy = "sjf"

[[variants]]
policy = "tiresias"

[[variants]]
policy = "sjf-ffs"

[[variants]]
policy = "sjf-bsbf"

[[variants]]
policy = "sjf-bsbf-plus"
"""


def test_a_tiny_regime_sweep_drawn_by_figs(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    out = tmp_path / "results"
    table = run_sweep(load_sweep(path), out)
    assert is_regime_sweep(table)
    plane = default_plane(table, keep="sim_interference")
    assert set(plane["wl_gpu_mem_gb"]) == {12.0} and set(plane["sim_interference"]) == {
        "time-slicing",
        "mps",
    }
    every = sweep_cells(table)
    assert len(every) == 4 * 2 * 2 * 2 * 2  # ratios × mixes × interference × memory × loads
    cells = map_cells(every, "wl_gpu_mem_gb")
    assert len(cells) == 4 * 2 * 2 * 2  # ratios × mixes × memory levels × loads
    # Each cell is the ratio of seed means of exactly its rows.
    one = cells.iloc[5]
    rows = table[
        (table["wl_mix"] == one["wl_mix"])
        & (table["wl_gpu_mem_gb"] == one["wl_gpu_mem_gb"])
        & (table["wl_rate_factor"] == one["wl_rate_factor"])
        & (table["sim_interference"] == "time-slicing")
    ]
    num, den = one["ratio"].split(" / ")
    means = rows.groupby("label")["avg_jct"].mean()
    assert one["value"] == pytest.approx(means[num] / means[den])
    figs = tmp_path / "figs"
    done = CliRunner().invoke(app, ["figs", "--results", str(out), "--out", str(figs)])
    assert done.exit_code == 0, done.output
    for stem, suffix in itertools.product(
        ["tiny-regimes-map-interference", "tiny-regimes-map-gpu_mem_gb", "tiny-regimes-avg_jct"],
        ["png", "pdf"],
    ):
        assert (figs / f"{stem}.{suffix}").stat().st_size > 1000, stem
    text = (figs / "tiny-regimes-regimes.md").read_text(encoding="utf-8")
    assert text == regime_markdown(every)
    assert "### load × interference" in text and "### load × gpu mem gb" in text
    assert "sjf-bsbf-plus / sjf-bsbf" in text
    script = Path(__file__).resolve().parents[2] / "paper_figs" / "fig_regime_map.py"
    printed = subprocess.run(
        [sys.executable, str(script), str(out), "--tables"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    assert printed == text  # the thin script prints the same tables
    png = tmp_path / "map.png"
    subprocess.run(
        [sys.executable, str(script), str(out), "--factor", "memory", "--out", str(png)],
        capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    assert png.stat().st_size > 1000 and png.with_suffix(".pdf").stat().st_size > 1000


def test_not_a_regime_sweep_without_a_ratio_of_the_map() -> None:
    """A sweep that varies the factors but ran no pair of a map ratio gets no map (and no
    error): the generic figures only."""
    rows = [
        {"wl_rate_factor": rf, "wl_mix": mix, "sim_interference": itf, "seed": 0,
         "label": label, "avg_jct": 1.0}
        for rf in (1.0, 2.0) for mix in ("light", "heavy") for itf in ("mps", "time-slicing")
        for label in ("sjf", "fifo")
    ]  # fmt: skip
    table = pd.DataFrame(rows)
    assert not is_regime_sweep(table)
    assert is_regime_sweep(table.assign(label=table["label"].replace("fifo", "sjf-bsbf")))


def test_planes_without_the_default_level_use_the_first_one() -> None:
    """A sweep that never ran 12 GB or time slicing still gets both maps, at the first level."""
    rows = [
        {"wl_rate_factor": rf, "wl_mix": mix, "sim_interference": itf, "wl_gpu_mem_gb": mem,
         "seed": seed, "label": label, "avg_jct": 100.0 + seed + (label == "sjf")}
        for rf in (1.0, 2.0) for mix in ("light", "heavy") for itf in ("gavel-fitted", "mps")
        for mem in (48.0, 24.0) for seed in (0, 1) for label in ("sjf", "sjf-bsbf")
    ]  # fmt: skip
    table = pd.DataFrame(rows)
    plane = default_plane(table, keep="wl_gpu_mem_gb")
    assert set(plane["sim_interference"]) == {"mps"}  # MPS-like comes first in LEVEL_ORDER
    assert set(default_plane(table, keep="sim_interference")["wl_gpu_mem_gb"]) == {24.0}
    cells = sweep_cells(table)
    assert set(map_cells(cells, "sim_interference")["wl_gpu_mem_gb"]) == {24.0}
    assert len(map_cells(cells, "wl_gpu_mem_gb")) == 2 * 2 * 2  # mixes × memory × loads


def test_identical_policies_tie_exactly() -> None:
    """Equal on every seed: the ratio is 1 with a zero-width interval, which is a tie (the
    interval must exclude 1 to be better or worse); ratios equal on every seed but not exact in
    floating point come back as that ratio, both ends, to the last bit."""
    den = np.array([100.0, 250.0, 400.0, 900.0])
    assert ratio_ci(den, den) == (1.0, 1.0, 1.0)
    cells = regime_cells(table_of({"full": 1.0}).assign(avg_jct=1000.0), "sjf-bsbf",
                         "tiresias", ["wl_mix"])  # fmt: skip
    assert cells["verdict"].tolist() == ["tie"]
    num = den * 0.3
    ratio = float(num.mean() / den.mean())
    assert ratio_ci(num, den) == (ratio, ratio, ratio)


def test_a_seed_missing_one_policy_is_left_out_of_its_cell() -> None:
    table = table_of({"light": 0.8})
    table = table[~((table["seed"] == 2) & (table["label"] == "sjf-bsbf"))]
    cells = regime_cells(table, "sjf-bsbf", "tiresias", ["wl_mix"])
    assert cells["seeds"].tolist() == [5]
    assert cells["value"].tolist() == [pytest.approx(0.8)]


def test_the_count_table_names_best_and_worst() -> None:
    cells = regime_cells(
        table_of({"light": 0.8, "heavy": 1.2, "full": 1.0}), "sjf-bsbf", "tiresias", ["wl_mix"]
    )
    last = regime_markdown(cells).strip().splitlines()[-1]
    assert last == "| sjf-bsbf / tiresias | 3 | 0 | 1 | 1 | 1 | 0.800 | 1.200 |"


def test_a_cell_whose_runs_equal_an_earlier_cells_is_counted_once() -> None:
    """24 and 48 GB give identical runs when memory never binds: the 48 GB cell is a duplicate
    of the 24 GB one (named), left out of the counts; a cell differing in one run is not."""
    base = table_of({"light": 0.8, "heavy": 1.2})
    table = pd.concat(
        [base.assign(wl_gpu_mem_gb=mem) for mem in (12.0, 24.0, 48.0)], ignore_index=True
    )
    differs = (table["wl_gpu_mem_gb"] == 12.0) & (table["seed"] == 0)
    table.loc[differs & (table["label"] == "tiresias"), "avg_jct"] += 1.0
    cells = regime_cells(table, "sjf-bsbf", "tiresias", ["wl_mix", "wl_gpu_mem_gb"])
    duplicates = cells.set_index(["wl_mix", "wl_gpu_mem_gb"])["duplicate_of"]
    assert duplicates[("heavy", 12.0)] == "" and duplicates[("heavy", 24.0)] == ""
    assert duplicates[("heavy", 48.0)] == "mix=heavy, gpu mem gb=24"
    counts = verdict_counts(cells).iloc[0]
    assert (counts["cells"], counts["duplicates"]) == (4, 2)
    assert counts["better"] + counts["tie"] + counts["worse"] == 4


def test_variant_screen_script(tmp_path: Path) -> None:
    """experiments/screen_variants.py counts each variant's cells against sjf-bsbf per seed set
    (the numbers of docs/model.md §6.1), from a results folder alone."""
    rows = []
    for seed in range(20):
        for mix in ("light", "heavy"):
            base = 1000.0 * (1 + seed)
            rows += [
                {"seed": seed, "wl_mix": mix, "sim_interference": "mps", "wl_gpu_mem_gb": 12.0,
                 "wl_rate_factor": 1.0, "label": label, "avg_jct": base * factor}
                for label, factor in (("sjf-bsbf", 1.0), ("sjf-bsbf/backfill-first", 0.9),
                                      ("sjf-bsbf/no-idle-mix", 1.1 if mix == "light" else 1.0))
            ]  # fmt: skip
    results = tmp_path / "variants"
    results.mkdir()
    pd.DataFrame(rows).to_parquet(results / "results.parquet")
    script = Path(__file__).resolve().parents[2] / "experiments" / "screen_variants.py"
    printed = subprocess.run(
        [sys.executable, str(script), str(results)], capture_output=True, text=True, check=True,
        timeout=120,
    ).stdout  # fmt: skip
    assert printed.count("| sjf-bsbf/backfill-first / sjf-bsbf | 2 | 0 | 2 | 0 | 0 | 0.900 |") == 2
    assert printed.count("| sjf-bsbf/no-idle-mix / sjf-bsbf | 2 | 0 | 0 | 1 | 1 | 1.000 |") == 2
    assert (
        "seeds 10-19 (fresh)" in printed
        and "| sjf-bsbf/no-idle-mix / sjf-bsbf | light |" in printed
    )
