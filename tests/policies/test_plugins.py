"""Policy plugins: a package adds a policy through the ``sjfbsbf.policies`` entry-point group.

Each scenario runs in a fresh interpreter with a stand-in installed distribution (a
``*.dist-info`` folder with ``entry_points.txt`` on ``PYTHONPATH``), so the registry of this
process is not touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n5-g2-all-a.json"

POLICY = '''
from sjfbsbf.policies import Fifo


class MyFifo(Fifo):
    """fifo under another name: the smallest possible plugin."""

    name = "my-fifo"
'''


def _install(root: Path, entry_points: str) -> dict[str, str]:
    (root / "my_policy.py").write_text(POLICY, encoding="utf-8")
    dist = root / "my_policy-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-policy\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(root)}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_a_plugin_policy_is_listed_and_runs_like_a_builtin(tmp_path: Path) -> None:
    env = _install(tmp_path, "[sjfbsbf.policies]\nmy-fifo = my_policy:MyFifo\n")
    code = (
        "import sjfbsbf as sb\n"
        "from sjfbsbf.policies import policy_names\n"
        "assert 'my-fifo' in policy_names(), policy_names()\n"
        "assert 'my-fifo' not in policy_names(defaults_only=True)\n"
        "assert 'exact-round' in policy_names()\n"
        f"instance = sb.read_instance({str(INSTANCE)!r})\n"
        "mine = sb.simulate(instance, sb.make_policy('my-fifo')).jobs\n"
        "fifo = sb.simulate(instance, sb.make_policy('fifo')).jobs\n"
        "assert mine[['job_id', 'start', 'finish']].equals(fifo[['job_id', 'start', 'finish']])\n"
    )
    done = _run(["-c", code], env)
    assert done.returncode == 0, done.stderr
    cli = _run(["-m", "sjfbsbf", "compare", str(INSTANCE), "--policies", "fifo,my-fifo"], env)
    assert cli.returncode == 0, cli.stderr
    assert "my-fifo" in cli.stdout
    listing = _run(["-m", "sjfbsbf", "policies"], env)
    assert "my-fifo" in listing.stdout and "exact-round" in listing.stdout


@pytest.mark.parametrize(
    ("entry_points", "message"),
    [
        (
            "[sjfbsbf.policies]\nbroken = no_such_module:Policy\n",
            "policy plugin 'broken' (no_such_module:Policy) failed to load: ModuleNotFoundError",
        ),
        ("[sjfbsbf.policies]\nsjf = my_policy:MyFifo\n", "takes the name 'sjf' of a policy"),
    ],
)
def test_a_bad_plugin_is_refused_in_one_line(
    tmp_path: Path, entry_points: str, message: str
) -> None:
    env = _install(tmp_path, entry_points)
    policy = "broken" if "broken" in entry_points else "sjf"
    done = _run(["-m", "sjfbsbf", "simulate", str(INSTANCE), "--policy", policy], env)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
