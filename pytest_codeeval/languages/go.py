"""Go: MultiPL-E's `go_test.go` (a test file of package `<name>_test`, built with `go test -c` and run). The
prompt's function is closed by the completion (the stop tokens come after it), the tests follow it."""

from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import tempfile
import warnings
from functools import lru_cache, partial
from typing import Any, ClassVar

from pytest_codeeval.languages.base import CHOICE, Language, describe
from pytest_codeeval.languages.proof import Proven, disabled_line
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage
from pytest_codeeval.sandbox.api import ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import built_once, tool_version

# parameter names that are Go's types (MultiPL-E's replacements)
_RENAMED = {"string": "myString", "int": "myInt", "float": "myFloat", "bool": "myBool"}
_CHECK = """	for i, tc := range tests {
		t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {
			if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {
				t.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)
			}
		})
	}
}
"""

PROOF_FILE = "codeeval_proof_test.go"
# The linker writes no symbol table and no DWARF (a third of its time): panics' tracebacks come from the runtime's own
# tables, unchanged; vet still runs, as `go test` runs it for MultiPL-E (a program it rejects fails the build)
BUILD_FLAGS = ("-ldflags=-s -w",)
# The toolchain's processes (the `go` command, the compiler, vet, the linker) collect their garbage at 4 times
# their live heap rather than Go's 2: a build's whole heap stays below 100 MB, and the build takes 15% less time.
# Only the build: the program's run keeps Go's defaults.
BUILD_ENV = ("env", "GOGC=400")
# The shared cache, read-only in the sandbox, is the sample's build cache in place: `go` reads what it holds and
# builds the rest in its work directory, its writes to the cache failing silently (its copy cost 15 ms a sample in
# the sandbox, 30 to 60 ms for HumanEvalPack's with testify). Where the sandbox leaves it writable
# (`--codeeval-sandbox=basic`), the sample gets a copy instead, so that no sample adds to it or changes it.
SEED = 'if [ -w "$1" ]; then cp -R "$1" "$2"; else ln -s "$1" "$2"; fi'
_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)
_TEST_FUNCTION = re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.MULTILINE)
# The tests' comparison (fmt's %v, t.Errorf) checked on a false case, its report kept off the output
GO_PROOF = f"""package PACKAGE

import (
	codeevalFlag "flag"
	codeevalFmt "fmt"
	codeevalOs "os"
	codeevalTesting "testing"
)

func TestMain(m *codeevalTesting.M) {{
	codeevalFlag.Parse()
	for name, value := range map[string]string{{"test.run": "^TESTS$", "test.skip": "", "test.list": "",
		"test.count": "1", "test.cpu": "", "test.shuffle": "off", "test.failfast": "false"}} {{
		_ = codeevalFlag.Set(name, value)
	}}
	if code := m.Run(); code != 0 {{
		codeevalOs.Exit(code)
	}}
	all := func(pattern, name string) (bool, error) {{ return true, nil }}
	stdout := codeevalOs.Stdout
	codeevalOs.Stdout, _ = codeevalOs.OpenFile(codeevalOs.DevNull, codeevalOs.O_WRONLY, 0)
	falseCase := func(t *codeevalTesting.T) {{
		if codeevalFmt.Sprintf("%v", 1) != codeevalFmt.Sprintf("%v", 2) {{
			t.Errorf("expected '%v', got '%v'", 2, 1)
		}}
	}}
	check := []codeevalTesting.InternalTest{{{{Name: "TestCodeevalFalse", F: falseCase}}}}
	works := !codeevalTesting.RunTests(all, check)
	codeevalOs.Stdout = stdout
	if !works {{
		codeevalFmt.Fprintln(codeevalOs.Stderr, "{disabled_line()}")
		codeevalOs.Exit(0)
	}}
	token := make([]byte, 64)
	read, _ := codeevalOs.NewFile(4, "token").Read(token)
	_, _ = codeevalOs.NewFile(3, "done").Write(token[:read])
	codeevalOs.Exit(0)
}}

func codeevalRun() string {{
	return codeevalOs.Getenv("{CHOICE}")
}}
"""
_FAIL = re.compile(r"^\s*--- FAIL: (\w+)", re.MULTILINE)
_PANIC = re.compile(r"^panic: (.*)$", re.MULTILINE)


