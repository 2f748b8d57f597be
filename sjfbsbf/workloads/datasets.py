"""Public datasets by name: pinned URLs and checksums, fetched once into a per-user cache.

``sjfbsbf data list`` shows them, ``sjfbsbf data fetch NAME`` downloads them with pooch (every
file checked against its SHA-256 and size) into :func:`cache_dir` (platformdirs' user cache, or
``$SJFBSBF_DATA_DIR``), and ``--from PATH`` registers a copy obtained another way after the same
checks. Without a network the fetch stops with one line saying so and how to use ``--from``.
A file whose source publishes no checksum is *unverified* (``sha256=None``): a download or a copy
is only checked for a plausible size and, by its format check, its format.

Sweeps and commands name a fetched file by reference, ``data:NAME/FILE`` (``data:NAME`` for a
single-file dataset); :func:`resolve_data_path` turns a reference into the file in the cache
and passes plain paths through. Sources, licences and formats: docs/model.md §8.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import TypeGuard

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.workloads.dataset_registry import DATASETS, DataFile, Dataset

__all__ = [
    "CACHE_ENV",
    "DATASETS",
    "DATA_PREFIX",
    "DEFAULT_THROUGHPUTS",
    "DataFile",
    "Dataset",
    "cache_dir",
    "data_ref_file",
    "dataset_path",
    "fetch",
    "get_dataset",
    "is_data_ref",
    "resolve_data_path",
    "status",
]

#: Environment variable that overrides the cache directory.
CACHE_ENV = "SJFBSBF_DATA_DIR"
#: What starts a dataset reference: ``data:NAME`` or ``data:NAME/FILE``.
DATA_PREFIX = "data:"
#: Gavel's throughput table by reference: the default of the ``gavel-measured`` interference
#: (command line, sweeps) and of the ``gavel`` sweep workload.
DEFAULT_THROUGHPUTS = "data:gavel-throughputs"
#: An unverified file's size is plausible within this factor of the size its source states.
PLAUSIBLE_FACTOR = 2.0


def cache_dir() -> Path:
    """Where datasets are kept: ``$SJFBSBF_DATA_DIR``, else the user cache (platformdirs)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sjfbsbf")) / "data"


def get_dataset(name: str) -> Dataset:
    """The registered dataset ``name``; one-line error listing the names otherwise."""
    if name not in DATASETS:
        known = ", ".join(sorted(DATASETS))
        raise InstanceError(f"unknown dataset {name!r}; registered: {known}")
    return DATASETS[name]


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _plausible(size: int, file: DataFile) -> bool:
    """Whether ``size`` is within :data:`PLAUSIBLE_FACTOR` of an unverified file's size."""
    return file.size / PLAUSIBLE_FACTOR <= size <= file.size * PLAUSIBLE_FACTOR


def _problem(path: Path, file: DataFile) -> str | None:
    """Why ``path`` is not ``file`` (missing, size, checksum or format), or ``None``."""
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    if file.sha256 is None:
        if not _plausible(size, file):
            return f"{size} bytes, implausible (its source states about {file.size})"
        return _check_format(path, file)
    if size != file.size:
        return f"{size} bytes, expected {file.size}"
    if _digest(path) != file.sha256:
        return "SHA-256 differs from the pinned one"
    return None


def _check_format(path: Path, file: DataFile) -> str | None:
    """The problem the file's format check finds, if it has one."""
    if file.check is None:
        return None
    import importlib

    module, _, function = file.check.partition(":")
    problem: str | None = getattr(importlib.import_module(module), function)(path)
    return problem


def status(name: str) -> str:
    """``"fetched"`` (every file present and checked by size), ``"partial"`` or ``"missing"``."""
    dataset = get_dataset(name)
    folder = cache_dir() / name
    present = [
        (folder / f.name).is_file()
        and (
            (folder / f.name).stat().st_size == f.size
            if f.sha256 is not None
            else _plausible((folder / f.name).stat().st_size, f)
        )
        for f in dataset.files
    ]
    return "fetched" if all(present) else "partial" if any(present) else "missing"


def dataset_path(name: str) -> Path:
    """The folder of a fetched dataset.

    Raises
    ------
    InstanceError
        If it is not (fully) fetched: one line saying how to fetch it.
    """
    if status(name) != "fetched":
        raise InstanceError(
            f"dataset {name!r} is not fetched into the cache ({cache_dir()}); run "
            f"'sjfbsbf data fetch {name}', or 'sjfbsbf data fetch {name} --from PATH' with a copy",
            source=str(cache_dir() / name),
        )
    return cache_dir() / name


