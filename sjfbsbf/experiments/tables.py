"""Tables of a sweep's results (``sjfbsbf figs`` writes them; docs/results.md prints them):
the mean of a metric over seeds per policy and workload group, the paper's ratios with their
spread over seeds, and GitHub-flavoured Markdown of any table."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from sjfbsbf.core.errors import InstanceError

#: Display order of policies and variants (other labels after them, alphabetically).
ORDER = (
    "fifo",
    "sjf",
    "srtf",
    "tiresias",
    "sjf-ffs",
    "sjf-bsbf",
    "sjf-bsbf/full-batch",
    "sjf-bsbf/largest",
    "sjf-bsbf/wait-aware",
    "sjf-bsbf/retune",
    "sjf-bsbf/no-idle-mix",
    "sjf-bsbf-plus",
    "exact-round",
)
#: The ratios the paper's claims are about: (numerator, denominator).
RATIOS = [("sjf-bsbf", "tiresias"), ("sjf-bsbf", "sjf-ffs"), ("sjf-bsbf", "sjf")]


def ordered(labels: Sequence[str]) -> list[str]:
    """Labels in :data:`ORDER`, the others after them alphabetically."""
    known = [x for x in ORDER if x in labels]
    return known + sorted(set(labels) - set(known))


def read_results(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """A results folder's table, with its folder in ``results_dir``.

    Raises
    ------
    InstanceError
        If the folder has no ``results.parquet`` (one line naming it).
    """
    path = Path(directory) / "results.parquet"
    if not path.is_file():
        raise InstanceError("no results.parquet (run 'sjfbsbf sweep' first)", source=str(path))
    table = pd.read_parquet(path)
    if "wl_trace" in table:  # show trace files by name, not by path
        table["wl_trace"] = table["wl_trace"].map(lambda p: Path(str(p)).stem)
    table["results_dir"] = str(directory)
    return table


def group_columns(table: pd.DataFrame) -> list[str]:
    """Workload / simulator columns that vary within the sweep (the groups of a summary)."""
    candidates = [c for c in table.columns if c.startswith(("wl_", "sim_"))]
    return [c for c in candidates if table[c].nunique(dropna=False) > 1]


def mean_jct(table: pd.DataFrame, metric: str = "avg_jct") -> pd.DataFrame:
    """Mean of ``metric`` over seeds: rows = labels, columns = groups."""
    groups = group_columns(table)
    if not groups:
        out = table.groupby("label")[metric].mean().to_frame("all")
    else:
        out = table.groupby(["label", *groups])[metric].mean().unstack(groups)
    return out.loc[ordered(list(out.index))]


def ratio_table(table: pd.DataFrame, metric: str = "avg_jct") -> pd.DataFrame:
    """For each ratio of :data:`RATIOS` and group: ratio of the seed-mean JCTs, and the
    smallest and largest per-seed ratio."""
    groups = group_columns(table)
    table = table.assign(_all="all") if not groups else table
    groups = groups or ["_all"]
    wide = table.pivot_table(index=[*groups, "seed"], columns="label", values=metric)
    rows = []
    for num, den in RATIOS:
        if num not in wide.columns or den not in wide.columns:
            continue
        per_seed = (wide[num] / wide[den]).groupby(level=groups)
        means = wide[[num, den]].groupby(level=groups).mean()
        low, high = per_seed.min(), per_seed.max()
        for key in means.index:
            rows.append(
                {
                    "ratio": f"{num} / {den}",
                    "group": ", ".join(map(str, key)) if isinstance(key, tuple) else str(key),
                    "of_means": means.loc[key, num] / means.loc[key, den],
                    "min": low.loc[key],
                    "max": high.loc[key],
                }
            )
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame, index: bool = True, digits: int = 3) -> str:
    """A GitHub-flavoured markdown table (without the optional ``tabulate`` dependency)."""
    frame = frame.reset_index() if index else frame

    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.{digits}f}" if abs(value) < 100 else f"{value:,.0f}"
        return str(value)

    header = [
        ", ".join(str(part) for part in c if part != "") if isinstance(c, tuple) else str(c)
        for c in frame.columns
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def tables_markdown(table: pd.DataFrame, metric: str = "avg_jct") -> str:
    """The tables docs/results.md prints for a sweep: the seed means and the paper's ratios."""
    seeds = sorted(int(s) for s in table["seed"].unique())
    return (
        f"{metric} (s), mean over seeds {seeds}:\n\n"
        + markdown(mean_jct(table, metric))
        + "\n\nratios (of the seed means; min / max over seeds):\n\n"
        + markdown(ratio_table(table, metric), index=False)
    )
