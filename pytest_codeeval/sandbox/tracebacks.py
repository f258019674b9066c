"""How a failing program's process reports its exception: Python's own traceback format, written cheaply.

Most samples of a real model fail, and each failure is reported in a freshly forked process, where every object
the report allocates lands on a page that must first be copied from the zygote. So the usual case, one exception
with its stack, is formatted here in a few lines; chained exceptions and exception groups go through `traceback`.
Neither prints the ^^^ markers under the failing expression: placing them parses each line again, and with the
rest of `traceback`'s machinery they cost a failing sample's process about 80 of its 440 page faults and a fifth
of its CPU time (9% of a run on a real model's file, measured side by side)."""

from __future__ import annotations

import io
import linecache
import traceback  # loaded once, by the zygote, which also rehearses a report before its first fork
from typing import Any

from pytest_codeeval.sandbox.protocol import write_all

RECURSIVE_CUTOFF = 3  # identical frames shown before "[Previous line repeated N more times]", as in `traceback`


def print_failure(exc: BaseException, path: str, source: str) -> None:
    """The traceback without the harness's own frame, to descriptor 2 itself (the program may have replaced or
    closed sys.stderr), encoded as sys.stderr encodes. The program's lines come from `source`, split as
    `linecache` splits a file it reads (universal newlines, a last newline added): reading the file back cost
    about 50 page faults, and a sample that removed its file still shows its lines."""
    lines = io.StringIO(source, newline=None).readlines()
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tb = exc.__traceback__.tb_next if exc.__traceback__ else None
    text = _plain(exc, tb, path, lines) if _is_plain(exc) else _chained(exc, tb, path, source, lines)
    write_all(2, text.encode("utf-8", "backslashreplace"))


def _is_plain(exc: BaseException) -> bool:
    """One exception, printed as a stack and its last line: nothing chained, grouped or annotated."""
    return (exc.__cause__ is None and exc.__context__ is None and not isinstance(exc, BaseExceptionGroup)
            and not getattr(exc, "__notes__", None))


def _plain(exc: BaseException, tb: Any, path: str, lines: list[str]) -> str:
    out = ["Traceback (most recent call last):\n"] if tb is not None else []
    last, count = None, 0
    while tb is not None:
        code = tb.tb_frame.f_code
        frame = (code.co_filename, tb.tb_lineno, code.co_name)
        if frame != last:
            out += _repeated(count)
            last, count = frame, 0
        count += 1
        if count <= RECURSIVE_CUTOFF:
            filename, lineno, name = frame
            out.append(f'  File "{filename}", line {lineno}, in {name}\n')
            line = (lines[lineno - 1] if 0 < lineno <= len(lines) else "") if filename == path else linecache.getline(filename, lineno)
            if line.strip():
                out.append(f"    {line.strip()}\n")
        tb = tb.tb_next
    out += _repeated(count)
    out += traceback.format_exception_only(type(exc), exc)
    return "".join(out)


def _repeated(count: int) -> list[str]:
    more = count - RECURSIVE_CUTOFF
    return [f"  [Previous line repeated {more} more time{'s' if more > 1 else ''}]\n"] if more > 0 else []


class _Stack(traceback.StackSummary):
    """Formats each distinct frame once, without markers. A recursion that ran into the limit repeats one frame
    about a thousand times, and `traceback` formats every repeat before it prints three."""

    def format_frame_summary(self, frame_summary: traceback.FrameSummary) -> str:
        f = frame_summary
        f.colno = f.end_colno = None  # no ^^^ markers, as in the plain report
        key = (f.filename, f.lineno, f.name)
        formatted: dict[tuple[Any, ...], str] = self.__dict__.setdefault("_formatted", {})
        if key not in formatted:
            formatted[key] = super().format_frame_summary(f)
        return formatted[key]


def _chained(exc: BaseException, tb: Any, path: str, source: str, lines: list[str]) -> str:
    linecache.cache[path] = (len(source), None, lines, path)  # no mtime: `checkcache` leaves the entry alone
    report = traceback.TracebackException(type(exc), exc, tb)
    todo, seen = [report], set()
    while todo:  # the report and every exception chained to it or grouped in it
        part = todo.pop()
        if id(part) not in seen:
            seen.add(id(part))
            part.stack = _Stack(part.stack)
            todo += [p for p in (part.__cause__, part.__context__) if p is not None]
            todo += getattr(part, "exceptions", None) or []  # an exception group's members
    return "".join(report.format())


def rehearse() -> None:
    """Called by the zygote before any fork: report failing programs once, as a sample's process does. The first
    report fills the interpreter's type-attribute cache, interns names and imports what `traceback` imports
    lazily; done here, that is shared by every fork instead of done again, and copied page by page, in each
    failing sample."""
    filename = "<rehearsal>"
    for source in ("def check(candidate):\n    assert candidate(1) == 2\n\ncheck(lambda x: [x][0])\n", "def f(:\n",
                   "try:\n    {}[0]\nexcept KeyError:\n    raise ValueError('v')\n"):
        try:
            exec(compile(source, filename, "exec", dont_inherit=True), {"__name__": "__main__"})
        except (AssertionError, SyntaxError, ValueError) as exc:
            print_failure(exc, filename, source)  # to the zygote's stderr: /dev/null
    linecache.cache.pop(filename, None)
