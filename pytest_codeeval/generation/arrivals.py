"""Solutions as they arrive: generation runs in a thread of its own (or, on an xdist worker, in the controller)
while the samples that have theirs already execute. Each solution is added once, in the order of arrival, which
the xdist controller's relay follows (`since`) to send each worker what it has not sent yet."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pytest_codeeval.errors import CodeevalError


class Arrivals:
    """Node id -> solution, filled from another thread; `error` once generation broke off, `done` once it ended.
    Listeners are called (in the adding thread, without the lock) after each addition and at the end."""

    def __init__(self) -> None:
        self._solutions: dict[str, str] = {}
        self._order: list[str] = []
        self._cond = threading.Condition()
        self.error: str | None = None
        self.done = False
        self._listeners: list[Callable[[], None]] = []

    def listen(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def add(self, solutions: dict[str, str]) -> None:
        with self._cond:
            for nodeid, solution in solutions.items():
                if nodeid not in self._solutions:
                    self._order.append(nodeid)
                self._solutions[nodeid] = solution
            self._cond.notify_all()
        self._tell()

    def end(self, error: str | None = None) -> None:
        """Generation ended: every solution it will give is in (`error`: it broke off, and says why)."""
        with self._cond:
            self.error = self.error or error
            self.done = True
            self._cond.notify_all()
        self._tell()

    def _tell(self) -> None:
        for listener in list(self._listeners):
            listener()

    def ready(self, nodeid: str) -> bool:
        """Whether asking for this solution returns at once: it is in, or none will come."""
        return nodeid in self._solutions or self.done

    def get(self, nodeid: str) -> str:
        """The solution, once it is in (waiting for it); generation's error where it broke off before it."""
        with self._cond:
            while nodeid not in self._solutions and not self.done:
                self._cond.wait(0.5)  # a bounded wait: Ctrl-C is never held up by it
            if nodeid in self._solutions:
                return self._solutions[nodeid]
        if self.error is not None:
            raise CodeevalError(self.error)
        raise RuntimeError(f"no generation was prepared for {nodeid}")  # a bug, not user input

    def since(self, offset: int) -> tuple[dict[str, str], int]:
        """The solutions added after the first `offset`, and the offset after them."""
        with self._cond:
            names = self._order[offset:]
            return {name: self._solutions[name] for name in names}, offset + len(names)

    def wait_beyond(self, offset: int, timeout: float) -> None:
        """Until more than `offset` solutions are in, generation ended, or `timeout` s passed."""
        with self._cond:
            if len(self._order) <= offset and not self.done:
                self._cond.wait(timeout)

    def __len__(self) -> int:
        return len(self._order)
