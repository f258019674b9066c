"""Java: MultiPL-E's `java` (javac, then the JVM with assertions on; org.javatuples on the class path)."""

from __future__ import annotations

import os
import re
from typing import Any

from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage, items_of, parts
from pytest_codeeval.sandbox.api import ExecResult

_PRIMITIVES = {"int": "long", "float": "float", "bool": "boolean"}
_BOXED = {"long": "Long", "float": "Float", "boolean": "Boolean"}
_IMPORTS = (
    "java.util.*",
    "java.lang.reflect.*",
    "org.javatuples.*",
    "java.security.*",
    "java.math.*",
    "java.io.*",
    "java.util.stream.*",
)


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


JAVATUPLES = "/usr/share/java/javatuples.jar"  # Debian's libjavatuples-java; MultiPL-E's prompts import it
_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+)?class\s+(\w+)", re.MULTILINE)
_EXCEPTION = re.compile(r'^Exception in thread "main" ([\w.$]+)(?::\s*(.*))?$', re.MULTILINE)
_MAIN = re.compile(r"\bstatic\s+void\s+main\s*\(\s*String\s*(?:\[\s*\]\s*\w+|\w+\s*\[\s*\]|\.\.\.\s*\w+)\s*\)")
# Java's `assert` checked with a false condition that the compiler cannot fold, then the token copied by path
JVM_PROOF = f"""    {{ boolean codeevalFailed = false; int codeevalOne = 1;
      try {{ assert(codeevalOne == 2); }} catch (AssertionError codeevalError) {{ codeevalFailed = true; }}
      if (!codeevalFailed) {{ System.err.println("{disabled_line()}"); System.err.flush(); }}
      else try (java.io.FileInputStream codeevalIn = new java.io.FileInputStream("{TOKEN_IN}");
                java.io.FileOutputStream codeevalOut = new java.io.FileOutputStream("{DONE_OUT}")) {{
        byte[] codeevalToken = new byte[64];
        codeevalOut.write(codeevalToken, 0, Math.max(0, codeevalIn.read(codeevalToken)));
      }} catch (java.io.IOException codeevalError) {{ throw new RuntimeException(codeevalError); }} }}"""
# the compiler is a JVM too: C1 only and the serial collector start it in about half the time
_JAVAC_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")


class Java(TypedLanguage):
    name = "java"
    title = "Java"
    int_suffix = "l"
    float_suffix = "f"
    file_ext = "java"
    stop = ("\n    }\n",)
    tools = ("javac", "java")
    package = "default-jdk-headless libjavatuples-java"
    memory_bytes = 16 * 1024**3  # the JVM reserves address space for its heap, code cache and class space
    terms = ("array list", "array list", "pair", "hash map", "null", "true", "false")

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and not os.path.exists(JAVATUPLES):
            return "org.javatuples (MultiPL-E's Java prompts import it) is missing: apt-get install libjavatuples-java"
        return missing

    def source_name(self, program: str) -> str:
        public = _PUBLIC_CLASS.search(program)
        return f"{public.group(1) if public else 'Problem'}.java"

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["javac", *_JAVAC_JVM, "-encoding", "UTF8", "-cp", JAVATUPLES, "-d", ".", source]]

    def run_command(self, source: str) -> list[str]:
        return ["java", "-ea", "-XX:+UseSerialGC", "-Xmx1g", "-cp", f".:{JAVATUPLES}", source[: -len(".java")]]

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main` (the program's last), which a failed `assert` leaves by throwing."""
        return in_last_body(program, _MAIN, JVM_PROOF)

    def runtime_error(self, result: ExecResult) -> str:
        match = _EXCEPTION.search(result.stderr)
        if match is None:
            return super().runtime_error(result)
        kind, message = match.group(1), (match.group(2) or "").strip()
        if kind == "java.lang.AssertionError":
            return "assertion failed" + (f": {message[:200]}" if message else "")
        return f"exception: {kind}" + (f": {message[:200]}" if message else "")

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "    // " + re.sub(r"\n(\s*)", "\n    // ", description.strip()) + "\n"
        typed = ", ".join(f"{self.type_name(a.annotation)} {a.arg}" for a in args)
        imports = "".join(f"import {module};\n" for module in _IMPORTS)
        return (
            f"{imports}class Problem {{\n{described}"
            f"    public static {self.type_name(returns)} {camel_case(name)}({typed}) " + "{\n"
        )

    def call(self, func: str, args: list[str]) -> str:
        return f"{camel_case(self.entry if func == 'candidate' else func)}(" + ", ".join(args) + ")"

    def type_name(self, annotation: Any, boxed: bool = False) -> str:
        kind, inner = parts(annotation)
        if kind in _PRIMITIVES:
            return _BOXED[_PRIMITIVES[kind]] if boxed else _PRIMITIVES[kind]
        if kind == "str":
            return "String"
        if kind == "List":
            return f"ArrayList<{self.type_name(inner[0], True)}>"
        if kind == "Tuple" and len(inner) == 2:
            return f"Pair<{self.type_name(inner[0], True)}, {self.type_name(inner[1], True)}>"
        if kind == "Dict":
            return f"HashMap<{self.type_name(inner[0], True)},{self.type_name(inner[1], True)}>"
        if kind == "Optional":
            return f"Optional<{self.type_name(inner[0], True)}>"
        raise Untranslatable(f"no Java type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        return f"({self._value(value, annotation)})"

    def _value(self, value: Any, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind == "Optional":
            return "Optional.empty()" if value is None else f"Optional.of({self._value(value, inner[0])})"
        if (literal := self.scalar(value, kind)) is not None:
            return literal
        if kind == "List" and isinstance(value, list):
            element = parts(inner[0])[0]
            cast = f"({_PRIMITIVES[element]})" if element in _PRIMITIVES else ""
            contents = ", ".join(cast + self._value(v, inner[0]) for v in value)
            return f"new {self.type_name(annotation)}(Arrays.asList({contents}))"
        if kind == "Tuple" and len(inner) == 2 == len(items_of(value)):
            return (
                "Pair.with(" + ", ".join(self._value(v, t) for v, t in zip(items_of(value), inner, strict=True)) + ")"
            )
        if kind == "Dict" and isinstance(value, dict):
            pairs = ", ".join(f"{self._value(k, inner[0])}, {self._value(v, inner[1])}" for k, v in value.items())
            return f"new {self.type_name(annotation)}(Map.of({pairs}))"
        raise Untranslatable(f"a value {value!r} that is not a {kind}")

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["    }", "    public static void main(String[] args) {"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["    }\n", "}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        if parts(self.return_type)[0] in _PRIMITIVES:
            return f"    assert({left} == {right});"
        return f"    assert({left}.equals({right}));"


LANGUAGE = Java
