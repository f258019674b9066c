"""Look-ahead execution: samples run on a pool of executors ahead of their items, with the same verdicts, and a
run that stops early (-x) does not wait for the samples it started ahead."""

from __future__ import annotations

import itertools
import re

import pytest
from helpers import canonical, first_ids, report, write_jsonl

pytestmark = pytest.mark.timeout(300)

STAMPED = "\nimport time as _t\nprint('start', _t.time())\n_t.sleep({seconds})\nprint('end', _t.time())\n"


def _stamped_samples(pytester: pytest.Pytester) -> str:
    """Per problem: a canonical completion and a wrong one, each printing when it starts and ends (sleeping between)."""
    rows = []
    for tid in first_ids(2):
        rows.append({"task_id": tid, "completion": canonical(tid) + STAMPED.format(seconds=0.5)})
        rows.append({"task_id": tid, "completion": "    return None\n" + STAMPED.format(seconds=0.5)})
    return str(write_jsonl(pytester.path / "stamped.jsonl", rows))


def _intervals(data: dict) -> list[tuple[float, float]]:
    outputs = [s["output"] for p in data["tasks"]["humaneval"]["problems"].values() for s in p["samples"]]
    return [tuple(float(re.search(rf"{edge} ([\d.]+)", out).group(1)) for edge in ("start", "end")) for out in outputs]


def _overlapping(intervals: list[tuple[float, float]]) -> bool:
    ordered = sorted(intervals)
    return any(later[0] < earlier[1] for earlier, later in itertools.pairwise(ordered))


def _verdicts(data: dict) -> dict:
    return {pid: [s["status"] for s in p["samples"]] for pid, p in data["tasks"]["humaneval"]["problems"].items()}


def test_samples_run_ahead_with_the_same_verdicts(pytester: pytest.Pytester) -> None:
    path = _stamped_samples(pytester)
    args = [f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-k=1,2"]
    for name, extra in {"one": ["--codeeval-jobs=1"], "two": ["--codeeval-jobs=2"], "xdist": ["-n", "2"]}.items():
        result = pytester.runpytest_subprocess(*args, *extra, f"--codeeval-report={name}.json")
        result.assert_outcomes(passed=2, failed=2)
    one, two, xdist = (report(pytester.path / f"{name}.json") for name in ("one", "two", "xdist"))
    assert _verdicts(one) == _verdicts(two) == _verdicts(xdist) == {
        "HumanEval/0": ["passed", "failed"], "HumanEval/1": ["passed", "failed"]
    }
    assert one["tasks"]["humaneval"]["metrics"] == two["tasks"]["humaneval"]["metrics"] == {"pass@1": 0.5, "pass@2": 1.0}
    assert not _overlapping(_intervals(one))  # one at a time
    assert _overlapping(_intervals(two))  # the next sample ran while pytest reported the current one
    assert one["sandbox"]["jobs"] == 1 and two["sandbox"]["jobs"] == 2 and two["config"]["jobs"] == 2


def test_exitfirst_does_not_wait_for_samples_started_ahead(pytester: pytest.Pytester) -> None:
    """With -x the run ends at the first failure: samples already running ahead are killed, not awaited."""
    tid = first_ids(1)[0]
    rows = [{"task_id": tid, "completion": "    return None\n"}]
    rows += [{"task_id": tid, "completion": canonical(tid) + STAMPED.format(seconds=120)} for _ in range(3)]
    path = write_jsonl(pytester.path / "slow.jsonl", rows)
    result = pytester.runpytest_subprocess(
        f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-timeout=60",
        "--codeeval-jobs=2", "-x", timeout=60,  # the samples ahead would take 120 s each
    )
    result.assert_outcomes(failed=1)


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_bad_jobs_value_is_one_clear_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-jobs={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --codeeval-jobs='{value}': expected a positive number of samples or 'auto'"])


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "1e9"])
def test_bad_timeout_value_is_one_clear_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-timeout={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-timeout=*: expected a positive number of seconds, at most 86400"])


def test_lookahead_starts_each_item_once_and_keeps_its_window() -> None:
    """A single process starts the next `window` items (each once: starting one is a dict lookup, not a rescan), and
    beyond them, one at a time, while an item waits."""
    from pytest_codeeval.pytest_plugin.lookahead import Lookahead

    order = [f"item{i}" for i in range(10)]
    lookahead, started = Lookahead(), []
    for position, item in enumerate(order):
        upcoming = lookahead.upcoming(item, order, window=4)
        assert set(order[position : position + 4]) <= set(started) | set(upcoming)
        started += upcoming
    assert started == order
    lookahead = Lookahead()
    assert lookahead.upcoming(order[0], order, window=2) == order[0:2]
    further = lookahead.further(order)
    assert [next(further), next(further)] == order[2:4]
    assert lookahead.upcoming(order[1], order, window=2) == []  # item2 was taken while item0 waited
    assert lookahead.upcoming(order[2], order, window=2) == []
    assert list(lookahead.further(order)) == order[4:]


def test_objects_are_frozen_during_the_run_and_collectable_after_it(pytester: pytest.Pytester) -> None:
    """gc.freeze() keeps thousands of items out of every collection during the run, after collecting what is
    garbage already; an in-process run (pytester, pytest.main) gives them back to the collector when it ends."""
    import gc

    pytester.makeconftest(
        "import gc, weakref\nFROZEN, GARBAGE = [], []\n"
        "class Cycle:\n    pass\n"
        "def pytest_collection_modifyitems(items):\n"  # garbage that only a collection frees, made just before
        "    gc.disable()\n    cycle = Cycle()\n    cycle.me = cycle\n    GARBAGE.append(weakref.ref(cycle))\n"
        "def pytest_runtest_call(item):\n    gc.enable()\n    FROZEN.append(gc.get_freeze_count())\n"
        "def pytest_sessionfinish(session):\n    gc.enable()\n"
        "    session.config._frozen_during_run = min(FROZEN)\n    session.config._garbage_freed = GARBAGE[0]() is None\n"
    )
    gc.unfreeze()
    result = pytester.inline_run("--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=2")
    result.assertoutcome(passed=2)
    config = result.getcalls("pytest_sessionfinish")[0].session.config
    assert config._frozen_during_run > 1000
    assert config._garbage_freed  # collected before the freeze, not kept for the whole run
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["command", "xdist-workers"])
def test_a_process_that_ends_with_the_run_leaves_its_objects_frozen(pytester: pytest.Pytester, workers: list[str]) -> None:
    """The `pytest` command and xdist workers exit when the run ends: unfrozen, their objects would only be traversed
    once more by pytest's cleanup and the interpreter's collections at exit (a quarter of a second on 1640 samples).
    The xdist controller, which collects nothing, freezes its objects once the workers have collected."""
    pytester.makeconftest(
        "import atexit, gc\n"
        "def pytest_configure(config):\n"
        "    name = getattr(config, 'workerinput', {}).get('workerid', 'main')\n"
        "    def report():\n"
        "        with open(f'frozen-{name}.txt', 'w') as f:\n"
        "            f.write(str(gc.get_freeze_count()))\n"
        "    atexit.register(report)\n"
    )
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=humaneval", "--codeeval-limit=2", *workers)
    result.assert_outcomes(passed=2)
    frozen = {p.stem: int(p.read_text()) for p in pytester.path.glob("frozen-*.txt")}
    expected = ["frozen-main", "frozen-gw0", "frozen-gw1"] if workers else ["frozen-main"]  # the controller too
    assert all(frozen[name] > 1000 for name in expected), frozen


