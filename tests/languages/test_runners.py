"""Each language's runner in the real sandbox: a passing, a failing, a non-compiling and a looping program, each
read into the verdict and detail MultiPL-E's evaluator would give. A language whose toolchain is missing here is
skipped with the line that names the package to install."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import language_or_skip

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.languages import get_language
from pytest_codeeval.runners import MODULES, get_runner
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

DATA = Path(__file__).parents[1] / "data" / "languages"
# per language: a program with a {body} line, and the bodies of an ok, fail, nocomp and loop variant
SAMPLES = json.loads((DATA / "samples.json").read_text())
# (status, start of the detail) per kind of program
EXPECTED = {"ok": ("passed", "ok"), "fail": ("failed", "assertion failed"), "loop": ("timeout", "timed out")}
SYNTAX = {
    "py": "syntax error",
    "js": "syntax error",
    "rb": "syntax error",
    "php": "syntax error",
    "sh": "syntax error",
    "pl": "syntax error",
    "lua": "syntax error",
    "r": "syntax error",
    "rkt": "syntax error",
    "jl": "syntax error",
    "elixir": "syntax error",
    "clj": "syntax error",
    "ml": "syntax error",
}


def sample(name: str, kind: str) -> str:
    return SAMPLES[name]["program"].replace("{body}", SAMPLES[name][kind])


@pytest.mark.parametrize("kind", ["ok", "fail", "nocomp", "loop"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_verdicts(name: str, kind: str) -> None:
    language = language_or_skip(name)
    program = sample(name, kind)
    outcome = language.run(program, Limits(cpu_seconds=2), get_executor("strict"))
    status, detail = EXPECTED.get(kind, ("failed", SYNTAX.get(name, "compile error")))
    assert (outcome.status, outcome.detail[: len(detail)]) == (status, detail), outcome.output[-2000:]


def test_aliases_and_unknown_language() -> None:
    assert get_runner("rust") is get_language("rs") and get_runner("javascript") is get_language("js")
    with pytest.raises(CodeevalError, match="no runner for language 'cobol'"):
        get_runner("cobol")


def test_missing_toolchain_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert get_language("java").unavailable() == (
        "Java toolchain not installed (javac, java not found): apt-get install default-jdk-headless "
        "libjavatuples-java (or make setup LANGS=java)"
    )


def test_compile_time_is_not_the_program_s(tmp_path: Path) -> None:
    """The compiler runs under its own CPU limit: a program whose build takes longer than the sample's CPU limit
    still passes (g++ on <bits/stdc++.h> takes over a second of CPU; the program gets 1 s)."""
    language = language_or_skip("cpp")
    program = sample("cpp", "ok")
    outcome = language.run(program, Limits(cpu_seconds=1), get_executor("strict"))
    assert outcome.status == "passed", outcome.output


# Programs that try to outlive or escape their limits; each must end within its bounds and never pass.
ADVERSARIAL = {
    "sh-fork-bomb": ("sh", "#!/bin/bash\nbomb() { bomb | bomb & }\nbomb\nsleep 1000\n"),
    "cpp-fork-and-spin": ("cpp", "#include <unistd.h>\nint main() { for (;;) { fork(); } }\n"),
    "cpp-memory-bomb": (
        "cpp",
        "#include <vector>\n#include <cstring>\nint main() { std::vector<char*> v; for (;;) "
        "{ char* p = new char[1 << 24]; std::memset(p, 1, 1 << 24); v.push_back(p); } }\n",
    ),
    "java-ignores-interrupts": (
        "java",
        "class Problem { public static void main(String[] a) {\n"
        "  Thread t = new Thread(() -> { for (;;) { try { Thread.sleep(100000); }\n"
        "    catch (InterruptedException e) { } } });\n"
        "  t.start();\n  Runtime.getRuntime().addShutdownHook(new Thread(() -> { for (;;) { } }));\n} }\n",
    ),
    "cs-foreground-thread": (
        "cs",
        "using System;\nusing System.Threading;\nclass Problem { public static void Main(string[] a) {\n"
        "  var t = new Thread(() => { for (;;) { try { Thread.Sleep(100000); }\n"
        "    catch (ThreadInterruptedException) { } } });\n"
        "  t.Start();\n  AppDomain.CurrentDomain.ProcessExit += (s, e) => { for (;;) { } };\n} }\n",
    ),
    "go-spinning-goroutines": (
        "go",
        'package spin_test\nimport "testing"\nfunc TestSpin(t *testing.T) {\n'
        "  for i := 0; i < 4; i++ { go func() { for { } }() }\n  select {}\n}\n",
    ),
    "rs-detached-daemon": (
        "rs",
        "use std::process::Command;\nfn main() {\n"
        '    Command::new("sh").arg("-c").arg("setsid sleep 1000 &").status().unwrap();\n'
        "    loop { std::thread::sleep(std::time::Duration::from_secs(1)); }\n}\n",
    ),
    "elixir-epmd-and-spinning-processes": (
        "elixir",
        ':os.cmd(~c"epmd -daemon; setsid sleep 1000 &")\n'
        "for _ <- 1..4, do: spawn(fn -> Stream.repeatedly(fn -> 1 end) |> Enum.reduce(0, &+/2) end)\n"
        "Process.flag(:trap_exit, true)\nProcess.sleep(:infinity)\n",
    ),
    "js-output-flood": ("js", "for (;;) { process.stdout.write('x'.repeat(65536)); }\n"),
    "hs-ignores-cpu-signals": (
        "hs",
        "import Control.Concurrent\nimport System.Posix.Signals\nmain :: IO ()\nmain = do\n"
        "  mapM_ (\\s -> installHandler s Ignore Nothing) [sigXCPU, sigTERM, sigINT]\n"
        "  let spin n = if n < 0 then pure () else spin (n + 1 :: Int)\n"
        "  _ <- forkIO (spin 0)\n  spin 0\n",
    ),
    "ml-ignores-cpu-signals": (
        "ml",
        "let () = List.iter (fun s -> Sys.set_signal s Sys.Signal_ignore) [Sys.sigxcpu; Sys.sigterm; Sys.sigint]\n"
        "let rec spin n = if n < 0 then () else spin (n + 1)\nlet () = spin 0\n",
    ),
    "lua-child-ignores-sigterm": (
        "lua",
        "os.execute(\"setsid sh -c 'trap \\\"\\\" TERM; sleep 1000' &\")\nwhile true do end\n",
    ),
    "r-forked-spinning-workers": ("r", "for (i in 1:3) parallel::mcparallel(repeat {})\nrepeat {}\n"),
    "rkt-futures-and-breaks-off": (
        "rkt",
        "#lang racket\n(for ([i 3]) (future (lambda () (let loop () (loop)))))\n"
        "(parameterize-break #f (let loop () (loop)))\n",
    ),
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_adversarial_programs_end_bounded(case: str) -> None:
    name, program = ADVERSARIAL[case]
    language = language_or_skip(name)
    limits = Limits(cpu_seconds=2)
    outcome = language.run(program, limits, get_executor("strict"))
    # the memory bomb's allocation fails (or, page faults counted, it runs out of CPU time first); all else times out
    expected = ("failed", "timeout") if case == "cpp-memory-bomb" else ("timeout",)
    assert outcome.status in expected, (outcome.status, outcome.detail, outcome.output[-1000:])
    # the program's own wall bound, plus the compiler's share; never the request's whole backstop
    assert outcome.duration < limits.wall_bound() + 60, outcome.detail
    # nothing it started is left: the next sample runs in a clean sandbox and passes
    assert language.run(sample(name, "ok"), limits, get_executor("strict")).status == "passed"


def test_only_the_toolchains_under_the_home_are_visible() -> None:
    """rustup's toolchains and this project's cache are readable in the sandbox; ~/.cargo (a registry token may
    live there) stays hidden with the rest of the home."""
    import os

    from pytest_codeeval.sandbox.toolchains import real_home

    home = real_home()
    if not os.path.isdir(os.path.join(home, ".rustup", "toolchains")) or not os.path.isdir(
        os.path.join(home, ".cargo")
    ):
        pytest.skip("needs rustup's ~/.rustup/toolchains and ~/.cargo")
    language = language_or_skip("sh")
    program = f'test -d "{home}/.rustup/toolchains" && test -d "{home}/.cache/pytest-codeeval/toolchains" && ! test -e "{home}/.cargo"\n'
    assert language.run(program, Limits(cpu_seconds=2), get_executor("strict")).status == "passed"


# Julia is not installable here (Debian has no package): its runner's reading of Julia's reports is checked on
# outputs in the format Julia 1.10 writes them, and its script on the request it builds.
JULIA_REPORTS = {
    "ok": (0, "Test Summary: | Pass  Total  Time\ntest set      |    2      2  0.4s\n", "", ("passed", "ok")),
    "fail": (
        1,
        "test set: Test Failed at /tmp/s/program.jl:10\n  Expression: candidate(\"\") == 0\n   Evaluated: 1 == 0\n\n"
        "Stacktrace:\n [1] macro expansion\n",
        "ERROR: LoadError: Some tests did not pass: 1 passed, 1 failed, 0 errored, 0 broken.\n"
        "in expression starting at /tmp/s/program.jl:7\n",
        ("failed", 'assertion failed: candidate("") == 0 (evaluated: 1 == 0)'),
    ),
    "error": (
        1,
        "test set: Error During Test at /tmp/s/program.jl:10\n  Test threw exception\n"
        '  Expression: candidate("") == 0\n  MethodError: no method matching length(::Nothing)\n',
        "ERROR: LoadError: Some tests did not pass: 1 passed, 0 failed, 1 errored, 0 broken.\n",
        ("failed", "exception: MethodError: no method matching length(::Nothing)"),
    ),
    "parse": (
        1,
        "",
        "ERROR: LoadError: ParseError:\n# Error @ /tmp/s/program.jl:3:1\n    return length(string) +\nend\n"
        "└─┘ ── premature end of input\nStacktrace:\n",
        ("failed", "syntax error: premature end of input"),
    ),
    "old-syntax": (
        1,
        "",
        'ERROR: LoadError: syntax: incomplete: "function" at /tmp/s/program.jl:1 requires end\n',
        ("failed", 'syntax error: syntax: incomplete: "function" at /tmp/s/program.jl:1 requires end'),
    ),
    "toplevel": (
        1,
        "",
        "ERROR: LoadError: UndefVarError: `x` not defined\nin expression starting at /tmp/s/program.jl:2\n",
        ("failed", "exception: UndefVarError: `x` not defined"),
    ),
}


@pytest.mark.parametrize("case", sorted(JULIA_REPORTS))
def test_julia_reports_read(case: str) -> None:
    from pytest_codeeval.sandbox.api import ExecResult

    code, stdout, stderr, expected = JULIA_REPORTS[case]
    result = ExecResult(code, None, True, stdout, stderr, cpu_seconds=0.5)
    assert get_language("jl").verdict(result, Limits(cpu_seconds=5)) == expected


def test_julia_script_and_skip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    language = get_language("julia")
    request = language.request(sample("jl", "ok"), Limits(cpu_seconds=5))
    script = dict(request.files)[".run.sh"].decode()
    assert "export JULIA_DEPOT_PATH=/tmp/julia-depot:" in script
    assert script.rstrip().endswith("exec julia --startup-file=no --history-file=no program.jl")
    assert request.limits.address_space_bytes >= 8 * 1024**3 and request.limits.memory_bytes == 2 * 1024**3
    monkeypatch.setenv("PATH", "/nonexistent")
    assert language.unavailable() == (
        "Julia is not packaged by Debian: install it from https://julialang.org/downloads (or with juliaup) "
        "and put julia on PATH"
    )


# The detail read from each runtime's own report, for failures beyond the samples' (programs run in the sandbox)
DETAILS = {
    "lua-long-tables": (
        "lua",
        "lu = require('luaunit')\nfunction test_humaneval()\n"
        "    lu.assertEquals({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, {1, 2})\n"
        "end\nos.exit(lu.LuaUnit.run())\n",
        "assertion failed: expected {1, 2}, got {1, 2, 3, 4,",
    ),
    "lua-error-in-test": (
        "lua",
        "lu = require('luaunit')\nfunction test_humaneval()\n    local x = nil\n    lu.assertEquals(x.y, 1)\nend\n"
        "os.exit(lu.LuaUnit.run())\n",
        "exception: attempt to index a nil value (local 'x')",
    ),
    "lua-top-level-error": ("lua", "error('boom')\n", "exception: boom"),
    "r-error": ("r", "f <- function(x) x$y\nf(1)\n", "exception: $ operator is invalid for atomic vectors"),
    "r-stopifnot": ("r", "stopifnot(isTRUE(all.equal(1, 2)))\n", "assertion failed: isTRUE(all.equal(1, 2)) is not TRUE"),
    "rkt-check-raises": (
        "rkt",
        '#lang racket\n(require rackunit)\n(check-within (+ 1 "a") 2 0.001)\n',
        "exception: +: contract violation",
    ),
    "rkt-check-fails": (
        "rkt",
        "#lang racket\n(require rackunit)\n(check-within (list 1 2) (list 1) 0.001)\n",
        "assertion failed: expected '(1), got '(1 2)",
    ),
    "rkt-unbound": ("rkt", "#lang racket\n(car y)\n", "exception: y: unbound identifier"),
}


@pytest.mark.parametrize("case", sorted(DETAILS))
def test_runtime_reports_read_into_details(case: str) -> None:
    name, program, detail = DETAILS[case]
    outcome = language_or_skip(name).run(program, Limits(cpu_seconds=5), get_executor("strict"))
    assert (outcome.status, outcome.detail[: len(detail)]) == ("failed", detail), outcome.output[-2000:]


GO_PANIC = (
    "package panics_test\n\nimport \"testing\"\n\nfunc index(s []int) int {\n\treturn s[3]\n}\n\n"
    "func TestPanics(t *testing.T) {\n\tindex(nil)\n}\n"
)
GO_VET = (
    "package vet_test\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n"
    "func TestVet(t *testing.T) {\n\tfmt.Println(\"value %d\", 1)\n}\n"
)
# the program's garbage collector as Go's default sets it (GOGC=100): SetGCPercent answers the setting it replaces
GO_GC = (
    "package gc_test\n\nimport (\n\t\"runtime/debug\"\n\t\"testing\"\n)\n\n"
    "func TestGC(t *testing.T) {\n\tif p := debug.SetGCPercent(100); p != 100 {\n\t\tt.Fatalf(\"GOGC %d\", p)\n\t}\n}\n"
)


def test_go_build_keeps_tracebacks_and_vet() -> None:
    """Go links without a symbol table or DWARF (go.BUILD_FLAGS): a panic's traceback still names the function and
    its line, and `go vet` still fails a program it rejects, as MultiPL-E's `go test` does."""
    go = language_or_skip("go")
    panicked = go.run(GO_PANIC, Limits(cpu_seconds=5), get_executor("strict"))
    assert panicked.status == "failed" and panicked.detail.startswith("exception: panic: runtime error: index out")
    assert "_test.TestPanics(" in panicked.output and "/program_test.go:10 " in panicked.output, panicked.output
    vetted = go.run(GO_VET, Limits(cpu_seconds=5), get_executor("strict"))
    assert (vetted.status, vetted.detail) == (
        "failed", "compile error: ./program_test.go:9:2: fmt.Println call has possible formatting directive %d"
    ), vetted.output[-2000:]


def test_go_s_toolchain_collects_less_often_and_the_program_as_go_s_default() -> None:
    """GOGC=400 is the build's (go.BUILD_ENV), on its command line; the program runs with Go's default, 100."""
    go = language_or_skip("go")
    script = go.script("program_test.go", Limits(cpu_seconds=5))
    assert [line for line in script.splitlines() if "GOGC" in line] == [
        line for line in script.splitlines() if line.startswith("env GOGC=400 go test ")
    ] != []
    outcome = go.run(GO_GC, Limits(cpu_seconds=5), get_executor("strict"))
    assert outcome.status == "passed", outcome.output[-2000:]
