"""Lua 5.4: MultiPL-E's `lua`, tests with luaunit (Debian: lua5.4, lua-unit)."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from pytest_codeeval.languages.base import NAMED_LINE, Language, line_comments
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, replace_tail, skipped_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

# luaunit's report of a failed check: "program.lua:12: expected: 3, actual: 4", or a table per line when long
_FAILED = re.compile(r":\d+: expected: (.*?)(?:, |\n)actual: (.*?)\n(?:List difference|stack traceback)", re.DOTALL)
# luaunit's report of an error inside a test: the line after "1) test_humaneval"
_ERRORED = re.compile(r"^Tests with errors:\n-+\n\d+\) \S+\n(.*)$", re.MULTILINE)


_TESTS_RUN = re.compile(r"\nos\.exit\(lu\.LuaUnit\.run\(\)\)\s*$")
_TEST_FUNCTION = re.compile(r"^function\s+(test\w*)\s*\(", re.MULTILINE | re.IGNORECASE)
# MultiPL-E's last line, `os.exit(lu.LuaUnit.run())`, becomes: the test function marked as having returned (a
# replaced LuaUnit.run or a filter would not run it), the run, then a false lu.assertEquals that must raise
LUA_PROOF = f"""
local codeeval_ran = false
do
    local codeeval_tests = TESTS
    TESTS = function(...) codeeval_tests(...); codeeval_ran = true end
end
local codeeval_failures = lu.LuaUnit.run()
if codeeval_failures == 0 and not codeeval_ran then
    io.stderr:write("\\n{skipped_line()}\\n")
elseif codeeval_failures == 0 then
    if pcall(lu.assertEquals, 1, 2) then
        io.stderr:write("\\n{disabled_line()}\\n")
    else
        local codeeval_in = io.open("{TOKEN_IN}", "rb")
        local codeeval_out = io.open("{DONE_OUT}", "wb")
        codeeval_out:write(codeeval_in:read("a"))
        codeeval_out:close()
        codeeval_in:close()
    end
end
os.exit(codeeval_failures)
"""


class Lua(Language):
    name = "lua"
    title = "Lua"
    file_ext = "lua"
    failure_line = NAMED_LINE
    comment = "--"
    stop = ("\nlocal", "\nfunction", "\n--")
    tools = ("lua5.4",)
    package = "lua5.4 lua-unit"
    terms = ("table", "table", "table", "table", "nil", "true", "false")
    # MultiPL-E's evaluator gives `lua` its default of 15 s

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and subprocess.run(["lua5.4", "-e", "require('luaunit')"], capture_output=True).returncode:
            return "Lua's luaunit is not installed: apt-get install lua-unit (or make setup LANGS=lua)"
        return missing

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["lua5.4", source]

    def runtime_error(self, result: ExecResult) -> str:
        if result.signal:
            return super().runtime_error(result)
        if "\nFailed tests:\n" in "\n" + result.stdout:
            failed = _FAILED.search(result.stdout)
            expected, actual = (" ".join(v.split())[:90] for v in failed.groups()) if failed else ("", "")
            return "assertion failed" + (f": expected {expected}, got {actual}" if failed else "")
        errored = _ERRORED.search(result.stdout)
        if errored:
            return "exception: " + _unplace(errored.group(1))[:200]
        first = result.stderr.strip().split("\n")[0]
        if re.search(r" near (?:'.*'|<eof>)$", first):  # the parser's messages name the token it stopped at
            return "syntax error: " + _unplace(first.removeprefix("lua5.4: "))[:200]
        if first.startswith("lua5.4: "):
            return "exception: " + _unplace(first.removeprefix("lua5.4: "))[:200]
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """In place of MultiPL-E's `os.exit(lu.LuaUnit.run())`: the run, proven."""
        tests = _TEST_FUNCTION.findall(program)
        if not tests:
            return None
        return replace_tail(program, _TESTS_RUN, LUA_PROOF.replace("TESTS", tests[-1]))

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        return f"{line_comments(description, '-- ')}local function {name}({', '.join(a.arg for a in args)})\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["lu = require('luaunit')", "", "function test_humaneval()", f"local candidate = {entry_point}"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["end", "", "os.exit(lu.LuaUnit.run())"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    lu.assertEquals({left}, {right})"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return repr(value)  # Python's repr: 'text' is a Lua string too, None is left as it is (as MultiPL-E)

    def gen_list(self, items: list[str]) -> str:
        return "{" + ", ".join(items) + "}"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "{" + ", ".join(f"[{k}] = {v}" for k, v in zip(keys, values, strict=True)) + "}"


def _unplace(message: str) -> str:
    """A runtime message without its `program.lua:12: ` prefix."""
    return re.sub(r"^\S+?\.lua:\d+: ", "", message.strip())
