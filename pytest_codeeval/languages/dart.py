"""Dart: MultiPL-E's `dart` (`dart analyze` as the build step, then `dart` runs the script; the tests' `expect`
helpers throw on a mismatch).

Debian does not package the Dart SDK, so this runner has not run on this project's machines: its script and its
reading of Dart's reports are tested on made-up results (tests/languages/test_dart.py), its translator against
MultiPL-E's builder as read."""

from __future__ import annotations

import ast
import re
import shutil
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Language, describe
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecResult, Limits

_SCALARS = {"int": "int", "float": "double", "bool": "bool", "str": "String", "Any": "dynamic"}
# `dart analyze`: `  error - program.dart:3:10 - Expected to find ';'. - expected_token`
_ANALYZED = re.compile(r"^\s*error - (.*)$", re.MULTILINE)
# the VM's front end, when it finds what the analyzer let through: `program.dart:3:10: Error: message`
_FRONT_END = re.compile(r"^\S+\.dart:\d+:\d+: Error: (.*)$", re.MULTILINE)
# an uncaught throw: `Unhandled exception:`, the thrown value's text (one or more lines), then the stack from `#0`
_UNHANDLED = re.compile(r"^Unhandled exception:\n(.*?)\n#0\s+(\S+)", re.MULTILINE | re.DOTALL)
_HARNESS = ("expect", "expectList", "expectMap")  # the tests' helpers: what they throw is a failed assertion


_MAIN = re.compile(r"\bvoid\s+main\s*\(\s*\)")
_EXPECT = re.compile(r"^void\s+expect\s*\(", re.MULTILINE)
# dart:io for the token, imported on the program's first line (its line numbers stay), under a prefix of ours
DART_IMPORT = "import 'dart:io' as codeeval_io; "
# At the end of the tests' `main` (a failed `expect` throws out of it): the tests' `expect` (a top-level function of
# theirs, which the program cannot define again) must throw on a false comparison
DART_PROOF = f"""  {{
    var codeevalFailed = false;
    try {{ expect(int.parse("1"), 2); }} catch (codeevalError) {{ codeevalFailed = true; }}
    if (!codeevalFailed) {{
      codeeval_io.stderr.writeln("{disabled_line()}");
    }} else {{
      final codeevalToken = codeeval_io.File("{TOKEN_IN}").readAsBytesSync();
      codeeval_io.File("{DONE_OUT}").writeAsBytesSync(codeevalToken, mode: codeeval_io.FileMode.append);
    }}
  }}"""


class Dart(Language):
    name = "dart"
    title = "Dart"
    file_ext = "dart"
    timeout = 15.0  # MultiPL-E's evaluator gives each of its two steps 15 s
    stop = ("\n}",)
    tools = ("dart",)
    package = "the Dart SDK"
    terms = ("list", "list", "record", "map", "null", "true", "false")
    address_space_bytes = 8 * 1024**3  # the VM reserves its heap's address range up front, as V8 does
    # the tools keep their state under HOME, the sample's scratch directory in the sandbox; no analytics prompt
    env: ClassVar[dict[str, str]] = {"DART_SUPPRESS_ANALYTICS": "true"}
    helpers = "\nvoid expect("  # the tests' helpers after `main`: their `expect(a[i], b[i])` is no test statement

    def unavailable(self) -> str | None:
        if shutil.which("dart") is None:
            return (
                "Dart is not packaged by Debian: install the Dart SDK from https://dart.dev/get-dart "
                "and put dart on PATH"
            )
        return None

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["dart", "analyze", "--no-fatal-warnings", source]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["dart", source]

    def compile_error(self, log: str) -> str:
        analyzed = _ANALYZED.search(log)
        return analyzed.group(1).strip()[:300] if analyzed else super().compile_error(log)

    def runtime_error(self, result: ExecResult) -> str:
        unhandled = _UNHANDLED.search(result.stderr)
        if unhandled:
            thrown, frame = unhandled.group(1).strip()[:200], unhandled.group(2)
            return f"assertion failed: {thrown}" if frame in _HARNESS else f"exception: {thrown}"
        front_end = _FRONT_END.search(result.stderr)
        if front_end:
            return f"compile error: {front_end.group(1).strip()[:200]}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main` (their helpers follow it), with dart:io imported on the first line."""
        proven = in_last_body(program, _MAIN, DART_PROOF, last=False) if _EXPECT.search(program) else None
        return Proven(DART_IMPORT + proven.text) if proven else None

    # -- translator ----------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str | None:
        described = describe(description, "// ", "//") + "\n"
        self.parameters = [a.annotation for a in args]
        try:
            typed = ", ".join(f"{dart_type(a.annotation)} {a.arg}" for a in args)
            result = dart_type(returns)
        except Untranslatable:
            return None
        return f"{described}{result} {name}({typed}) " + "{\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "void main() {", f"  final candidate = {entry_point};", ""]

    def test_suite_suffix_lines(self) -> list[str]:
        return [
            "}",
            "",
            "void expect(dynamic a, dynamic b) {",
            "  if (a == b) return;",
            "",
            "  if (a is List && b is List) {",
            "    expectList(a, b);",
            "  } else if (a is Map && b is Map) {",
            "    expectMap(a, b);",
            "  } else {",
            "    throw '$a != $b';",
            "  }",
            "}",
            "",
            "void expectList(List a, List b) {",
            "  if (a.length != b.length) throw 'list lengths are not equal';",
            "",
            "  for (var i = 0; i < a.length; i++) {",
            "    expect(a[i], b[i]);",
            "  }",
            "}",
            "",
            "void expectMap(Map a, Map b) {",
            "  if (a.length != b.length) throw 'map lengths are not equal';",
            "",
            "  for (var key in a.keys) {",
            "    expect(a[key], b[key]);",
            "  }",
            "}",
        ]

    def deep_equality(self, left: str, right: str) -> str:
        return f"  expect({left}, {right});"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return '"' + value.replace("\n", "\\n") + '"'
        if value is None:
            return "null"
        return repr(value)

    def gen_tuple(self, items: list[str]) -> str:
        return "(" + ", ".join(items) + ")"

    def gen_call(self, func: str, args: list[str]) -> str:
        if func == "candidate" and len(args) > len(self.parameters):
            raise Untranslatable("a call with more arguments than the signature (MultiPL-E leaves it out)")
        return f"{func}(" + ", ".join(args) + ")"


def dart_type(annotation: Any) -> str:
    """A Python annotation as MultiPL-E's Dart translation writes it; unions, constants (`...`) and maps of other
    than int and str keys and values are not written (the problem is left out)."""
    match annotation:
        case ast.Name(id=name) if name in _SCALARS:
            return _SCALARS[name]
        case ast.Subscript(value=ast.Name(id="List"), slice=inner):
            element = dart_type(inner)
            return "List" if element == "dynamic" else f"List<{element}>"
        case ast.Subscript(value=ast.Name(id="Tuple"), slice=ast.Tuple(elts=items)):
            return "(" + ", ".join(dart_type(item) for item in items) + ")"
        case ast.Subscript(value=ast.Name(id="Dict"), slice=ast.Tuple(elts=[ast.Name(id=key), ast.Name(id=value)])):
            if key in ("int", "str") and value in ("int", "str"):
                return f"Map<{_SCALARS[key]}, {_SCALARS[value]}>"
        case ast.Subscript(value=ast.Name(id="Optional"), slice=inner):
            return dart_type(inner) + "?"
    raise Untranslatable(f"no Dart type for {ast.dump(annotation)[:60] if annotation else 'a missing annotation'}")
