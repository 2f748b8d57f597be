"""Atomic file output: write to a temporary file beside the target, then rename over it.

A reader never sees a half-written file, and an interrupted run leaves the old file (or none).
An output replaces only what is ours to replace (docs/security.md): a path that exists must be a
regular file with one hard link, not a symbolic link, a directory, a device, a FIFO or a socket
(each refused in one line, :class:`UnsafeOutput`, before anything is written), and the file
written keeps the permission bits of the one it replaces.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class UnsafeOutput(OSError):
    """An output path that may not be replaced (``filename`` names it, ``strerror`` says why):
    the command line prints it as one line ``sjfbsbf: error: PATH: WHY``."""


def check_output(path: str | os.PathLike[str]) -> int | None:
    """Refuse an output path that is not ours to replace; the mode bits to keep, if it exists.

    Returns
    -------
    int or None
        The permission bits of the existing regular file, or ``None`` if ``path`` does not exist.

    Raises
    ------
    UnsafeOutput
        ``path`` is a symbolic link, a directory, a device, a FIFO or a socket, or a regular file
        with more than one hard link (replacing it would break the others).
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        why = "is a symbolic link; an output never replaces or writes through one"
    elif stat.S_ISDIR(mode):
        why = "is a directory, not a file"
    elif not stat.S_ISREG(mode):
        why = "is a device, FIFO or socket, not a regular file; refusing to replace it"
    elif info.st_nlink > 1:
        why = (
            f"has {info.st_nlink} hard links; replacing it would break the others (write to "
            "another path)"
        )
    else:
        return stat.S_IMODE(mode)
    raise UnsafeOutput(errno.EEXIST, why, os.fspath(path))


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` atomically.

    Parent directories of ``path`` are created. If the block raises, the temporary file is
    removed and ``path`` is left untouched. An existing ``path`` must be ours to replace
    (:func:`check_output`); the new file keeps its permission bits.

    Parameters
    ----------
    path
        The file to produce.

    Raises
    ------
    UnsafeOutput
        Before anything is written, if ``path`` may not be replaced (:func:`check_output`).

    Examples
    --------
    >>> with atomic_path(tmp_dir / "table.csv") as tmp:  # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(path)
    keep = check_output(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    tmp.chmod(0o666 & ~_umask())  # mkstemp makes 0600: the usual permissions while writing
    try:
        try:
            yield tmp
        except OSError as exc:  # name the target, not the temporary file
            if exc.filename is not None and os.fspath(exc.filename) == name:
                raise OSError(exc.errno, exc.strerror, os.fspath(target)) from None
            raise
        if keep is not None:
            tmp.chmod(keep)  # a replaced file keeps its permission bits
        check_output(target)  # still ours (it may have changed while we wrote)
        os.replace(tmp, target)
    except BaseException:
        _discard(tmp)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _discard(tmp: Path) -> None:
    """Remove the temporary file (or whatever a failed writer left at its name)."""
    try:
        if tmp.is_dir() and not tmp.is_symlink():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.unlink(missing_ok=True)
    except OSError:
        pass  # the error being raised is the one to report


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
