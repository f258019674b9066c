"""The executor: the pytest side of a zygote. Starts it, sends requests, and turns a broken zygote into a
`machinery_error` (the runner retries once on a fresh zygote) instead of a verdict against the model."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
import time
from typing import Any

from pytest_codeeval.sandbox.api import SANDBOX_LEVELS, ExecRequest, ExecResult
from pytest_codeeval.sandbox.protocol import receive, send
from pytest_codeeval.sandbox.toolchains import toolchain_paths

REPLY_GRACE = 30.0  # seconds beyond a sample's wall bound before the zygote itself is presumed hung
KILL_POLL = 0.1  # seconds between looks at `kill` while a reply is awaited


def zygote_environment() -> dict[str, str]:
    """The zygote starts with almost nothing: a forked sample can read the environment block it was started
    with (/proc/self/environ), whatever the sample's own os.environ says."""
    keep = ("PATH", "HOME", "LANG", "PYTHONPATH")
    # LD_BIND_NOW: the dynamic linker resolves every symbol once, in the zygote, instead of lazily in each forked
    # sample (where each first call wrote to a shared page and searched the symbol tables: about 10 page faults).
    env = {"LD_BIND_NOW": "1", **{k: os.environ[k] for k in keep if k in os.environ}}
    toolchains = toolchain_paths()  # compilers installed under the home directory, which the sandbox hides
    return {**env, "CODEEVAL_TOOLCHAINS": os.pathsep.join(toolchains)} if toolchains else env


class ZygoteExecutor:
    def __init__(self, level: str, without: tuple[str, ...] = ()) -> None:
        """`without`: optional layers left out (zygote.OPTIONAL_LAYERS), to measure what each costs."""
        if level not in SANDBOX_LEVELS:
            raise ValueError(f"unknown sandbox level {level!r}")
        self.level = level
        self.without = without
        self._proc: subprocess.Popen[bytes] | None = None
        self._layers: dict[str, str] | None = None
        self._killed = False
        # The pool's thread starts the zygote with its first sample; the header or the report may ask for its layers
        # meanwhile, from pytest's thread: one of them reads the zygote's first message, never both.
        self._starting = threading.Lock()

    def launch(self) -> None:
        """Start the zygote process without waiting until it is ready: a pool's zygotes start side by side.

        The zygote dies with the thread that started it (its parent-death signal follows the parent thread, not
        the process): start it from a thread that lives as long as this executor (pytest's, or the pool's)."""
        if self._killed:
            raise RuntimeError("the sandbox was shut down")
        if self._proc is None or self._proc.poll() is not None:
            self._layers = None
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "pytest_codeeval.sandbox.zygote", self.level, *([",".join(self.without)] if self.without else [])],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True,
                env=zygote_environment(),
            )
            if self._killed:  # `kill` ran while this zygote was being started (by another thread)
                self._proc.kill()

    def _start(self) -> subprocess.Popen[bytes]:
        with self._starting:
            self.launch()
            assert self._proc is not None
            if self._layers is None:  # its first message says which isolation layers it set up
                hello = self._receive(60.0)
                if hello is None or "layers" not in hello:
                    self.close()
                    raise RuntimeError("the sandbox zygote did not start")
                self._layers = hello["layers"]
            return self._proc

    def _receive(self, timeout: float) -> dict[str, Any] | None:
        """The zygote's next message; None at end-of-file, after `timeout` s, or once `kill` ran: a process that
        outlived its killed launcher may still hold the pipe, and the run's end must not wait for it."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while not self._killed:
            ready, _, _ = select.select([fd], [], [], min(KILL_POLL, max(0.0, deadline - time.monotonic())))
            if ready:
                return receive(fd)
            if time.monotonic() >= deadline:
                return None
        return None

    def layers(self) -> dict[str, str]:
        """Each isolation layer and its state: 'on ...', 'off (why)', 'not needed (why)'."""
        try:
            self._start()
        except RuntimeError as exc:
            return {"zygote": f"off ({exc})"}
        return dict(self._layers or {})

    def run(self, request: ExecRequest) -> ExecResult:
        limits = {**vars(request.limits), "wall_seconds": request.limits.wall_bound()}  # asdict: 30 µs a sample
        message = {
            "python_source": request.python_source, "argv": list(request.argv) if request.argv else None,
            "filename": request.filename, "limits": limits,
            "files": [[name, bytes(data)] for name, data in request.files], "binds": list(request.binds),
            "proof": request.proof,
            "run_wall_seconds": request.run_wall_seconds, "keep": list(request.keep),
        }
        try:
            proc = self._start()
            assert proc.stdin is not None
            send(proc.stdin.fileno(), message)
            reply = self._receive(request.limits.reply_bound(request.run_wall_seconds) + REPLY_GRACE)
        except (OSError, RuntimeError) as exc:
            reply = {"machinery_error": f"sandbox unavailable: {exc}"}
        if reply is None:
            self.close()
            reply = {"machinery_error": "the sandbox zygote died or hung"}
        if reply.get("machinery_error") and "exit_code" not in reply:
            return ExecResult(None, None, False, "", "", machinery_error=reply["machinery_error"])
        if reply.get("abandoned"):
            self._retire()
        return ExecResult(**{**reply, "kept": tuple((name, data) for name, data in reply.get("kept", ()))})

    def _retire(self) -> None:
        """Let go of a zygote that left a process the kernel would not kill: it cannot end while that process
        lives (PID 1's exit waits for its namespace), so its launcher is killed and a fresh zygote starts next."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()

    def kill(self) -> None:
        """End the zygote now, with any sample it runs (the zygote is PID 1 of their namespace, or their
        subreaper); safe while another thread waits for a reply: it reads end-of-file. No new zygote starts."""
        self._killed = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if "control group" not in self.without:  # a killed launcher (`kill`, the pool's close) left its group
            from pytest_codeeval.sandbox import cgroups

            cgroups.remove_left(f"codeeval-{proc.pid}")
