"""Input files are regular files of bounded size (docs/security.md; issue 35 item 5).

A FIFO as an instance blocks a reader forever, ``/dev/zero`` reads until memory runs out, a
directory or socket gives a traceback. :func:`check_input` is asked before a file is opened: it
follows links (an input through a link is the user's choice) and refuses, in one line naming the
file, anything but a regular file, and a file read whole into memory that is larger than
:data:`MAX_INPUT_BYTES`.
"""

from __future__ import annotations

import io
import os
import stat
from typing import IO, Any

from sjfbsbf.core.errors import InstanceError

#: Largest file read whole into memory (instance and round JSON, sweep TOML, Gavel traces and
#: tables, trace CSVs): 1 GiB. Archives are read in a stream and are not capped by this.
MAX_INPUT_BYTES = 1 << 30


def check_input(path: str | os.PathLike[str], *, whole: bool = True) -> int:
    """The size of ``path``, a regular file; refused otherwise.

    Parameters
    ----------
    path
        The input.
    whole
        Whether it is read whole into memory (then it may not exceed :data:`MAX_INPUT_BYTES`).

    Raises
    ------
    InstanceError
        One line naming the file: missing, not a regular file (a FIFO, a device, a directory,
        a socket), or too large.
    """
    source = os.fspath(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InstanceError(f"cannot read: {exc.strerror or exc}", source=source) from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise InstanceError("is a directory, not a file", source=source)
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        )
        raise InstanceError(f"is {kind}, not a regular file; refusing to read it", source=source)
    if whole and info.st_size > MAX_INPUT_BYTES:
        raise InstanceError(
            f"{info.st_size:,} bytes: larger than the {MAX_INPUT_BYTES:,}-byte limit of a file "
            "read whole",
            source=source,
        )
    return info.st_size


#: Longest first (header) line of a CSV table read by the trace loaders: 1 MiB.
MAX_LINE_BYTES = 1 << 20


class _Prefixed(io.RawIOBase):
    """A byte stream: ``head`` first, then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def bounded_first_line(stream: IO[bytes], source: str) -> IO[bytes]:
    """``stream`` whole again (the first line read ahead), once its first line is known to end
    within :data:`MAX_LINE_BYTES` (a file of one huge line is refused before a CSV parser holds
    it as a header).

    Raises
    ------
    InstanceError
        One line naming ``source``: the first line is longer than the limit.
    """
    head = stream.readline(MAX_LINE_BYTES + 1)
    if len(head) > MAX_LINE_BYTES and not head.endswith(b"\n"):
        raise InstanceError(
            f"the first line is longer than {MAX_LINE_BYTES:,} bytes: not a table", source=source
        )
    return io.BufferedReader(_Prefixed(head, stream))
