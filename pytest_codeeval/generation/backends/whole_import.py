"""Imports that Ctrl-C must not cut in half. torch's and vLLM's imports call Python from their C++ start-up; a
KeyboardInterrupt raised there cannot unwind through it, and the process aborts (SIGABRT, seen once in
`import vllm`) instead of ending as pytest's interrupt. So a first SIGINT waits for the import (seconds) and is
raised as soon as it returns, with a line that says so; a second one, from a user who will not wait, is raised at
once."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from pytest_codeeval.generation.progress import stderr


@contextlib.contextmanager
def whole_import(what: str) -> Iterator[None]:
    """Hold SIGINT while the block imports `what`; only Python's main thread gets signals, and only a Python handler
    can be held."""
    installed = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(installed):
        yield
        return
    previous = installed
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if held:  # the second one: now
            held.clear()
            previous(signum, frame)
        held.append(signum)
        _say(f"codeeval: Ctrl-C: the run ends once {what}'s import returns (seconds); Ctrl-C again ends it now")

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            previous(signal.SIGINT, None)


def _say(line: str) -> None:
    with contextlib.suppress(OSError, RuntimeError, ValueError, AttributeError):  # a stream closed or mid-write
        stream = stderr()
        if stream is not None:
            stream.write(line + "\n")
            stream.flush()
