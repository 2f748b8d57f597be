"""Write the suite of small named instances and record their optima (docs/formulations.md §2.8).

The instances are :data:`formulations.offline.generate.SPECS`, each drawn from its own explicit
seed (see that module for how jobs are made). Each is solved by CP-SAT (``--workers`` 4 on the
two cores of the project's machines, seed 0) with a 60 s limit; ``instances/optima.json``
records the status (``optimal`` only when proven), the solver's objective and bound, the
simulator's re-score of the schedule, the schedule, the runtime and ``dt``. Instances that
were not proven in time keep their status, honestly. An instance too large for the model
(``ModelTooLarge``) is recorded from the ``"bounds"`` solver: the best heuristic and the best
lower bound.

Usage (from the repository root)::

    python instances/make_suite.py                 # write every instance, solve, write optima
    python instances/make_suite.py --only n5-g2-heavy-a --time-limit 120
    python instances/make_suite.py --no-solve      # instance files only
    python instances/make_suite.py --only n12-g8-all-e --keep --prove-free 400
    python instances/make_suite.py --only n12-g8-all-c --keep --prove-free 300 --lb-tree
    python instances/make_suite.py --only n50-g8-all-a --search 300 --workers 1 --merge
    python instances/make_suite.py --keep --colgen  # raise every unproven bound (§2.10 item 7)

``--prove-free SECONDS`` runs the placement-free CP-SAT bound on each unproven instance
(:func:`formulations.bounds.placement_free_bound`, one worker, that deterministic-time limit,
docs/formulations.md §2.10 item 6): a higher bound replaces the recorded one
(``placement_free`` records how it was found), and when it reaches the recorded schedule's
replayed value within the model tolerance the entry becomes ``optimal``; with ``--lb-tree``
that run uses CP-SAT's lb-tree search (a higher bound in a short budget, later proofs).
``--colgen`` runs the column-generation bound (:func:`formulations.bounds.colgen_bound`, to
its LP optimum, over the windows of the entry's ``search``; docs/formulations.md §2.10 item 7)
on each unproven instance the same way (``colgen`` records how it was found).
``--keep`` keeps an instance's recorded solve instead of solving it again. ``--merge`` keeps,
of the recorded solve and the new one, the entry whose schedule replays better and gives it the
higher of the two bounds (recorded under ``merged``), so a re-record never makes an entry
worse. ``--search N`` spends N simulations on the incumbent search before the model
(docs/formulations.md §2.2; the model is then hinted with, and its windows derived from, the
best schedule found) and records ``search`` in the entry.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from formulations.bounds import RelaxationBound, colgen_bound, placement_free_bound
from formulations.offline import solve_offline
from formulations.offline.data import OfflineData
from formulations.offline.generate import DT, SPECS, make_instance
from formulations.offline.preprocess import preprocess
from formulations.offline.size import ModelTooLarge
from formulations.offline.solve import objective_tolerance
from formulations.offline.suite import OPTIMA_FILE, read_optima, record, write_optima
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import Instance


def main(argv: list[str] | None = None) -> int:
    """Write the instances and (unless ``--no-solve``) solve them and write the optima."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--only", nargs="*", default=None, help="instance names")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-solve", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep recorded solves")
    parser.add_argument("--prove-free", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--lb-tree", action="store_true", help="lb-tree search in --prove-free")
    parser.add_argument("--search", type=int, default=None, metavar="N")
    parser.add_argument("--merge", action="store_true", help="never make an entry worse")
    parser.add_argument("--colgen", action="store_true", help="the column-generation bound")
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    optima_path = args.out / OPTIMA_FILE
    entries: dict[str, dict[str, object]] = {}
    if optima_path.exists():
        entries = json.loads(optima_path.read_text(encoding="utf-8"))["instances"]
        read_optima(optima_path)  # validate
    specs = [s for s in SPECS if args.only is None or s.name in args.only]
    for spec in specs:
        instance = make_instance(spec)
        file = f"{spec.name}.json"
        write_instance(instance, args.out / file)
        if args.no_solve:
            continue
        if args.keep and spec.name in entries:
            if args.prove_free is not None:
                _prove_free(entries[spec.name], instance, args.prove_free, args.lb_tree)
            if args.colgen:
                _colgen(entries[spec.name], instance)
            write_optima(optima_path, entries)
            continue
        started = time.perf_counter()
        try:
            result = solve_offline(
                instance,
                "cpsat",
                dt=DT,
                time_limit=args.time_limit,
                seed=args.seed,
                num_workers=args.workers,
                search=args.search,
                deterministic=True,  # the suite must reproduce (docs/formulations.md §2.6)
            )
        except ModelTooLarge:
            result = solve_offline(
                instance, "bounds", dt=DT, seed=args.seed, search=args.search, deterministic=True
            )
        searched = {} if args.search is None else {"search": args.search}
        new = record(
            spec.name,
            file,
            result,
            num_workers=args.workers,
            seed=args.seed,
            time_limit_s=args.time_limit,
            generator_seed=spec.seed,
            jobs=instance.num_jobs,
            gpus=instance.cluster.num_gpus,
            **searched,
        )
        entries[spec.name] = (
            _merge(entries[spec.name], new) if args.merge and spec.name in entries else new
        )
        if args.prove_free is not None:
            _prove_free(entries[spec.name], instance, args.prove_free, args.lb_tree)
        if args.colgen:
            _colgen(entries[spec.name], instance)
        write_optima(optima_path, entries)
        print(
            f"{spec.name:24s} {result.status.value:10s} model={result.objective} "
            f"bound={result.bound} replayed={result.replayed_avg_jct} "
            f"t={time.perf_counter() - started:.1f}s",
            flush=True,
        )
    return 0


def _merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The entry of the better schedule (ties: the recorded one), with the higher of the two
    bounds; a bound taken from the other solve is recorded under ``merged``."""
    keep, other = (old, new) if old["replayed_avg_jct"] <= new["replayed_avg_jct"] else (new, old)
    keep = dict(keep)
    if (other.get("bound") or 0.0) > (keep.get("bound") or 0.0):
        replayed = float(keep["replayed_avg_jct"])
        keep["bound"] = min(replayed, float(other["bound"]))
        keep["merged"] = {
            "bound": other["bound"],
            "from": "the other solve of make_suite.py --merge (its schedule replays worse)",
            "backend": other["backend"],
            "num_workers": other.get("num_workers"),
            "time_limit_s": other.get("time_limit_s"),
            "search": other.get("search"),
        }
        if keep["bound"] >= replayed - float(keep.get("tolerance_s") or 0.0):
            keep["status"] = "optimal"
    return keep


def _prove_free(
    entry: dict[str, Any], instance: Instance, seconds: float, lb_tree: bool = False
) -> None:
    """Raise ``entry``'s bound to the placement-free bound when higher; mark it optimal when
    that bound meets its replayed value within the model tolerance."""
    if entry["status"] == "optimal" or entry.get("replayed_avg_jct") is None:
        return
    data = preprocess(instance, float(entry["dt"]))
    started = time.perf_counter()
    found = placement_free_bound(data, time_limit=seconds, lb_tree_search=lb_tree)
    _raise_bound(
        entry, data, "placement_free", found, time.perf_counter() - started,
        by="formulations.bounds.placement_free_bound (CP-SAT, 1 worker)",
        time_limit_s=seconds, lb_tree_search=lb_tree,
    )  # fmt: skip


def _colgen(entry: dict[str, Any], instance: Instance) -> None:
    """Raise ``entry``'s bound to the column-generation bound (to its LP optimum, over the
    windows of the entry's incumbent search) when higher; mark it optimal when that bound meets
    its replayed value within the model tolerance."""
    if entry["status"] == "optimal" or entry.get("replayed_avg_jct") is None:
        return
    search = int(entry.get("search") or 0)
    data = preprocess(instance, float(entry["dt"]), search=search, max_cells=None)
    started = time.perf_counter()
    run = colgen_bound(data, time_limit=None)
    _raise_bound(
        entry, data, "colgen", run.bound, time.perf_counter() - started,
        by="formulations.bounds.colgen_bound (to the LP optimum)",
        search=search, rounds=run.iterations, columns=run.columns,
    )  # fmt: skip


def _raise_bound(
    entry: dict[str, Any],
    data: OfflineData,
    key: str,
    found: RelaxationBound,
    wall: float,
    **how: Any,
) -> None:
    """Print what the bound ``key`` found; take it as ``entry``'s bound when higher (capped by
    its replayed value), recording ``how`` with its status, bound and wall time under ``key``,
    and mark the entry optimal when the bound meets the replayed value."""
    replayed = float(entry["replayed_avg_jct"])
    print(
        f"{entry['file']:28s} {key.replace('_', '-')} {found.status.value} bound={found.bound} "
        f"replayed={replayed} t={wall:.1f}s",
        flush=True,
    )
    bound = found.bound
    if bound is None or bound <= (entry.get("bound") or 0.0):
        return
    entry["bound"] = min(replayed, bound)
    entry[key] = {"by": how.pop("by"), "status": found.status.value, "bound": bound, **how}
    entry[key]["wall_s"] = round(wall, 1)
    if bound >= replayed - objective_tolerance(data, replayed):
        entry["status"] = "optimal"


if __name__ == "__main__":
    sys.exit(main())
