"""Racket: MultiPL-E's `rkt`, tests with rackunit. rackunit reports a failed check on stderr and still exits 0, so
(as MultiPL-E's evaluator) anything written to stderr fails the program."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages.base import MARK, NAMED_LINE, Language, line_comments
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, failed_line, replace_tail
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import built_once, tool_version

# rackunit's report of one check: "FAILURE" (the check's values differ) or "ERROR" (it raised), then its fields
_CHECK = re.compile(r"^(FAILURE|ERROR)\n(.*?)^-{20}$", re.MULTILINE | re.DOTALL)
_FIELD = re.compile(r"^(actual|expected):\s+(.*)$", re.MULTILINE)

# `#lang racket` is racket/base and some 30 libraries, most of them rarely named by a program (classes, units,
# contracts, places...). A program that names nothing outside racket/base and these runs in a module language of
# just them (`light_language`), which a run loads in two thirds of the time.
LIGHT = ("racket/list", "racket/string", "racket/math", "racket/function", "racket/bool", "racket/vector")
_LIBRARIES = " ".join(LIGHT)
# Its expansion also sets Racket CS's garbage collector to collect after every 64 MiB allocated instead of 8: a
# HumanEval program's run (compiling it, instantiating rackunit, its tests) then spends a sixth less time
LIGHT_SOURCE = f"""#lang racket/base
(require {_LIBRARIES} (for-syntax racket/base ffi/unsafe/vm))
(provide (all-from-out racket/base {_LIBRARIES}))
(begin-for-syntax
  (when (eq? (system-type 'vm) 'chez-scheme) (vm-eval '(collect-trip-bytes (* 64 1024 1024)))))
"""
# the names `racket` exports at phase 0 that the light language does not, one per line
HEAVY_SOURCE = """#lang racket/base
(define (names module)
  (dynamic-require module #f)
  (define-values (variables syntax) (module->exports module))
  (for*/list ([phase (append variables syntax)] #:when (eqv? (car phase) 0) [export (cdr phase)]) (car export)))
(for ([name (remove* (names '(file "light.rkt")) (names 'racket))]) (displayln name))
"""
_FULL = "#lang racket"
# a character literal, a string (both kept), or a comment (dropped), whichever opens first
_COMMENT_OR_NOT = re.compile(r'#\\(?:\w+|.)|"(?:\\.|[^"\\])*"|;[^\n]*|#\|.*?\|#', re.DOTALL)
# a name: whatever stands between two of the reader's delimiters
_NAME = re.compile(r"[^\s()\[\]{}\",'`;]+")


_TESTS_CALLED = re.compile(r"\n\((test-humaneval)\)\s*$")
# MultiPL-E's last line, `(test-humaneval)`, becomes: the tests run with their failures counted (rackunit reports
# them and goes on; a handler the program set that hides them counts too), then a false `check-equal?` and
# `check-within` that must reach the check handler, then the token
RACKET_PROOF = f"""
(define codeeval-failures 0)
(let ([codeeval-handler (current-check-handler)])
  (parameterize ([current-check-handler
                  (lambda (e) (set! codeeval-failures (add1 codeeval-failures)) (codeeval-handler e))])
    (TESTS)))
(define codeeval-caught 0)
(parameterize ([current-check-handler (lambda (e) (set! codeeval-caught (add1 codeeval-caught)))])
  (check-equal? (string->number "1") 2)
  (check-within (string->number "1") 2 0.001))
(cond
  [(positive? codeeval-failures) (eprintf "\\n{failed_line()}\\n")]
  [(= codeeval-caught 2)
    (call-with-output-file "{DONE_OUT}" #:exists 'append
      (lambda (out) (write-bytes (call-with-input-file "{TOKEN_IN}" (lambda (in) (read-bytes 64 in))) out)))]
  [else (eprintf "\\n{disabled_line()}\\n")])
"""


class Racket(Language):
    name = "rkt"
    title = "Racket"
    file_ext = "rkt"
    failure_line = NAMED_LINE
    failures_go_on = True  # a failed check is counted and the tests go on
    comment = ";;"
    quotes = '"'  # a single quote is a quotation, not a string
    stop = ("\n(define ", "\n#|", "\n;", "\n(")
    tools = ("racket",)
    package = "racket"
    terms = ("list", "list", "list", "hash", "#f", "#t", "#f")
    literal_or_comment, comment_starts, name_pattern = _COMMENT_OR_NOT, (";", "#|"), _NAME
    # MultiPL-E's evaluator gives `rkt` its default of 15 s

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["racket", source]

    def request(self, program: str, limits: Limits, run: bool = True) -> ExecRequest:
        return super().request(self.lightened(program), limits, run)

    def lightened(self, program: str) -> str:
        """`program` in the light module language where it begins with `#lang racket` and names nothing outside it
        (`names`: its decoy gets the same language). A module language's names may be redefined by the program, as
        `racket`'s may."""
        first, newline, rest = program.partition("\n")
        if first.rstrip() != _FULL or (light := light_language()) is None:
            return program
        path, heavy = light
        if heavy & self.names(program):
            return program
        return f'#lang s-exp (file "{path}")' + newline + rest

    def failure_despite_success(self, result: ExecResult) -> str | None:
        if not result.stderr.split(MARK)[0].strip():
            return None
        return self.runtime_error(result)

    def runtime_error(self, result: ExecResult) -> str:
        err = result.stderr
        check = _CHECK.search(err)
        if check and check.group(1) == "FAILURE":
            fields = dict(_FIELD.findall(check.group(2)))
            if "actual" in fields and "expected" in fields:
                return f"assertion failed: expected {fields['expected'][:90]}, got {fields['actual'][:90]}"
            return "assertion failed"
        if check:  # the message follows the check's name and location, after a blank line
            message = check.group(2).split("\n\n", 1)[-1].strip().split("\n")[0]
            return "exception: " + message[:200]
        first = err.strip().split("\n")[0] if err.strip() else ""
        message = re.sub(r"^\S+\.rkt:\d+:\d+: ", "", first)  # without the source location
        if "read-syntax" in first or re.search(r":\d+:\d+: (?:read|.*: bad syntax)", first):
            return "syntax error: " + message[:200]
        if first and not result.signal and MARK not in first:
            return "exception: " + message[:200]
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """In place of MultiPL-E's `(test-humaneval)`: the same call, its failures counted, then its proof."""
        tests = _TESTS_CALLED.search(program)
        return replace_tail(program, _TESTS_CALLED, RACKET_PROOF.replace("TESTS", tests.group(1))) if tests else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = line_comments(description, ";; ")
        return f"#lang racket\n\n{described}(define ({name} {' '.join(a.arg for a in args)})\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["(require rackunit)", "", "(define (test-humaneval) \n", f"  (let (( candidate {entry_point}))"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["))", "", "(test-humaneval)"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    (check-within {left} {right} 0.001)"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return "#t" if value else "#f"
        if isinstance(value, str):
            return f'"{value}"'
        if value is None:
            return "#f"
        return repr(value)

    def gen_list(self, items: list[str]) -> str:
        return "(list " + " ".join(items) + ")"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "#hash(" + " ".join(f"({k} .  {v})" for k, v in zip(keys, values, strict=True)) + ")"

    def gen_call(self, func: str, args: list[str]) -> str:
        return "(" + func + " " + " ".join(args) + ")"


@lru_cache(maxsize=1)
def light_language() -> tuple[str, frozenset[str]] | None:
    """The light module language, compiled once per machine and Racket version, and the names of `racket` it
    lacks; None where it cannot be built (programs then run in `racket`, as written)."""
    if (version := tool_version(["racket", "--version"])) is None:
        return None

    def build(directory: str) -> bool:
        os.makedirs(directory, exist_ok=True)
        for name, text in (("light.rkt", LIGHT_SOURCE), ("heavy.rkt", HEAVY_SOURCE)):
            with open(os.path.join(directory, name), "w") as handle:
                handle.write(text)
        if subprocess.run(["raco", "make", "light.rkt"], cwd=directory, capture_output=True, timeout=300).returncode:
            return False
        listed = subprocess.run(["racket", "heavy.rkt"], cwd=directory, capture_output=True, text=True, timeout=300)
        if listed.returncode or not listed.stdout.strip():
            return False
        with open(os.path.join(directory, "heavy.txt.part"), "w") as handle:
            handle.write(listed.stdout)
        os.replace(os.path.join(directory, "heavy.txt.part"), os.path.join(directory, "heavy.txt"))
        return True

    digest = hashlib.sha256((version + LIGHT_SOURCE + HEAVY_SOURCE).encode()).hexdigest()[:12]
    directory = built_once(f"racket-light-{digest}", "heavy.txt", build)
    if directory is None or '"' in directory or "\\" in directory:  # a path `(file "...")` could not hold
        return None
    try:
        with open(os.path.join(directory, "heavy.txt")) as names:
            return os.path.join(directory, "light.rkt"), frozenset(names.read().split())
    except OSError:  # removed meanwhile: programs run in `racket`
        return None