@pytest.mark.parametrize("processes", [["--codeeval-jobs=2"], ["-n", "2"]], ids=["one-process", "xdist"])
def test_other_executors_keep_working_while_an_item_waits_for_a_runaway_sample(
    pytester: pytest.Pytester, processes: list[str]
) -> None:
    """The first sample loops until its 6 s limit, saying every 50 ms that it still runs; a sample far beyond the
    look-ahead window (32 per executor) starts while it still runs, not after its item: the waiting item feeds the
    idle executor (in one process); under xdist the other worker goes on with the items the controller sends it,
    while the first waits. (An order of events, read from one clock: no duration is assumed.)"""
    tid = first_ids(1)[0]
    stamp = "\nimport time as _t\nprint('start', _t.time())\n"
    runaway = ("    pass\nimport time as _t\n_last = 0.0\nwhile True:\n    _now = _t.time()\n"
               "    if _now - _last > 0.05:\n        print('alive', _now, flush=True)\n        _last = _now\n")
    rows = [{"task_id": tid, "completion": runaway}]
    rows += [{"task_id": tid, "completion": canonical(tid) + stamp + f"# {n}\n"} for n in range(100)]
    path = write_jsonl(pytester.path / "runaway.jsonl", rows)
    result = pytester.runpytest_subprocess(
        f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval", "--codeeval-timeout=6",
        *processes, "--codeeval-k=1", "--codeeval-report=r.json",
    )
    result.assert_outcomes(passed=100, failed=1)
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"][tid]["samples"]
    assert samples[0]["status"] == "timeout"
    last_alive = float(re.findall(r"alive ([\d.]+)", samples[0]["output"])[-1])
    start_of_90 = float(re.search(r"start ([\d.]+)", samples[90]["output"]).group(1))
    assert start_of_90 < last_alive  # sample 90 is beyond the window of 64 that starts with the runaway's item


def test_a_worker_reads_the_items_it_holds_from_xdists_queue() -> None:
    """On an xdist worker the look-ahead goes over the items the controller sent and the worker has not begun: xdist's
    `WorkerInteractor.torun` (read through compat; this pins its shape on the installed pytest-xdist)."""
    import execnet
    from xdist.remote import Marker, TestQueue

    from pytest_codeeval.pytest_plugin.compat import xdist_pending_indices

    queue = TestQueue(execnet.gateway_base.get_execmodel("thread"))
    for index in (4, 5, 6, 7):
        queue.put(index)
    queue.put(Marker.SHUTDOWN)

    class WorkerInteractor:
        torun = queue

    class Config:
        class pluginmanager:
            @staticmethod
            def get_plugins() -> list[object]:
                return [object(), WorkerInteractor()]

    pending = xdist_pending_indices(Config())  # type: ignore[arg-type]
    assert pending(None, 2) == [4, 5]
    assert pending(5, 10) == [6, 7]  # after the last one fed, the shutdown marker left out
    assert pending(3, 1) == [4]  # the last one fed has begun: from the first again
    assert xdist_pending_indices(type("Config", (), {"pluginmanager": type("PM", (), {"get_plugins": list})})())(None, 3) == []
