"""Ctrl-C during a backend's heavy import (torch, vLLM) waits for the import to finish, says so, and is raised just
after it; a second Ctrl-C is raised at once. Each case runs in a pytest process of its own: the modules signal it."""

from __future__ import annotations

import pytest

SIGNALS_ITSELF = """
import os
import signal

for _ in range({times}):
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(10_000))  # Python runs a signal's handler between bytecodes: here, if nothing held it
DONE = True
"""

CASES = """
import signal
import sys

import pytest

from pytest_codeeval.generation.backends.whole_import import whole_import


def test_a_first_ctrl_c_is_raised_once_the_import_is_whole(capfd):
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with whole_import("signals_once"):
            import signals_once
        raise AssertionError("not raised at the block's end")
    assert sys.modules["signals_once"].DONE
    assert signal.getsignal(signal.SIGINT) is before
    assert capfd.readouterr().err == (
        "codeeval: Ctrl-C: the run ends once signals_once's import returns (seconds); Ctrl-C again ends it now\\n"
    )


def test_a_second_ctrl_c_is_raised_at_once():
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with whole_import("signals_twice"):
            import signals_twice
    assert "signals_twice" not in sys.modules  # cut off inside the import, by the user's choice
    assert signal.getsignal(signal.SIGINT) is before


def test_an_import_without_ctrl_c_is_untouched():
    with whole_import("signals_never"):
        import signals_never
    assert signals_never.DONE
"""


def test_ctrl_c_during_a_heavy_import_waits_for_it_and_a_second_does_not(pytester: pytest.Pytester) -> None:
    for name, times in (("signals_once", 1), ("signals_twice", 2), ("signals_never", 0)):
        pytester.makepyfile(**{name: SIGNALS_ITSELF.format(times=times)})
    pytester.makepyfile(test_cases=CASES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_cases.py")
    result.assert_outcomes(passed=3)
