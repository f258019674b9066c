"""C++: MultiPL-E's `cpp` (g++ -std=c++17, tests with assert)."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages import cache_dir
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage, items_of, parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "long", "float": "float", "bool": "bool", "str": "std::string"}
# names of the dataset that C++ reserves or the standard library takes (MultiPL-E's replacements)
_RENAMED = {"operator": "op", "strlen": "string_length"}

MULTIPLE_HEADERS = "#include<assert.h>\n#include<bits/stdc++.h>\n"
_ASSERT = re.compile(r"Assertion [`'](.*)' failed", re.DOTALL)
_MAIN = re.compile(r"\bint\s+main\s*\([^)]*\)")
_ASSERT_INCLUDED = re.compile(r"^\s*#\s*include\s*[<\"](?:assert\.h|cassert|bits/stdc\+\+\.h)[>\"]", re.MULTILINE)
# The false `assert` runs in a forked child (it aborts the process it runs in): the child must die of it.
CPP_PROOF = f"""
#include <cstdio>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
void codeeval_proof() {{
    pid_t codeeval_child = fork();
    if (codeeval_child == 0) {{
        dup2(open("/dev/null", O_WRONLY), 2);
        volatile int codeeval_one = 1;
        assert(codeeval_one == 2);
        _exit(0);
    }}
    int codeeval_status = 0;
    if (codeeval_child < 0 || waitpid(codeeval_child, &codeeval_status, 0) < 0
        || (WIFEXITED(codeeval_status) && WEXITSTATUS(codeeval_status) == 0)) {{
        fputs("\\n{disabled_line()}\\n", stderr);
        return;
    }}
    char codeeval_token[64];
    ssize_t codeeval_read = read(4, codeeval_token, sizeof codeeval_token);
    if (codeeval_read > 0 && write(3, codeeval_token, codeeval_read) < 0) {{
        fputs("the completion pipe is closed\\n", stderr);
    }}
}}
"""
_THROW = re.compile(r"terminate called after throwing an instance of '([^']+)'(?:\s+what\(\):\s*(.*))?")


class Cpp(TypedLanguage):
    name = "cpp"
    title = "C++"
    aliases = ("c++",)
    float_suffix = "f"
    file_ext = "cpp"
    stop = ("\n}",)
    tools = ("g++",)
    package = "g++"
    terms = ("vector", "vector", "tuple", "map", "None", "true", "false")

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        command = ["g++", source, "-o", "program", "-std=c++17"]
        # MultiPL-E's programs start with these two headers: given first, precompiled, they change nothing but the
        # time g++ takes (parsing all of the standard library, a second or more per sample)
        header = precompiled_header() if program.startswith(MULTIPLE_HEADERS) else None
        return [[*command, "-include", header] if header else command]

    def run_command(self, source: str) -> list[str]:
        return ["./program"]

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' `main` (the program's last function; a failed `assert` aborts before it), a
        call of the epilogue defined after the program, where the tests' `assert` macro is still the one in force."""
        if not _ASSERT_INCLUDED.search(program):  # no `assert` of the tests' to check (and none of ours to include)
            return None
        proven = in_last_body(program, _MAIN, "    void codeeval_proof(); codeeval_proof();")
        return append(proven.text, CPP_PROOF) if proven else None

    def runtime_error(self, result: ExecResult) -> str:
        match = _ASSERT.search(result.stderr)
        if match:
            return "assertion failed: " + " ".join(match.group(1).split())[:200]
        match = _THROW.search(result.stderr)
        if match:
            return f"exception: {match.group(1)}" + (f": {match.group(2).strip()[:200]}" if match.group(2) else "")
        return super().runtime_error(result)

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "// " + re.sub(r"\n(\s*)", "\n// ", description.strip()) + "\n"
        typed = ", ".join(f"{self.type_name(a.annotation)} {self.gen_var(a.arg)}" for a in args)
        return (
            f"#include<assert.h>\n#include<bits/stdc++.h>\n{described}"
            f"{self.type_name(returns)} {self.gen_var(name)}({typed}) " + "{\n"
        )

    def gen_var(self, name: str) -> str:
        return _RENAMED.get(name, name)

    def call(self, func: str, args: list[str]) -> str:
        return f"{self.gen_var(func)}(" + ", ".join(args) + ")"

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List":
            return f"std::vector<{self.type_name(inner[0])}>"
        if kind == "Tuple":
            return "std::tuple<" + ", ".join(self.type_name(i) for i in inner) + ">"
        if kind == "Dict":
            return f"std::map<{self.type_name(inner[0])},{self.type_name(inner[1])}>"
        if kind == "Optional":
            return f"std::optional<{self.type_name(inner[0])}>"
        raise Untranslatable(f"no C++ type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        return f"({self._value(value, annotation)})"

    def _value(self, value: Any, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind == "Optional":
            return "std::nullopt" if value is None else f"{self.type_name(annotation)}({self._value(value, inner[0])})"
        if (literal := self.scalar(value, kind)) is not None:
            return literal
        if kind == "List" and isinstance(value, list):
            element = self.type_name(inner[0])
            cast = f"({element})" if not inner[0] or parts(inner[0])[0] in _SCALARS else ""
            return f"std::vector<{element}>(" + "{" + ", ".join(cast + self._value(v, inner[0]) for v in value) + "})"
        if kind == "Tuple" and len(inner) == len(items_of(value)):
            return (
                "std::make_tuple("
                + ", ".join(self._value(v, t) for v, t in zip(items_of(value), inner, strict=True))
                + ")"
            )
        if kind == "Dict" and isinstance(value, dict):
            pairs = ", ".join(
                "{" + f"{self._value(k, inner[0])}, {self._value(v, inner[1])}" + "}" for k, v in value.items()
            )
            return f"{self.type_name(annotation)}(" + "{" + pairs + "})"
        raise Untranslatable(f"a value {value!r} that is not a {kind}")

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "int main() {", f"    auto candidate = {self.gen_var(entry_point)};"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert({left} == {right});"


@lru_cache(maxsize=1)
def precompiled_header() -> str | None:
    """MULTIPLE_HEADERS as a header precompiled with this g++ and these flags (built once per machine, under a
    lock for parallel workers); None if it cannot be built (samples then compile as they would anyway)."""
    try:
        version = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True, timeout=30).stdout.strip()
        directory = os.path.join(cache_dir(), f"cpp-pch-{version}-c++17")
        os.makedirs(directory, exist_ok=True)
        header = os.path.join(directory, "multiple.h")
        if not os.path.exists(header + ".gch"):
            with open(os.path.join(directory, ".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not os.path.exists(header + ".gch"):
                    with open(header, "w") as handle:
                        handle.write(MULTIPLE_HEADERS)
                    built = subprocess.run(
                        ["g++", "-std=c++17", "-x", "c++-header", header, "-o", header + ".gch.part"],
                        capture_output=True,
                        timeout=300,
                    )
                    if built.returncode:
                        return None
                    os.replace(header + ".gch.part", header + ".gch")
        return header
    except (OSError, subprocess.TimeoutExpired):
        return None


LANGUAGE = Cpp
