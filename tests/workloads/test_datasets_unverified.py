"""Datasets without a published checksum (sjfbsbf.workloads.datasets, sha256=None): a copy or a
download is checked for a plausible size and its format, refused in one line otherwise and not
cached; ``sjfbsbf data list`` marks them unverified. No network: downloads are faked."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.datasets import DataFile, Dataset, fetch, status

LOG = Path(__file__).resolve().parents[1] / "data" / "helios" / "cluster_log.csv"
CHECK = "sjfbsbf.workloads.helios:check_helios_archive"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(datasets.CACHE_ENV, str(folder))
    return folder


def helios_zip(path: Path, member: str = "data/Venus/cluster_log.csv") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as out:
        out.write(LOG, member)
    return path


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An unverified dataset 'small' (a Helios-like data.zip) and a folder with a good copy."""
    copy = helios_zip(tmp_path / "copy" / "data.zip")
    size = copy.stat().st_size
    file = DataFile("data.zip", "https://example.invalid/data.zip", None, size, check=CHECK)
    monkeypatch.setitem(datasets.DATASETS, "small", Dataset("small", "x", "tests", "none", (file,)))
    return copy.parent


def test_the_public_traces_are_registered() -> None:
    philly = datasets.get_dataset("philly-jobs")
    assert philly.verified and philly.size == 1055988361
    helios = datasets.get_dataset("helios")
    assert not helios.verified and helios.files[0].check == CHECK


def test_a_plausible_copy_is_registered_and_reported_unverified(cache: Path, small: Path) -> None:
    done = CliRunner().invoke(app, ["data", "fetch", "small", "--from", str(small)])
    assert done.exit_code == 0, done.output
    assert "unverified: size and format checked" in done.output
    assert "data.zip: SHA-256 " in done.output
    assert status("small") == "fetched" and (cache / "small" / "data.zip").is_file()
    listed = CliRunner().invoke(app, ["data", "list"])
    assert "unverified" in listed.output and "pinned" in listed.output


def test_a_copy_in_another_format_or_of_an_implausible_size_is_refused(
    cache: Path, small: Path, tmp_path: Path
) -> None:
    helios_zip(small / "data.zip", member="data/Venus/jobs.csv")
    with pytest.raises(InstanceError, match=r"no cluster_log\.csv") as info:
        fetch("small", source=small)
    assert "not a plausible (unverified) data.zip" in str(info.value)
    assert "\n" not in str(info.value) and not (cache / "small" / "data.zip").exists()
    (small / "data.zip").write_bytes(b"<html>quota exceeded</html>")
    with pytest.raises(InstanceError, match="bytes, implausible"):
        fetch("small", source=small)
    real = tmp_path / "real"
    helios_zip(real / "data.zip")  # a few hundred bytes, the registered Helios is ~36 MB
    done = CliRunner().invoke(app, ["data", "fetch", "helios", "--from", str(real)])
    assert done.exit_code == 1 and "implausible (its source states about 36400000)" in done.output


def test_a_download_is_checked_the_same_and_removed_if_wrong(
    cache: Path, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pooch

    hashes = []
    content = {"bytes": (small / "data.zip").read_bytes()}

    def fake(url: str, *, known_hash: str | None, fname: str, path: Path, **_: object) -> str:
        hashes.append(known_hash)
        if known_hash is None and (Path(path) / fname).exists():
            return str(Path(path) / fname)  # as pooch: a file it cannot check is kept
        (Path(path) / fname).write_bytes(content["bytes"])
        return str(Path(path) / fname)

    monkeypatch.setattr(pooch, "retrieve", fake)
    content["bytes"] = b"x" * len(content["bytes"])  # right size, not a zip
    with pytest.raises(InstanceError, match=r"download is not a plausible data\.zip") as info:
        fetch("small")
    assert "https://example.invalid/data.zip" in str(info.value)
    assert not (cache / "small" / "data.zip").exists() and status("small") == "missing"
    content["bytes"] = (small / "data.zip").read_bytes()
    (cache / "small" / "data.zip").write_bytes(b"rejected earlier")
    fetch("small")
    assert (cache / "small" / "data.zip").read_bytes() == content["bytes"]
    assert status("small") == "fetched" and hashes == [None, None]
