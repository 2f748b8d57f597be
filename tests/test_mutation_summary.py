"""benchmarks/mutation_summary.py counts mutmut's results as docs/testing.md states, and every
"killed by" verdict in docs/testing.md names a test that exists."""

from __future__ import annotations

import fnmatch
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
pytest.importorskip("mutmut")
from mutation_summary import markdown_row, module_results, summarize, verdicts  # noqa: E402

KILLED_BY = re.compile(r"^\|\s*`[^`]+`\s*\|\s*killed by `(tests/[^`:]+)::([^`]+)`")


def _meta(root: Path, module: str, codes: dict[str, int | None]) -> None:
    path = root.joinpath(*module.split(".")).with_suffix(".py.meta")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")


def test_the_rates_count_verdicts_apart(tmp_path: Path) -> None:
    """Ten mutants: 5 killed, 1 timeout, 3 survivors (one equivalent, one killed since), one not
    checked. First run 6 / 8 = 75.0%, now 7 / 8 = 87.5%."""
    m = "pkg.mod.x_f__mutmut_"
    codes: dict[str, int | None] = {f"{m}{i}": 1 for i in range(1, 6)}
    codes |= {f"{m}6": 36, f"{m}7": 0, f"{m}8": 0, f"{m}9": 0, f"{m}10": None}
    _meta(tmp_path / "mutants", "pkg.mod", codes)
    doc = tmp_path / "testing.md"
    doc.write_text(
        f"| `{m}7` | equivalent | same |\n| `{m}8` | killed by `tests/x.py::t` | what |\n",
        encoding="utf-8",
    )
    [row] = summarize(module_results(tmp_path / "mutants"), verdicts(doc))
    assert (row["killed"], row["timeout"], row["survived"]) == (5, 1, 1)
    assert (row["equivalent"], row["killed since"], row["not checked"]) == (1, 1, 1)
    assert (row["first-run rate"], row["rate now"]) == (75.0, 87.5)
    expected = "| `pkg.mod` | 10 (1 not judged) | 6 / 8 | 75.0% | 1 | 1 | 1 | 87.5% |"
    assert markdown_row(row) == expected


def test_a_module_with_nothing_checked_has_no_rate(tmp_path: Path) -> None:
    _meta(tmp_path, "a.b", {"a.b.x_f__mutmut_1": None})
    [row] = summarize(module_results(tmp_path), {})
    assert row["first-run rate"] is None and row["rate now"] is None


def test_every_killed_by_verdict_names_a_test_that_exists() -> None:
    rows = [
        KILLED_BY.match(line)
        for line in (ROOT / "docs" / "testing.md").read_text(encoding="utf-8").splitlines()
    ]
    found = [r.groups() for r in rows if r]
    assert found, "docs/testing.md lists no mutant killed by a test added since"
    for file, test in found:
        path = ROOT / file
        assert path.exists(), f"docs/testing.md: {file} does not exist"
        names = re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
        assert fnmatch.filter(names, test), f"docs/testing.md: no {test} in {file}"
