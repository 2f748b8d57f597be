"""User-facing CSV files at a stated precision (docs/results-schema.md).

A float64 written in full shows its binary noise (``239.60999999999999``); every float column of a
CSV a reader opens (``simulate --jobs-csv`` and ``--rounds-csv``, ``compare.csv``,
``compare-runs.csv``, a sweep's ``results.csv``, ``gap --out X.csv``) is rounded to
:data:`CSV_DECIMALS` places first: 1 µs for times in seconds, 1e-6 for ratios and shares. Parquet
files keep full float64 (every comparison of results reads those).
"""

from __future__ import annotations

import pandas as pd

#: Decimal places of a float in a user-facing CSV.
CSV_DECIMALS = 6


def csv_text(frame: pd.DataFrame, *, index: bool = False) -> str:
    """``frame`` as CSV text, each float column rounded to :data:`CSV_DECIMALS` places."""
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    rounded = frame.copy()
    if floats:
        rounded[floats] = frame[floats].round(CSV_DECIMALS)
    text: str = rounded.to_csv(index=index)
    return text
