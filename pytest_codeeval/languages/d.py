"""D: MultiPL-E's `d` (its evaluator runs `rdmd -unittest -main`: dmd builds the program with its unittest blocks,
which run before the empty main; here LDC's dmd-compatible driver `ldmd2` takes the same flags).

The tests are a `unittest` block of `assert`s; values are written as MultiPL-E's D translator writes them (long
literals, `tuple(...)`, associative arrays wrapped in `Nullable`), whatever the signature's types."""

from __future__ import annotations

import re
from typing import Any

from pytest_codeeval.languages.base import Language
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "long", "float": "float", "bool": "bool", "str": "string"}
NULL_DICT = "___null_dict___"  # MultiPL-E's stand-in for `{}`, whose D type only the signature knows
TYPECONS = "import std.typecons;\n"
# MultiPL-E's D translator never forgets an import: once a problem needs std.typecons, every problem it translates
# afterwards (in file-name order) imports it too. Per dataset, the first problem that needed it:
_TYPECONS_FROM = {"HumanEval_": "HumanEval_107_even_odd_palindrome", "mbpp_": "mbpp_106_add_lists"}
_ASSERT = re.compile(r"^(\S+\(\d+\)): \[unittest\] (.*)$", re.MULTILINE)
_THROWN = re.compile(r"^([\w.]+)@(\S+?\(\d+\)): (.*)$", re.MULTILINE)


_MAIN = re.compile(r"\bvoid\s+main\s*\(\s*\)")
# In the tests' `void main(){}`, which runs after every unittest passed: `assert` (whose failure handler a program
# may replace) must throw on a false condition
D_RUN_MAIN = 'extern(C) __gshared string[] rt_options = ["testmode=run-main"];'
D_PROOF = f"""    {{
        import core.exception : AssertError;
        import core.stdc.stdio : fputs, stderr;
        import core.sys.posix.unistd : read, write;
        import std.conv : to;
        int codeevalOne = "1".to!int;
        bool codeevalFailed = false;
        try {{ assert(codeevalOne == 2); }} catch (AssertError) {{ codeevalFailed = true; }}
        if (!codeevalFailed) {{ fputs("\\n{disabled_line()}\\n", stderr); }}
        else {{
            ubyte[64] codeevalToken;
            auto codeevalRead = read(4, codeevalToken.ptr, codeevalToken.length);
            if (codeevalRead > 0 && write(3, codeevalToken.ptr, codeevalRead) < 0) {{ fputs("closed\\n", stderr); }}
        }}
    }}"""


class D(Language):
    name = "d"
    title = "D"
    aliases = ("dlang",)
    file_ext = "d"
    stop = ("\n\n", "\nvoid", "\nbool", "\nint")
    tools = ("ldmd2",)
    package = "ldc"
    terms = ("array", "array", "tuple", "associative array", "null", "true", "false")

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["ldmd2", "-unittest", "-main", "-of=program", source]]

    def run_command(self, source: str) -> list[str]:
        return ["./program"]

    def compile_error(self, log: str) -> str:
        for line in log.splitlines():
            if "Error: " in line:
                return line.split("Error: ", 1)[1].strip()[:300]
        return super().compile_error(log)

    def runtime_error(self, result: ExecResult) -> str:
        report = result.stdout + "\n" + result.stderr  # the unittest runner reports a failure on stdout
        if match := _ASSERT.search(report):
            return f"assertion failed: {match.group(1)}: {match.group(2)[:200]}"
        if match := _THROWN.search(report):
            return f"exception: {match.group(1)}: {match.group(3).strip()[:200]}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """In the tests' `void main(){}`, the program's last function, which the runtime then runs after the
        unittests (by default a unittest build runs only them)."""
        proven = in_last_body(program, _MAIN, D_PROOF)
        return append(proven.text, D_RUN_MAIN) if proven else None

    # -- translator ----------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        if returns is None or any(a.annotation is None for a in args):
            raise Untranslatable("an untyped parameter or result")
        self.imports = {"import std.math;\n"}
        self.arg_types = [self.type_name(a.annotation) for a in args]
        self.return_type = self.type_name(returns)
        typed = ", ".join(f"{t} {a.arg}" for t, a in zip(self.arg_types, args, strict=True))
        described = "/*\n" + description + "\n*/\n"
        return "".join(sorted(self.imports)) + f"{described}{self.return_type} {name}({typed}) \n"

    def placed(self, name: str, prompt: str) -> str:
        first = next((first for prefix, first in _TYPECONS_FROM.items() if name.startswith(prefix)), None)
        if first is None or name < first or TYPECONS in prompt:
            return prompt
        return prompt.replace("import std.math;\n", "import std.math;\n" + TYPECONS, 1)

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List":
            return f"{self.type_name(inner[0])}[]"
        if kind in ("Tuple", "Optional", "Dict"):
            self.imports.add(TYPECONS)
        if kind == "Tuple" and len(inner) > 1:
            return "Tuple!(" + ", ".join(self.type_name(i) for i in inner) + ")"
        if kind == "Optional":
            return f"Nullable!({self.type_name(inner[0])})"
        if kind == "Dict" and all(parts(i)[0] in _SCALARS for i in inner):
            # associative arrays cannot be empty literals: MultiPL-E wraps them in Nullable
            return f"Nullable!({self.type_name(inner[1])}[{self.type_name(inner[0])}])"
        raise Untranslatable(f"no D type for {kind}")

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(value, int):
            return f"{value}L"
        return repr(value)  # floats as written; None as `None`, which only a Nullable result's check reads

    def gen_tuple(self, items: list[Any]) -> str:
        return "tuple(" + ", ".join(items) + ")"

    def gen_dict(self, keys: list[Any], values: list[Any]) -> str:
        if not keys:
            return NULL_DICT
        return "[" + ", ".join(f"{k}: {v}" for k, v in zip(keys, values, strict=True)) + "].nullable"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["unittest", "{", f"    alias candidate = {entry_point};", ""]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "void main(){}"]

    def deep_equality(self, left: str, right: str) -> str:
        for kind in self.arg_types:  # an empty dictionary argument: the typed empty value
            if re.fullmatch(r"Nullable!\(.+\[.+\]\)", kind):
                left = left.replace(NULL_DICT, kind + ".init", 1)
        if self.return_type.startswith("Nullable"):
            return "{\n" + f"        auto result = {left};\n        {_null_check('result', right)}\n" + "}\n"
        if self.return_type == "Tuple!(Nullable!(long), Nullable!(long))":
            pair = re.match(r"tuple\((.*),(.*)\)", right)
            if pair is None:
                raise Untranslatable("a pair of optionals that is not a tuple")
            checks = [_null_check(f"result[{i}]", pair.group(i + 1).strip()) for i in range(2)]
            return "{\n" + f"        auto result = {left};\n        {checks[0]}\n        {checks[1]}\n" + "}\n"
        return f"    assert({left} == {right});"


def _null_check(var: str, value: str) -> str:
    if value in ("None", NULL_DICT):
        return f"assert({var}.isNull);"
    return f"assert(!{var}.isNull && {var}.get == {value.replace('.nullable', '')});"


LANGUAGE = D
