"""A run's end never waits on a zygote: killing a launcher leaves no zygote serving on, and a reply still awaited
when the executor is killed is given up at once (a Ctrl-C'd run once sat a minute in the pool's close)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_codeeval.sandbox.api import ExecRequest, Limits
from pytest_codeeval.sandbox.executor import ZygoteExecutor

pytestmark = pytest.mark.timeout(300)

PARENT_DIES_AT_ONCE = """
import os, sys, time
from pytest_codeeval.sandbox import isolation

if isolation.fork_dying_with_parent() == 0:
    time.sleep(0.5)
    open(sys.argv[1], "w").write("the child outlived its parent")
os._exit(0)
"""


def test_a_parent_that_dies_right_after_the_fork_takes_its_child_with_it(tmp_path: Path) -> None:
    """The parent exits before the child could ask for the parent-death signal, nearly every time: without the
    check that follows the request, most of these children would write their mark."""
    script = tmp_path / "fork.py"
    script.write_text(PARENT_DIES_AT_ONCE)
    marks = [tmp_path / f"mark{n}" for n in range(10)]
    for mark in marks:
        subprocess.run([sys.executable, str(script), str(mark)], check=True, cwd=Path(__file__).parents[2])
    time.sleep(1.0)
    assert not [mark.read_text() for mark in marks if mark.exists()]


def _zygote_pipe(executor: ZygoteExecutor) -> int:
    """A write end of the pipe the zygote answers on, opened through /proc: held here, the pipe stays open after
    the zygote dies, as it does while a zygote that outlived its launcher lives."""
    assert executor._proc is not None and executor._proc.stdout is not None
    launcher = executor._proc.pid
    zygote = int(Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()[0])
    inode = os.fstat(executor._proc.stdout.fileno()).st_ino
    for fd in os.listdir(f"/proc/{zygote}/fd"):
        if os.readlink(f"/proc/{zygote}/fd/{fd}") == f"pipe:[{inode}]":
            return os.open(f"/proc/{zygote}/fd/{fd}", os.O_WRONLY)
    raise AssertionError("the zygote holds no end of its reply pipe")


@pytest.mark.skipif(os.geteuid() != 0, reason="opens the zygote's descriptors through /proc: needs root")
def test_killing_the_executor_ends_the_wait_for_a_reply_that_cannot_come() -> None:
    executor = ZygoteExecutor("strict")
    try:
        executor.layers()
        held = _zygote_pipe(executor)
        results = []
        waiting = threading.Thread(target=lambda: results.append(executor.run(ExecRequest(
            python_source="import time\ntime.sleep(20)", limits=Limits(cpu_seconds=30)))))
        waiting.start()
        time.sleep(0.5)  # the sample runs
        killed = time.monotonic()
        executor.kill()
        waiting.join(60)
        took = time.monotonic() - killed
        os.close(held)
        assert not waiting.is_alive() and took < 2, f"the reply was still awaited {took:.1f} s after the kill"
        assert results[0].machinery_error and not results[0].completed
    finally:
        executor.close()
