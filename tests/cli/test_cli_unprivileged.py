"""The security cases of issue 35 (items 1-4) as an unprivileged user, where being root changes
what the old code did (docs/security.md). Run as root (as CI is), each case forks, drops to
``nobody`` and runs the command in the already-started interpreter (the interpreter's files under
/root are not readable by nobody, so every module is imported once as root first). Run as
another user, the whole suite is already unprivileged and these are skipped."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.datasets import DataFile, Dataset

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="drops from root to nobody"
)
NOBODY = 65534
INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n4-g2-all-a.json"


def _as_nobody(run: Callable[[], tuple[int, str]]) -> tuple[int, str]:
    """``run()`` in a forked child that is ``nobody``: its exit code and output."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            result: list[object] = list(run())
        except BaseException as exc:  # reported to the parent, which fails the test
            result = [-1, f"{type(exc).__name__}: {exc}"]
        with os.fdopen(write, "w") as pipe:
            pipe.write(json.dumps(result))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    code, output = json.loads(text)
    return int(code), str(output)


def _cli(*args: str) -> Callable[[], tuple[int, str]]:
    def run() -> tuple[int, str]:
        result = CliRunner().invoke(app, list(args))
        return result.exit_code, result.output

    return run


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder nobody may write in (mode 1777, like /tmp), removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="sjfbsbf-nobody-", dir="/tmp"))
    folder.chmod(0o1777)
    instance = folder / "x.json"
    shutil.copy(INSTANCE, instance)
    instance.chmod(0o644)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _warm(shared: Path) -> None:
    """Every module the commands below import, imported once as root."""
    out = shared / "warm.csv"
    for args in (
        ["simulate", str(shared / "x.json"), "-p", "sjf", "--jobs-csv", str(out)],
        ["simulate", str(shared / "x.json"), "-p", "sjf", "--jobs-csv", "/dev/null"],
        ["data", "list"],
    ):
        CliRunner().invoke(app, args)
    out.unlink(missing_ok=True)


def test_dev_null_is_refused_and_stays_a_device(shared: Path) -> None:
    _warm(shared)
    args = ["simulate", str(shared / "x.json"), "-p", "sjf", "--jobs-csv", "/dev/null"]
    code, output = _as_nobody(_cli(*args))
    assert code == 1, output
    assert " ".join(output.split()) == (
        "sjfbsbf: error: /dev/null: is a device, FIFO or socket, not a regular file; refusing "
        "to replace it"
    )
    assert Path("/dev/null").is_char_device()


def test_a_folder_not_ours_is_one_line_and_gets_nothing(shared: Path) -> None:
    _warm(shared)
    closed = shared / "roots"
    closed.mkdir(mode=0o755)  # root's: nobody may not write here
    args = ["simulate", str(shared / "x.json"), "-p", "sjf", "--jobs-csv", str(closed / "j.csv")]
    code, output = _as_nobody(_cli(*args))
    assert code == 1, output
    lines = output.strip().splitlines()
    assert lines[-1].startswith("sjfbsbf: error: ") and "Permission denied" in lines[-1]
    assert "Traceback" not in output
    assert list(closed.iterdir()) == []


def test_a_read_only_output_of_ours_keeps_its_mode(shared: Path) -> None:
    _warm(shared)
    out = shared / "mine.csv"
    out.write_text("old\n")
    os.chown(out, NOBODY, NOBODY)
    out.chmod(0o400)
    code, output = _as_nobody(_cli("simulate", str(shared / "x.json"), "-p", "sjf",
                                   "--jobs-csv", str(out)))  # fmt: skip
    assert code == 0, output
    assert stat.S_IMODE(out.stat().st_mode) == 0o400
    assert out.stat().st_uid == NOBODY and out.read_text().startswith("job_id,")


def test_a_link_planted_in_a_shared_cache_is_not_followed(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user plants the old fixed temporary name as a link to nobody's file; nobody's
    fetch must not write through it."""
    _warm(shared)
    data = b"1\t2\t3\n" * 10
    source = shared / "copy"
    source.mkdir(mode=0o755)
    (source / "a.trace").write_bytes(data)
    (source / "a.trace").chmod(0o644)
    file = DataFile("a.trace", "https://example.invalid/a", hashlib.sha256(data).hexdigest(), 60)
    monkeypatch.setitem(datasets.DATASETS, "tiny", Dataset("tiny", "x", "t", "none", (file,)))
    monkeypatch.setattr(datasets, "_VERIFIED", {})
    cache = shared / "cache"
    (cache / "tiny").mkdir(parents=True)
    for folder in (cache, cache / "tiny"):
        folder.chmod(0o1777)
    victim = shared / "victim.txt"
    victim.write_text("keep me\n")
    os.chown(victim, NOBODY, NOBODY)
    (cache / "tiny" / "a.trace.part").symlink_to(victim)
    monkeypatch.setenv(datasets.CACHE_ENV, str(cache))
    code, output = _as_nobody(_cli("data", "fetch", "tiny", "--from", str(source)))
    assert code == 0, output
    assert victim.read_text() == "keep me\n"
    cached = cache / "tiny" / "a.trace"
    assert cached.read_bytes() == data and not cached.is_symlink()
    assert cached.stat().st_uid == NOBODY
