"""Dart: MultiPL-E's `dart` (`dart analyze` as the build step, then `dart` runs the script; the tests' `expect`
helpers throw on a mismatch).

Debian does not package the Dart SDK, so this runner has not run on this project's machines: its script and its
reading of Dart's reports are tested on made-up results (tests/test_language_dart.py), its translator against
MultiPL-E's builder as read."""

from __future__ import annotations

import re
import shutil
from typing import Any, ClassVar

from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import Call, Tup, TypedLanguage, parts
from pytest_codeeval.sandbox.api import ExecResult

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


class Dart(TypedLanguage):
    name = "dart"
    title = "Dart"
    file_ext = "dart"
    timeout = 15.0  # MultiPL-E's evaluator gives each of its two steps 15 s
    stop = ("\n}",)
    tools = ("dart",)
    package = "the Dart SDK"
    terms = ("list", "list", "record", "map", "null", "true", "false")
    memory_bytes = 8 * 1024**3  # the VM reserves its heap's address range up front, as V8 does
    # the tools keep their state under HOME, the sample's scratch directory in the sandbox; no analytics prompt
    env: ClassVar[dict[str, str]] = {"DART_SUPPRESS_ANALYTICS": "true"}

    def unavailable(self) -> str | None:
        if shutil.which("dart") is None:
            return (
                "Dart is not packaged by Debian: install the Dart SDK from https://dart.dev/get-dart "
                "and put dart on PATH"
            )
        return None

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["dart", "analyze", "--no-fatal-warnings", source]]

    def run_command(self, source: str) -> list[str]:
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
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "//" + re.sub(r"\n\s*", "\n// ", description.strip()) + "\n"
        typed = ", ".join(f"{self.type_name(a.annotation)} {a.arg}" for a in args)
        return f"{described}{self.type_name(returns)} {name}({typed}) " + "{\n"

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List" and len(inner) == 1:
            element = self.type_name(inner[0])
            return "List" if element == "dynamic" else f"List<{element}>"
        if kind == "Tuple" and inner and Ellipsis not in [getattr(i, "value", None) for i in inner]:
            return "(" + ", ".join(self.type_name(i) for i in inner) + ")"
        if kind == "Dict" and len(inner) == 2 and all(parts(i) in (("int", []), ("str", [])) for i in inner):
            # MultiPL-E's translation writes a map's key and value types only when they are int or str
            return f"Map<{self.type_name(inner[0])}, {self.type_name(inner[1])}>"
        if kind == "Optional" and len(inner) == 1:
            return self.type_name(inner[0]) + "?"
        raise Untranslatable(f"no Dart type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        """MultiPL-E writes Dart's values as Python's shapes give them (its coercion leaves them alone): the
        signature's types let Dart's inference type the literals (an int literal where a double is expected)."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return '"' + value.replace("\n", "\\n") + '"'
        if value is None:
            return "null"
        if isinstance(value, (int, float)):
            return repr(value)
        if isinstance(value, list):
            return "[" + ", ".join(self.value(v, None) for v in value) + "]"
        if isinstance(value, Tup):
            return "(" + ", ".join(self.value(v, None) for v in value.items) + ")"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self.value(k, None)}: {self.value(v, None)}" for k, v in value.items()) + "}"
        if isinstance(value, Call):
            raise Untranslatable("a call inside a test's value")
        raise Untranslatable(f"a value {value!r} Dart's translation does not write")

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


LANGUAGE = Dart
