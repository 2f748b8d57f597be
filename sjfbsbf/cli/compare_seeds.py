"""``compare --seeds A-B``: the seeds and their checks, and every policy on each seed's default
workload with means, paired bootstrap intervals and ratios to a baseline."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import typer

from sjfbsbf.cli.common import check_out_dir, check_outputs, describe, progress_bar, stdout
from sjfbsbf.cli.interference import print_fallbacks


def seed_range(
    text: str | None,
    seed: int | None,
    instance_path: Path | None,
    baseline: str | None,
    names: list[str],
) -> list[int] | None:
    """The seeds of ``--seeds`` (``None`` without it), after the checks of its companions."""
    if text is None:
        if baseline is not None:
            raise typer.BadParameter("only applies with --seeds", param_hint="'--baseline'")
        return None
    if instance_path is not None:
        raise typer.BadParameter(
            "only applies to the default workload, not to an instance file",
            param_hint="'--seeds'",
        )
    if seed is not None:
        raise typer.BadParameter("give --seed or --seeds, not both", param_hint="'--seeds'")
    if baseline is not None and baseline not in names:
        raise typer.BadParameter(
            f"{baseline!r} is not among the compared policies ({', '.join(names)})",
            param_hint="'--baseline'",
        )
    from sjfbsbf.experiments.seeds import parse_seeds

    try:
        return parse_seeds(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--seeds'") from None


def compare_seeds(
    names: list[str],
    seeds: list[int],
    baseline: str | None,
    out: Path,
    beliefs: Any,
    chosen: dict[str, dict[str, Any]],
    options: dict[str, Any],
) -> None:
    """``compare --seeds``: every policy on each seed's default workload; means, intervals."""
    from rich.markup import escape
    from rich.table import Table

    from sjfbsbf.core.atomic import write_text_atomic
    from sjfbsbf.experiments.csv_out import csv_text
    from sjfbsbf.experiments.report import plot_comparison
    from sjfbsbf.experiments.seeds import run_seeds, seed_summary
    from sjfbsbf.workloads import default_workload

    check_out_dir(out)
    check_outputs(
        [("--out", out / name) for name in ("compare.csv", "compare-runs.csv", "compare.png")],
        [],
    )
    console = stdout()
    first = default_workload(seeds[0])
    console.print(describe(first, "default workload") + f"; seeds {seeds[0]}–{seeds[-1]}")
    if beliefs is not None:
        console.print(
            f"beliefs: {beliefs.label()} (stream key: each seed)", markup=False, soft_wrap=True
        )
    started = time.perf_counter()
    with progress_bar() as progress:
        callback = None
        if progress is not None:

            def callback(seed: int, policy: str, done: int, total: int) -> None:
                progress(f"{policy} #{seed}", done, total)

        runs = run_seeds(
            names,
            seeds,
            default_workload,
            beliefs=beliefs,
            policy_options=chosen,
            progress=callback,
            **options,
        )
    elapsed = time.perf_counter() - started
    summary = seed_summary(runs, "avg_jct", baseline)
    table = Table(
        title=f"Average JCT over {len(seeds)} seeds of the default workload",
        caption="mean over seeds with its 95% paired bootstrap interval (seeds resampled together)",
        show_edge=False,
    )
    for header in ("policy", "mean (s)", "95% interval"):
        table.add_column(header, justify="left" if header == "policy" else "right")
    if baseline is not None:
        for header in (f"÷ {baseline}", "95% interval", "verdict"):
            table.add_column(escape(header), justify="right")
    for policy, row in summary.iterrows():
        cells = [
            escape(str(policy)),
            f"{row['mean']:,.1f}",
            f"[{row['low']:,.1f}, {row['high']:,.1f}]",
        ]
        if baseline is not None:
            cells += [
                f"{row['ratio']:.3f}",
                f"[{row['ratio_low']:.3f}, {row['ratio_high']:.3f}]",
                str(row["verdict"]) if policy != baseline else "",
            ]
        table.add_row(*cells)
    console.print(table)
    console.print(f"[dim]{len(names) * len(seeds)} runs in {elapsed:.2f} s[/dim]")
    print_fallbacks(console, options)
    runs_path, csv_path, png_path = (
        out / "compare-runs.csv",
        out / "compare.csv",
        out / "compare.png",
    )
    write_text_atomic(runs_path, csv_text(runs))
    write_text_atomic(csv_path, csv_text(summary, index=True))
    means = runs.drop(columns="seed").groupby("policy", sort=False).mean()
    plot_comparison(
        means, png_path, instance=f"default workload, mean of seeds {seeds[0]}–{seeds[-1]}"
    )
    console.print(f"wrote {csv_path}, {runs_path} and {png_path}", markup=False, soft_wrap=True)
