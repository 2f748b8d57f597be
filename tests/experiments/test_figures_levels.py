"""Every figure of ``sjfbsbf figs`` says what it shows (issue 36): a panel or a file per
configuration and load level, none dropped (the average-JCT figure drew the middle load only, the
run figures the first configuration only), rendered at 2, 8 and 32 GPUs with 2 and 6 policies."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sjfbsbf.experiments.figure_common import grid, panels, slug
from sjfbsbf.experiments.figures import make_figures
from sjfbsbf.experiments.figures_gaps import gap_stem
from sjfbsbf.experiments.sweep import load_sweep, run_sweep

SWEEP = """\
name = "levels"
seeds = [0]

[[workloads]]
kind = "default"
n_jobs = 12
nodes = [1, 4]
gpus_per_node = {gpus}
rate_factor = [1.0, 2.0]

[sim]
dt = 10.0

{variants}
"""
POLICIES = {
    2: ["sjf", "sjf-bsbf"],
    6: ["fifo", "sjf", "srtf", "tiresias", "sjf-ffs", "sjf-bsbf"],
}
#: GPUs per node of each case: 2, 8, 8 and 32 GPUs with 2 policies; 8 and 32 with 6 (cheaper).
GPUS = {2: [2, 8], 6: [8]}


@pytest.mark.parametrize("count", sorted(POLICIES))
def test_every_level_has_its_panel_and_files(tmp_path: Path, count: int) -> None:
    variants = "\n".join(f'[[variants]]\npolicy = "{p}"\n' for p in POLICIES[count])
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(variants=variants, gpus=GPUS[count]), encoding="utf-8")
    table = run_sweep(load_sweep(path), tmp_path / "out")
    expected = sorted({n * g for n in (1, 4) for g in GPUS[count]})
    assert sorted(set(table["num_gpus"])) == expected  # 2, 8, 32 GPUs (8, 32 with 6 policies)
    written = {p.name for p in make_figures([tmp_path / "out"], tmp_path / "figs")}
    titles = [title for title, _ in panels(table)]
    configs = 2 * len(GPUS[count])
    assert len(titles) == len(set(titles)) == configs * 2  # configurations × 2 loads
    for title in titles:
        assert "rate factor=" in title and "nodes=" in title
        assert ("gpus_per_node=" in title) == (len(GPUS[count]) > 1)
        for kind in ("utilisation", "choices"):
            assert f"levels-{kind}-{slug(title)}.png" in written
    for stem in ("avg_jct", "jct_cdf", "jct_vs_load"):
        assert f"levels-{stem}.png" in written and f"levels-{stem}.pdf" in written
    for name in written:
        data = (tmp_path / "figs" / name).read_bytes()
        magic = {".png": b"\x89PNG", ".pdf": b"%PDF", ".md": data[:4]}[Path(name).suffix]
        assert data[:4] == magic, name  # every figure a PNG or PDF; tables are Markdown


def test_the_grid_keeps_every_level_and_leaves_missing_cells_empty() -> None:
    table = pd.DataFrame(
        {
            "wl_nodes": [1, 1, 2],
            "wl_rate_factor": [1.0, 2.0, 1.0],  # nodes=2 was not run at 2.0
            "label": ["sjf"] * 3,
            "avg_jct": [1.0, 2.0, 3.0],
        }
    )
    levels, configs, cells = grid(table)
    assert (levels, configs) == (2, 2)
    assert sorted(cells) == [(0, 0), (0, 1), (1, 0)]
    assert cells[1, 0][0] == "nodes=1, rate factor=2"
    assert [t for t, _ in panels(table)] == [
        "nodes=1, rate factor=1",
        "nodes=1, rate factor=2",
        "nodes=2, rate factor=1",
    ]
    assert panels(table.drop(columns="wl_nodes").iloc[:1])[0][0] == ""  # nothing varies


def test_slugs_and_gap_stems() -> None:
    assert slug("nodes=2, rate factor=1.5") == "nodes-2_rate-factor-1.5"
    assert slug("") == "all"
    assert gap_stem(Path("gaps.csv")) == "gaps"  # was gaps-gaps
    assert gap_stem(Path("suite-gap.json")) == "suite-gap"
    assert gap_stem(Path("results.csv")) == "results-gaps"


def test_the_load_figure_never_averages_configurations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jct_vs_load drew one line per policy over every configuration's rows (nodes=1 and 4
    averaged); now one panel per configuration, each line that configuration's means."""
    import sjfbsbf.experiments.figures as figures

    variants = '[[variants]]\npolicy = "sjf"\n'
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(variants=variants, gpus=[8]), encoding="utf-8")
    table = run_sweep(load_sweep(path), tmp_path / "out")
    drawn: dict[str, object] = {}
    monkeypatch.setattr(figures, "save", lambda fig, out, stem, written: drawn.update({stem: fig}))
    figures._fig_load("levels", table, tmp_path, [])
    fig = drawn["levels-jct_vs_load"]
    axes = [ax for ax in fig.axes if ax.get_visible()]  # type: ignore[attr-defined]
    assert [ax.get_title() for ax in axes] == ["nodes=1", "nodes=4"]
    for ax, nodes in zip(axes, (1, 4), strict=True):
        (line,) = ax.get_lines()
        rows = table[table["wl_nodes"] == nodes].sort_values("wl_rate_factor")
        assert list(line.get_ydata()) == pytest.approx(rows["avg_jct"].tolist())


def test_an_absent_belief_is_a_level_of_its_own(tmp_path: Path) -> None:
    """A sweep over estimators leaves ``oracle`` out of its runs (NaN): the figures counted one
    level and mixed oracle and lognormal runs in every panel."""
    from sjfbsbf.experiments.figure_common import configurations

    table = pd.DataFrame({"sim_estimator": pd.array([None, "lognormal:sigma=1"], dtype="string")})
    assert [t for t, _ in configurations(table)] == [
        "estimator=lognormal:sigma=1",
        "estimator=default",
    ]
    sweep = (
        SWEEP.format(variants='[[variants]]\npolicy = "sjf"\n', gpus=[8])
        .replace("nodes = [1, 4]", "nodes = 1")
        .replace("dt = 10.0", 'dt = 10.0\nestimator = ["oracle", "lognormal:sigma=1"]')
    )
    path = tmp_path / "s.toml"
    path.write_text(sweep, encoding="utf-8")
    run_sweep(load_sweep(path), tmp_path / "out")
    written = {p.name for p in make_figures([tmp_path / "out"], tmp_path / "figs")}
    for estimator in ("oracle", "lognormalsigma-1"):
        for level in ("1", "2"):
            name = f"levels-utilisation-estimator-{estimator}_rate-factor-{level}.png"
            assert name in written, sorted(written)
