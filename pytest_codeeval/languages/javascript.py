"""JavaScript on Node.js: MultiPL-E's `js` (untyped: the worked example of docs/languages.md)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pytest_codeeval.languages.base import NAMED_LINE, Language
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body, skipped_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

# the tests' last statement; the epilogue checks that the tests' `test` ran to its end (a program that assigned
# another function to the name would skip it) and that their `assert.deepEqual` still throws on a false equality
_TESTS_CALLED = re.compile(r"\ntest\(\);\s*$")
_TESTS = re.compile(r"^function\s+test\s*\(\s*\)", re.MULTILINE)
NODE_RAN = "  codeevalTestsRan = true;"


def node_proof(check: str) -> str:
    """The epilogue: the tests' function ran to its end (it set the mark), and `check`, which sets `failed` when
    the tests' assertion mechanism reports a false assertion, did; then the token is copied."""
    return f"""
var codeevalTestsRan;
;(() => {{
  const fs = require("fs");
  if (codeevalTestsRan !== true) {{ fs.writeSync(2, "\\n{skipped_line()}\\n"); return; }}
  let failed = false;
  {check}
  if (!failed) {{ fs.writeSync(2, "\\n{disabled_line()}\\n"); return; }}
  fs.writeSync(3, fs.readFileSync(4));
}})();
"""


NODE_PROOF = node_proof("try { assert.deepEqual(1, 2); } catch (e) { failed = true; }")
_ERROR = re.compile(r"^(\w*(?:Error|Exception))(?: \[\w+\])?: ?(.*)$", re.MULTILINE)


class JavaScript(Language):
    name = "js"
    title = "JavaScript"
    file_ext = "js"
    failure_line = NAMED_LINE
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\nfunction ", "\n/*", "\n//", "\nconsole.log")
    tools: ClassVar[tuple[str, ...]] = ("node",)
    package = "nodejs"
    terms = ("array", "array", "array", "object", "undefined", "true", "false")
    address_space_bytes = 8 * 1024**3  # V8 reserves its heap cage up front

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["node", "--max-old-space-size=1024", source]

    def runtime_error(self, result: ExecResult) -> str:
        return node_error(result) or super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `test();` (a failed `assert.deepEqual` throws out of it, so nothing after it runs)."""
        proven = in_last_body(program, _TESTS, NODE_RAN, last=False) if _TESTS_CALLED.search(program) else None
        return append(proven.text, NODE_PROOF) if proven else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        return f"{self.describe(description)}function {name}({', '.join(a.arg for a in args)})" + "{\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "const assert = require('node:assert');\n",
            "",
            "function test() {",
            f"  let candidate = {entry_point};",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "", "test();"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"  assert.deepEqual({left},{right});"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return f'"{value}"'  # as MultiPL-E writes it: no escaping (a newline breaks the literal there too)
        if value is None:
            return "undefined"
        return repr(value)


def node_error(result: ExecResult) -> str | None:
    """An uncaught error's class and message from Node's report (assertions: `AssertionError [ERR_ASSERTION]`)."""
    match = None
    for match in _ERROR.finditer(result.stderr):
        if match.group(1) == "AssertionError":
            return "assertion failed: " + match.group(2)[:200]
    if match is None:
        return None
    kind = "syntax error" if match.group(1) == "SyntaxError" else f"exception: {match.group(1)}"
    return f"{kind}: {match.group(2)[:200]}"
