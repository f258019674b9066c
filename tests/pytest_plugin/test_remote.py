"""Execution on other machines: a pytest-xdist worker reached over real ssh (an sshd on a loopback address, with
a key made here) judges samples in its own sandbox, with the verdicts of a local run. The model's completions
reach it through xdist's channel: no file is shared between the controller and the worker."""

from __future__ import annotations

import getpass
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tiny_models import build

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
ADDRESS = "127.0.0.2"  # another loopback address: the "remote" host

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not Path(SSHD).exists(), reason="needs openssh-server (.ci/run installs it: apt-get install openssh-server)"),
]


def _port() -> int:
    with socket.socket() as sock:
        sock.bind((ADDRESS, 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An sshd on ADDRESS that lets in one key, made here; yields the ssh_config that reaches it."""
    root = tmp_path_factory.mktemp("sshd")
    for name in ("host", "user"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(root / name)], check=True)
    (root / "authorized_keys").write_text((root / "user.pub").read_text())
    port = _port()
    (root / "sshd_config").write_text(
        f"ListenAddress {ADDRESS}:{port}\nHostKey {root / 'host'}\nAuthorizedKeysFile {root / 'authorized_keys'}\n"
        f"PidFile {root / 'sshd.pid'}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "PermitRootLogin prohibit-password\n"
    )
    (root / "ssh_config").write_text(
        f"Host {ADDRESS}\n  Port {port}\n  IdentityFile {root / 'user'}\n  StrictHostKeyChecking no\n"
        "  UserKnownHostsFile /dev/null\n  BatchMode yes\n  LogLevel ERROR\n"
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation directory
    with (root / "sshd.log").open("wb") as log:
        server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(root / "sshd_config")], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((ADDRESS, port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"sshd did not start: {(root / 'sshd.log').read_text()}")
                time.sleep(0.2)
        yield str(root / "ssh_config")
    finally:
        server.terminate()
        server.wait(timeout=10)


def _verdicts(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    problems = json.loads(path.read_text())["tasks"]["humaneval"]["problems"]
    return {pid: [(s["status"], s["detail"], s["completion"]) for s in p["samples"]] for pid, p in problems.items()}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built before pytester's fixture: what it imports (torch) stays imported (see tests/conftest.py)."""
    return build("gpt2", tmp_path_factory.mktemp("gpt2"))


def test_a_worker_over_ssh_judges_samples_as_a_local_run_does(pytester: pytest.Pytester, remote: str, model: Path) -> None:
    common = [f"--codeeval-model={model}", "--codeeval-limit=3", "--codeeval-n-samples=2", "--codeeval-temperature=1.0",
              "--codeeval-max-new-tokens=16", "-p", "no:cacheprovider"]
    local = pytester.runpytest_subprocess(*common, "--codeeval-report=local.json")
    assert local.ret in (0, 1), local.stdout.str()[-2000:]
    tx = f"ssh={getpass.getuser()}@{ADDRESS}//ssh_config={remote}//python={sys.executable}//chdir={pytester.path}"
    result = pytester.runpytest_subprocess(*common, "--codeeval-report=remote.json", "--tx", tx, "--dist=load")
    assert result.ret == local.ret, result.stdout.str()[-3000:] + result.stderr.str()[-2000:]
    result.stdout.fnmatch_lines(["*6 samples (*"])
    assert _verdicts(pytester.path / "remote.json") == _verdicts(pytester.path / "local.json")
    canonical = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-limit=3", "--tx", tx, "--dist=load",
                                              "--codeeval-report=reference.json", "-p", "no:cacheprovider")
    assert canonical.ret == 0
    assert {s[0] for samples in _verdicts(pytester.path / "reference.json").values() for s in samples} == {"passed"}
