"""Clojure: MultiPL-E's `clj` (a script run by clojure.main, tests with clojure.test's `run-test`)."""

from __future__ import annotations

import os
import re
from typing import Any

from pytest_codeeval.languages.base import JVM_ADDRESS_SPACE, NAMED_LINE, Language, heap_flags
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, replace_tail, skipped_line
from pytest_codeeval.languages.ruby import Ruby
from pytest_codeeval.sandbox.api import ExecResult, Limits

CLOJURE_JAR = "/usr/share/java/clojure.jar"  # Debian's clojure package (its manifest names spec.alpha's jars)
# clojure.main's report of an error that ended the script: its kind on one line, the cause on the next
_ENDED = re.compile(
    r"^(?:Syntax error (reading source|compiling|macroexpanding)|Execution error \(([\w$.]+)\)).*\n(.*)$",
    re.MULTILINE,
)
# clojure.test's report: each failed `is` (FAIL: the comparison was false; ERROR: it raised), then its summary
_REPORT = re.compile(r"^(FAIL|ERROR) in \(test-humaneval\).*\nexpected: .*\n  actual: (.*)$", re.MULTILINE)
_SUMMARY = re.compile(r"^(\d+) failures, (\d+) errors\.$", re.MULTILINE)


_TESTS_RUN = re.compile(r"\n\(run-test ([\w*+!?<>=-]+)\)\s*$")
# MultiPL-E's last line, `(run-test test-humaneval)`, becomes: the same run, whose returned counters (not its
# printed summary) must show at least one assertion, all passed; then a false `is` under fresh counters must count
# as a failure (a redefined `report` would not count it); then the token
CLOJURE_PROOF = f"""
(let [codeeval-summary (run-test TESTS)
      codeeval-one (Long/parseLong "1")]
  (cond
    (or (not= 0 (:fail codeeval-summary 1)) (not= 0 (:error codeeval-summary 1))) nil
    (or (not (pos? (:test codeeval-summary 0))) (not (pos? (:pass codeeval-summary 0))))
    (binding [*out* *err*] (println) (println "{skipped_line()}"))
    (not= 1 (binding [clojure.test/*report-counters* (ref clojure.test/*initial-report-counters*)
                      clojure.test/*test-out* (java.io.StringWriter.)]
              (is (= codeeval-one 2))
              (:fail @clojure.test/*report-counters*)))
    (binding [*out* *err*] (println) (println "{disabled_line()}"))
    :else
    (with-open [codeeval-in (java.io.FileInputStream. "{TOKEN_IN}")
                codeeval-out (java.io.FileOutputStream. "{DONE_OUT}")]
      (let [codeeval-token (byte-array 64)
            codeeval-read (.read codeeval-in codeeval-token)]
        (when (pos? codeeval-read) (.write codeeval-out codeeval-token 0 codeeval-read))))))
"""


def dedented(description: str) -> str:
    """The docstring as MultiPL-E's builder hands it to a translator: blank lines dropped and the indentation of
    its second line taken off every line that has it."""
    lines = [line for line in description.split("\n") if line.strip()]
    indent = len(lines[1]) - len(lines[1].lstrip()) if len(lines) > 1 else 0
    return "\n".join(line[indent:] if not line[:indent].strip() else line for line in lines)


class Clojure(Language):
    name = "clj"
    title = "Clojure"
    file_ext = "clj"
    failure_line = NAMED_LINE
    failures_go_on = True  # a failed `is` is counted and the tests go on
    comment = ";"
    quotes = '"'  # a single quote is a quotation, not a string
    stop = ("\n(def", "\n;", "\n(")
    tools = ("java",)
    package = "clojure"
    terms = ("vector", "list", "vector", "map", "nil", "true", "false")
    address_space_bytes = JVM_ADDRESS_SPACE

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and not os.path.exists(CLOJURE_JAR):
            return f"Clojure is not installed ({CLOJURE_JAR} not found): apt-get install clojure"
        return missing

    def run_command(self, source: str, limits: Limits) -> list[str]:
        # C1 only: clojure.main compiles clojure.core's start-up forms, and C2's compiler threads doubled the CPU
        # time of a passing sample (1.7 s to 0.9 s)
        return [
            "java",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            *heap_flags(limits),
            "-Dclojure.main.report=stderr",
            "-cp",
            CLOJURE_JAR,
            "clojure.main",
            source,
        ]

    def failure_despite_success(self, result: ExecResult) -> str | None:
        """`run-test` reports failed assertions on stdout and the script still exits with 0 (MultiPL-E's evaluator
        reads only the exit status and stderr, so it takes them for passes): read clojure.test's report."""
        summaries = _SUMMARY.findall(result.stdout)
        if not summaries:
            return "the tests did not run (no clojure.test summary)"
        if summaries[-1] == ("0", "0"):
            return None
        report = _REPORT.search(result.stdout)
        if report is None:
            return f"{summaries[-1][0]} failures, {summaries[-1][1]} errors"
        if report.group(1) == "FAIL":
            return f"assertion failed: {report.group(2).strip()[:200]}"
        return f"exception: {report.group(2).strip()[:200]}"

    def runtime_error(self, result: ExecResult) -> str:
        ended = _ENDED.search(result.stderr)
        if ended is None:
            return super().runtime_error(result)
        phase, kind, cause = ended.groups()
        if phase == "reading source":
            return f"syntax error: {cause.strip()[:200]}"
        if phase:
            return f"compile error: {cause.strip()[:200]}"
        return f"exception: {kind}: {cause.strip()[:200]}"

    def proof(self, program: str) -> Proven | None:
        """In place of MultiPL-E's `(run-test test-humaneval)`: the same run, its counters read, then its proof."""
        tests = _TESTS_RUN.search(program)
        return replace_tail(program, _TESTS_RUN, CLOJURE_PROOF.replace("TESTS", tests.group(1))) if tests else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        text = dedented(description)
        docstring = f'"{text}"' if text else ""
        names = " ".join(a.arg for a in args)
        return f"(defn {name}\n  " + f"{docstring}\n[{names}]\n".replace("\n", "\n  ")

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "(require '[clojure.test :refer [deftest is run-test]])\n",
            f"(def candidate {entry_point})\n",
            "(deftest test-humaneval\n",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return [")", "", "(run-test test-humaneval)"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"  (is (= {left} {right}))"

    gen_literal = Ruby.gen_literal  # Ruby's literals: true, nil, double-quoted strings written as they are

    def gen_list(self, items: list[str]) -> str:
        return "[" + " ".join(items) + "]"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "{" + " ".join(f"{k} {v}" for k, v in zip(keys, values, strict=True)) + "}"

    def gen_call(self, func: str, args: list[str]) -> str:
        return f"({func} " + " ".join(args) + ")"
