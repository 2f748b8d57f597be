"""Results never change by accident: seeded runs against the recorded per-job tables.

The tables in ``tests/golden/`` were recorded by ``python tests/golden/cases.py`` (every
baseline on three workloads, sjf-bsbf's options, exact-round with both solvers, and every suite
instance with its recorded optimum replayed). A change that alters a result on purpose
re-records them and says why in its commit message.
"""

from __future__ import annotations

import pandas as pd
import pytest
from golden import cases  # tests/ is on sys.path (rootdir conftest, no __init__.py)


@pytest.mark.parametrize("case", list(cases.CASES))
def test_per_job_tables_match_the_recorded_ones(case: str) -> None:
    expected = cases.read(case)
    actual = cases.compute(case)
    assert list(actual.columns) == list(expected.columns)
    assert len(actual) == len(expected)
    pd.testing.assert_frame_equal(
        actual.reset_index(drop=True),
        expected,
        check_dtype=False,
        check_exact=False,
        rtol=1e-12,
        atol=1e-9,
    )
