"""The column-generation bound against the fluid LP on suite instances (docs/formulations.md
§2.10 item 7).

For each named suite instance: the data as ``solve_offline(..., "bounds")`` makes it (the
incumbent search of §2.2 with ``--search`` simulations, seed 0, so the same windows), the best
schedule U (the suite's recorded one), the recorded bound, the fluid LP with the pace hull, and
the column-generation bound run to its LP optimum (no time limit) with partner rows per job and
option and, with ``--plain``, per job only; with ``--integer``, also the master's integer
optimum over every enumerated column (small instances only: it enumerates every column).
Writes one CSV row per instance (``--out``) and prints it.

Not a test: run it by hand, e.g. ``python benchmarks/colgen_bound.py --out colgen.csv``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

from formulations.bounds.colgen import colgen_bound, full_master
from formulations.bounds.fluid import fluid_bound
from formulations.offline.preprocess import preprocess
from formulations.offline.suite import load_suite

NAMED = ("n20-g8-all-a", "n20-2x4-all-a", "n30-g8-all-b", "n50-g8-all-a", "n50-2x4-all-a")
SUITE = Path(__file__).resolve().parents[1] / "instances"


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description="Column-generation bound vs the fluid LP.")
    parser.add_argument("instances", nargs="*", default=list(NAMED))
    parser.add_argument("--search", type=int, default=300)
    parser.add_argument("--plain", action="store_true", help="also partner rows per job only")
    parser.add_argument("--integer", action="store_true", help="also the integer master")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    suite = {optimum.name: (optimum, instance) for optimum, instance in load_suite(SUITE)}
    rows = []
    for name in args.instances:
        optimum, instance = suite[name]
        data = preprocess(instance, optimum.dt, search=args.search, max_cells=None)
        fluid = fluid_bound(data, time_limit=None, max_variables=None)
        began = time.monotonic()
        run = colgen_bound(data, time_limit=None)
        row: dict[str, object] = {
            "instance": name,
            "jobs": instance.num_jobs,
            "horizon": data.horizon,
            "best": optimum.replayed_avg_jct,
            "recorded_bound": optimum.bound,
            "fluid": fluid.bound,
            "fluid_s": round(fluid.runtime_s, 1),
            "colgen": run.bound.bound,
            "colgen_status": run.bound.status.value,
            "colgen_s": round(time.monotonic() - began, 1),
            "rounds": run.iterations,
            "columns": run.columns,
        }
        if args.plain:
            row["colgen_plain"] = colgen_bound(data, by_option=False, time_limit=None).bound.bound
        if args.integer:
            whole = full_master(data, integer=True, time_limit=1800.0)
            row["integer_master"] = whole.bound
            row["integer_status"] = whole.status.value
        best, bound = optimum.replayed_avg_jct, run.bound.bound
        if best is not None and bound:
            row["gap"] = round((best - bound) / bound, 4)
        rows.append(row)
        print(row, flush=True)
    if args.out is not None and rows:
        keys = list(dict.fromkeys(k for row in rows for k in row))
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
