"""How a failing sample reads in the terminal: terse by default, the whole program and output on request."""

from __future__ import annotations

import re

from pytest_codeeval.samples import SampleRecord

TERSE_LINES = 6
TERSE_WIDTH = 300  # characters of one output line in the terse listing (a flood may be one 64 KiB line)
# Control characters other than newline and tab: a program's output could move the cursor, clear the screen or
# retitle the terminal of whoever reads the report. And the bidirectional-text controls (embeddings, overrides,
# isolates, marks): they reorder what the terminal shows, so that a line reads otherwise than it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def describe_failure(record: SampleRecord, full: bool) -> str:
    head = _clip(f"{record.status}: {record.detail}" if record.detail else record.status)
    output = record.output.rstrip()
    if not full:
        lines = [_clip(line) for line in output.splitlines()[-TERSE_LINES:]]
        return _printable("\n".join([head, *("  " + line for line in lines)]) if lines else head)
    parts = [head, "", "---- program ----", *_numbered(record), "", "---- output ----", output or "(no output)"]
    return _printable("\n".join(parts))


def completion_span(program: str, solution: str, completion: str) -> tuple[int, int] | None:
    """Where the model's completion lies in the program that ran, (start, end) characters: the prompt is before
    it, the tests after. The solution (prompt and completion) is found first, so that a completion that also
    occurs in the prompt is placed where the model wrote it. None where the program does not hold it."""
    if not completion.strip() or not program:
        return None
    at = program.find(solution) if solution.endswith(completion) else -1
    if at >= 0:
        end = at + len(solution)
        return end - len(completion), end
    at = program.find(completion)
    return (at, at + len(completion)) if at >= 0 else None


COMPLETION_STARTS = "      ---- the model's completion starts here ----"
COMPLETION_ENDS = "      ---- the model's completion ends here ----"


def _numbered(record: SampleRecord) -> list[str]:
    """The program's numbered lines, with a marker line before the completion's first line and after its last."""
    lines = [f"{n:4d}  {line}" for n, line in enumerate(record.program.splitlines(), 1)]
    span = completion_span(record.program, record.solution, record.completion)
    if span is None:
        return lines
    start, end = span
    end = start + len(record.program[start:end].rstrip("\n"))  # its last character's line, not the next one
    first, last = record.program.count("\n", 0, start), record.program.count("\n", 0, max(end - 1, start))
    return [*lines[:first], COMPLETION_STARTS, *lines[first:last + 1], COMPLETION_ENDS, *lines[last + 1:]]


def _clip(line: str) -> str:
    return line if len(line) <= TERSE_WIDTH else f"{line[:TERSE_WIDTH]}... [{len(line) - TERSE_WIDTH} more characters]"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _printable(text: str) -> str:
    """Control characters escaped; a lone surrogate (valid JSON, not encodable) escaped too, the lines kept."""
    text = _CONTROL.sub(_escape, text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
