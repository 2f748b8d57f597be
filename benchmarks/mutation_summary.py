"""Kill rate per module from mutmut's results (docs/testing.md).

Reads the ``*.meta`` files mutmut writes under ``mutants/`` and prints, per mutated module, how
many mutants were killed, timed out, survived or are not yet checked, and the kill rate among the
non-equivalent ones. Mutants that docs/testing.md lists as equivalent (a table row starting with
the mutant's name in backquotes and the word "equivalent") are counted apart, and survivors it
lists as "killed by" a test added since (checked by running that test with the mutant active)
are counted as *killed since*: the first-run rate is what mutmut measured, the rate now adds them.

Usage::

    python benchmarks/mutation_summary.py                     # every module run so far
    python benchmarks/mutation_summary.py sjfbsbf.policies    # modules under a prefix
    python benchmarks/mutation_summary.py --survivors         # also list surviving mutants
    python benchmarks/mutation_summary.py --csv rates.csv     # also write the table as CSV
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

ROOT = Path(__file__).resolve().parents[1]
#: Column per mutmut status (mutmut's own exit-code table, ``mutmut.stats.status_by_exit_code``).
FOLD = {"caught by type check": "killed", "segfault": "killed"}
COLUMNS = (
    "mutants",
    "killed",
    "timeout",
    "survived",
    "equivalent",
    "killed since",
    "no tests",
    "not checked",
)
RATES = ("first-run rate", "rate now")
VERDICT_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(equivalent|killed by)\b")


def verdicts(doc: Path = ROOT / "docs" / "testing.md") -> dict[str, str]:
    """Mutant name -> ``"equivalent"`` or ``"killed since"`` from docs/testing.md's tables."""
    if not doc.exists():
        return {}
    found = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        match = VERDICT_ROW.match(line)
        if match:
            kind = match.group(2)
            found[match.group(1)] = "equivalent" if kind == "equivalent" else "killed since"
    return found


def module_results(mutants: Path) -> dict[str, dict[str, str]]:
    """Module -> {mutant name: status} from mutmut's meta files."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        rel = meta.relative_to(mutants).with_suffix("").with_suffix("")
        module = ".".join(rel.parts)
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        if codes:
            statuses = {name: status_by_exit_code[code] for name, code in codes.items()}
            out[module] = {name: FOLD.get(s, s) for name, s in statuses.items()}
    return out


def summarize(
    results: dict[str, dict[str, str]], verdict: dict[str, str]
) -> list[dict[str, object]]:
    """One row per module: counts per status and the kill rates of non-equivalent mutants.

    A survivor (or a mutant no test ran) with a verdict is counted as ``equivalent`` or
    ``killed since`` instead. The first-run rate is (killed + timeout) / (checked − equivalent),
    where a mutant no test ran counts as checked and not detected; the rate now also counts the
    mutants killed since. ``None`` while nothing is checked.
    """
    rows = []
    for module, statuses in results.items():
        counts: Counter[str] = Counter()
        for name, status in statuses.items():
            undetected = status in ("survived", "no tests")
            counts[verdict.get(name, status) if undetected else status] += 1
        detected = counts["killed"] + counts["timeout"]
        judged = detected + counts["survived"] + counts["no tests"] + counts["killed since"]
        row: dict[str, object] = {"module": module, "mutants": len(statuses)}
        row |= {c: counts[c] for c in COLUMNS[1:]}
        row["first-run rate"] = round(100.0 * detected / judged, 1) if judged else None
        now = detected + counts["killed since"]
        row["rate now"] = round(100.0 * now / judged, 1) if judged else None
        rows.append(row)
    return rows


def markdown_row(row: dict[str, object]) -> str:
    """One row of docs/testing.md's kill-rate table: module, mutants, detected / judged on the
    first run, its rate, equivalent, killed since, still surviving, rate now."""
    detected = int(row["killed"]) + int(row["timeout"])  # type: ignore[call-overload]
    surviving = int(row["survived"]) + int(row["no tests"])  # type: ignore[call-overload]
    judged = detected + surviving + int(row["killed since"])  # type: ignore[call-overload]
    unchecked = int(row["not checked"])  # type: ignore[call-overload]
    mutants = f"{row['mutants']}" + (f" ({unchecked} not judged)" if unchecked else "")

    def rate(key: str) -> str:
        return "" if row[key] is None else f"{row[key]:.1f}%"

    cells = (
        f"`{row['module']}`",
        mutants,
        f"{detected} / {judged}",
        rate("first-run rate"),
        str(row["equivalent"]),
        str(row["killed since"]),
        str(surviving),
        rate("rate now"),
    )
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="only modules starting with these")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--csv", type=Path, help="also write the table to this CSV file")
    parser.add_argument(
        "--mutants", type=Path, default=Path("mutants"), help="mutmut's directory (./mutants)"
    )
    parser.add_argument(
        "--doc",
        type=Path,
        default=ROOT / "docs" / "testing.md",
        help="where the verdicts are (docs/testing.md of this checkout)",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the rows as docs/testing.md's table"
    )
    args = parser.parse_args()
    results = module_results(args.mutants)
    if args.prefixes:
        results = {m: r for m, r in results.items() if any(m.startswith(p) for p in args.prefixes)}
    verdict = verdicts(args.doc)
    rows = summarize(results, verdict)
    header = ("module", *COLUMNS, *RATES)
    if args.markdown:
        for row in rows:
            print(markdown_row(row))
    else:
        print(" | ".join(header))
        for row in rows:
            print(" | ".join("" if row[h] is None else str(row[h]) for h in header))
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=header)
            writer.writeheader()
            writer.writerows(rows)
    if args.survivors:
        for statuses in results.values():
            for name, status in sorted(statuses.items()):
                if status in ("survived", "suspicious", "no tests") and name not in verdict:
                    print(f"{status}: {name}")


if __name__ == "__main__":
    main()
