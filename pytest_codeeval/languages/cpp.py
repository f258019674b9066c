"""C++: MultiPL-E's `cpp` (g++ -std=c++17, tests with assert)."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any, ClassVar

from pytest_codeeval.languages.base import NAMED_LINE, Language
from pytest_codeeval.languages.cfamily import CFamily
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body
from pytest_codeeval.sandbox.api import ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import compiled_once, tool_version

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


class Cpp(CFamily, Language):
    name = "cpp"
    title = "C++"
    file_ext = "cpp"
    failure_line = NAMED_LINE
    stop = ("\n}",)
    tools = ("g++",)
    package = "g++"
    terms = ("vector", "vector", "tuple", "map", "None", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "long", "float": "float", "bool": "bool", "str": "std::string"},
        **{"None": "std::nullopt", "Any": "std::any"},
    }
    none_annotation = "std::nullopt"
    optional_name = "std::optional"
    tuple_maker = "std::make_tuple"
    list_value, optional_value_format = "std::vector<{element}>({literal})", "std::optional<{element}>({text})"
    list_format, optional_format = "std::vector<{}>", "std::optional<{}>"
    dict_format, tuple_format = "std::map<{key},{value}>", ("std::tuple<", ", ", ">")

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        command = ["g++", source, "-o", "program", "-std=c++17"]
        # MultiPL-E's programs start with these two headers: given first, precompiled, they change nothing but the
        # time g++ takes (parsing all of the standard library, a second or more per sample)
        header = precompiled_header() if program.startswith(MULTIPLE_HEADERS) else None
        return [[*command, "-include", header] if header else command]

    def run_command(self, source: str, limits: Limits) -> list[str]:
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
    def declaration(self, typed: list[tuple[str, str]], description: str) -> str:
        unions = "".join(self.union(name, fields) for name, fields in self.union_decls.items())
        formal = ", ".join(f"{kind} {name}" for kind, name in typed)
        head = f"{MULTIPLE_HEADERS}{unions}{self.described(description)}"
        return f"{head}{self.return_name} {self.entry}({formal}) " + "{\n"

    def union_type(self, items: list[str]) -> str:
        name = "Union_" + "_".join(items)
        for old, new in (("::", "_"), ("<", "_"), (">", "_")):
            name = name.replace(old, new)
        self.union_decls.setdefault(name, {kind: f"f{i}" for i, kind in enumerate(items)})
        return name

    @staticmethod
    def union(name: str, fields: dict[str, str]) -> str:
        """MultiPL-E's declaration of a union type (its layout to the letter)."""
        members = "\n".join(f"    {kind} {field};" for kind, field in fields.items())
        built = "".join(f"    {name}({kind} _{field}) : {field}(_{field})" + " {}\n" for kind, field in fields.items())
        equal = "".join(
            f"    bool operator==({kind} f) {{\n        return {field} == f ;\n    }}" for kind, field in fields.items()
        )
        return f"union {name}{{\n{members}{built}    ~{name}() {{}}\n{equal}\n}};\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "int main() {", f"    auto candidate = {self.gen_var(entry_point)[0]};"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert({left} == {right});"


@lru_cache(maxsize=1)
def precompiled_header() -> str | None:
    """MULTIPLE_HEADERS as a header precompiled with this g++ and these flags (built once per machine); None if it
    cannot be built (samples then compile as they would anyway)."""
    if (version := tool_version(["g++", "-dumpfullversion"])) is None:
        return None

    def compile(header: str, output: str) -> list[str]:
        return ["g++", "-std=c++17", "-x", "c++-header", header, "-o", output]

    directory = compiled_once(f"cpp-pch-{version}-c++17", "multiple.h", MULTIPLE_HEADERS, compile, "multiple.h.gch")
    return os.path.join(directory, "multiple.h") if directory else None
