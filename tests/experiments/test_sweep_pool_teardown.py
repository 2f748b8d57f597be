"""Stopping the local pool never hangs the process (sjfbsbf/experiments/sweep_backends.py).

A worker killed while it sends a result leaves the pool's manager thread reading the rest of
that message for ever; the interpreter joins that thread at exit, so the interrupted sweep hung
after printing "interrupted" (seen on an interrupted 12,600-run sweep). The state is made here
deterministically: a message header with no body is written into the result pipe, as a worker
killed mid-send leaves it. The scenario runs in a child process (a hang there must not hang the
test session) that must exit within the timeout.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, struct, time
    from concurrent.futures import ProcessPoolExecutor
    from sjfbsbf.experiments.sweep_backends import _terminate

    if __name__ == "__main__":
        pool = ProcessPoolExecutor(max_workers=2)
        assert pool.submit(sum, [1, 2]).result() == 3
        manager = pool._executor_manager_thread
        # A header announcing 1,000 bytes that never come: the manager blocks inside recv().
        os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000))
        time.sleep(0.5)
        started = time.monotonic()
        _terminate(pool)
        print("manager alive:", manager.is_alive(), "after", round(time.monotonic() - started))
    """
)


def test_terminating_the_pool_ends_a_manager_stuck_in_a_half_sent_result() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no thread traceback either
    assert done.stdout.startswith("manager alive: False"), done.stdout
