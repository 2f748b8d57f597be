"""Shared helper of the paper-figure scripts: read a sweep's results table (or exit with one
line). The summaries and figures themselves live in ``sjfbsbf.experiments.tables``,
``figures`` and ``figures_paper``, which ``sjfbsbf figs`` uses too; the scripts never simulate.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.experiments.tables import read_results as _read


def read_results(directory: str | Path) -> pd.DataFrame:
    """The results table of a sweep output directory (exits with one line if it has none)."""
    try:
        return _read(directory)
    except InstanceError as exc:
        sys.exit(str(exc))
