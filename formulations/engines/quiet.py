"""Keep solver chatter off standard output (docs/formulations.md §3).

HiGHS prints its banner and CBC its log from native code, straight to file descriptor 1, so
``contextlib.redirect_stdout`` cannot catch them; :func:`stdout_to_stderr` points descriptor 1
elsewhere for the duration of a solve. :mod:`formulations.engines.milp` wraps every MILP solve in
it; CP-SAT writes nothing unless asked, and then through a log callback to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress


@contextmanager
def stdout_to_stderr(*, keep: bool = False) -> Iterator[None]:
    """Send what is written to file descriptor 1 to stderr (``keep``) or to the null device.

    Parameters
    ----------
    keep
        Keep the output, on stderr, instead of discarding it.
    """
    _flush()
    saved = os.dup(1)
    target = os.dup(2) if keep else os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(target, 1)
        yield
    finally:
        try:
            _flush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(target)


def _flush() -> None:
    """Flush Python's own stdout buffer so its text lands on the right side of a redirection."""
    with suppress(AttributeError, OSError, ValueError):  # closed, or a stream without flush
        sys.stdout.flush()
