"""Java: MultiPL-E's `java` (javac, then the JVM with assertions on; org.javatuples on the class path)."""

from __future__ import annotations

import os
import re
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
from pytest_codeeval.sandbox.api import ExecResult, Limits

_IMPORTS = (
    "java.util.*",
    "java.lang.reflect.*",
    "org.javatuples.*",
    "java.security.*",
    "java.math.*",
    "java.io.*",
    "java.util.stream.*",
)


JAVATUPLES = "/usr/share/java/javatuples.jar"  # Debian's libjavatuples-java; MultiPL-E's prompts import it
_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+)?class\s+(\w+)", re.MULTILINE)
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


class Java(Jvm, Language):
    name = "java"
    title = "Java"
    file_ext = "java"
    failure_line = NAMED_LINE
    tools = ("javac", "java")
    package = "default-jdk-headless libjavatuples-java"
    address_space_bytes = JVM_ADDRESS_SPACE
    terms = ("array list", "array list", "pair", "hash map", "null", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "long", "float": "float", "bool": "boolean", "str": "String"},
        **{"None": "Optional.empty()", "Any": "Object"},
    }
    none_annotation = "Optional.empty()"
    optional_name = "Optional"
    tuple_maker = "Pair.with"
    list_value = "new ArrayList<{element}>(Arrays.asList{literal})"
    optional_value_format = "Optional.of({text})"
    pair_format, map_brackets, map_value = "{key}, {value}", "", "new {kind}(Map.of({literal}))"
    list_format, optional_format = "ArrayList<{}>", "Optional<{}>"
    dict_format, tuple_format = "HashMap<{key},{value}>", ("Pair<", ", ", ">")
    main = "public static void main(String[] args) {"
    header = "".join(f"import {module};\n" for module in _IMPORTS)

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and not os.path.exists(JAVATUPLES):
            return "org.javatuples (MultiPL-E's Java prompts import it) is missing: apt-get install libjavatuples-java"
        return missing

    def source_name(self, program: str) -> str:
        public = _PUBLIC_CLASS.search(program)
        return f"{public.group(1) if public else 'Problem'}.java"

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["javac", *COMPILER_JVM, "-encoding", "UTF8", "-cp", JAVATUPLES, "-d", ".", source]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        main = source[: -len(".java")]
        return ["java", "-ea", "-XX:+UseSerialGC", *heap_flags(limits), "-cp", f".:{JAVATUPLES}", main]

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main` (the program's last), which a failed `assert` leaves by throwing."""
        return in_last_body(program, _MAIN, JVM_PROOF)

    def runtime_error(self, result: ExecResult) -> str:
        return jvm_exception(result.stderr) or super().runtime_error(result)

    # -- translator ----------------------------------------------------------------------------------------------
    def contained(self, item: str) -> str:
        return _boxed(item)

    def wants_optional(self, expected: str, text: str) -> bool:
        return "Optional" in expected and "Optional.empty()" not in text

    def coerced_prefix(self, text: str) -> str | None:
        if "Arrays.asList(" in text:
            return text[text.index("new ") + len("new ") : text.index("Arrays.asList(")]
        if "Optional.of(" in text:
            return None
        found = re.search(r"new (.+)\(", text)
        return found.group(1) if found else None


def _boxed(kind: str) -> str:
    return {"long": "Long", "float": "Float", "boolean": "Boolean"}.get(kind, kind)
