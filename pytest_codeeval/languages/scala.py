"""Scala: MultiPL-E's `scala` (scalac, then the program's `Problem` object on the JVM; a pass needs exit status 0
and nothing on stderr, as MultiPL-E's evaluator reads it).

Debian ships Scala 2.11; MultiPL-E's prompts and tests compile with it unchanged, but a completion that calls a
library method added in 2.12 or 2.13 (`toIntOption`, `maxOption`, `LazyList`, ...) does not."""

from __future__ import annotations

import ast
import os
import re
import shutil
from functools import lru_cache
from typing import Any, ClassVar

from pytest_codeeval.languages.base import (
    COMPILER_JVM,
    JVM_ADDRESS_SPACE,
    NAMED_LINE,
    Language,
    heap_flags,
    jvm_exception,
)
from pytest_codeeval.languages.cfamily import Jvm
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecResult, Limits

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


class Scala(Jvm, Language):
    name = "scala"
    title = "Scala"
    file_ext = "scala"
    failure_line = NAMED_LINE
    tools = ("scalac", "java")
    package = "scala"
    address_space_bytes = JVM_ADDRESS_SPACE
    terms = ("list", "list", "tuple", "map", "None", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "Long", "float": "Float", "bool": "Boolean", "str": "String"},
        **{"None": "None", "Any": "Any"},
    }
    none_annotation = "None"
    optional_name = "Option"
    list_value = "List[{element}]{literal}"
    optional_value_format = "Some({text})"
    pair_format, map_brackets = "{key} -> {value}", ""
    list_format, optional_format = "List[{}]", "Option[{}]"
    dict_format, tuple_format = "Map[{key},{value}]", ("Tuple2[", ", ", "]")  # Tuple2 whatever the count
    main = "def main(args: Array[String]) = {"

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["scalac", *COMPILER_JVM, "-d", ".", source]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        # what `scala -cp . Problem` runs, without its launcher script and runner in between
        return ["java", "-XX:+UseSerialGC", *heap_flags(limits), "-cp", f"{scala_library()}:.", "Problem"]

    def failure_despite_success(self, result: ExecResult) -> str | None:
        last = next((line.strip() for line in reversed(result.stderr.splitlines()) if line.strip()), "")
        return f"exit status 0, but stderr: {last[:200]}" if last else None

    def runtime_error(self, result: ExecResult) -> str:
        return jvm_exception(result.stderr) or super().runtime_error(result)

    def compile_error(self, log: str) -> str:
        for line in log.splitlines():
            if ": error: " in line:
                return line.split(": error: ", 1)[1].strip()[:300]
        return super().compile_error(log)

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main`, the program's last method."""
        return in_last_body(program, _MAIN, SCALA_PROOF)

    # -- translator ----------------------------------------------------------------------------------------------
    def declaration(self, typed: list[tuple[str, str]], description: str) -> str:
        formal = ", ".join(f"{name} : {kind}" for kind, name in typed)
        return (
            "import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n"
            f"{self.described(description)}    def {self.entry}({formal}) : {self.return_name} = " + "{\n"
        )

    def union_type(self, items: list[str]) -> str:
        if len(items) != 2:
            raise Untranslatable("a union of more than two types")
        either = f"Either[{items[0]}, {items[1]}]"
        self.union_decls[either] = {}
        return either

    def cast(self, text: str, element: Any) -> str:
        name = element.id if isinstance(element, ast.Name) else ""
        return text + {"int": ".toLong", "float": ".toFloat", "bool": ".toBoolean"}.get(name, "")

    def primitive_cast(self, text: str, expected: str) -> str | None:
        return text  # MultiPL-E's cast looks for a Python type's name in a Scala one's: it finds none

    def wants_optional(self, expected: str, text: str) -> bool:
        return expected.split("[")[0] == "Option" and "[" in expected and "None" not in text


@lru_cache(maxsize=1)
def scala_library() -> str:
    """The runtime library of the installed Scala (next to its compiler: /usr/share/scala-2.11/lib on Debian)."""
    compiler = os.path.realpath(shutil.which("scalac") or "/usr/bin/scalac")
    return os.path.join(os.path.dirname(os.path.dirname(compiler)), "lib", "scala-library.jar")
