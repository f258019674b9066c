"""A sample's own process, from the zygote's fork to its end. Nothing here returns: the process ends with os._exit.

The order matters: limits and privilege drop happen before any untrusted code, and the completion token is written
only after the program's last statement returned, so an early exit of any kind is never a pass."""

from __future__ import annotations

import math
import os
import resource
import sys
import types
from collections.abc import Callable

# Bound at import: a program that replaces os._exit, os.read or os.write cannot change how the harness reports
# completion or ends the process (with os._exit made a no-op, a failing program fell through to the token).
from os import _exit, read, write
from typing import Any, NamedTuple, NoReturn

from pytest_codeeval.sandbox.protocol import write_all
from pytest_codeeval.sandbox.tracebacks import print_failure

DONE_FD = 3  # the completion pipe, written to by the harness once the program returned
TOKEN_FD = 4  # where the completion token waits (see `_run_python`); with DONE_FD, all a sample has beside 0, 1, 2
SETUP_FAILED = 125
PROGRAM_MODULE = "__sample__"  # the program's `__name__`
MAX_FD = os.sysconf("SC_OPEN_MAX")


class ChildSpec(NamedTuple):
    scratch: str
    stdout_fd: int
    stderr_fd: int
    done_fd: int
    token_fd: int  # the read end of the pipe the zygote writes this sample's completion token to, after the fork
    rlimits: list[tuple[int, tuple[int, int]]]
    uid: int | None  # run as this uid (root only); None: stay as we are
    env: dict[str, str] | None  # None: the environment inherited from the zygote is the sample's already
    python_source: str | None
    argv: list[str] | None
    filename: str
    proof: bool = False  # an argv program that reports its completion itself: 3 and 4 stay open across its exec


def rlimits(limits: dict[str, Any], uid_dropped: bool) -> list[tuple[int, tuple[int, int]]]:
    """The sample's resource limits, made by the zygote: the child only applies them (less to run after a fork)."""
    cpu = max(1, math.ceil(limits["cpu_seconds"]))
    values = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),  # SIGXCPU at the limit, SIGKILL a second later
        # per process: runtimes reserve address space far beyond what they use (the control group bounds that)
        (resource.RLIMIT_AS, (limits.get("address_space_bytes") or limits["memory_bytes"],) * 2),
        (resource.RLIMIT_FSIZE, (limits["file_size_bytes"],) * 2),
        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if uid_dropped:  # RLIMIT_NPROC counts per uid: meaningful only for a uid that this sandbox alone uses
        values.append((resource.RLIMIT_NPROC, (limits["processes"],) * 2))
    return values


def _drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _prepare(spec: ChildSpec) -> None:
    os.setsid()
    # Standard input is the zygote's: /dev/null.
    os.dup2(spec.stdout_fd, 1)
    os.dup2(spec.stderr_fd, 2)
    # Not passed on to programs the sample execs. (The zygote's own descriptors 3 and 4, replaced here, are its
    # protocol pipes: these two pipes are never at 3 or 4 in the zygote.)
    os.dup2(spec.done_fd, DONE_FD, inheritable=False)
    os.dup2(spec.token_fd, TOKEN_FD, inheritable=False)
    os.closerange(TOKEN_FD + 1, MAX_FD)
    if spec.argv and spec.proof:
        _keep_completion_fds(spec.uid)
    os.chdir(spec.scratch)
    # The first the OOM killer takes, in the machine or the control group (the zygote keeps its own score).
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, b"1000")
    finally:
        os.close(fd)
    if spec.uid is not None:  # no new privileges is set on the zygote already: su and sudo cannot undo this
        _drop_privileges(spec.uid)
    for which, value in spec.rlimits:
        resource.setrlimit(which, value)
    if spec.env is not None:
        os.environ.clear()
        os.environ.update(spec.env)


def _keep_completion_fds(uid: int | None) -> None:
    """For a program that proves its completion (languages/proof.py): its epilogue, run after the last test, reads
    the token from TOKEN_FD (written by the zygote after the fork, readable once) and writes it to DONE_FD, by the
    descriptor or by its /proc/self/fd path (which needs the pipes to be the sample's uid's)."""
    for fd in (DONE_FD, TOKEN_FD):
        os.set_inheritable(fd, True)
        if uid is not None:
            os.fchown(fd, uid, uid)


def configure_streams() -> None:
    """Called by the zygote before any fork: the streams its samples inherit, unused and empty until then."""
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]
    sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace", line_buffering=True)  # type: ignore[union-attr]


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the program may have closed or replaced its streams
            pass


def _run_python(spec: ChildSpec, _exit: Callable[[int], NoReturn] = _exit, read: Any = read, write: Any = write,
                flush: Any = _flush, report: Any = print_failure, status_of: Any = _exit_status,
                done_fd: int = DONE_FD, token_fd: int = TOKEN_FD) -> None:
    """Every name the harness needs after the program ran is bound when this module is imported (the defaults):
    a program that replaces this module's globals (`_exit` made a no-op for a failure) cannot reroute it. And the
    token is written only in the `else` of the `try`, which no failure branch reaches, even if `_exit` returned."""
    path = os.path.join(spec.scratch, spec.filename)
    # Not named __main__: human-eval, bigcode-evaluation-harness and evalplus exec the program in fresh globals,
    # where an `if __name__ == "__main__":` block (a model's own demo, an input() call) never runs. Registered
    # under its name, and as __main__, so that pickling (multiprocessing) finds the program's functions and classes.
    module = types.ModuleType(PROGRAM_MODULE)
    module.__file__ = path
    sys.modules[PROGRAM_MODULE] = sys.modules["__main__"] = module
    sys.argv = [path]
    sys.path.insert(0, spec.scratch)  # as for a script: its directory first
    # sys.stdin, stdout and stderr are the zygote's, set up once by `configure_streams`: fds 0-2 are the sample's now.
    source = spec.python_source or ""
    try:
        # dont_inherit: this module's `from __future__ import annotations` must not postpone the program's annotations
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    except SystemExit as exc:
        status = status_of(exc.code)
        flush()
        _exit(status)
    except BaseException as exc:
        flush()  # what the program wrote comes before the report
        report(exc, path, source)
        _exit(1)
    else:
        flush()
        # The token is read only now: while the program ran it was in no memory of this process (the zygote made it
        # after the fork), so walking the interpreter's frames or objects cannot find it.
        try:
            write(done_fd, read(token_fd, 64))
        except OSError:
            write_all(2, b"OSError: the program closed descriptor 3 or 4, which the sandbox needs to see it finish\n")
            _exit(1)
        _exit(0)


def become_sample(spec: ChildSpec, _exit: Callable[[int], NoReturn] = _exit) -> NoReturn:
    """Turn the freshly forked child into the sample's process and run the program."""
    try:
        _prepare(spec)
        write(DONE_FD, b"R")  # ready: anything that fails before this is the sandbox's fault
    except BaseException as exc:
        try:
            write(2, f"sandbox setup failed: {exc!r}\n".encode())
        finally:
            _exit(SETUP_FAILED)
    if spec.argv:
        try:
            os.execve(spec.argv[0], spec.argv, os.environ)
        except OSError as exc:
            write(2, f"cannot run {spec.argv[0]}: {exc.strerror}\n".encode())
            _exit(127)
    try:
        _run_python(spec)
    finally:  # whatever the program broke on the way out (its descriptors, sys.stderr), never back into the zygote's code
        _exit(1)
