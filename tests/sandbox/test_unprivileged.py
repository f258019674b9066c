"""The sandbox as most users run it: not as root. The zygote then isolates in a user namespace of its own, where its
uid reads 0, and must not take itself for root (it tried to hand the samples' directory to a uid the namespace does
not map, and every sample ended as a sandbox error). Run as root, the test runs the sandbox as a uid that has no
passwd entry, as containers run with an arbitrary uid (its home is HOME)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UID = 54321  # no passwd entry
JUDGED = """
from pytest_codeeval.runners import get_runner
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits
executor = get_executor("{level}")
print(executor.layers()["user namespace"])
for program in ("def f():\\n    return 1\\nassert f() == 1\\n", "def f():\\n    return 2\\nassert f() == 1\\n"):
    outcome = get_runner("python").run(program, Limits(cpu_seconds=2), executor)
    print(outcome.status, outcome.detail)
"""


def as_user(python: str, code: str, home: str) -> subprocess.CompletedProcess[str]:
    def drop() -> None:
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)

    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": home, "LANG": "C.UTF-8"}
    return subprocess.run([python, "-c", code], cwd="/", env=env, preexec_fn=drop, capture_output=True, text=True,
                          timeout=120)


def python_for(home: str) -> str | None:
    """An interpreter of this version that the user can run and import this project with."""
    for python in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        try:
            probe = as_user(
                python, f"import sys, pytest_codeeval.runners\nassert sys.version_info[:2] == {sys.version_info[:2]}", home
            )
        except OSError:  # not executable by the user (an interpreter under /root)
            continue
        if probe.returncode == 0:
            return python
    return None


@pytest.mark.skipif(os.getuid() != 0, reason="needs root, to run the sandbox as another user")
@pytest.mark.parametrize("level", ["strict", "network"])
def test_a_user_who_is_not_root_gets_verdicts(level: str) -> None:
    home = tempfile.mkdtemp(prefix="codeeval-home-")
    try:
        os.chmod(home, 0o755)
        os.chown(home, UID, UID)
        python = python_for(home)
        if python is None:
            pytest.skip(f"no Python {sys.version_info[:2]} that uid {UID} can run with {ROOT} importable")
        judged = as_user(python, JUDGED.replace("{level}", level), home)
    finally:
        shutil.rmtree(home)
    assert judged.returncode == 0, judged.stderr
    assert judged.stdout.splitlines() == ["on", "passed ok", "failed assertion failed"], judged.stdout
