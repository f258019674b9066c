"""D: MultiPL-E's `d` (its evaluator runs `rdmd -unittest -main`: dmd builds the program with its unittest blocks,
which run before the empty main; here LDC's dmd-compatible driver `ldmd2` takes the same flags).

The tests are a `unittest` block of `assert`s; values are written as MultiPL-E's D translator writes them (long
literals, `tuple(...)`, associative arrays wrapped in `Nullable`), whatever the signature's types."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pytest_codeeval.languages.base import CHOICE, NAMED_LINE, Language
from pytest_codeeval.languages.decoy import LEFT, RIGHT
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body, skipped_line
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage
from pytest_codeeval.sandbox.api import ExecResult, Limits

NULL_DICT = "___null_dict___"  # MultiPL-E's stand-in for `{}`, whose D type only the signature knows
_ASSERT = re.compile(r"^(\S+\(\d+\)): \[unittest\] (.*)$", re.MULTILINE)
_THROWN = re.compile(r"^([\w.]+)@(\S+?\(\d+\)): (.*)$", re.MULTILINE)


_MAIN = re.compile(r"\bvoid\s+main\s*\(\s*\)")
_UNITTEST = re.compile(r"^unittest\b", re.MULTILINE)
# At the end of the tests' `unittest` block: a unit tester the program hooked (`Runtime.extendedModuleUnitTester`)
# that runs no unittest, or catches the first failed assert, never sets it
D_RAN = "    codeevalRan = true;"
# In the tests' `void main(){}`, which runs after every unittest passed: the tests' block must have run to its end,
# and `assert` (whose failure handler a program may replace) must throw on a false condition. It imports C's library
# only: Phobos' std.conv added 0.15 s to every build (as std.process did to the chooser's)
D_RUN_MAIN = 'extern(C) __gshared string[] rt_options = ["testmode=run-main"];\n__gshared bool codeevalRan;'
D_PROOF = f"""    {{
        import core.exception : AssertError;
        import core.stdc.stdio : fputs, stderr;
        import core.sys.posix.unistd : read, write;
        import core.stdc.stdlib : atoi;
        int codeevalOne = atoi("1");
        bool codeevalFailed = false;
        try {{ assert(codeevalOne == 2); }} catch (AssertError) {{ codeevalFailed = true; }}
        if (!codeevalRan) {{ fputs("\\n{skipped_line()}\\n", stderr); }}
        else if (!codeevalFailed) {{ fputs("\\n{disabled_line()}\\n", stderr); }}
        else {{
            ubyte[64] codeevalToken;
            auto codeevalRead = read(4, codeevalToken.ptr, codeevalToken.length);
            if (codeevalRead > 0 && write(3, codeevalToken.ptr, codeevalRead) < 0) {{ fputs("closed\\n", stderr); }}
        }}
    }}"""


class D(TypedLanguage, Language):
    name = "d"
    title = "D"
    file_ext = "d"
    failure_line = NAMED_LINE
    stop = ("\n\n", "\nvoid", "\nbool", "\nint")
    tools = ("ldmd2",)
    package = "ldc"
    terms = ("array", "array", "tuple", "associative array", "null", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {"int": "long", "float": "float", "bool": "bool", "str": "string"}
    dict_names = frozenset({"int", "str"})
    list_format, optional_format = "{}[]", "Nullable!({})"
    # associative arrays cannot be empty literals: MultiPL-E wraps them in Nullable
    dict_format, tuple_format = "Nullable!({value}[{key}])", ("Tuple!(", ", ", ")")

    # the decoy's run shares the real run's build (ldmd2's compile and link: nearly all of a sample's time). The
    # function that reads the run's key goes on the program's first line, before its own, so that the reports'
    # line numbers stay the program's
    chooser_header = (
        "bool codeevalChosen(const(char)* key) { import core.stdc.stdlib : getenv; import core.stdc.string : strcmp; "
        f'auto run = getenv("{CHOICE}"); return run !is null && strcmp(run, key) == 0; }} '
    )
    chooser = '(codeevalChosen("{key}") ? {when} : {otherwise})'
    artifacts = ("program",)
    # D's literals and the type names MultiPL-E's values are written with: a value naming only these may move
    predeclared = frozenset(
        ["true", "false", "null", "tuple", "Tuple", "Nullable", "long", "double", "float", "int", "bool", "string"]
    )

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["ldmd2", "-unittest", "-main", "-of=program", source]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
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
        unittests (by default a unittest build runs only them); a mark at the end of the tests' `unittest` block."""
        ran = in_last_body(program, _UNITTEST, D_RAN, last=False)
        proven = in_last_body(ran.text, _MAIN, D_PROOF) if ran else None
        return append(proven.text, D_RUN_MAIN) if proven else None

    # -- translator ----------------------------------------------------------------------------------------------
    def __init__(self) -> None:
        self.libraries = {"std.math"}  # never forgotten: a problem imports what any problem before it needed

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.arg_types = [self.type_name(a.annotation) for a in args]
        typed = ", ".join(kind + " " + a.arg for kind, a in zip(self.arg_types, args, strict=True))
        self.return_type = self.type_name(returns)
        imports = "\n".join(f"import {library};" for library in sorted(self.libraries))
        return f"{imports}\n/*\n{description}\n*/\n{self.return_type} {name}({typed}) \n"

    def tuple_type(self, items: list[Any]) -> str:
        self.libraries.add("std.typecons")
        return super().tuple_type(items)

    def optional_type(self, item: Any) -> str:
        self.libraries.add("std.typecons")
        return super().optional_type(item)

    def odd_dict(self) -> None:
        return None  # MultiPL-E's D translator writes no type, which fails the problem unless it is a list's item

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return '"' + value.replace('"', '\\"') + '"'
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
        return _plain(left, right)

    def decoy_templates(self) -> tuple[str, ...]:
        """The plain statement and an optional's value check (`result.get == ...`)."""
        return _plain(LEFT, RIGHT), _null_check("result", RIGHT)


def _plain(left: str, right: str) -> str:
    return f"    assert({left} == {right});"


def _null_check(var: str, value: str) -> str:
    if value in ("None", NULL_DICT):
        return f"assert({var}.isNull);"
    return f"assert(!{var}.isNull && {var}.get == {value.replace('.nullable', '')});"
