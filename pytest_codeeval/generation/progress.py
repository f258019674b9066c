"""Progress of a long generation where no terminal shows a bar (CI logs): a line now and then, on the process's
real stderr (pytest captures `sys.stderr` while it collects, which is when generation runs).

Loading (a model, vLLM's engine start and compilation) is its own phase: tokens/s and the time left count
generation only, so that minutes of start-up do not read as slow generation. A timer thread writes a line at least
every `every` seconds in either phase, also while nothing finishes (a model that loads for minutes, a long batch).
The same lines count the samples judged (`ProgressLines.judging`, from the pytest layer; generation goes on
meanwhile, its own lines beside them) and time the making of the results and their reports at the end
(`ProgressLines.reporting`), so a CI log hears from a long run in every phase."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TextIO

_stream: TextIO | None = None  # where the lines go when not told: `write_to`'s stream, or the process's stderr
EVERY_SECONDS = float(os.environ.get("PYTEST_CODEEVAL_PROGRESS_SECONDS", "30"))  # tests shorten it
LARGE = 10_000  # completions to generate from which the start says so even where a bar is drawn
UNCOUNTED = {"loading": "loading the model", "reporting": "writing the results"}  # phases that count nothing


class ProgressLines:
    """`codeeval: generating: 120/400 completions, 35.2 tokens/s, about 2m10s left`, at least every `every` s
    (and at most, for completions: each one does not get its own line)."""

    def __init__(self, total: int, stream: TextIO | None = None, every: float = EVERY_SECONDS,
                 phase: str = "loading", unit: str = "completions") -> None:
        self.total, self.every, self.unit = total, every, unit
        self.stream = stream if stream is not None else stderr()
        self.phase = phase
        self.loading_since = self.started = self.last = time.monotonic()
        self.done = self.tokens = 0
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.timer: threading.Thread | None = None

    @classmethod
    def judging(cls, total: int, stream: TextIO | None = None, every: float = EVERY_SECONDS) -> ProgressLines:
        """`codeeval: judging: 300/1640 samples, about 1m10s left`: the samples' verdicts as their items report."""
        return cls(total, stream, every, phase="judging", unit="samples")

    @classmethod
    def reporting(cls, stream: TextIO | None = None, every: float = EVERY_SECONDS) -> ProgressLines:
        """`codeeval: writing the results: 1m00s so far`: the run's metrics and its JSON, Markdown and HTML reports,
        which take minutes for a million samples; `finish` says how long they took."""
        return cls(0, stream, every, phase="reporting", unit="")

    @staticmethod
    def wanted() -> bool:
        """Lines only where no bar is drawn: stderr is not a terminal."""
        stream = stderr()
        return stream is not None and not stream.isatty()

    def start(self) -> None:
        """The timer thread: a line whenever `every` s passed without one (a daemon: Ctrl-C never waits for it)."""
        self.timer = threading.Thread(target=self._tick, name="codeeval-progress", daemon=True)
        self.timer.start()

    def close(self) -> None:
        self.stopped.set()

    def finish(self) -> None:
        """The end of an uncounted phase that had a line, with its time (once, however often it is called); a
        phase quicker than a line says nothing, as a run that ends with a usage error prints only that error."""
        with self.lock:
            if not self.done and self.last > self.started:
                self.done = 1
                self._write(f"codeeval: {UNCOUNTED[self.phase]}: done in {_duration(time.monotonic() - self.started)}")
        self.close()

    def generating(self) -> None:
        """The model is loaded: the generation clock starts now."""
        with self.lock:
            self.phase = "generating"
            self.started = self.last = time.monotonic()
            self._write(f"codeeval: loaded in {_duration(self.started - self.loading_since)}; generating "
                        f"{self.total} completions")

    def update(self, tokens: int = 0) -> None:
        with self.lock:
            self.done += 1
            self.tokens += tokens
            now = time.monotonic()
            if now - self.last >= self.every or self.done == self.total:
                self._line(now)

    def _tick(self) -> None:
        while not self.stopped.wait(min(self.every, 1.0) if self.every > 0 else 1.0):
            with self.lock:
                now = time.monotonic()
                if now - self.last >= self.every and not self.stopped.is_set():
                    self._line(now)

    def _line(self, now: float) -> None:
        self.last = now
        if self.phase in UNCOUNTED:
            self._write(f"codeeval: {UNCOUNTED[self.phase]}: {_duration(now - self.loading_since)} so far")
            return
        elapsed = now - self.started
        rate = f", {self.tokens / elapsed:.1f} tokens/s" if elapsed > 0 and self.phase == "generating" else ""
        left = elapsed / self.done * (self.total - self.done) if self.done else None
        if self.done >= self.total:
            eta = f", in {_duration(elapsed)}"
        else:
            eta = f", about {_duration(left)} left" if left is not None else f", {_duration(elapsed)} so far"
        self._write(f"codeeval: {self.phase}: {self.done}/{self.total} {self.unit}{rate}{eta}")

    def _write(self, line: str) -> None:
        if self.stream is not None:
            self.stream.write(line + "\n")
            self.stream.flush()


def announce(missing: int, total: int, max_new_tokens: int, backend: str, stream: TextIO | None = None) -> None:
    """The request's size, stated before anything loads: a run of 100,000 completions should not be a surprise."""
    out = stream if stream is not None else stderr()
    if out is None:
        return
    size = (f"codeeval: {missing} completions to generate with {backend} ({total - missing} of {total} from the "
            f"cache), up to {missing * max_new_tokens:,} new tokens")
    if missing >= LARGE:
        size += ": a very large request; Ctrl-C keeps every completion finished so far, and the same command resumes"
    out.write(size + "\n")
    out.flush()


def write_to(stream: TextIO | None) -> None:
    """Send the lines to `stream` (None: back to the process's stderr): the pytest layer gives the stderr behind
    its capture, which a thread's lines would otherwise enter while an item runs."""
    global _stream
    _stream = stream


def stderr() -> TextIO | None:
    return _stream if _stream is not None else sys.__stderr__


def _duration(seconds: float) -> str:
    hours, rest = divmod(int(seconds + 0.5), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
