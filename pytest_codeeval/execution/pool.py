"""The execution pool: samples run on `jobs` sandbox executors ahead of their pytest items.

A sample's program takes about a millisecond; pytest's own work per item (and xdist's, when it carries the
reports) costs as much again. So the items do not execute their samples one after another: while pytest
reports one item, the next ones are already running, `jobs` at a time, each on its own zygote. An item then
only collects its verdict. Verdicts do not change (each sample is its own process with its own CPU-time limit);
the order of reports does not change either (pytest still runs the items in order).

A sample that runs into its time limit holds its item for seconds; while the main thread waits for it, it keeps
the other executors fed from a `feeder` (the look-ahead), as far ahead as that takes; while generation goes on, an
item also waits here for its completion, and each arrival (`wake`) lets the feeder start what came. Identical jobs
(the same program, language and limits) run once: the first sample's outcome is every such sample's."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Hashable

from pytest_codeeval.execution.job import ExecutionJob as Job
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


class _Run:
    """One job's execution, shared by every key whose job is identical; `owner` is the key that started it."""

    __slots__ = ("done", "error", "job", "outcome", "owner")

    def __init__(self, job: Job, owner: Hashable) -> None:
        self.job, self.owner = job, owner
        self.outcome: Outcome | None = None
        self.error: BaseException | None = None
        self.done = False


class ExecutionPool:
    """`jobs` sandbox executors, each driven by a thread of its own; a submitted sample starts when one is free.

    Results wait by key until their item asks for them; `close` drops what has not started and kills what runs
    (with -x, or when the session breaks off). One condition guards the queue and the results, not futures:
    their bookkeeping cost the main process, which also runs pytest, about 6% of its time."""

    def __init__(self, level: str, jobs: int, dedupe: bool = True) -> None:
        self.level = level
        self.jobs = jobs
        self.dedupe = dedupe
        self.programs_run = 0  # distinct executions started
        # Called (without the lock) while the main thread waits and an executor would otherwise go idle: starts
        # the next upcoming samples; returns False once there are none.
        self.feeder: Callable[[], bool] | None = None
        self._executors = [ZygoteExecutor(level) for _ in range(jobs)]
        self._queue: deque[_Run] = deque()
        self._threads: list[threading.Thread] = []
        self._started: dict[Hashable, _Run] = {}  # by key, until its item collects it
        self._by_job: dict[Job, _Run] = {}  # with dedupe: every run of this process, by its job
        self._cond = threading.Condition()
        self._closed = False
        self._arrivals = 0  # wake() calls: completions arrived since the feeder last had nothing to start

    def layers(self) -> dict[str, str]:
        """The isolation layers (the same on every executor). Asked for by the header, before collection: all
        zygotes start now, side by side and beside collection, and are ready when the first samples are."""
        for executor in self._executors[1:]:
            executor.launch()
        return self._executors[0].layers()

    def submit(self, key: Hashable, job: Job) -> None:
        """Start `job` for `key` unless it is already started (or done and not yet collected)."""
        with self._cond:
            if key not in self._started and not self._closed:
                self._started[key] = self._enqueue(key, job)

    def result(self, key: Hashable, make_job: Callable[[], Job]) -> tuple[Job, Outcome, Hashable | None]:
        """The job for `key`, its outcome, and the key whose identical job ran it (None: this one ran): collected if
        it ran ahead, otherwise made and run now. While it runs, idle executors are fed from `feeder`."""
        with self._cond:
            run = self._started.pop(key, None)
        if run is None:
            job = make_job()
            with self._cond:
                if self._closed:
                    raise RuntimeError("the sandbox pool is closed")
                run = self._enqueue(key, job)
        self._wait(run)
        if run.error is not None:
            raise run.error
        assert run.outcome is not None
        return run.job, run.outcome, (None if run.owner == key else run.owner)

    def _wait(self, run: _Run) -> None:
        self.wait_until(lambda: run.done)

    def wake(self) -> None:
        """Something the feeder may start has arrived (a completion, from the generation thread or the xdist
        controller): a waiting thread asks the feeder again."""
        with self._cond:
            self._arrivals += 1
            self._cond.notify_all()

    def wait_until(self, done: Callable[[], bool]) -> None:
        """Block until `done()` (checked under the lock: a result, or a completion's arrival), feeding idle
        executors meanwhile; once the feeder has nothing, it is asked again only after the next `wake`."""
        feeder, empty_at = self.feeder, -1  # the arrivals count at which the feeder last had nothing
        with self._cond:
            while not done():
                if (feeder is not None and empty_at != self._arrivals and len(self._queue) < self.jobs
                        and not self._closed):
                    seen = self._arrivals
                    self._cond.release()  # the feeder submits, which takes the lock
                    try:
                        more = feeder()
                    finally:
                        self._cond.acquire()
                    if not more:
                        empty_at = seen
                    continue
                self._cond.wait()

    def _enqueue(self, key: Hashable, job: Job) -> _Run:
        """Queue `job` for the next free executor, or join its identical run (the caller holds the lock)."""
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        if self.dedupe and (run := self._by_job.get(job)) is not None:
            return run
        if not self._threads:
            for n, executor in enumerate(self._executors):
                thread = threading.Thread(target=self._serve, args=(executor,), daemon=True,
                                          name=f"codeeval-sandbox-{n}")
                thread.start()
                self._threads.append(thread)  # once started: a Ctrl-C between the two leaves `close` none to join
        run = _Run(job, key)
        if self.dedupe:
            self._by_job[job] = run
        self.programs_run += 1
        self._queue.append(run)
        self._cond.notify_all()
        return run

    def _serve(self, executor: ZygoteExecutor) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                run = self._queue.popleft()
                self._cond.notify_all()  # the queue shrank: a waiting main thread tops it up
            try:
                run.outcome = run.job(executor)
            except BaseException as exc:  # noqa: BLE001 - raised again in the thread that asks for the result
                run.error = exc
            with self._cond:
                run.done = True
                self._cond.notify_all()

    def close(self) -> None:
        """Drop what has not started, end the zygotes (and with them any running sample), join the threads."""
        with self._cond:
            self._closed = True
            threads, self._threads = self._threads, []
            dropped, self._queue = list(self._queue), deque()
            for run in dropped:
                run.error, run.done = RuntimeError("the sandbox pool was closed before this sample ran"), True
            self._cond.notify_all()
        for executor in self._executors:
            executor.kill()  # a thread waiting on a running sample gets end-of-file at once
        for thread in threads:
            thread.join()
        for executor in self._executors:
            executor.close()
