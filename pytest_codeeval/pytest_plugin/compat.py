"""Every private pytest API this plugin uses, in one place: each says why it is needed and since which pytest.

pyproject.toml asks for pytest>=8.0; the versions below are those in which each API has the form used here, and
the plugin's own tests run on pytest 9.2: a change in any of these shows up there."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, TextIO

import pytest
from _pytest.fixtures import TopRequest
from _pytest.main import wrap_session
from _pytest.mark.expression import Expression

__all__ = [
    "Expression", "fill_fixtures", "fixture_info", "fixture_request", "forget_quiet_phase", "keyword_idents",
    "receive_on_worker", "run_by_pytest_command", "run_session", "send_to_worker", "uncaptured_stderr",
]


# A sample item requests fixtures like a test function without being one; pytest has no public API for items that
# use fixtures, so these three do what `pytest.Function` does for itself.
def fixture_info(item: pytest.Item) -> Any:
    """The fixtures `item` uses (its `usefixtures` marks, autouse ones): the fixture manager's info for a node
    without a function (`getfixtureinfo(func=None)`, 8.0). The item must keep it as `item._fixtureinfo`."""
    return item.session._fixturemanager.getfixtureinfo(node=item, func=None, cls=None)


def fixture_names(item: pytest.Item) -> list[str]:
    """Every fixture name defined for `item`'s location (`getfixturedefs(name, node)`, 8.1; the names from the
    fixture manager's private `_arg2node2fixturedefs` and `_arg2nodeid2fixturedefs`, 9.0): what a misspelt name is
    compared with."""
    manager = item.session._fixturemanager
    names = {*manager._arg2node2fixturedefs, *manager._arg2nodeid2fixturedefs}
    return sorted(name for name in names if manager.getfixturedefs(name, item))


def fixture_request(item: pytest.Item) -> Any:
    """The `request` of an item (`TopRequest`, 8.0, when FixtureRequest was split in two); it reads
    `item._fixtureinfo`, so it is made after it."""
    return TopRequest(item, _ispytest=True)  # type: ignore[arg-type]  # typed for pytest.Function, any Item works


def fill_fixtures(request: Any) -> None:
    """Set up the item's fixtures into `item.funcargs`, as `pytest.Function.setup` does (`_fillfixtures`, 8.0)."""
    request._fillfixtures()


def forget_quiet_phase(config: pytest.Config, report: pytest.TestReport) -> None:
    """Let go of a passed setup or teardown report that captured nothing, once every plugin has seen it. The terminal
    keeps every report until the session ends, these under the category "" (`TerminalReporter.stats`, whose ""
    entries only `--durations` and `-rP`'s captured teardown output read, since pytest 3.0): two of an item's three
    reports, a sixth of what a million samples' items hold. Kept when `--durations` asks for them."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    quiet = report.passed and report.when in ("setup", "teardown") and not report.sections
    if reporter is None or not quiet or config.getoption("durations", None) is not None:
        return
    kept = reporter.stats.get("")
    if kept and kept[-1] is report:  # added while this report was logged: the last one
        kept.pop()


def keyword_idents(expression: Expression) -> frozenset[str] | None:
    """The identifiers of a compiled `-k` expression (`Expression.idents`, in 9.2, not in every 8.x), or None on a
    pytest without it.
    `Expression` (_pytest.mark.expression, 6.0) is pytest's own `-k` grammar: ruling a task out before its data
    loads must agree with how pytest will match its items."""
    idents = getattr(expression, "idents", None)
    return frozenset(idents()) if idents is not None else None


def run_session(config: pytest.Config, main: Callable[[pytest.Config, pytest.Session], int]) -> int:
    """Run `main` inside a session with configure/unconfigure and the terminal set up, as `--fixtures` and
    `--markers` do (`_pytest.main.wrap_session`, 3.0): --codeeval-list-tasks needs conftest.py hooks, no items."""
    return int(wrap_session(config, main))


def run_by_pytest_command() -> bool:
    """Whether this run is the `pytest` command's (or `python -m pytest`'s): the interpreter exits when it ends.

    The innermost call of pytest's `main` on the stack came from its console entry point, not from pytester or
    another caller of `pytest.main` (which may itself run under the `pytest` command). pytest does not say how
    it was started: this walks the stack for the names of `_pytest.config`'s entry points (`console_main`, 5.3)."""
    import _pytest.config

    entry = ("main", "_main", "console_main", "_console_main")
    frame: FrameType | None = sys._getframe(1)
    in_main = False
    while frame is not None:
        code = frame.f_code
        here = code.co_filename == _pytest.config.__file__ and code.co_name in entry
        if in_main and not here:
            return False
        if here and code.co_name in ("console_main", "_console_main"):
            return True
        in_main = in_main or here
        frame = frame.f_back
    return False