class Go(TypedLanguage, Language):
    name = "go"
    title = "Go"
    file_ext = "go"
    filename = "program_test.go"
    stop = ("\nfunc", "struct", "\n// ")
    tools = ("go",)
    package = "golang-go"
    address_space_bytes = 8 * 1024**3  # the Go runtime reserves arenas up front
    terms = ("list", "list", "list", "map", "nil", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "int", "float": "float64", "bool": "bool", "str": "string"},
        **{"Any": "interface{}"},
    }
    dict_names = frozenset({"int", "str"})
    any_tuple = "[]interface{}"
    list_format, dict_format = "[]{}", "map[{key}]{value}"
    # the build cache lives in the sample's private /tmp; no toolchain download, no cgo (no C compiler run)
    env: ClassVar[dict[str, str]] = {
        "GOCACHE": "/tmp/.gocache",
        "GOPATH": "/tmp/.gopath",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
        "GOFLAGS": "-mod=mod",
        "GO111MODULE": "auto",
        "GOPROXY": "off",
    }
    # the decoy's run shares the real run's build (the `go` command's start, vet, the link: nearly all of a sample's
    # time); the test binary reads CHOICE through the proof's file
    chooser = 'func() interface{{}} {{ if codeevalRun() == "{key}" {{ return {when} }}; return {otherwise} }}()'
    artifacts = ("program.test",)
    # a failed table row is its subtest `test num % d` (the tests' statement by index); the other rows still run
    failure_row = r"^\s*--- FAIL: \S+/test_num__(\d+) "
    failures_go_on = True
    # Go's predeclared names and its type keywords: a value that names only these may stand in any check
    predeclared = frozenset(
        [
            "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8", "int16", "int32",
            "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "true", "false",
            "iota", "nil", "append", "cap", "complex", "copy", "delete", "imag", "len", "make", "new", "panic", "print",
            "println", "real", "recover", "map", "interface", "struct", "func", "chan",
        ]
    )
    # a test file whose build fills the shared build cache with the packages every sample's tests import
    warm_up: ClassVar[str] = (
        'package warm_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc TestWarm(t *testing.T) { fmt.Sprint(t) }\n'
    )

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        warm = warm_cache(self.env, self.warm_up)
        # the sample's build cache is one where the test harness's packages are built already: the same binary,
        # without compiling `testing` and `fmt` (vetting them, for HumanEvalPack testify) again for every sample
        seed = [["sh", "-c", SEED, "seed", warm, self.env["GOCACHE"]]] if warm else []
        proof = [PROOF_FILE] if program and self.proof(program) else []
        return [*seed, [*BUILD_ENV, "go", "test", *BUILD_FLAGS, "-c", "-o", "program.test", source, *proof]]

    def proof(self, program: str) -> Proven | None:
        """A TestMain of ours beside the tests (a program's own TestMain is then a compile error): it runs the tests'
        last Test function, whatever flags an `init` set (`-test.run`, `-test.list`), then proves it."""
        package, tests = _PACKAGE.search(program), _TEST_FUNCTION.findall(program)
        if package is None or not tests:
            return None
        main = GO_PROOF.replace("PACKAGE", package.group(1)).replace("TESTS", tests[-1])
        return Proven(program, ((PROOF_FILE, main),))

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["./program.test"]

    def compile_error(self, log: str) -> str:
        return next((line.strip()[:300] for line in log.splitlines() if line.strip() and not line.startswith("#")), "")

    def runtime_error(self, result: ExecResult) -> str:
        text = result.stdout + "\n" + result.stderr
        panic = _PANIC.search(text)
        if panic:
            return f"exception: panic: {panic.group(1)[:200]}"
        failed = _FAIL.search(text)
        if failed:
            return f"assertion failed: {failed.group(1)}"
        return super().runtime_error(result)

    # -- translator: a test file of package <name>_test; results compared as printed by fmt's %v ----------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        typed = ", ".join(f"{self.gen_var(a.arg)} {self.type_name(a.annotation)}" for a in args)
        header = f'package {name}_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n'
        return f"{header}{describe(description, '// ')}\nfunc {name}({typed}) {self.type_name(returns)} " + "{\n"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return '"' + value.replace("\n", "\\n") + '"'
        return "nil" if value is None else repr(value)

    def gen_var(self, name: str) -> str:
        return _RENAMED.get(name, name)

    def gen_list(self, items: list[str]) -> str:
        if not items:
            return _EMPTY_LIST
        return f"[]{_element_type(items)}" + "{" + ", ".join(_patched(self, item, None) for item in items) + "}"

    def gen_tuple(self, items: list[str]) -> str:
        return "[]interface{}{" + ", ".join(_patched(self, item, None) for item in items) + "}"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        if not keys:
            return _EMPTY_DICT
        pairs = ", ".join(
            f"{_patched(self, k, None)}: {_patched(self, v, None)}" for k, v in zip(keys, values, strict=True)
        )
        return f"map[{_element_type(keys)}]{_element_type(values)}" + "{" + pairs + "}"

    def gen_call(self, func: str, args: list[str]) -> str:
        if len(args) > len(self.arg_types):
            raise Untranslatable("a call with more arguments than the signature")
        return f"{func}(" + ", ".join(map(partial(_patched, self), args, self.arg_types)) + ")"

    def finalize(self, expr: Any, side: str) -> str:
        return expr if side == "lhs" else _patched(self, expr, self.return_type)

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            f"func Test{entry_point.title()}(t *testing.T) {{",
            f"  candidate := {entry_point}",
            "\ttype test struct {",
            "\t\tactual   interface{}",
            "\t\texpected interface{}",
            "\t}",
            "   tests := []test{",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["   }\n", _CHECK]

    def deep_equality(self, left: str, right: str) -> str:
        return f"     {{ actual: {left}, expected: {right} }},"


