"""Atomic file output: write to a temporary file beside the target, then rename over it.

A reader never sees a half-written file, and an interrupted run leaves the old file (or none).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` atomically.

    Parent directories of ``path`` are created. If the block raises, the temporary file is
    removed and ``path`` is left untouched.

    Parameters
    ----------
    path
        The file to produce.

    Examples
    --------
    >>> with atomic_path(tmp_dir / "table.csv") as tmp:  # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    tmp.chmod(0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
