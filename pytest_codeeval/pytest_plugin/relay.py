"""The xdist controller's solutions, sent to its workers as they arrive: generation runs in the controller (the model
loads once per session), its workers execute the samples whose solutions they have while it goes on."""

from __future__ import annotations

import threading
from typing import Any

from pytest_codeeval.generation.arrivals import Arrivals
from pytest_codeeval.pytest_plugin.compat import send_to_worker

BATCH_SECONDS = 0.05  # a relay message gathers what arrives within this long: a few messages per chunk, not one each


class Relay:
    """Sends each worker, in order of arrival, the solutions it has not had yet, then the end of generation (its
    error, where it broke off). A worker that joins gets everything so far at once, from the thread that adds it
    (before xdist's scheduler sends it an item); a thread sends the rest. A worker whose channel has closed (it
    died; xdist gives its items to the others) is dropped."""

    def __init__(self, arrivals: Arrivals, command: str) -> None:
        self._arrivals, self._command = arrivals, command
        self._sent: dict[Any, int] = {}  # worker node -> solutions sent to it
        self._told: set[Any] = set()  # workers told that generation ended
        self._lock = threading.Lock()  # one sender per worker at a time: its solutions stay in order
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    def add(self, node: Any) -> None:
        with self._lock:
            self._sent[node] = 0
            self._send(node)
        if self._thread is None and not self._arrivals.done:
            self._thread = threading.Thread(target=self._loop, daemon=True, name="codeeval-relay")
            self._thread.start()

    def close(self) -> None:
        self._closed.set()

    def _loop(self) -> None:
        while not self._closed.is_set():
            with self._lock:
                nodes = list(self._sent)
                if self._arrivals.done and all(node in self._told for node in nodes):
                    return
                low = min((self._sent[node] for node in nodes), default=len(self._arrivals))
            self._arrivals.wait_beyond(low, 0.5)
            self._closed.wait(BATCH_SECONDS)
            with self._lock:
                for node in list(self._sent):
                    self._send(node)

    def _send(self, node: Any) -> None:
        """What `node` has not had (the caller holds the lock)."""
        done, error = self._arrivals.done, self._arrivals.error  # read first: the solutions below are all there
        solutions, offset = self._arrivals.since(self._sent[node])
        if not solutions and (node in self._told or not done):
            return
        try:
            send_to_worker(node, self._command, {"solutions": solutions, "done": done, "error": error})
        except OSError:  # execnet's word for a closed channel: the worker is gone
            del self._sent[node]
            return
        self._sent[node] = offset
        if done:
            self._told.add(node)
