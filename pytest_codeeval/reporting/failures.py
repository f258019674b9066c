"""How a failing sample reads in the terminal: terse by default, the whole program and output on request."""

from __future__ import annotations

from pytest_codeeval.records import SampleRecord

TERSE_LINES = 6


def describe_failure(record: SampleRecord, full: bool) -> str:
    head = f"{record.status}: {record.detail}" if record.detail else record.status
    output = record.output.rstrip()
    if not full:
        lines = output.splitlines()[-TERSE_LINES:]
        return "\n".join([head, *("  " + line for line in lines)]) if lines else head
    numbered = "\n".join(f"{n:4d}  {line}" for n, line in enumerate(record.program.splitlines(), 1))
    parts = [head, "", "---- program ----", numbered, "", "---- output ----", output or "(no output)"]
    # A completion may hold a lone surrogate (valid JSON, not encodable): shown escaped, the lines kept.
    return "\n".join(parts).encode("utf-8", "backslashreplace").decode("utf-8")
