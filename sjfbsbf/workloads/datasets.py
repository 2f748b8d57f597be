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
import tempfile
from pathlib import Path
from typing import Any, TypeGuard

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
    """Why ``path`` is not ``file`` (a link, missing, size, checksum or format), or ``None``."""
    if path.is_symlink():
        return "a symbolic link (the cache holds files, never links)"
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
        not (folder / f.name).is_symlink()
        and (folder / f.name).is_file()
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
    for file in get_dataset(name).files:  # a planted link: say so, not "not fetched"
        if (cache_dir() / name / file.name).is_symlink():
            raise InstanceError(
                f"the cached file {cache_dir() / name / file.name} is a symbolic link; refusing "
                f"it (remove it and run 'sjfbsbf data fetch {name}')",
                source=str(cache_dir() / name),
            )
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
    return verified_file(folder / file.name, file, ref)


#: Cached files checked in full by this process, by path: the (device, inode, size, mtime_ns,
#: ctime_ns) they had then. Kept in memory only, so no file can vouch for a cached one.
_VERIFIED: dict[Path, tuple[int, int, int, int, int]] = {}


class UnverifiedData(UserWarning):
    """A dataset file used without a pinned checksum (checked by size and format only)."""


def verified_file(path: Path, file: DataFile, ref: str) -> Path:
    """``path``, a cached file, once it is checked as ``file``: never a link; its SHA-256 equals
    the pinned one (its size and format, for an unverified file, with a warning on every use).

    The full check runs once per process and per (device, inode, size, mtime_ns, ctime_ns) of
    the file: a change of content changes ctime, which no user can set back (``touch -r`` sets
    mtime only).

    Raises
    ------
    InstanceError
        One line attributed to ``ref``: the cached file is a link or does not match.
    """
    info = path.lstat()
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if _VERIFIED.get(path) != key:
        problem = _problem(path, file)
        if problem is not None:
            raise InstanceError(
                f"the cached file {path} is not the dataset's {file.name}: {problem}; fetch it "
                f"again ('sjfbsbf data fetch {ref[len(DATA_PREFIX) :].partition('/')[0]}')",
                source=ref,
            )
        _VERIFIED[path] = key
    if file.sha256 is None:
        import warnings

        warnings.warn(
            f"{ref} is unverified (its source publishes no checksum): checked by size and "
            "format only",
            UnverifiedData,
            stacklevel=2,
        )
    return path


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
    if folder.is_symlink():
        raise InstanceError(
            "a symbolic link: the cache holds folders, never links (remove it and fetch again)",
            source=str(folder),
        )
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
    _install(found, file, target, str(found))


def _install(
    source: Path, file: DataFile, target: Path, where: str, *, download: bool = False
) -> None:
    """Copy ``source`` into the cache as ``target``: into a new temporary beside it (created
    exclusively, so no link planted there is followed), hashing the bytes as they are written;
    the temporary replaces ``target`` only if what was written is ``file`` (its pinned SHA-256
    and size; an unverified file's plausible size and format). ``os.replace`` replaces a link
    at ``target``, never writes through it."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{file.name}.", suffix=".part")
    partial = Path(name)
    try:
        sha = hashlib.sha256()
        with source.open("rb") as reader, os.fdopen(fd, "wb") as writer:
            for block in iter(lambda: reader.read(1 << 20), b""):
                sha.update(block)
                writer.write(block)
            writer.flush()
            os.fsync(writer.fileno())
        problem = _written_problem(partial, sha.hexdigest(), file)
        if problem is not None:
            if download:
                what = "the pinned" if file.sha256 is not None else "a plausible"
                tag = "" if file.sha256 is not None else " (unverified)"
                message = f"the download is not {what} {file.name}{tag}: {problem}"
            else:
                what = "the pinned" if file.sha256 is not None else "a plausible (unverified)"
                message = f"not {what} {file.name}: {problem}"
            raise InstanceError(message, source=where)
        partial.chmod(0o644)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    _VERIFIED.pop(target, None)


def _written_problem(path: Path, digest: str, file: DataFile) -> str | None:
    """Why the bytes written to ``path`` (whose SHA-256 is ``digest``) are not ``file``."""
    size = path.stat().st_size
    if file.sha256 is None:
        if not _plausible(size, file):
            return f"{size} bytes, implausible (its source states about {file.size})"
        return _check_format(path, file)
    if size != file.size:
        return f"{size} bytes, expected {file.size}"
    if digest != file.sha256:
        return "SHA-256 differs from the pinned one"
    return None


def _download(file: DataFile, folder: Path) -> None:
    import pooch

    pooch.get_logger().setLevel("WARNING")  # no "Downloading ..." line: one line on failure
    private = Path(tempfile.mkdtemp(dir=folder, prefix=".fetch-"))  # 0700, new: no links in it
    try:
        _retrieve(pooch, file, private)
        _install(private / file.name, file, folder / file.name, file.url, download=True)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _retrieve(pooch: Any, file: DataFile, folder: Path) -> None:
    """Download ``file`` into ``folder`` with pooch (which checks a pinned SHA-256 itself)."""
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
