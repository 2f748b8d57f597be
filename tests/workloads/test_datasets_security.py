"""The data cache never writes through a link and hands out only what it checked
(docs/security.md; issue 35 items 1-2): temporaries are created afresh, the bytes written are the
bytes hashed, a link in the cache is refused, a cached file is checked on use (SHA-256, memoised
by device, inode, size, mtime and ctime), an unverified file is said to be so on every use."""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.datasets import DataFile, Dataset, fetch, resolve_data_path, status


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(folder))
    monkeypatch.setattr(datasets, "_VERIFIED", {})
    return folder


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A registered one-file dataset 'tiny' and a folder holding a good copy of it."""
    copy = tmp_path / "copy"
    copy.mkdir()
    data = b"1\t2\t3\n" * 10
    (copy / "a.trace").write_bytes(data)
    file = DataFile("a.trace", "https://example.invalid/a", hashlib.sha256(data).hexdigest(), 60)
    monkeypatch.setitem(datasets.DATASETS, "tiny", Dataset("tiny", "x", "t", "none", (file,)))
    return copy


def test_a_link_planted_at_the_temporary_is_not_followed(
    cache: Path, tiny: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    folder = cache / "tiny"
    folder.mkdir(parents=True)
    (folder / "a.trace.part").symlink_to(victim)  # the old fixed temporary name
    fetch("tiny", source=tiny)
    assert victim.read_text() == "keep me\n"
    cached = folder / "a.trace"
    assert cached.is_file() and not cached.is_symlink()
    assert cached.read_bytes() == (tiny / "a.trace").read_bytes()
    leftovers = sorted(p.name for p in folder.iterdir())
    assert leftovers == ["a.trace", "a.trace.part"]  # the planted link, untouched; no temporary


def test_a_link_in_the_cache_is_refused_on_use_and_replaced_by_a_fetch(
    cache: Path, tiny: Path
) -> None:
    folder = cache / "tiny"
    folder.mkdir(parents=True)
    (folder / "a.trace").symlink_to(tiny / "a.trace")  # a good file, but through a link
    assert status("tiny") == "missing"
    with pytest.raises(InstanceError, match=r"a\.trace is a symbolic link; refusing it"):
        resolve_data_path("data:tiny")
    fetch("tiny", source=tiny)
    assert not (folder / "a.trace").is_symlink() and status("tiny") == "fetched"
    assert (tiny / "a.trace").read_bytes() == (folder / "a.trace").read_bytes()


def test_a_linked_dataset_folder_is_refused(cache: Path, tiny: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache.mkdir()
    (cache / "tiny").symlink_to(elsewhere)
    with pytest.raises(InstanceError, match="never links"):
        fetch("tiny", source=tiny)
    assert not list(elsewhere.iterdir())


def test_the_digest_checked_is_of_the_bytes_written(
    cache: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy is read once, hashed as it is written; the digest the check compares is the
    digest of the file that ends up in the cache (no second read of the source to swap)."""
    seen: list[str] = []
    real = datasets._written_problem

    def spy(path: Path, digest: str, file: DataFile) -> str | None:
        seen.append(digest)
        return real(path, digest, file)

    opened: list[Path] = []
    real_open = Path.open

    def counting_open(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if self == tiny / "a.trace":
            opened.append(self)
        return real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(datasets, "_written_problem", spy)
    monkeypatch.setattr(Path, "open", counting_open)
    fetch("tiny", source=tiny)
    cached = (cache / "tiny" / "a.trace").read_bytes()
    assert seen == [hashlib.sha256(cached).hexdigest()]
    assert len(opened) == 1


def test_a_cached_file_tampered_after_the_fetch_is_refused_on_use(
    cache: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fetch("tiny", source=tiny)
    cached = cache / "tiny" / "a.trace"
    hashed = []
    real = datasets._digest
    monkeypatch.setattr(datasets, "_digest", lambda p: hashed.append(p) or real(p))
    assert resolve_data_path("data:tiny") == cached
    assert resolve_data_path("data:tiny") == cached
    assert len(hashed) == 1  # checked once while nothing changed
    stamp = cached.stat()
    cached.write_bytes(b"9\t9\t9\n" * 10)  # same size
    os.utime(cached, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # touch -r: same mtime
    assert cached.stat().st_size == stamp.st_size and cached.stat().st_mtime_ns == stamp.st_mtime_ns
    with pytest.raises(InstanceError, match="SHA-256 differs") as info:
        resolve_data_path("data:tiny")
    assert "sjfbsbf data fetch tiny" in str(info.value)


def test_a_tampered_throughput_table_is_refused_by_the_command(cache: Path) -> None:
    """`--interference gavel-measured` on a same-size tampered cached table: one line, exit 1
    (the old code used it, checking the size only). A cache of its own: the session's shared
    Gavel cache stays intact."""
    copy = Path(__file__).resolve().parents[3] / "shared" / "data" / "gavel"
    if not copy.is_dir():
        pytest.skip(f"Gavel's files are not beside the repository ({copy})")
    fetch("gavel-throughputs", source=copy)
    table = cache / "gavel-throughputs" / "simulation_throughputs.json"
    data = bytearray(table.read_bytes())
    data[data.index(b"0.")] = ord("1")  # one digit of a throughput, same size
    stamp = table.stat()
    table.write_bytes(bytes(data))
    os.utime(table, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    instance = Path(__file__).resolve().parents[1] / "data" / "valid_small.json"
    args = ["simulate", str(instance), "-p", "sjf-bsbf", "--interference", "gavel-measured"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "SHA-256 differs from the pinned one" in result.stderr


def test_an_unverified_file_says_so_on_every_use(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"x" * 100
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "u.bin").write_bytes(data)
    file = DataFile("u.bin", "https://example.invalid/u", None, 100)
    monkeypatch.setitem(datasets.DATASETS, "u", Dataset("u", "x", "t", "none", (file,)))
    fetch("u", source=tmp_path / "src")
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resolve_data_path("data:u")
        assert [w.category for w in caught] == [datasets.UnverifiedData]
        assert "checked by size and format only" in str(caught[0].message)
