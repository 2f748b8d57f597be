"""What a sweep run's key hashes beyond its specification: the code and the input files' content.

:func:`code_version` is the package version plus a hash of the sources, so a development
checkout never reuses a result computed by other code; :func:`file_digest` hashes a file's
content (and notes its size and modification time, so a change while the sweep runs is caught).
"""

from __future__ import annotations

import hashlib
import os
from importlib import util
from pathlib import Path


def code_version() -> str:
    """The package version plus a hash of the sources (``sjfbsbf`` and ``formulations``).

    A development checkout changes it with every edit of a module, so no sweep reuses a result
    computed by other code.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("sjfbsbf")
    except PackageNotFoundError:
        release = "unknown"
    digest = hashlib.sha256(release.encode())
    for package in ("sjfbsbf", "formulations"):
        spec = util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(root.rglob("*.py")):
            name = path.relative_to(root.parent).as_posix()
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{release}+{digest.hexdigest()[:16]}"


def file_digest(path: str) -> tuple[str, tuple[int, int]]:
    """SHA-256 of a file's content, and its (size, modification time in ns) when read."""
    with open(path, "rb") as handle:
        stat = os.fstat(handle.fileno())
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return digest, (stat.st_size, stat.st_mtime_ns)
