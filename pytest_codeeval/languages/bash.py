"""Bash: MultiPL-E's `sh`. Values are strings: a list is space-separated, a nested list newline-separated, a
dictionary a two-column CSV; `set -e` ends the tests at the first comparison that fails."""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

from pytest_codeeval.languages.base import Language, describe
from pytest_codeeval.languages.proof import FAILED_AT, NAMED_FAILURE, Proven, append, disabled_line, unnamed
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecResult, Limits

_TESTS_CALLED = re.compile(r"\nrun_test\s*$")
# A failed comparison ends the script through `set -e`, which names nothing: before `run_test` (in both runs alike,
# so the decoy's is not told apart) an ERR trap that functions inherit (`set -E`) names the failed line, in the
# tests' own shell only (the candidate's failed commands, in its command substitution's subshell, are not tests)
NAMING_TRAP = f'[[ $BASH_SUBSHELL != 0 ]] || echo "{NAMED_FAILURE} $LINENO" >&2'
# The tests' failures end the script through `set -e` (a `set` the program redefined would not set it) and `[[`; an
# alias expanded in place of `run_test` would skip them, an ERR trap other than the one that names the line (one
# that returns) or a DEBUG trap (with extdebug) would pass over them. The token is copied with builtins, by
# descriptor.
BASH_PROOF = f"""
if [[ $- != *e* ]] || shopt -q expand_aliases || shopt -q extdebug || [[ -n "$(trap -p DEBUG RETURN)" ]] \\
        || [[ "$(trap -p ERR)" != {shlex.quote(f"trap -- '{NAMING_TRAP}' ERR")} ]]; then
    echo "{disabled_line()}" >&2
else
    IFS= read -r -n 64 codeeval_token <&4 || :
    printf '%s' "$codeeval_token" >&3
fi
"""


def _quoted(text: str) -> bool:
    return len(text) > 0 and text[0] == '"' and text[-1] == '"'


def _quote(text: str) -> str:
    return text if _quoted(text) else f'"{text}"'


def _unquote(text: str) -> str:
    return text[1:-1] if _quoted(text) else text


def _has_space(value: Any) -> bool:
    return isinstance(value, str) and any(c in value for c in " \t\n\r")


def to_bash(value: Any) -> str:
    """A translated value (a quoted string, or a Python list/dict of them, kept until now) as one bash word."""
    if isinstance(value, list):
        if not value:
            return '""'
        if all(isinstance(v, dict) for v in value) or all(isinstance(w, list) for v in value for w in v):
            raise Untranslatable("lists of dictionaries or three levels of lists")
        separator = "\\n" if all(isinstance(v, list) for v in value) else " "
        return _quote(separator.join(_unquote(to_bash(v)) for v in value))
    if isinstance(value, dict):
        if any(not isinstance(v, str) for v in value.values()):
            raise Untranslatable("nested dictionaries")
        return _quote("\\n".join(_unquote(k) + "," + _unquote(v) for k, v in value.items()))
    return value


def _describe_type(annotation: Any, position: int) -> str:
    kinds = {"int": "an integer", "float": "a floating point", "str": "a string"}
    match annotation:
        case ast.Subscript(value=ast.Name(id="List"), slice=ast.Subscript()):
            return f"# ${position} is a newline-separated, space-separated list\n"
        case ast.Subscript(value=ast.Name(id="List" | "Tuple")):
            return f"# ${position} is a space-separated list\n"
        case ast.Subscript(value=ast.Name(id="Dict")):
            return f"# ${position} is a two column CSV in key,value order\n"
        case ast.Name(id=name) if name in kinds:
            return f"# ${position} is {kinds[name]}\n"
        case ast.Name(id=name):
            return f"# ${position} is a ${name}\n"
    return f"# ${position} is an argument\n"


class Bash(Language):
    name = "sh"
    title = "Bash"
    file_ext = "sh"
    stop = ("\n}",)
    tools = ("bash",)
    package = "bash"
    terms = ("array", "list", "list", "CSV", "None", "true", "false")
    failure_line = FAILED_AT
    located_by_proof = True

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["bash", source]

    def runtime_error(self, result: ExecResult) -> str:
        err = unnamed(result.stderr)
        if "syntax error" in err:
            return "syntax error: " + re.sub(r"^.*?line \d+: ", "", err.split("\n")[-1])[:200]
        if result.exit_code == 1 and not err:
            return "assertion failed: a test comparison was false"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `run_test`, which `set -e` ends at the first comparison that fails (naming its line)."""
        called = _TESTS_CALLED.search(program)
        if called is None:
            return None
        named = f"{program[: called.start()]}\nset -E; trap '{NAMING_TRAP}' ERR{program[called.start():]}"
        return append(named, BASH_PROOF)

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "#!/bin/bash\n" + describe(description, "# ") + "\n"
        types = "".join(_describe_type(a.annotation, i + 1) for i, a in enumerate(args))
        return f"{described}{'#' + chr(10) + types if types else ''}{name}() {{\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "", "candidate() {", f'    {entry_point} "$@"', "}", "", "set -e", "run_test() {"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "", "run_test"]

    def deep_equality(self, left: Any, right: Any) -> str:
        return f"    [[ {to_bash(left)} = {to_bash(right)} ]]"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            text = str(value).lower()
        elif isinstance(value, str):
            text = (
                value.replace("\\", "\\\\")
                .replace("\n", "\\n")
                .replace('"', '\\"')
                .replace("$", "\\$")
                .replace("!", "\\!")
            )
        else:
            text = repr(value)  # None too: MultiPL-E writes it "None"
        return _quote(text)

    def gen_list(self, items: list[Any]) -> list[Any]:
        if any(_has_space(item) for item in items):
            raise Untranslatable("a list element with whitespace")
        return items

    def gen_dict(self, keys: list[Any], values: list[Any]) -> dict[Any, Any]:
        if any(_has_space(k) or _has_space(v) for k, v in zip(keys, values, strict=True)):
            raise Untranslatable("a dictionary entry with whitespace")
        return dict(zip(keys, values, strict=True))

    def gen_call(self, func: str, args: list[Any]) -> str:
        return "$(" + func + " " + " ".join(to_bash(a) for a in args) + ")"