# pytest-xdist has no public way for the controller to send a worker data once the run has begun: workerinput is
# sent before collection, and the selection (hence what to generate) is known only after it. The controller
# sends a named command on the worker's channel, as xdist sends "runtests" (`WorkerController.channel`, 3.0), and
# the worker's command handler (`WorkerInteractor.handle_command`, 3.2, the channel's callback set when its loop
# starts) is wrapped to take that command; xdist ignores names it does not know, so nothing else changes.
def send_to_worker(node: Any, name: str, payload: Any) -> None:
    """Send `payload` to the worker of `node` (xdist's WorkerController); the channel is ordered, so it arrives
    before the commands that the scheduler sends later."""
    node.channel.send((name, {"payload": payload}))


def receive_on_worker(config: pytest.Config, name: str, receive: Callable[[Any], None]) -> None:
    """On an xdist worker, before its loop starts: call `receive` with the payload of each `name` command."""
    interactor = next(
        (p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None
    )
    if interactor is None:
        raise RuntimeError("pytest-xdist's worker loop was not found: this pytest-xdist is not supported")
    handle = interactor.handle_command

    def handle_command(command: Any) -> None:
        if isinstance(command, tuple) and command[0] == name:
            receive(command[1]["payload"])
        else:
            handle(command)

    interactor.handle_command = handle_command


def xdist_pending_indices(config: pytest.Config) -> Callable[[int | None, int], list[int]]:
    """On an xdist worker, a function `pending(after, n)` giving the indices (in `session.items`) of up to `n` items
    that the controller has sent and the worker has not begun, after the index `after` if it still waits (else from
    the first): `WorkerInteractor.torun`, a `TestQueue` whose `lock()` yields its deque (checked on pytest-xdist
    3.8). The look-ahead starts their samples while an item waits for a slow one. Where the queue cannot be found
    it gives nothing: only the next item runs ahead."""
    queue = next((getattr(p, "torun", None) for p in config.pluginmanager.get_plugins()
                  if type(p).__name__ == "WorkerInteractor"), None)
    if queue is None or not hasattr(queue, "lock"):
        return lambda after, n: []

    def pending(after: int | None, n: int) -> list[int]:
        with queue.lock() as indices:
            start = 0
            if after is not None:
                with contextlib.suppress(ValueError):
                    start = indices.index(after) + 1  # C speed: the items fed so far are not walked in Python
            return [i for i in itertools.islice(indices, start, start + n) if isinstance(i, int)]

    return pending


def uncaptured_stderr(config: pytest.Config) -> TextIO | None:
    """A stream on the stderr that pytest's fd capture (`--capture=fd`, the default) replaced: progress lines from a
    thread of our own (generation goes on while items run, each captured) must reach the log, not an item's
    captured output. The capture manager keeps the original descriptor in `_global_capturing.err.targetfd_save`
    (FDCapture, 5.4); this is a duplicate of it, which the caller closes. None without fd capture (`-s`)."""
    manager = config.pluginmanager.getplugin("capturemanager")
    capturing = getattr(manager, "_global_capturing", None)
    saved = getattr(getattr(capturing, "err", None), "targetfd_save", None)
    if not isinstance(saved, int):
        return None
    return os.fdopen(os.dup(saved), "w", buffering=1, encoding="utf-8", errors="replace")
