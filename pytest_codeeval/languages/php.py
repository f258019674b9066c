"""PHP: MultiPL-E's `php`; a failed test throws."""

from __future__ import annotations

import re
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.proof import Proven, append, disabled_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

_ERROR = re.compile(r"^(?:PHP )?(Parse error|Fatal error):\s+(.*?)(?: in /|$)", re.MULTILINE)


_TESTS_CALLED = re.compile(r"\ntest\(\);\s*$")
# the tests' failure is a thrown Exception: one thrown for a false comparison must be caught as one
PHP_PROOF = f"""
$codeeval_failed = false;
try {{
    if (intval("1") !== 2) {{ throw new Exception("Test failed!"); }}
}} catch (Exception $codeeval_error) {{
    $codeeval_failed = true;
}}
if (!$codeeval_failed) {{
    fwrite(STDERR, "\\n{disabled_line()}\\n");
}} else {{
    file_put_contents("php://fd/3", file_get_contents("php://fd/4"));
}}
"""


class Php(Language):
    name = "php"
    title = "PHP"
    file_ext = "php"
    failure_line = NAMED_LINE
    stop = ("\nfunction", "\n?>", "\n//", "\n#")
    tools = ("php",)
    package = "php-cli"
    terms = ("array", "array", "array", "array", "null", "true", "false")

    def run_command(self, source: str, limits: Limits) -> list[str]:
        # errors to stderr, none to stdout: the CLI's defaults print them twice
        return ["php", "-d", "display_errors=stderr", "-d", "log_errors=0", source]

    def runtime_error(self, result: ExecResult) -> str:
        match = _ERROR.search(result.stderr + "\n" + result.stdout)
        if match is None:
            return super().runtime_error(result)
        kind, message = match.groups()
        if kind == "Parse error":
            return f"syntax error: {message[:200]}"
        if "Exception: Test failed!" in message:
            return "assertion failed: Test failed!"
        return f"exception: {message.removeprefix('Uncaught ')[:200]}"

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `test();`, which a failed test leaves by throwing."""
        return append(program, PHP_PROOF) if _TESTS_CALLED.search(program) else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "<?php\n" + describe(description, "// ") + "\n"
        return described + f"function {name}({', '.join('$' + a.arg for a in args)}) {{\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "function candidate(...$args) {",
            f"    return {entry_point}(...$args);",
            "}",
            "",
            "function test(): void {",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "", "test();"]

    def deep_equality(self, left: str, right: str) -> str:
        return f'    if ({left} !== {right}) {{ throw new Exception("Test failed!"); }}'

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return '"' + value.replace('"', '\\"').replace("\n", "\\n") + '"'
        if value is None:
            return "null"
        return repr(value)

    def gen_list(self, items: list[str]) -> str:
        return "array(" + ", ".join(items) + ")"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "array(" + ", ".join(f"{k} => {v}" for k, v in zip(keys, values, strict=True)) + ")"
