"""Outputs replace only what is ours (docs/security.md): atomic, refusing links, devices, FIFOs,
directories and hard-linked files, keeping the permission bits of what they replace."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sjfbsbf.core.atomic import UnsafeOutput, atomic_path, check_output, write_text_atomic


def test_a_new_file_and_a_replaced_one(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "out.csv"
    write_text_atomic(path, "a\n")
    assert path.read_text() == "a\n"
    path.chmod(0o400)  # read-only: replaced, and still read-only
    write_text_atomic(path, "b\n")
    assert path.read_text() == "b\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    path.chmod(0o640)
    write_text_atomic(path, "c\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.csv"]  # no temporary left


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "hardlink", "dangling"])
def test_what_is_not_ours_is_refused_before_anything_is_written(tmp_path: Path, kind: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    out = tmp_path / "out.csv"
    if kind == "symlink":
        out.symlink_to(victim)
    elif kind == "dangling":
        out.symlink_to(tmp_path / "nowhere.txt")
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "directory":
        out.mkdir()
    else:
        os.link(victim, out)
    with pytest.raises(UnsafeOutput) as info:
        write_text_atomic(out, "clobbered\n")
    assert info.value.filename == str(out)
    assert victim.read_text() == "keep me\n"
    assert not (tmp_path / "nowhere.txt").exists()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted({"victim.txt", "out.csv"}), names  # no temporary left


def test_a_device_is_refused() -> None:
    with pytest.raises(UnsafeOutput, match="device, FIFO or socket"):
        check_output("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_error_inside_names_the_target_not_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    with pytest.raises(OSError) as info, atomic_path(target) as tmp:
        tmp.unlink()
        tmp.mkdir()
        tmp.write_text("x")  # IsADirectoryError on the temporary
    assert info.value.filename == str(target)
    assert not target.exists()
