"""The wall bound under the CPU clock: a backstop for programs that wait on their own (asleep, deadlocked), never a
verdict on a program that a busy machine held back.

At the wall deadline the zygote asks the kernel's scheduler statistics (/proc/PID/task/TID/schedstat: time on a
CPU, time waiting in a run queue) how long the sample's threads wanted a CPU during the window that ended. A
program that wanted one for at least `HELD_BACK` of it, but not much more than the cores it may use could give
(more: its own threads kept each other waiting, a fork bomb's way), and used less CPU time than its limit, was
held back by the machine's load: its deadline moves one window on, up to `BUSY_EXTENSIONS` times. Still held back
after that, it is not judged (an error, never a timeout). A sleeping program wants no CPU: the deadline ends it."""

from __future__ import annotations

import os
import time

from pytest_codeeval.sandbox.api import BUSY_EXTENSIONS

# The share of a window the sample's threads together must have run or waited for a CPU to be held back; a program
# that the wall bound (at least 3 times its CPU limit) reaches while running alone wanted one for under a third
HELD_BACK = 0.5
NOT_JUDGED = "not judged: the machine was too busy"


def scheduled(pids: list[int]) -> tuple[float, float] | None:
    """(seconds on a CPU, seconds waiting for one) of every thread of `pids` so far; None where the kernel keeps no
    such statistics. Processes that end while this reads are skipped."""
    ran = waited = 0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as handle:
                    fields = handle.read().split()
            except FileNotFoundError:
                if not os.path.exists("/proc/self/schedstat"):
                    return None
                continue
            except OSError:
                continue
            ran, waited = ran + int(fields[0]), waited + int(fields[1])
    return ran / 1e9, waited / 1e9


class Backstop:
    """One sample's wall deadlines under the CPU clock (under the wall clock there is none: the deadline is final)."""

    def __init__(self, cpu_limit: float, cpus: int, started: float) -> None:
        self.cpu_limit = cpu_limit
        self.cpus = cpus  # the cores the sample may run on
        self.left = BUSY_EXTENSIONS
        self.detail: str | None = None  # why the program was not judged, once its extensions ran out
        self.restart(started)

    def restart(self, now: float) -> None:
        """A window starts (the sample's, its run phase's): each window is judged on its own."""
        self.since = now
        self.counted = 0.0  # the threads' run and wait time when it started

    def extend(self, pids: list[int], window: float) -> bool:
        """At a deadline: whether the program gets one more `window` of wall time."""
        times = scheduled(pids)
        if times is None:
            return False
        ran, waited = times
        now = time.monotonic()
        elapsed, wanted = now - self.since, ran + waited - self.counted
        self.since, self.counted = now, ran + waited
        # the kernel counts a wait when it ends: a window may hold one more core's worth from the window before
        if not HELD_BACK * elapsed <= wanted <= (self.cpus + 1) * elapsed or ran >= self.cpu_limit:
            return False
        if self.left == 0:
            self.detail = (f"{NOT_JUDGED}: after {BUSY_EXTENSIONS + 1} wall bounds of {window:g} s its threads had "
                           f"run {ran:.1f} s of the {self.cpu_limit:g} s CPU limit and waited {waited:.1f} s for a CPU")
            return False
        self.left -= 1
        return True
