"""How HumanEvalPack's programs run (`runners.JUDGES` names them, `programs.RUNNER_LANGUAGES`): the
language modules' runners, with what BCEH's evaluator (OctoPack's
`code_eval_octopack`) does differently. Its programs are not MultiPL-E's: C++ is built as C++11 against boost
and OpenSSL, Go is a `package main` test file that uses testify, and JavaScript's tests are `console.assert`
calls, which print but do not change the exit status (a failed one fails the sample, as in CodeGeeX's evaluator)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.languages.base import NAMED_LINE, Language
from pytest_codeeval.languages.cpp import Cpp
from pytest_codeeval.languages.decoy import LEFT, RIGHT, Decoy, Form, changed, expected_in, flip, items
from pytest_codeeval.languages.go import Go
from pytest_codeeval.languages.java import Java
from pytest_codeeval.languages.javascript import NODE_RAN, JavaScript, node_proof
from pytest_codeeval.languages.proof import NAMED_FAILURE, Proven, append, in_last_body
from pytest_codeeval.languages.rust import Rust, rustc
from pytest_codeeval.sandbox.api import ExecResult, Limits

GOPATH = "/usr/share/gocode"  # Debian's golang-*-dev packages install their sources here
SHARE = Path(sys.prefix) / "share" / "pytest-codeeval"  # outside the home directory, which the sandbox hides
# npm's js-md5@0.7.3 (one problem, JavaScript/162, requires it), installed by `make setup-humanevalpack`
JS_MODULES = SHARE / "humanevalpack-js" / "node_modules"


# JavaScript's tests: `const testName = () => { console.assert(...) ... }`, called by the program's last line
_JS_TESTS = re.compile(r"^const\s+(test\w*)\s*=\s*\(\s*\)\s*=>", re.MULTILINE)
_JS_CALLED = re.compile(r"\n(test\w*)\(\)\s*;?\s*$")
# `console.assert` reports a false condition on stderr (its write caught here, so that no failure is read)
JS_PROOF = node_proof(
    'let said = ""; const write = process.stderr.write;\n'
    "  process.stderr.write = function (chunk) { said += String(chunk); return true; };\n"
    "  try { console.assert(1 === 2); } finally { process.stderr.write = write; }\n"
    '  failed = said.startsWith("Assertion failed");'
)
# A failed `console.assert` names no line: each of the tests' gets its own as its message (in both runs alike)
_JS_ASSERT = re.compile(r"\bconsole\.assert\(")
# Java's tests: every check an item of this list, which must hold no `false`
_JAVA_CHECKS = re.compile(r"List<Boolean>\s+correct\s*=\s*Arrays\.asList\(")
# the one throw after the list names no check: before it, each false one is named by its place in the list
_JAVA_THROW = re.compile(r"if\s*\(\s*correct\.contains\(false\)\s*\)\s*\{")
JAVA_NAMED = ("for (int codeevalI = 0; codeevalI < correct.size(); codeevalI++) if (!correct.get(codeevalI)) "
              'System.err.println("codeeval: check " + codeevalI + " failed");')
# the checks that compare an answer (the tests' `Solution s`) with an expected value
_JAVA_FORMS = (Form("Objects.equals(", ", ", ")", False), Form("", ".equals(", ")", False), Form("", " == ", "", False))
# Rust's tests: the one `#[test]` function of `mod tests`
_RUST_TEST = re.compile(r"#\[test\](?:\s|//[^\n]*)*fn\s+\w+\s*\(\s*\)")


class PackJavaScript(JavaScript):
    env: ClassVar[dict[str, str]] = {**JavaScript.env, "NODE_PATH": str(JS_MODULES)}
    failure_line = rf"^Assertion failed: {NAMED_FAILURE} (\d+)\b"  # the message each check is given (`proof`)
    failures_go_on = True  # a failed console.assert lets the tests go on
    located_by_proof = True
    statement_opens = "console.assert("  # whose line its message names; its condition may span lines

    def failure_despite_success(self, result: ExecResult) -> str | None:
        for line in result.stderr.splitlines():
            if line.startswith("Assertion failed"):
                return "assertion failed: console.assert"
        return None

    def proof(self, program: str) -> Proven | None:
        """After the tests' call, the program's last line: the test function ran to its end (a mark it sets), and
        `console.assert` still reports a false condition on stderr, where the verdict reads it."""
        called, tests = _JS_CALLED.search(program), list(_JS_TESTS.finditer(program))
        if called is None or not tests or tests[-1].group(1) != called.group(1):
            return None
        named = program
        for check in reversed(list(_JS_ASSERT.finditer(program, tests[-1].end()))):
            condition = items(program, check.end() - 1, self.quotes)
            if condition:  # its message after the condition: `Assertion failed: codeeval: ... line 12`
                end, line = condition[0][1], program.count("\n", 0, check.start()) + 1
                named = f'{named[:end]}, "{NAMED_FAILURE} {line}"{named[end:]}'
        proven = in_last_body(named, _JS_TESTS, NODE_RAN, last=False)
        return append(proven.text, JS_PROOF) if proven else None

    def condition_templates(self) -> tuple[str, ...]:
        return (f"console.assert({RIGHT})",)


class PackJava(Java):
    """The tests are a `public class Main`; no javatuples needed."""

    failure_line = ""
    # a failed check is thrown after the list of checks, from a line of its own: the false ones are named by their
    # place in the list first, the place the decoy counts its statements by (`proof`)
    failure_row = r"^codeeval: check (\d+) failed$"
    failures_go_on = True  # every check of the list is evaluated
    located_by_proof = True

    def proof(self, program: str) -> Proven | None:
        checks = list(_JAVA_CHECKS.finditer(program))  # the tests' list: the last
        throw = _JAVA_THROW.search(program, checks[-1].end()) if checks else None
        named = f"{program[: throw.end()]} {JAVA_NAMED}{program[throw.end():]}" if throw else program
        return super().proof(named)

    def unavailable(self) -> str | None:
        return Language.unavailable(self)

    def decoy(self, program: str, tests_at: int) -> Decoy | None:
        """One of the checks in the tests' list with another check's expected value (`... == 5`,
        `....equals(List.of(...))`: an answer whose `equals` is always true passes that too), or with an integer of
        its own changed; else one negated (a program that shadows `Arrays` passes that too)."""
        checks = _JAVA_CHECKS.search(program, tests_at)
        if checks is None:
            return None
        places = items(program, checks.end() - 1, self.quotes)
        expected = [value for start, end in places if _plain(program[start:end])
                    and (value := expected_in(program, start, end, _JAVA_FORMS, self.quotes))
                    and "s." in program[start : value[0]]]
        # where every check compares one answer, they compare values of one type
        one = changed(program, expected) if len(expected) == len(places) else None
        return one or flip(program, places)


def _plain(check: str) -> bool:
    """A check that only compares an answer (`!s.f(x).equals(y)` holds for more than one value: never swapped)."""
    return not check.startswith("!") and not any(op in check for op in ("&&", "||", "?"))


class PackCpp(Cpp):
    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["g++", "-std=c++11", source, "-o", "program", "-lcrypto", "-lssl"]]

    def decoy_templates(self) -> tuple[str, ...]:
        return *super().decoy_templates(), f"assert ({LEFT} == {RIGHT});"

    def condition_templates(self) -> tuple[str, ...]:
        return (f"assert ({RIGHT});",)

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and not os.path.exists("/usr/include/boost/any.hpp"):
            return ("boost's headers are missing (every HumanEvalPack C++ program includes boost/any.hpp): "
                    "apt-get install libboost-dev")
        if missing is None and not os.path.exists("/usr/include/openssl/md5.h"):
            return "OpenSSL's headers are missing (HumanEvalPack C++ links -lcrypto -lssl): apt-get install libssl-dev"
        return missing


class PackGo(Go):
    """`go test` on a package main file, in GOPATH mode: testify from Debian's package, nothing downloaded."""

    env: ClassVar[dict[str, str]] = {**Go.env, "GOPATH": GOPATH, "GO111MODULE": "off", "GOFLAGS": ""}
    # testify's checks are not MultiPL-E's table; a failed one names its line (`Error Trace: .../program_test.go:33`)
    failure_row = ""
    failure_line = NAMED_LINE
    # testify and what it imports, compiled once into the shared cache rather than in every sample's
    warm_up: ClassVar[str] = (
        'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n\n'
        "func TestWarm(t *testing.T) { assert.New(t).Equal(1, 1) }\n"
    )

    def decoy_templates(self) -> tuple[str, ...]:
        return (f"assert.Equal({RIGHT}, {LEFT})",)  # testify's: the expected value first

    def condition_templates(self) -> tuple[str, ...]:
        return (f"assert.Equal(true, {RIGHT})",)

    def unavailable(self) -> str | None:
        missing = super().unavailable()
        if missing is None and not os.path.isdir(f"{GOPATH}/src/github.com/stretchr/testify/assert"):
            return ("testify is missing (HumanEvalPack's Go tests use it): "
                    "apt-get install golang-github-stretchr-testify-dev")
        return missing


