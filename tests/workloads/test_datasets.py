"""Public datasets by name (sjfbsbf.workloads.datasets, ``sjfbsbf data``): registration from a
copy with checksum checks, references ``data:NAME/FILE`` resolved in the cache, one-line
refusals, no network in tests (the download is faked)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.datasets import (
    DataFile,
    Dataset,
    data_ref_file,
    dataset_path,
    fetch,
    is_data_ref,
    resolve_data_path,
    status,
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "gavel"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A registered two-file dataset 'tiny' and a folder holding a good copy of it."""
    copy = tmp_path / "copy" / "nested"
    copy.mkdir(parents=True)
    files = []
    for name, text in (("a.trace", "1\t2\n"), ("b.json", '{"x": 1}\n')):
        data = text.encode()
        (copy / name).write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        files.append(DataFile(name, f"https://example.invalid/{name}", digest, len(data)))
    dataset = Dataset("tiny", "two small files", "tests", "none", tuple(files))
    monkeypatch.setitem(datasets.DATASETS, "tiny", dataset)
    return copy.parent


def test_register_a_copy_checks_every_file(cache: Path, tiny: Path) -> None:
    assert status("tiny") == "missing"
    with pytest.raises(InstanceError, match="not fetched"):
        dataset_path("tiny")
    folder = fetch("tiny", source=tiny)  # found in a subfolder by name
    assert folder == cache / "tiny" and status("tiny") == "fetched"
    assert (folder / "b.json").read_text() == '{"x": 1}\n'
    assert dataset_path("tiny") == folder


def test_a_copy_that_differs_is_refused_and_not_cached(cache: Path, tiny: Path) -> None:
    (tiny / "nested" / "a.trace").write_bytes(b"1\t3\n")  # same size, other content
    with pytest.raises(InstanceError, match="SHA-256") as info:
        fetch("tiny", source=tiny)
    assert "a.trace" in str(info.value) and "\n" not in str(info.value)
    assert not (cache / "tiny" / "a.trace").exists()
    (tiny / "nested" / "a.trace").write_bytes(b"1\t2\n\n")
    with pytest.raises(InstanceError, match="bytes, expected"):
        fetch("tiny", source=tiny)


def test_no_network_is_one_line_naming_the_url(
    cache: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pooch

    def offline(url: str, **_: object) -> str:
        raise ConnectionError(f"cannot reach {url}")

    monkeypatch.setattr(pooch, "retrieve", offline)
    done = CliRunner().invoke(app, ["data", "fetch", "tiny"])
    assert done.exit_code == 1
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and "https://example.invalid/a.trace" in lines[0]
    assert "--from PATH" in lines[0]


def test_download_puts_checked_files_in_the_cache(
    cache: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pooch is asked for each file with its pinned hash, into the dataset's folder."""
    import pooch

    asked = []

    def fake(url: str, *, known_hash: str, fname: str, path: Path, **_: object) -> str:
        asked.append((url, known_hash))
        source = tiny / "nested" / fname
        (Path(path) / fname).write_bytes(source.read_bytes())
        return str(Path(path) / fname)

    monkeypatch.setattr(pooch, "retrieve", fake)
    fetch("tiny")
    assert [u for u, _ in asked] == [
        "https://example.invalid/a.trace",
        "https://example.invalid/b.json",
    ]
    assert all(h.startswith("sha256:") for _, h in asked)
    assert status("tiny") == "fetched"
    fetch("tiny")  # already there and checked: nothing asked
    assert len(asked) == 2


def test_cli_list_and_unknown_names(cache: Path) -> None:
    done = CliRunner().invoke(app, ["data", "list"])
    assert done.exit_code == 0
    for name in ("gavel-throughputs", "gavel-traces", "missing"):
        assert name in done.output
    done = CliRunner().invoke(app, ["data", "fetch", "nope"])
    assert done.exit_code == 1 and "registered: gavel-throughputs" in done.output


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/gavel is not beside the repository")
def test_the_pinned_gavel_files_match_the_reference_copy(cache: Path) -> None:
    """The checksums registered for Gavel (commit c4fa400) are those of ../shared/data."""
    fetch("gavel-throughputs", source=SHARED)
    fetch("gavel-traces", source=SHARED / "traces")
    assert status("gavel-throughputs") == status("gavel-traces") == "fetched"
    assert len(list((cache / "gavel-traces").glob("*.trace"))) == 15


def test_references_resolve_to_fetched_files(
    cache: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``data:NAME/FILE`` is the file in the cache; ``data:NAME`` the file of a single-file
    dataset; a plain path passes through unchanged."""
    assert resolve_data_path("x/y.trace") == Path("x/y.trace")
    assert resolve_data_path(Path("data:x")) == Path("data:x")  # only a string is a reference
    assert not is_data_ref("./data:x") and is_data_ref("data:")
    with pytest.raises(InstanceError) as info:
        resolve_data_path("data:tiny/a.trace")
    message = str(info.value)
    assert message.startswith("data:tiny/a.trace: dataset 'tiny' is not fetched")
    assert "'sjfbsbf data fetch tiny'" in message and "--from PATH" in message
    assert str(cache) in message and "\n" not in message
    fetch("tiny", source=tiny)
    assert resolve_data_path("data:tiny/a.trace") == cache / "tiny" / "a.trace"
    assert resolve_data_path("data:tiny/b.json").read_text() == '{"x": 1}\n'
    single = Dataset("one", "one file", "tests", "none", (datasets.DATASETS["tiny"].files[1],))
    monkeypatch.setitem(datasets.DATASETS, "one", single)
    fetch("one", source=tiny)
    assert resolve_data_path("data:one") == cache / "one" / "b.json"
    assert resolve_data_path("data:one/b.json") == cache / "one" / "b.json"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("data:tinny/a.trace", "data:tinny/a.trace: unknown dataset 'tinny'; registered: "),
        ("data:", "data:: unknown dataset ''; registered: gavel-throughputs, gavel-traces"),
        (
            "data:tiny/c.trace",
            "data:tiny/c.trace: dataset 'tiny' has no file 'c.trace'; its files: a.trace, b.json",
        ),
        ("data:tiny/", "dataset 'tiny' has no file ''"),
        ("data:tiny/nested/a.trace", "dataset 'tiny' has no file 'nested/a.trace'"),
        ("data:tiny", "data:tiny: dataset 'tiny' has 2 files; name one, e.g. data:tiny/a.trace"),
    ],
)
def test_bad_references_are_one_line_without_a_cache(
    cache: Path, tiny: Path, ref: str, message: str
) -> None:
    """Unknown datasets and files are refused from the registry alone (nothing fetched)."""
    for call in (data_ref_file, resolve_data_path):
        with pytest.raises(InstanceError) as info:
            call(ref)
        assert message in str(info.value) and "\n" not in str(info.value)
    assert not cache.exists()


def test_gavel_references_on_the_reference_copy(gavel_data: Path) -> None:
    """The shipped sweeps' references resolve to Gavel's files registered from ../shared."""
    table = resolve_data_path(datasets.DEFAULT_THROUGHPUTS)
    assert table == gavel_data / "gavel-throughputs" / "simulation_throughputs.json"
    trace = resolve_data_path("data:gavel-traces/b436b2.trace")
    assert trace.read_bytes() == (SHARED / "traces" / "msr-seed0" / "b436b2.trace").read_bytes()
