"""Interrupts end a command in one line with 128 + the signal, leaving nothing half-written
(issue 35 item 19: SIGINT exited 130 silently, SIGTERM killed compare with −15 and no message,
compare left an empty --out folder, a sweep said nothing of what it kept)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = [sys.executable, "-m", "sjfbsbf"]


def _interrupt(args: list[str], signum: int, wait_for: Path | None = None) -> tuple[int, str]:
    process = subprocess.Popen(
        [*SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until it runs (prints its first line, or writes)
        time.sleep(0.5)
        if wait_for is None or wait_for.exists():
            break
    time.sleep(1.0)
    process.send_signal(signum)
    _, err = process.communicate(timeout=120)
    return process.returncode, err


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_compare_says_it_was_interrupted_and_leaves_no_folder(
    tmp_path: Path, signum: int, code: int
) -> None:
    out = tmp_path / "out"
    rc, err = _interrupt(["compare", "--seeds", "0-200", "--out", str(out)], signum)
    assert rc == code, err
    assert err.strip().splitlines() == [f"sjfbsbf: interrupted (signal {int(signum)})"]
    assert not out.exists()


def test_a_sweep_says_how_many_runs_it_kept(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        'name = "long"\nseeds = ' + str(list(range(400))) + '\n[[workloads]]\nkind = "default"\n'
        '[[variants]]\npolicy = "sjf"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    rc, err = _interrupt(["sweep", str(sweep), "--out", str(out)], signal.SIGTERM, out / "runs")
    assert rc == 143, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("sjfbsbf: interrupted (signal 15): ") and " of 400 runs kept in " in last
    kept = int(last.split(": ")[-1].split(" of ")[0])
    assert len(list((out / "runs").glob("*.json"))) == kept


def test_ray_without_ray_writes_nothing(tmp_path: Path) -> None:
    # Ray hidden whether or not it is installed (CI installs it): find_spec gives None and
    # import fails for a module set to None in sys.modules.
    code = "import runpy, sys; sys.modules['ray'] = None; "
    code += "runpy.run_module('sjfbsbf', None, '__main__')"
    hidden = [sys.executable, "-c", code]
    sweep = tmp_path / "s.toml"
    sweep.write_text('seeds = [0]\n[[workloads]]\nkind = "default"\n[[variants]]\npolicy = "sjf"\n')
    out = tmp_path / "out"
    done = subprocess.run(
        [*hidden, "sweep", str(sweep), "--out", str(out), "--backend", "ray"],
        capture_output=True, text=True, timeout=120, env={**os.environ},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "sjfbsbf: error: the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'\n"
    )
    assert not out.exists()
