"""Progress of a long generation where no terminal shows a bar (CI logs): a line now and then, on the process's
real stderr (pytest captures `sys.stderr` while it collects, which is when generation runs)."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

EVERY_SECONDS = float(os.environ.get("PYTEST_CODEEVAL_PROGRESS_SECONDS", "30"))  # tests shorten it


class ProgressLines:
    """`codeeval: generating: 120/400 completions, 35.2 tokens/s, about 2m10s left`, at most every `every` s."""

    def __init__(self, total: int, stream: TextIO | None = None, every: float = EVERY_SECONDS) -> None:
        self.total, self.every = total, every
        self.stream = stream if stream is not None else sys.__stderr__
        self.started = self.last = time.monotonic()
        self.done = self.tokens = 0

    @staticmethod
    def wanted() -> bool:
        """Lines only where no bar is drawn: stderr is not a terminal."""
        stream = sys.__stderr__
        return stream is not None and not stream.isatty()

    def update(self, tokens: int) -> None:
        self.done += 1
        self.tokens += tokens
        now = time.monotonic()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            self._line(now - self.started)

    def _line(self, elapsed: float) -> None:
        if self.stream is None:
            return
        rate = f", {self.tokens / elapsed:.1f} tokens/s" if elapsed > 0 else ""
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        eta = f", about {_duration(left)} left" if self.done < self.total else f", in {_duration(elapsed)}"
        self.stream.write(f"codeeval: generating: {self.done}/{self.total} completions{rate}{eta}\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
