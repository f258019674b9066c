"""Look-ahead execution: samples run on a pool of sandbox executors ahead of their pytest items.

A sample's program takes about a millisecond; pytest's own work per item (and xdist's, when it carries the
reports) costs as much again. So the items do not execute their samples one after another: while pytest
reports one item, the next ones are already running, `jobs` at a time, each on its own zygote. An item then
only collects its verdict. Verdicts do not change (each sample is its own process with its own CPU-time limit);
the order of reports does not change either (pytest still runs the items in order)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pytest_codeeval.execution import ExecutionJob as Job
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.sandbox.executor import ZygoteExecutor


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_jobs(workers: int) -> int:
    """All cores in a single process; under xdist each of the `workers` processes gets its share."""
    return max(1, available_cpus() // max(1, workers))


class ExecutionPool:
    """`jobs` sandbox executors, each driven by one thread at a time; a submitted sample starts when one is free.

    Results are kept by key until their item asks for them; `close` cancels what has not started and kills what
    runs (with -x, or when the session breaks off)."""

    def __init__(self, level: str, jobs: int) -> None:
        self.level = level
        self.jobs = jobs
        self._executors = [ZygoteExecutor(level) for _ in range(jobs)]
        self._idle: queue.SimpleQueue[ZygoteExecutor] = queue.SimpleQueue()
        for executor in self._executors:
            self._idle.put(executor)
        self._threads: ThreadPoolExecutor | None = None
        self._started: dict[Hashable, tuple[Job, Future[Outcome]]] = {}
        self._lock = threading.Lock()

    def layers(self) -> dict[str, str]:
        """The isolation layers (the same on every executor). Asked for by the header, before collection: all
        zygotes start now, side by side and beside collection, and are ready when the first samples are."""
        for executor in self._executors[1:]:
            executor.launch()
        return self._executors[0].layers()

    def submit(self, key: Hashable, job: Job) -> None:
        """Start `job` for `key` unless it is already started (or done and not yet collected)."""
        with self._lock:
            if key in self._started:
                return
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.jobs, thread_name_prefix="codeeval-sandbox")
            self._started[key] = (job, self._threads.submit(self._run, job))

    def result(self, key: Hashable, make_job: Callable[[], Job]) -> tuple[Job, Outcome]:
        """The job for `key` and its outcome: collected if it ran ahead, otherwise made and run now."""
        with self._lock:
            started = self._started.pop(key, None)
        if started is None:
            job = make_job()
            return job, self._run(job)
        job, future = started
        return job, future.result()

    def _run(self, job: Job) -> Outcome:
        executor = self._idle.get()
        try:
            return job(executor)
        finally:
            self._idle.put(executor)

    def close(self) -> None:
        """Cancel what has not started, end the zygotes (and with them any running sample), join the threads."""
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
            for executor in self._executors:
                executor.kill()  # a thread waiting on a running sample gets end-of-file at once
            threads.shutdown(wait=True)
        for executor in self._executors:
            executor.close()
        self._started.clear()


class Lookahead:
    """Which items to start next. A single process knows its whole order (the session's items): the next
    `window` of them, each returned once. An xdist worker learns its items from the controller as it goes: the
    current and the next."""

    def __init__(self) -> None:
        self._positions: dict[int, int] | None = None
        self._reached = 0  # in a single process: items before this position were returned already

    def upcoming(self, item: Any, nextitem: Any, order: Sequence[Any] | None, window: int) -> list[Any]:
        if order is None:
            return [i for i in (item, nextitem) if i is not None]
        if self._positions is None:
            self._positions = {id(it): n for n, it in enumerate(order)}
        position = self._positions.get(id(item))
        if position is None:
            return [item]
        start, self._reached = max(position, self._reached), max(self._reached, position + window)
        return list(order[start : position + window])
