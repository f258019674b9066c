"""The execution pool: executors that run samples' jobs ahead of their items, each key's outcome once, identical
jobs once, idle executors fed while an item waits."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.timeout(300)


def test_pool_starts_every_zygote_when_the_header_asks_for_the_layers() -> None:
    """The zygotes start side by side, during collection, instead of one by one when the first samples need them."""
    from pytest_codeeval.execution.pool import ExecutionPool

    pool = ExecutionPool("strict", 2)
    try:
        assert "rlimits" in pool.layers()
        assert all(e._proc is not None and e._proc.poll() is None for e in pool._executors)
    finally:
        pool.close()
    assert all(e._proc is None for e in pool._executors)


def test_pool_gives_each_key_its_outcome_and_raises_what_a_job_raised() -> None:
    from pytest_codeeval.execution.pool import ExecutionPool

    def job(name: str):  # a job takes the executor it runs on; these need none
        return lambda executor: f"outcome of {name}"

    def broken(executor: object) -> None:
        raise ValueError("job broke")

    pool = ExecutionPool("basic", 2)
    jobs = {name: job(name) for name in "abc"}
    try:
        pool.submit("a", jobs["a"])
        pool.submit("b", broken)
        pool.submit("a", job("started twice"))  # already started: kept as it was
        assert pool.result("a", lambda: pytest.fail("a ran ahead")) == (jobs["a"], "outcome of a", None)
        with pytest.raises(ValueError, match="job broke"):
            pool.result("b", lambda: pytest.fail("b ran ahead"))
        assert pool.result("c", lambda: jobs["c"]) == (jobs["c"], "outcome of c", None)  # not started ahead: made now
    finally:
        pool.close()


def test_a_ctrl_c_while_the_pool_starts_its_threads_leaves_a_pool_that_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGINT's KeyboardInterrupt can land between two threads' starts (the first sample's submission): the pool
    then closes as usual, instead of failing the interrupted run with `cannot join thread before it is started`."""
    import threading

    from pytest_codeeval.execution.pool import ExecutionPool

    real_start, started = threading.Thread.start, []

    def start(thread: threading.Thread) -> None:
        if started:
            raise KeyboardInterrupt
        started.append(thread)
        real_start(thread)

    pool = ExecutionPool("basic", 2)
    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        pool.submit("a", lambda executor: "outcome")
    monkeypatch.undo()
    pool.close()
    assert not started[0].is_alive()


def test_closing_the_pool_drops_what_has_not_started_and_waits_for_what_runs() -> None:
    import threading

    from pytest_codeeval.execution.pool import ExecutionPool

    running, release, ran = threading.Event(), threading.Event(), []

    def first(executor: object) -> str:
        running.set()
        release.wait(10)
        ran.append("first")
        return "done"

    pool = ExecutionPool("basic", 1)
    pool.submit("first", first)
    pool.submit("second", lambda executor: ran.append("second"))
    assert running.wait(10)
    closing = threading.Thread(target=pool.close)
    closing.start()
    closing.join(0.5)
    assert closing.is_alive()  # the running job is waited for (a real one is killed with its zygote)
    release.set()
    closing.join(10)
    assert not closing.is_alive() and ran == ["first"]
    with pytest.raises(RuntimeError, match="closed"):
        pool.result("second", lambda: pytest.fail("made after close"))


@pytest.mark.parametrize("dedupe", [True, False])
def test_pool_runs_identical_jobs_once_and_says_whose_run_it_shares(dedupe: bool) -> None:
    from pytest_codeeval.execution.pool import ExecutionPool

    runs = []

    def job(executor: object) -> str:
        runs.append(1)
        return "outcome"

    pool = ExecutionPool("basic", 2, dedupe=dedupe)
    try:
        pool.submit("first", job)
        pool.submit("second", job)
        assert pool.result("first", lambda: pytest.fail("ran ahead")) == (job, "outcome", None)
        assert pool.result("second", lambda: pytest.fail("ran ahead")) == (job, "outcome", "first" if dedupe else None)
        assert pool.result("third", lambda: job) == (job, "outcome", "first" if dedupe else None)  # made later
    finally:
        pool.close()
    assert len(runs) == pool.programs_run == (1 if dedupe else 3)


def test_pool_feeds_idle_executors_while_an_item_waits_for_a_slow_sample() -> None:
    """The slow job finishes only once the jobs fed during its wait have run: the feeder kept the other executor
    busy (before, nothing beyond the look-ahead window started until the slow item was done)."""
    import threading

    from pytest_codeeval.execution.pool import ExecutionPool

    fed_ran = threading.Event()
    keys = iter(range(20))

    def slow(executor: object) -> bool:
        return fed_ran.wait(30)

    def quick(n: int):
        return lambda executor: fed_ran.set() if n == 19 else n

    def feeder() -> bool:
        key = next(keys, None)
        if key is None:
            return False
        pool.submit(key, quick(key))
        return True

    pool = ExecutionPool("basic", 2)
    pool.feeder = feeder
    try:
        pool.submit("slow", slow)
        assert pool.result("slow", lambda: pytest.fail("ran ahead"))[1] is True
        assert [pool.result(n, lambda: pytest.fail("ran ahead"))[1] for n in range(19)] == list(range(19))
    finally:
        pool.close()


def test_a_wait_for_a_completion_starts_the_samples_whose_completions_arrive_meanwhile() -> None:
    """Generation goes on in another thread: each arrival (`wake`) has the waiting thread ask the feeder again,
    which had nothing to start before it. The last completion comes only once the fifth sample has run."""
    import threading

    from pytest_codeeval.execution.pool import ExecutionPool

    arrived: list[int] = []
    started: list[int] = []
    fifth_ran = threading.Event()

    def job(n: int):
        return lambda executor: fifth_ran.set() if n == 4 else n

    def feeder() -> bool:
        waiting = [n for n in arrived if n not in started]
        if not waiting:
            return False  # nothing has arrived that is not started: asked again at the next arrival
        started.append(waiting[0])
        pool.submit(waiting[0], job(waiting[0]))
        return True

    def generate() -> None:
        for n in range(5):
            time.sleep(0.05)
            arrived.append(n)
            pool.wake()
        fifth_ran.wait(30)
        arrived.append(5)
        pool.wake()

    pool = ExecutionPool("basic", 2)
    pool.feeder = feeder
    generation = threading.Thread(target=generate, daemon=True)
    try:
        generation.start()
        pool.wait_until(lambda: 5 in arrived)
        assert fifth_ran.is_set() and started == [0, 1, 2, 3, 4]
        assert [pool.result(n, lambda: pytest.fail("ran ahead"))[1] for n in range(4)] == [0, 1, 2, 3]
    finally:
        pool.close()