def is_data_ref(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a dataset reference (a string starting with ``data:``)."""
    return isinstance(value, str) and value.startswith(DATA_PREFIX)


def data_ref_file(ref: str) -> tuple[Dataset, DataFile]:
    """The dataset and file a reference names; needs no cache (nothing is read).

    ``data:NAME/FILE`` names a file of dataset ``NAME``; ``data:NAME`` the only file of a
    single-file dataset.

    Raises
    ------
    InstanceError
        One line attributed to ``ref``: not a reference, an unknown dataset (listing the
        registered ones), an unknown file (listing the dataset's), or ``data:NAME`` for a dataset
        of several files.
    """
    if not is_data_ref(ref):
        raise InstanceError(
            f"not a dataset reference (expected {DATA_PREFIX}NAME[/FILE])", source=ref
        )
    name, slash, member = ref[len(DATA_PREFIX) :].partition("/")
    try:
        dataset = get_dataset(name)
    except InstanceError as exc:
        raise exc.with_source(ref) from None
    if not slash and len(dataset.files) == 1:
        return dataset, dataset.files[0]
    names = [f.name for f in dataset.files]
    if not slash:
        raise InstanceError(
            f"dataset {name!r} has {len(names)} files; name one, e.g. "
            f"{DATA_PREFIX}{name}/{names[0]}",
            source=ref,
        )
    for file in dataset.files:
        if file.name == member:
            return dataset, file
    shown = ", ".join(names[:20]) + (f", ... ({len(names)} files)" if len(names) > 20 else "")
    raise InstanceError(f"dataset {name!r} has no file {member!r}; its files: {shown}", source=ref)


def resolve_data_path(ref: str | os.PathLike[str]) -> Path:
    """The file a reference names in the cache; a plain path is returned unchanged (as a Path).

    Parameters
    ----------
    ref
        ``data:NAME/FILE``, ``data:NAME`` (a single-file dataset) or a path. (A file whose name
        starts with ``data:`` is reached as ``./data:...``.)

    Raises
    ------
    InstanceError
        One line attributed to ``ref``: see :func:`data_ref_file`; or the dataset is not (fully)
        fetched, saying ``sjfbsbf data fetch NAME`` (or ``--from PATH``).
    """
    if not is_data_ref(ref):
        return Path(ref)
    dataset, file = data_ref_file(ref)
    try:
        folder = dataset_path(dataset.name)
    except InstanceError as exc:
        raise exc.with_source(ref) from None
    return folder / file.name


def fetch(name: str, *, source: str | os.PathLike[str] | None = None) -> Path:
    """Download dataset ``name`` into the cache, or copy it from ``source``; check every file.

    Parameters
    ----------
    name
        A registered dataset.
    source
        A folder holding the files (found by name, also in subfolders) to register instead of
        downloading.

    Returns
    -------
    Path
        The dataset's folder in the cache.

    Raises
    ------
    InstanceError
        One line: an unknown name, a file missing from ``source`` or not matching its pinned
        size and SHA-256 (the cache is left without it), or no network.
    """
    dataset = get_dataset(name)
    folder = cache_dir() / name
    folder.mkdir(parents=True, exist_ok=True)
    for file in dataset.files:
        target = folder / file.name
        if _problem(target, file) is None:
            continue
        if source is not None:
            _copy(Path(source), file, target)
        else:
            _download(file, folder)
    return folder


def _copy(source: Path, file: DataFile, target: Path) -> None:
    found = source / file.name
    if not found.is_file():
        matches = sorted(source.rglob(file.name)) if source.is_dir() else []
        if not matches:
            raise InstanceError(f"no file {file.name!r} under it", source=str(source))
        found = matches[0]
    problem = _problem(found, file)
    if problem is not None:
        what = "the pinned" if file.sha256 is not None else "a plausible (unverified)"
        raise InstanceError(f"not {what} {file.name}: {problem}", source=str(found))
    partial = target.with_name(target.name + ".part")
    shutil.copyfile(found, partial)
    partial.replace(target)


def _download(file: DataFile, folder: Path) -> None:
    import pooch

    pooch.get_logger().setLevel("WARNING")  # no "Downloading ..." line: one line on failure
    if file.sha256 is None:  # pooch keeps a file it cannot check: drop a rejected one first
        (folder / file.name).unlink(missing_ok=True)
    try:
        pooch.retrieve(
            file.url,
            known_hash=None if file.sha256 is None else f"sha256:{file.sha256}",
            fname=file.name,
            path=folder,
            progressbar=False,
        )
    except ValueError as exc:  # pooch: the downloaded file's hash does not match
        raise InstanceError(
            f"download does not match the pinned SHA-256 ({exc})", source=file.url
        ) from None
    except Exception as exc:  # requests' connection errors and the like: no network
        raise InstanceError(
            f"could not download ({type(exc).__name__}); without a network, fetch the file "
            "elsewhere and register it with --from PATH",
            source=file.url,
        ) from None
    if file.sha256 is None:
        target = folder / file.name
        problem = _problem(target, file)
        if problem is not None:
            target.unlink(missing_ok=True)
            raise InstanceError(
                f"the download is not a plausible {file.name} (unverified): {problem}",
                source=file.url,
            )
