"""Reading one file of a trace either as it is or inside the archive it is distributed in.

Public traces come as ``.tar.gz`` (Philly, Alibaba PAI) or ``.zip`` (Helios) archives; the loaders
read the member they need without extracting the rest. A tar archive is read as a stream, up to
the member (the first one that matches).
"""

from __future__ import annotations

import os
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import check_input

#: Suffixes read as archives.
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar")
ZIP_SUFFIXES = (".zip",)


def is_archive(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is named like a tar or zip archive."""
    name = Path(path).name.lower()
    return name.endswith(TAR_SUFFIXES + ZIP_SUFFIXES)


def _matches(name: str, member: str) -> bool:
    """Whether archive entry ``name`` ends with the path parts of ``member``."""
    parts = PurePosixPath(name).parts
    wanted = PurePosixPath(member).parts
    return len(parts) >= len(wanted) and parts[-len(wanted) :] == wanted


@contextmanager
def open_member(path: str | os.PathLike[str], member: str) -> Iterator[tuple[IO[bytes], str]]:
    """Open ``member`` of the archive ``path`` (or ``path`` itself if it is no archive).

    Parameters
    ----------
    path
        A ``.tar.gz``, ``.tgz``, ``.tar`` or ``.zip`` archive, or a plain file.
    member
        The member's name or the end of its path (``"cluster_job_log"``,
        ``"Venus/cluster_log.csv"``); ignored for a plain file.

    Yields
    ------
    tuple[IO[bytes], str]
        The member's bytes and a label for messages (``archive:member`` or the file's path).

    Raises
    ------
    InstanceError
        One line naming the file: unreadable or corrupt (also while the caller reads the
        member), no such member, or (zip) several.
    """
    source = str(path)
    name = Path(path).name.lower()
    archived = name.endswith(TAR_SUFFIXES) or name.endswith(ZIP_SUFFIXES)
    check_input(path, whole=not archived)  # archives stream; a plain file is read whole
    try:
        if name.endswith(TAR_SUFFIXES):
            with tarfile.open(path, "r:*") as tar:
                for info in tar:
                    if info.isfile() and _matches(info.name, member):
                        handle = tar.extractfile(info)
                        assert handle is not None
                        with handle:
                            yield handle, f"{source}:{info.name}"
                        return
            raise InstanceError(f"no member {member!r} in the archive", source=source)
        if name.endswith(ZIP_SUFFIXES):
            with zipfile.ZipFile(path) as archive:
                found = [n for n in archive.namelist() if _matches(n, member)]
                if len(found) != 1:
                    what = "no member" if not found else f"{len(found)} members match"
                    listed = f" ({', '.join(found)})" if found else ""
                    raise InstanceError(f"{what} {member!r} in the archive{listed}", source=source)
                with archive.open(found[0]) as handle:
                    yield handle, f"{source}:{found[0]}"
                return
        with open(path, "rb") as handle:
            yield handle, source
    except (OSError, EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile) as exc:
        raise InstanceError(f"cannot read ({type(exc).__name__}: {exc})", source=source) from None
