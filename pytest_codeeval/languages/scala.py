"""Scala: MultiPL-E's `scala` (scalac, then the program's `Problem` object on the JVM; a pass needs exit status 0
and nothing on stderr, as MultiPL-E's evaluator reads it).

Debian ships Scala 2.11; MultiPL-E's prompts and tests compile with it unchanged, but a completion that calls a
library method added in 2.12 or 2.13 (`toIntOption`, `maxOption`, `LazyList`, ...) does not."""

from __future__ import annotations

import os
import re
import shutil
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import Tup, TypedLanguage, has_ellipsis, items_of, parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "Long", "float": "Float", "bool": "Boolean", "str": "String"}
_CASTS = {"int": ".toLong", "float": ".toFloat"}  # how MultiPL-E writes a list's numbers
_RENAMED = {"operator": "op", "strlen": "string_length"}  # MultiPL-E's renamed parameters (its C++ list)
_EXCEPTION = re.compile(r'^Exception in thread "main" ([\w.$]+)(?::\s*(.*))?$', re.MULTILINE)
# scalac runs on a JVM: C1 only and the serial collector start it in about half the time
_SCALAC_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


_MAIN = re.compile(r"\bdef\s+main\s*\(\s*\w+\s*:\s*Array\[String\]\s*\)")
# At the end of the tests' `main` (a failed `assert` throws out of it): the `assert` in scope there (Predef's, or
# one the program defined in the object) must throw on a false condition
SCALA_PROOF = f"""    {{
      val codeevalOne = "1".toInt
      val codeevalFailed =
        try {{ assert(codeevalOne == 2); false }} catch {{ case _: java.lang.AssertionError => true }}
      if (!codeevalFailed) System.err.println("{disabled_line()}")
      else {{
        val codeevalIn = new java.io.FileInputStream("{TOKEN_IN}")
        val codeevalOut = new java.io.FileOutputStream("{DONE_OUT}")
        val codeevalToken = new Array[Byte](64)
        val codeevalRead = codeevalIn.read(codeevalToken)
        if (codeevalRead > 0) codeevalOut.write(codeevalToken, 0, codeevalRead)
        codeevalOut.close()
      }}
    }}"""


class Scala(TypedLanguage):
    name = "scala"
    title = "Scala"
    int_suffix = "l"
    float_suffix = "f"
    file_ext = "scala"
    stop = ("\n    }\n",)
    tools = ("scalac", "java")
    package = "scala"
    memory_bytes = 16 * 1024**3  # the JVM reserves address space for its heap, code cache and class space
    terms = ("list", "list", "tuple", "map", "None", "true", "false")

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["scalac", *_SCALAC_JVM, "-d", ".", source]]

    def run_command(self, source: str) -> list[str]:
        # what `scala -cp . Problem` runs, without its launcher script and runner in between
        return ["java", "-XX:+UseSerialGC", "-Xmx1g", "-cp", f"{scala_library()}:.", "Problem"]

    def failure_despite_success(self, result: ExecResult) -> str | None:
        last = next((line.strip() for line in reversed(result.stderr.splitlines()) if line.strip()), "")
        return f"exit status 0, but stderr: {last[:200]}" if last else None

    def runtime_error(self, result: ExecResult) -> str:
        match = _EXCEPTION.search(result.stderr)
        if match is None:
            return super().runtime_error(result)
        kind, message = match.group(1), (match.group(2) or "").strip()
        if kind == "java.lang.AssertionError":
            return "assertion failed" + (f": {message[:200]}" if message and message != "assertion failed" else "")
        return f"exception: {kind}" + (f": {message[:200]}" if message else "")

    def compile_error(self, log: str) -> str:
        for line in log.splitlines():
            if ": error: " in line:
                return line.split(": error: ", 1)[1].strip()[:300]
        return super().compile_error(log)

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main`, the program's last method."""
        return in_last_body(program, _MAIN, SCALA_PROOF)

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "    // " + re.sub(r"\n(\s*)", "\n    // ", description.strip()) + "\n"
        typed = ", ".join(f"{_RENAMED.get(a.arg, a.arg)} : {self.type_name(a.annotation)}" for a in args)
        return (
            "import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n"
            f"{described}    def {camel_case(name)}({typed}) : {self.type_name(returns)} = " + "{\n"
        )

    def call(self, func: str, args: list[str]) -> str:
        called = self.entry if func == "candidate" else _RENAMED.get(func, func)
        return f"{camel_case(called)}(" + ", ".join(args) + ")"

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List" or (kind == "Tuple" and has_ellipsis(inner)):
            return f"List[{self.type_name(inner[0])}]"
        if kind == "Tuple":
            return f"Tuple{len(inner)}[" + ", ".join(self.type_name(i) for i in inner) + "]"
        if kind == "Dict":
            return f"Map[{self.type_name(inner[0])},{self.type_name(inner[1])}]"
        if kind == "Optional":
            return f"Option[{self.type_name(inner[0])}]"
        raise Untranslatable(f"no Scala type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        """A value where MultiPL-E puts one: in parentheses, but for its bare optionals and tuples holding a None."""
        if parts(annotation)[0] == "Optional" or (isinstance(value, Tup) and None in value.items):
            return self._value(value, annotation)
        return f"({self._value(value, annotation)})"

    def _value(self, value: Any, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind == "Optional":
            return "None" if value is None else f"Some({self._value(value, inner[0])})"
        if (literal := self.scalar(value, kind)) is not None:
            return literal
        if isinstance(value, list) and (kind == "List" or (kind == "Tuple" and has_ellipsis(inner))):
            cast = _CASTS.get(parts(inner[0])[0], "")
            return f"{self.type_name(annotation)}(" + ", ".join(self._value(v, inner[0]) + cast for v in value) + ")"
        if kind == "Tuple" and isinstance(value, (Tup, list)) and len(inner) == len(items_of(value)):
            return "(" + ", ".join(self._value(v, t) for v, t in zip(items_of(value), inner, strict=True)) + ")"
        if kind == "Dict" and isinstance(value, dict):
            pairs = ", ".join(f"{self._value(k, inner[0])} -> {self._value(v, inner[1])}" for k, v in value.items())
            return f"{self.type_name(annotation)}({pairs})"
        raise Untranslatable(f"a value {value!r} that is not a {kind}")

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["    }", "    def main(args: Array[String]) = {"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["    }\n", "}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        if self.type_name(self.return_type) in ("Long", "Float", "Boolean"):
            return f"    assert({left} == {right});"
        return f"    assert({left}.equals({right}));"



@lru_cache(maxsize=1)
def scala_library() -> str:
    """The runtime library of the installed Scala (next to its compiler: /usr/share/scala-2.11/lib on Debian)."""
    compiler = os.path.realpath(shutil.which("scalac") or "/usr/bin/scalac")
    return os.path.join(os.path.dirname(os.path.dirname(compiler)), "lib", "scala-library.jar")


LANGUAGE = Scala