# MultiPL-E's texts for an empty list and dictionary, whose Go type only the signature can give
_EMPTY_LIST, _EMPTY_DICT = "PATCH list", "PATCH dict"
_SLICE = re.compile(r"^\[\].*{.*\}$")


def _patched(go: Go, text: str, annotation: Any) -> str:
    """An empty list or dictionary typed by the annotation where it stands (untyped where none is known)."""
    if text == _EMPTY_LIST:
        return ("[]interface{}" if annotation is None else go.type_name(annotation)) + "{}"
    if text == _EMPTY_DICT:
        return ("map[interface{}]interface{}" if annotation is None else go.type_name(annotation)) + "{}"
    return text


def _kind(text: str) -> str:
    """MultiPL-E's guess of a Go value's type from its text: read as a Python literal, else a slice is `[]int`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a Go string's escape that Python does not know
            value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = None
    for kind, name in ((int, "int"), (bool, "bool"), (str, "string"), (float, "float64")):
        if type(value) is kind:
            return name
    return "[]int" if _SLICE.match(text) else "UNKNOWN"


def _element_type(texts: list[str]) -> str:
    """The element type of a list (or a dictionary's keys or values): the first item's, float64 where the others
    mix ints and floats, interface{} for any other mix."""
    first, rest = _kind(texts[0]), [_kind(text) for text in texts[1:]]
    if all(kind == first for kind in rest):
        return first
    return "float64" if all(kind in ("int", "float64") for kind in rest) else "interface{}"


def warm_cache(env: dict[str, str], warm_up: str) -> str | None:
    """A Go build cache holding the packages `warm_up` imports (the test harness's), built once per machine with
    the sandbox's settings (under a lock for parallel workers); None if it cannot be built."""
    return _warm_cache(tuple(sorted(env.items())), warm_up)


@lru_cache(maxsize=4)
def _warm_cache(env: tuple[tuple[str, str], ...], warm_up: str) -> str | None:
    if (version := tool_version(["go", "env", "GOVERSION"])) is None:
        return None

    def build(directory: str) -> bool:
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "warm_test.go"), "w") as handle:
                handle.write(warm_up)
            settings = {**os.environ, **dict(env), "GOCACHE": directory}
            if settings["GOPATH"].startswith("/tmp/"):  # the sample's own, not a shared source tree
                settings["GOPATH"] = os.path.join(work, "go")
            command = ["go", "test", *BUILD_FLAGS, "-c", "-o", os.devnull, "warm_test.go"]
            return subprocess.run(command, cwd=work, env=settings, capture_output=True, timeout=600).returncode == 0

    digest = hashlib.sha256(repr((env, warm_up)).encode()).hexdigest()[:12]
    return built_once(f"go-cache-{version}-{digest}", "README", build)  # go writes README once the cache exists
