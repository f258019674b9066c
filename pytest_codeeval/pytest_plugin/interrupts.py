"""Ctrl-C that is never lost. Python raises KeyboardInterrupt wherever the main thread is when the signal comes, and
one raised inside a finalizer (a `__del__` or a weakref callback that a garbage collection runs) is printed as
"Exception ignored" and dropped: the run would go on to its end, every sample after it judged. The handler here
remembers the signal, and the run raises it again at its next safe point (an item's start, a worker's report)."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class Interrupts:
    """Python's own SIGINT handler, which also remembers that it ran."""

    def __init__(self) -> None:
        self.received = False

    def install(self) -> None:
        """In the main thread, in place of Python's default handler only: a debugger's or another plugin's stays."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return
        signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> Any:
        self.received = True
        return signal.default_int_handler(signum, frame)

    def raise_if_received(self) -> None:
        """At a safe point: a Ctrl-C whose KeyboardInterrupt was dropped ends the run now."""
        if self.received:
            raise KeyboardInterrupt("Ctrl-C received earlier (its KeyboardInterrupt was dropped where it landed)")

    def uninstall(self) -> None:
        if signal.getsignal(signal.SIGINT) == self._handle:  # installed, and still in place
            signal.signal(signal.SIGINT, signal.default_int_handler)
