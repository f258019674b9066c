"""A pass is proven, not inferred: how a program in another language shows that every test ran and passed.

A zero exit status proves nothing: `exit(0)` anywhere, an exit hook, a here-document or `__END__` that swallows the
tests, a redefined `assert` all end with status 0 while the tests never failed because they never ran. So, as for
Python (sandbox/child.py), the sandbox gives the program a per-sample token, readable once on descriptor 4 and made
after the fork, and a completion pipe on descriptor 3 that the zygote reads only after the program ended
(`ExecRequest.proof`). When the program is built for execution, each language appends an epilogue that runs after
the last test (placed by the tests' own text, which ends the program and which the completion cannot change):

- it checks, in the same run, that the tests' assertion mechanism still fails a false assertion (`assert(1 == 2)`
  with the tests' own `assert`, `deepEqual`, `stopifnot(isTRUE(all.equal(...)))`...); if it does not, it writes
  MARK + DISABLED on stderr and no token;
- then it copies the token from descriptor 4 to descriptor 3.

A sample passes only if its exit status is 0 *and* the token arrived (`ExecResult.completed`). A program that
exits early, swallows the tests or is killed never reaches the epilogue. The epilogue's false assertion is not one
of the tests (fixed arguments, no candidate call, its own place): a helper that fails only there, or skips the
comparison after a candidate call, or an answer equal to everything, gets past it. So a pass is then run once more
as a decoy (languages/decoy.py, `Language.run`): one of the tests' own statements with another's expected value,
which an honest program fails; if the decoy passes too, the sample fails with DECOY. What a language cannot prove
is said in docs/security.md; a program written against this protocol (reading descriptor 4 itself) is its
documented limit.

Each language contributes its `proof(program)` (a runner method) built from the helpers here: where the epilogue
goes (after the program, or inside the tests' `main` before its closing brace), and its few lines of syntax."""

from __future__ import annotations

import re
from dataclasses import dataclass

MARK = "@@codeeval:"  # the run script's and the epilogue's lines on stderr: a program that forges one only fails
DISABLED = "assertions-disabled"  # the epilogue's line (after MARK) when a false assertion did not fail
SKIPPED = "tests-skipped"  # its line when the test runner reported no failure but did not run every test
FAILED = "tests-failed"  # its line when it counted failed tests whose report the program hid
TOKEN_IN = "/proc/self/fd/4"  # for languages that open paths: a pipe reopened through /proc is the same pipe
DONE_OUT = "/proc/self/fd/3"
UNFINISHED = "exited before its tests finished (exit status 0 without the tests' completion report)"
NEUTERED = "assertions disabled: a false assertion did not fail after the tests"
NOT_RUN = "tests not run: the test runner reported no failure but did not run every test"
HIDDEN = "assertion failed: the epilogue counted failed tests whose report the program hid"
DECOY = "tests do not hold: the program also passed with one of its tests changed"
DECOY_ELSEWHERE = "tests do not hold: the program failed its decoy at a statement that its real run passed"
DECOY_STOPPED = "tests do not hold: the program's decoy was stopped at a limit, not failed at its changed statement"
# Where a failed test's report names no line (Perl's `exit 1`, Bash's `set -e`, C#'s `Debug.Assert`, HumanEvalPack's
# `console.assert`), the tests write it first: these words and the line (FAILED_AT reads them where nothing precedes)
NAMED_FAILURE = "codeeval: a test failed at line"
FAILED_AT = rf"^{NAMED_FAILURE} (\d+)$"


def unnamed(stderr: str) -> str:
    """A failed run's standard error without the lines that name the failed test (what the program itself said)."""
    return re.sub(FAILED_AT, "", stderr, flags=re.MULTILINE).strip()


@dataclass(frozen=True)
class Proven:
    """The program as built for execution, and the files it needs beside it (Go's TestMain)."""

    text: str
    files: tuple[tuple[str, str], ...] = ()


def unfinished(stderr: str) -> str:
    """The detail of a run that exited with 0 without its completion token."""
    if MARK + DISABLED in stderr:
        return NEUTERED
    if MARK + SKIPPED in stderr:
        return NOT_RUN
    return HIDDEN if MARK + FAILED in stderr else UNFINISHED


def disabled_line() -> str:
    """What an epilogue writes on stderr when the false assertion did not fail."""
    return MARK + DISABLED


def skipped_line() -> str:
    """What an epilogue writes on stderr when the runner skipped, excluded or filtered out tests."""
    return MARK + SKIPPED


def failed_line() -> str:
    """What an epilogue writes on stderr when it counted failures (the runtime's own report, if any, comes first)."""
    return MARK + FAILED


def append(program: str, epilogue: str) -> Proven:
    """The epilogue after the whole program (its tests are its last statements)."""
    return Proven(program.rstrip("\n") + "\n" + epilogue.strip("\n") + "\n")


def replace_tail(program: str, last: re.Pattern[str], replacement: str) -> Proven | None:
    """The program's last statement, matched by `last` (anchored at the end), replaced: the statement that runs the
    tests becomes one that runs them and then proves it. None if the program does not end with it."""
    match = last.search(program)
    if match is None:
        return None
    return Proven(program[: match.start()] + "\n" + replacement.strip("\n") + "\n")


# what may follow the tests' `main` besides its class's closing braces: comments
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def in_last_body(
    program: str, header: re.Pattern[str], epilogue: str, at_start: str = "", last: bool = True
) -> Proven | None:
    """`epilogue` inserted before the closing brace of the last function whose header matches (the tests' `main`),
    `at_start` after its opening brace. None if there is no such function, or, with `last`, if anything but the
    closing braces of its class (and comments) follows it (a `main` that is not the tests' end: a test harness's
    program)."""
    headers = list(header.finditer(program))
    if not headers:
        return None
    opening = program.find("{", headers[-1].end() - 1)
    closing = closing_brace(program, opening) if opening >= 0 else None
    if closing is None or (last and _COMMENTS.sub("", program[closing + 1 :]).strip(" \t\r\n}")):
        return None
    return Proven(
        program[: opening + 1] + at_start + program[opening + 1 : closing] + "\n" + epilogue + "\n" + program[closing:]
    )


def closing_brace(text: str, opening: int) -> int | None:
    """The index of the brace that closes the one at `opening`, skipping C-like strings, character literals and
    comments (the tests' own text: `main` and what follows it)."""
    depth, i, n = 0, opening, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 1
            if i <= 0:
                return None
        elif c == '"':
            i = _string_end(text, i, '"')
            if i < 0:
                return None
        elif c == "'" and (end := _string_end(text, i, "'")) >= 0 and end - i <= 8:  # a character literal
            i = end  # (not a Rust lifetime or a Scala symbol, whose quote is never closed nearby)
        i += 1
    return None


def _string_end(text: str, start: int, quote: str) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        if text[i] == "\n":
            return -1
        i += 1
    return -1
