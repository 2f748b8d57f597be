"""How each policy's average JCT on the suite depends on the tick dt (docs/formulations.md §2.8).

The offline model and the gaps of ``sjfbsbf gap`` are measured at the suite's slot length
(dt = 60 s, decisions every max(60 s, dt)); a study runs policies at dt = 1 s. For every suite
instance and policy this simulates at dt = 1, 10 and 60 s (decision interval max(60 s, dt), as
``formulations.offline.replay.interval_for``) and prints, per policy, the mean over instances of
the average JCT at each dt and the mean and largest relative change from dt = 1 s. ``--csv``
writes one row per instance, policy and dt.

Usage::

    python benchmarks/dt_sensitivity.py                 # the table (Markdown)
    python benchmarks/dt_sensitivity.py --csv dt.csv    # ... and the rows
"""

from __future__ import annotations

import argparse
import csv
import statistics
from pathlib import Path

from formulations.offline.replay import interval_for
from formulations.offline.suite import load_suite
from sjfbsbf.experiments.compare import run_policies
from sjfbsbf.experiments.gap import GAP_POLICIES

SUITE = Path(__file__).resolve().parents[1] / "instances"
DTS = (1.0, 10.0, 60.0)


def rows(suite: Path = SUITE, dts: tuple[float, ...] = DTS) -> list[dict[str, object]]:
    """One row per instance, policy and dt: the simulated average JCT (s)."""
    out: list[dict[str, object]] = []
    for optimum, instance in load_suite(suite):
        for dt in dts:
            results = run_policies(instance, list(GAP_POLICIES), dt=dt, interval=interval_for(dt))
            for name, result in zip(GAP_POLICIES, results, strict=True):
                out.append(
                    {"instance": optimum.name, "policy": name, "dt": dt, "avg_jct": result.avg_jct}
                )
    return out


def table(data: list[dict[str, object]], dts: tuple[float, ...] = DTS) -> str:
    """The Markdown table: per policy, mean average JCT at each dt, and the change from dt 1."""
    base = dts[0]
    lines = [
        "| policy | "
        + " | ".join(f"mean avg JCT, dt {dt:g} s" for dt in dts)
        + " | "
        + " | ".join(f"change dt {dt:g} vs {base:g}: mean / max" for dt in dts[1:])
        + " |",
        "|---|" + "---:|" * (2 * len(dts) - 1),
    ]
    by_key = {(r["instance"], r["policy"], r["dt"]): float(r["avg_jct"]) for r in data}  # type: ignore[arg-type]
    instances = sorted({str(r["instance"]) for r in data})
    for name in GAP_POLICIES:
        means = [statistics.mean(by_key[i, name, dt] for i in instances) for dt in dts]
        cells = [f"{m:.1f}" for m in means]
        for dt in dts[1:]:
            changes = [by_key[i, name, dt] / by_key[i, name, base] - 1 for i in instances]
            cells.append(f"{statistics.mean(changes):+.1%} / {max(changes, key=abs):+.1%}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", help="write one row per instance, policy and dt")
    args = parser.parse_args()
    data = rows()
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["instance", "policy", "dt", "avg_jct"])
            writer.writeheader()
            writer.writerows(data)
    print(f"{len({r['instance'] for r in data})} instances")
    print(table(data))


if __name__ == "__main__":
    main()