_TEST_PANIC = re.compile(r"^---- (\S+) stdout ----\n(?:.*\n)*?.*panicked at [^\n]*:\n(.*)$", re.MULTILINE)
CRATES_DIR = Path("/usr/share/cargo/registry")  # Debian's librust-*-dev packages: crate sources, offline
CRATES = ("rand", "regex", "md5")  # every Rust row's declaration uses them
CRATE_PACKAGES = "librust-rand-dev librust-regex-dev librust-md5-dev librust-aho-corasick-dev librust-memchr-dev"
# Built once per installation, outside the sandbox (trusted Debian sources), where samples can read them.
DEPS_DIR = SHARE / "humanevalpack-rust"
DEPS_MANIFEST = """[package]
name = "humanevalpack_deps"
version = "0.1.0"
edition = "2021"

[dependencies]
rand = "0.8"
regex = "1"
md5 = "0.7"
"""
CARGO_CONFIG = f"""[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "{CRATES_DIR}"

[net]
offline = true
"""


class PackRust(Rust):
    """BCEH runs `cargo test` on a crate that depends on rand, regex and md5. Here the crates are built once from
    Debian's sources, and each sample is `rustc --test` against them: the same test harness, without cargo's
    start-up in every sample."""

    statement_opens = "assert"  # a panic names the macro's line, and a statement may span lines (117 of 1,092)

    def unavailable(self) -> str | None:
        missing = super().unavailable() or (None if shutil.which("cargo") else "cargo not found: install Rust's cargo")
        if missing is None and not (DEPS_DIR / "built").exists():
            absent = [c for c in CRATES if not any(CRATES_DIR.glob(f"{c}-*"))]
            if absent:
                return (f"the crates {', '.join(absent)} are missing (HumanEvalPack's Rust uses them): "
                        f"apt-get install {CRATE_PACKAGES}")
        return missing

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        deps = built_crates()
        externs = [arg for crate, rlib in deps.items() for arg in ("--extern", f"{crate}={rlib}")]
        return [[rustc(), "--edition", "2021", "--test", source, "-o", "program",
                 "-L", f"dependency={DEPS_DIR / 'target' / 'debug' / 'deps'}", *externs]]

    tests_function = _RUST_TEST  # the epilogue ends the tests' `#[test]` function, which the harness runs

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["./program", "--test-threads=1"]

    def decoy_templates(self) -> tuple[str, ...]:
        return *super().decoy_templates(), f"assert!({LEFT} == {RIGHT});"

    def condition_templates(self) -> tuple[str, ...]:
        return (f"assert!({RIGHT});",)

    def runtime_error(self, result: ExecResult) -> str:
        failed = _TEST_PANIC.search(result.stdout)
        if failed:  # the test harness reports a test's panic on stdout
            return f"assertion failed: {failed.group(1)}: {failed.group(2).strip()[:200]}"
        return super().runtime_error(result)


