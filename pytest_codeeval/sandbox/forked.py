"""Runs inside the sandbox, for the judges' harnesses (judges/stdio_harness.py, judges/cputime_harness.py), which
give each test or timed run of a sample a process of its own: the child's set-up, and the parent's wait for what
the child reports on a pipe. Standard library only: it is imported in the sample's interpreter."""

import contextlib
import math
import os
import resource
import select
import signal


def enter_child(report_fd: int, cpu_seconds: float) -> None:
    """In the child: a process group of its own (killed as one), no descriptor besides 0-2 and the report pipe (the
    sandbox's completion pipes and the harness's files stay the harness's), and its CPU-time limit."""
    os.setpgid(0, 0)
    os.closerange(3, report_fd)
    os.closerange(report_fd + 1, os.sysconf("SC_OPEN_MAX"))
    limit = max(1, math.ceil(cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))


def collect(pid: int, read_fd: int, wall_seconds: float) -> tuple[str | None, bytes]:
    """In the parent: wait for the child up to `wall_seconds` (a backstop; its CPU limit is the verdict), kill its
    process group and anything in it, and return why it died (None when it ended by itself) and what it reported."""
    pidfd = os.pidfd_open(pid)
    timed_out = not select.select([pidfd], [], [], wall_seconds)[0]
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    _, status, _ = os.wait4(pid, 0)
    os.close(pidfd)
    data = b""
    while chunk := os.read(read_fd, 1 << 16):
        data += chunk
    os.close(read_fd)
    if timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)):
        return "time limit", data
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}", data
    return None, data


def harness_inputs(spec_file: str) -> tuple[dict, str]:
    """A harness's start: its process made not dumpable (a child, same uid, cannot open the harness's
    /proc/PID/fd/1 to print a verdict of its own), then the judge's data (the file removed, so that a sample looking
    for the expected outputs does not find them on disk) and the sample's source."""
    import ctypes
    import json

    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    with open(spec_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    os.unlink(spec_file)
    with open("solution.py", encoding="utf-8", errors="surrogateescape") as handle:
        return spec, handle.read()
