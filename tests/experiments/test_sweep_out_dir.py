"""A sweep writes only into its own output folder (docs/security.md; issue 35 item 4): another
sweep's results, tables without a manifest, files no sweep writes, a link or a file are refused
in one line before anything is written, unless ``--overwrite``; the same sweep resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app

SWEEP = """\
name = "{name}"
seeds = [0]

[[workloads]]
kind = "default"
n_jobs = 6
nodes = 1
gpus_per_node = 2

[[variants]]
policy = "fifo"
"""


def sweep_file(tmp_path: Path, name: str = "mine") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(SWEEP.format(name=name), encoding="utf-8")
    return path


def run(*args: str) -> object:
    return CliRunner().invoke(app, ["sweep", *args])


def _refused(result: object, *fragments: str) -> None:
    assert result.exit_code == 1, result.output  # type: ignore[attr-defined]
    err = result.stderr  # type: ignore[attr-defined]
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def test_another_sweeps_folder_is_refused_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run(str(sweep_file(tmp_path, "theirs")), "--out", str(out))
    assert done.exit_code == 0, done.output  # type: ignore[attr-defined]
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _refused(run(str(sweep_file(tmp_path)), "--out", str(out)), "another sweep ('theirs'",
             "--overwrite")  # fmt: skip
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    again = run(str(sweep_file(tmp_path)), "--out", str(out), "--overwrite")
    assert again.exit_code == 0, again.output  # type: ignore[attr-defined]
    assert json.loads((out / "manifest.json").read_text())["sweep"] == "mine"


@pytest.mark.parametrize("planted", ["results.csv", "notes.txt", "figs"])
def test_a_folder_with_other_files_is_refused(tmp_path: Path, planted: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    if planted == "figs":
        (out / planted).mkdir()
    else:
        (out / planted).write_text("not a sweep's\n")
    _refused(run(str(sweep_file(tmp_path)), "--out", str(out)), str(out))
    assert sorted(p.name for p in out.iterdir()) == [planted]


def test_the_same_sweep_resumes_and_a_link_or_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = sweep_file(tmp_path)
    assert run(str(path), "--out", str(out)).exit_code == 0  # type: ignore[attr-defined]
    assert run(str(path), "--out", str(out)).exit_code == 0  # type: ignore[attr-defined]
    link = tmp_path / "link"
    link.symlink_to(out)
    _refused(run(str(path), "--out", str(link)), "symbolic link")
    _refused(run(str(path), "--out", str(path)), "not a directory")


def test_a_second_sweep_into_a_locked_folder_is_refused(tmp_path: Path) -> None:
    """Issue 35 item 18: two sweeps into one folder at once both ran every run; now the second
    is refused in one line while the first holds the folder's lock."""
    from sjfbsbf.experiments.sweep_run import folder_lock

    out = tmp_path / "out"
    path = sweep_file(tmp_path)
    assert run(str(path), "--out", str(out)).exit_code == 0  # type: ignore[attr-defined]
    with folder_lock(out):
        _refused(run(str(path), "--out", str(out)), "another sweep is writing into this folder")
    assert run(str(path), "--out", str(out)).exit_code == 0  # type: ignore[attr-defined]


def test_a_fifo_input_is_refused_before_it_is_hashed(tmp_path: Path) -> None:
    """A sweep hashed its input files first: a FIFO blocked it for ever (and a 2 GB table was
    hashed for 9 s before its size was refused); both are checked before the hash now."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'seeds = [0]\n[[workloads]]\nkind = "table"\npath = "{fifo}"\n'
        '[[variants]]\npolicy = "fifo"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "sjfbsbf", "sweep", str(sweep), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"sjfbsbf: error: {sweep}, key 'workloads[0].path': {fifo}: is a FIFO, not a regular "
        "file; refusing to read it"
    ]
    assert not (tmp_path / "o").exists()