@lru_cache(maxsize=1)
def built_crates() -> dict[str, str]:
    """The rlib of each crate, built at first use (a minute; one process builds, the others wait for it)."""
    DEPS_DIR.mkdir(parents=True, exist_ok=True)
    with open(DEPS_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (DEPS_DIR / "built").exists():
            (DEPS_DIR / "src").mkdir(exist_ok=True)
            (DEPS_DIR / "src" / "lib.rs").write_text("")
            (DEPS_DIR / "Cargo.toml").write_text(DEPS_MANIFEST)
            (DEPS_DIR / ".cargo").mkdir(exist_ok=True)
            (DEPS_DIR / ".cargo" / "config.toml").write_text(CARGO_CONFIG)
            build = ["cargo", "build", "--offline", "--quiet"]
            done = subprocess.run(build, cwd=DEPS_DIR, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["cargo failed"])[0]
                raise CodeevalError(f"building HumanEvalPack's Rust crates in {DEPS_DIR} failed: {last}; "
                                    f"apt-get install {CRATE_PACKAGES}")
            (DEPS_DIR / "built").write_text("")
    deps = DEPS_DIR / "target" / "debug" / "deps"
    return {crate: str(max(deps.glob(f"lib{crate}-*.rlib"), key=os.path.getmtime)) for crate in CRATES}

