"""The command line never clobbers what is not its output (docs/security.md): devices, FIFOs,
links, hard-linked files and its own inputs are refused in one line, before anything runs."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app

runner = CliRunner()


def _refused(args: list[str], *fragments: str, code: int = 1) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def test_a_device_or_fifo_is_not_replaced(small_instance: Path, tmp_path: Path) -> None:
    """A FIFO always; a character device (a copy of /dev/null's numbers, made in the test's
    folder, so that a regression clobbers nothing of the machine's) where the user may make one
    (root: the user for whom the old code replaced /dev/null itself)."""
    fifo = tmp_path / "jobs.csv"
    os.mkfifo(fifo)
    args = ["simulate", str(small_instance), "-p", "sjf"]
    _refused([*args, "--jobs-csv", str(fifo)], str(fifo), "not a regular file")
    assert fifo.is_fifo()
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("only root makes a device node (an unprivileged user cannot replace one)")
    _refused([*args, "--jobs-csv", str(device)], str(device), "device, FIFO or socket")
    assert device.is_char_device()


def test_a_link_is_neither_followed_nor_replaced(small_instance: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    link, hard = tmp_path / "jobs.csv", tmp_path / "hard.csv"
    link.symlink_to(victim)
    os.link(victim, hard)
    args = ["simulate", str(small_instance), "-p", "sjf", "--jobs-csv"]
    _refused([*args, str(link)], "symbolic link")
    _refused([*args, str(hard)], "2 hard links")
    assert victim.read_text() == "keep\n" and link.is_symlink()


def test_an_output_that_is_an_input_is_refused(small_instance: Path, tmp_path: Path) -> None:
    copy = tmp_path / "x.json"
    copy.write_bytes(small_instance.read_bytes())
    before = copy.read_bytes()
    _refused(
        ["simulate", str(copy), "-p", "sjf", "--jobs-csv", str(copy)],
        "also an input of this command",
        code=2,
    )
    _refused(
        ["solve", str(copy), "--solver", "bounds", "--out", str(tmp_path / "x.json")],
        "'--out'",
        code=2,
    )
    assert copy.read_bytes() == before


@pytest.mark.parametrize("name", ["compare.csv", "compare.png"])
def test_compare_refuses_an_input_among_its_outputs(
    small_instance: Path, tmp_path: Path, name: str
) -> None:
    copy = tmp_path / name
    copy.write_bytes(small_instance.read_bytes())
    _refused(["compare", str(copy), "--out", str(tmp_path)], "also an input", code=2)
