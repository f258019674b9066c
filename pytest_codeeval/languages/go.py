"""Go: MultiPL-E's `go_test.go` (a test file of package `<name>_test`, built with `go test -c` and run)."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import tempfile
from functools import lru_cache
from typing import Any, ClassVar

from pytest_codeeval.languages import cache_dir
from pytest_codeeval.languages.proof import Proven, disabled_line
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage, parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "int", "float": "float64", "bool": "bool", "str": "string"}
_CHECK = """
	for i, tc := range tests {
		t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {
			if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {
				t.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)
			}
		})
	}
}
"""

PROOF_FILE = "codeeval_proof_test.go"
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
"""
_FAIL = re.compile(r"^\s*--- FAIL: (\w+)", re.MULTILINE)
_PANIC = re.compile(r"^panic: (.*)$", re.MULTILINE)


class Go(TypedLanguage):
    name = "go"
    title = "Go"
    aliases = ("golang", "go_test.go")
    file_ext = "go"
    filename = "program_test.go"
    stop = ("\nfunc", "struct", "\n// ")
    tools = ("go",)
    package = "golang-go"
    memory_bytes = 8 * 1024**3  # the Go runtime reserves arenas up front
    terms = ("list", "list", "list", "map", "nil", "true", "false")
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

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        warm = warm_cache(self.env)
        # the sample's build cache starts as a copy of one where the test harness's packages are built already:
        # the same binary, without compiling `testing` and `fmt` again for every sample
        seed = [["cp", "-R", warm, self.env["GOCACHE"]]] if warm else []
        proof = [PROOF_FILE] if program and self.proof(program) else []
        return [*seed, ["go", "test", "-c", "-o", "program.test", source, *proof]]

    def proof(self, program: str) -> Proven | None:
        """A TestMain of ours beside the tests (a program's own TestMain is then a compile error): it runs the tests'
        last Test function, whatever flags an `init` set (`-test.run`, `-test.list`), then proves it."""
        package, tests = _PACKAGE.search(program), _TEST_FUNCTION.findall(program)
        if package is None or not tests:
            return None
        main = GO_PROOF.replace("PACKAGE", package.group(1)).replace("TESTS", tests[-1])
        return Proven(program, ((PROOF_FILE, main),))

    def run_command(self, source: str) -> list[str]:
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
        described = "// " + re.sub(r"\n(\s*)", "\n// ", description.strip()) + "\n"
        typed = ", ".join(f"{a.arg} {self.type_name(a.annotation)}" for a in args)
        header = f'package {name}_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n'
        return f"{header}{described}func {name}({typed}) {self.type_name(returns)} " + "{\n"

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List":
            return "[]" + self.type_name(inner[0])
        if kind == "Tuple":
            return "[]interface{}"
        if kind == "Dict":
            return f"map[{self.type_name(inner[0])}]{self.type_name(inner[1])}"
        raise Untranslatable(f"no Go type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if (literal := self.scalar(value, kind)) is not None:
            return literal
        if kind == "List" and isinstance(value, list):
            return self.type_name(annotation) + "{" + ", ".join(self.value(v, inner[0]) for v in value) + "}"
        if kind == "Tuple":
            values = getattr(value, "items", value)
            if len(values) == len(inner):
                return "[]interface{}{" + ", ".join(self.value(v, t) for v, t in zip(values, inner, strict=True)) + "}"
        if kind == "Dict" and isinstance(value, dict):
            pairs = ", ".join(f"{self.value(k, inner[0])}: {self.value(v, inner[1])}" for k, v in value.items())
            return self.type_name(annotation) + "{" + pairs + "}"
        raise Untranslatable(f"a value {value!r} that is not a {kind}")

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        test_name = "Test" + "_".join(part.capitalize() for part in entry_point.split("_"))
        return [
            "}",
            "",
            f"func {test_name}(t *testing.T) {{",
            f"  candidate := {entry_point}",
            "\ttype test struct {",
            "\t\tactual   interface{}",
            "\t\texpected interface{}",
            "\t}",
            "   tests := []test{",
        ]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["   }", _CHECK]

    def deep_equality(self, left: str, right: str) -> str:
        return f"     {{ actual: {left}, expected: {right} }},"


_WARM_UP = (
    'package warm_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc TestWarm(t *testing.T) { fmt.Sprint(t) }\n'
)


def warm_cache(env: dict[str, str]) -> str | None:
    """A Go build cache holding the test harness's packages, built once per machine with the sandbox's settings
    (under a lock for parallel workers); None if it cannot be built."""
    return _warm_cache(tuple(sorted(env.items())))


@lru_cache(maxsize=1)
def _warm_cache(env: tuple[tuple[str, str], ...]) -> str | None:
    try:
        version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, timeout=60).stdout.strip()
        directory = os.path.join(cache_dir(), f"go-cache-{version}")
        if not os.path.exists(os.path.join(directory, "README")):  # go writes it once the cache exists
            os.makedirs(directory + ".lock", exist_ok=True)
            with open(os.path.join(directory + ".lock", "lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not os.path.exists(os.path.join(directory, "README")):
                    with tempfile.TemporaryDirectory() as work:
                        with open(os.path.join(work, "warm_test.go"), "w") as handle:
                            handle.write(_WARM_UP)
                        settings = {**os.environ, **dict(env), "GOCACHE": directory, "GOPATH": os.path.join(work, "go")}
                        built = subprocess.run(
                            ["go", "test", "-c", "-o", os.devnull, "warm_test.go"],
                            cwd=work,
                            env=settings,
                            capture_output=True,
                            timeout=600,
                        )
                    if built.returncode:
                        return None
        return directory
    except (OSError, subprocess.TimeoutExpired):
        return None


LANGUAGE = Go
