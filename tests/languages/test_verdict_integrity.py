"""A pass is proven, not inferred (languages/proof.py): in every language, wrong completions of HumanEval/0
(has_close_elements) that end with exit status 0 without their tests having run and passed, each of which MultiPL-E's
evaluator (and this project before the proof) passed, are failed, with the detail saying why. A language whose
toolchain is missing here is skipped with the line that names the package to install."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from helpers import language_or_skip, report, write_jsonl

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.decoy import Decoy, differing, swap, texts_differ
from pytest_codeeval.languages.translate import originals, rows, translate_original
from pytest_codeeval.runners import MODULES
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import ExecRequest, Limits

pytestmark = pytest.mark.timeout(600)
COMPLETIONS = json.loads((Path(__file__).parents[1] / "data" / "multiple" / "completions.json").read_text())

# (language, attack, completion, why it fails: "unfinished" (no completion report), "disabled" (a false assertion
# did not fail), "not run" (the runner skipped the tests), "hidden" (failures counted, their report hidden), or
# None (any failure: the language's own report))
ATTACKS = [
    # -- exits before or instead of the tests' end
    ("js", "process.exit", "  process.exit(0);\n}\n", "unfinished"),
    ("js", "exitCode-in-exit-hook", '  process.on("exit", () => { process.exitCode = 0; });\n  return false;\n}\n',
     "unfinished"),
    ("ts", "process.exit", "  (globalThis as any).process.exit(0);\n  return false;\n}\n", "unfinished"),
    ("java", "System.exit", "        System.exit(0); return false;\n", "unfinished"),
    ("java", "exit-in-static-init", "        return false;\n    }\n    static { System.exit(0); }\n    static void f() {\n",
     "unfinished"),
    ("java", "shutdown-hook-halt", "        return false;\n    }\n    static { Runtime.getRuntime().addShutdownHook("
     "new Thread(() -> Runtime.getRuntime().halt(0))); }\n    static void f() {\n", "unfinished"),
    ("cpp", "exit", "    exit(0);\n", "unfinished"),
    ("cpp", "sigabrt-handler", "    return false;\n}\nstatic int hook = (signal(SIGABRT, [](int) { _Exit(0); }), 0);\n"
     "void f() {\n", "unfinished"),
    ("rs", "process::exit", "    std::process::exit(0);\n", "unfinished"),
    ("rs", "panic-hook-exit", "    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n    false\n", "unfinished"),
    ("rb", "exit", "  exit 0\nend\n", "unfinished"),
    ("rb", "at_exit-exit!", "  false\nend\nat_exit { exit!(0) }\n", "unfinished"),
    ("php", "exit", "    exit(0);\n}\n", "unfinished"),
    ("php", "shutdown-function", "    return false;\n}\nregister_shutdown_function(function () { exit(0); });\n",
     "unfinished"),
    ("php", "exception-handler", "    return false;\n}\nset_exception_handler(function ($e) { exit(0); });\n",
     "unfinished"),
    ("sh", "exit", "    echo false\n}\nexit 0\nf() {\n    :\n", "unfinished"),
    ("sh", "trap-exit", '    echo false\n}\ntrap "exit 0" EXIT\n', "unfinished"),
    ("pl", "exit", "    exit 0;\n}\n", "unfinished"),
    ("pl", "END-block", "    return 0;\n}\nEND { $? = 0; }\n", "unfinished"),
    ("lua", "os.exit", "    return false\nend\nos.exit(0)\n", "unfinished"),
    ("r", "quit", '  FALSE\n}\nquit(save = "no", status = 0)\n', "unfinished"),
    ("rkt", "exit", "  #f)\n(exit 0)\n", "unfinished"),
    ("cs", "Environment.Exit", "        Environment.Exit(0); return false;\n", "unfinished"),
    ("d", "exit", "{\n    import core.stdc.stdlib : exit; exit(0); return false;\n}\n", "unfinished"),
    ("scala", "System.exit", "        System.exit(0); false\n", "unfinished"),
    ("ml", "exit", " exit 0\n", "unfinished"),
    ("elixir", "System.halt", "    System.halt(0)\n  end\nend\n", "unfinished"),
    ("clj", "fake-summary-then-exit", '  false)\n(println "0 failures, 0 errors.")\n(System/exit 0)\n', "unfinished"),
    # -- the tests swallowed
    ("sh", "unterminated-here-document", "    echo false\n}\n: <<'EOF'\n", "unfinished"),
    ("rb", "__END__", "  false\nend\n__END__\n", "unfinished"),
    ("pl", "__END__", "    return 0\n}\n__END__\n", "unfinished"),
    ("php", "__halt_compiler", "    return false;\n}\n__halt_compiler();\n", "unfinished"),
    ("d", "__EOF__", "{\n    return false;\n}\n__EOF__\n", "unfinished"),
    ("cpp", "main-renamed", "    return false;\n}\nint main() { return 0; }\n#define main unused_main\nvoid f() {\n",
     "unfinished"),
    # our own TestMain (in a file beside the program) makes a program's TestMain a build error: the defence is the build
    ("go", "TestMain-without-m.Run", "    return false\n}\n\nfunc TestMain(m *testing.M) {\n}\n", "build"),
    # -- the assertions neutered
    ("js", "deepEqual-replaced", '  return false;\n}\nrequire("node:assert").deepEqual = () => {};\n', "disabled"),
    ("js", "test-function-replaced", "  return false;\n}\nvar test = () => {};\n", "not run"),
    ("pl", "test-sub-replaced", "    return 0;\n}\nno warnings;\n*testhumaneval = sub { 1 };\n", "not run"),
    ("ts", "deepEqual-replaced", '  return false;\n}\n(require as any)("node:assert").deepEqual = () => {};\n',
     "disabled"),
    ("cpp", "assert-redefined", "    return false;\n}\n#undef assert\n#define assert(x) ((void)(x))\nvoid f() {\n",
     "disabled"),
    ("rs", "assert_eq-shadowed", "    false\n}\nmacro_rules! assert_eq { ($($t:tt)*) => {} }\nfn f() {\n", "disabled"),
    ("rb", "assert_equal-replaced", '  false\nend\nrequire "test/unit"\nmodule Test::Unit::Assertions\n'
     "  def assert_equal(*) end\nend\n", "disabled"),
    ("sh", "set-shadowed", "    echo false\n}\nset() { :; }\nf() {\n    :\n", "disabled"),
    # the ERR trap that names a failed line replaces this one before the tests: their comparison fails as usual
    ("sh", "err-trap-returns", '    echo false\n}\nset -o errtrace\ntrap "return 0" ERR\nf() {\n    :\n', None),
    ("sh", "trap-shadowed", '    echo false\n}\ntrap() { builtin trap "return 0" ERR; }\nf() {\n    :\n', "disabled"),
    ("pl", "eq_deeply-replaced", "    return 0;\n}\nno warnings;\n*main::eq_deeply = sub { 1 };\n", "disabled"),
    ("pl", "exit-overridden", "    return 0;\n}\nBEGIN { *CORE::GLOBAL::exit = sub { 1 } }\n", "disabled"),
    ("lua", "assertEquals-patched", '    return false\nend\nlocal lu = require("luaunit")\nlu.assertEquals = function() end\n',
     "disabled"),
    ("lua", "LuaUnit.run-patched", '    return false\nend\nlocal lu = require("luaunit")\n'
     "lu.LuaUnit.run = function() return 0 end\n", "not run"),
    ("r", "stopifnot-replaced", "  FALSE\n}\nstopifnot <- function(...) invisible(NULL)\n", "disabled"),
    ("r", "isTRUE-replaced", "  FALSE\n}\nisTRUE <- function(x) TRUE\n", "disabled"),
    ("rkt", "check-within-redefined", "  #f)\n(define (check-within . _) (void))\n", "disabled"),
    ("rkt", "check-handler-silenced", "  #f)\n(current-check-handler void)\n", "hidden"),
    ("rkt", "current-check-around-swallows", "  #f)\n(require rackunit)\n(current-check-around (lambda (chk) "
     "(with-handlers ([(lambda (e) #t) void]) (chk))))\n", "disabled"),
    ("cs", "stderr-silenced", "        Console.SetError(System.IO.TextWriter.Null); return false;\n", "hidden"),
    ("cs", "Trace.Listeners.Clear", "        Trace.Listeners.Clear(); return false;\n", "disabled"),
    ("scala", "assert-shadowed", "        false\n    }\n    def assert(b: Boolean): Unit = ()\n    def f() = {\n",
     "disabled"),
    ("ml", "equality-redefined", " false\nlet (=) _ _ = true\n", "disabled"),
    # the test runner hooked or told to skip: no unittest runs, or the first failure is caught, then main (where the
    # epilogue proves); the tests' one test omitted or pending (neither is a failure)
    ("d", "extendedModuleUnitTester", "{\n    return true;\n}\nshared static this() {\n    import core.runtime;\n"
     "    Runtime.extendedModuleUnitTester = () => UnitTestResult(1, 1, true, false);\n}\n", "not run"),
    ("d", "moduleUnitTester", "{\n    return true;\n}\nshared static this() {\n    import core.runtime;\n"
     "    Runtime.moduleUnitTester = () => true;\n}\n", "not run"),
    ("d", "unittests-run-and-failures-caught", "{\n    return false;\n}\nshared static this() {\n"
     "    import core.runtime;\n    Runtime.extendedModuleUnitTester = () {\n        foreach (m; ModuleInfo) {\n"
     "            if (m is null || m.unitTest is null) continue;\n            try { m.unitTest()(); } catch (Throwable) {}\n"
     "        }\n        return UnitTestResult(1, 1, true, false);\n    };\n}\n", "not run"),
    ("rb", "test-omitted-in-setup", '  false\nend\nrequire "test/unit"\nclass TestHumanEval < Test::Unit::TestCase\n'
     '  def setup\n    omit if method_name.start_with?("test_has_close")\n  end\nend\n', "not run"),
    ("rb", "test-pending-in-setup", '  false\nend\nrequire "test/unit"\nclass TestHumanEval < Test::Unit::TestCase\n'
     '  def setup\n    pend\n  end\nend\n', "not run"),
    ("elixir", "ExUnit-excluded", "    false\n  end\nend\nExUnit.start()\nExUnit.configure(exclude: [:test])\n",
     "not run"),
    ("elixir", "ExUnit.Assertions-replaced", "    false\n  end\nend\nCode.compiler_options(ignore_module_conflict: true)\n"
     "defmodule ExUnit.Assertions do\n  defmacro assert(_), do: true\n  defmacro __using__(_), do: nil\nend\n",
     "disabled"),
    ("clj", "report-fail-redefined", "  false)\n(require (quote clojure.test))\n(defmethod clojure.test/report :fail [m] nil)\n",
     "disabled"),
]


@cache
def _row(name: str, problem: str = "HumanEval_0_has_close_elements") -> dict:
    return next(r for r in rows(get_language(name), "humaneval") if r["name"] == problem)


def _program(name: str, completion: str, problem: str = "HumanEval_0_has_close_elements") -> str:
    row = _row(name, problem)
    return row["prompt"] + completion + "\n" + row["tests"]


def _judged(name: str, completion: str, problem: str = "HumanEval_0_has_close_elements") -> Outcome:
    """The row's program with `completion`, run and judged as a sample is: the decoy after a pass."""
    return language_or_skip(name).run(_program(name, completion, problem), Limits(cpu_seconds=5),
                                      get_executor("strict"), tests_at=len(_row(name, problem)["prompt"] + completion))


@pytest.mark.parametrize(("name", "attack", "completion", "why"), ATTACKS, ids=[f"{a[0]}-{a[1]}" for a in ATTACKS])
def test_a_wrong_program_that_exits_with_0_fails(name: str, attack: str, completion: str, why: str | None) -> None:
    from pytest_codeeval.languages import proof

    language = language_or_skip(name)
    outcome = language.run(_program(name, completion), Limits(cpu_seconds=5), get_executor("strict"))
    details = {"unfinished": proof.UNFINISHED, "disabled": proof.NEUTERED, "not run": proof.NOT_RUN, "hidden": proof.HIDDEN}
    detail = details.get(why or "")
    assert outcome.status == "failed", (outcome.detail, outcome.output[-2000:])
    # an attack that does not build proves nothing about the verdict (it must run and be caught), unless the build
    # failure is the defence
    built = not outcome.detail.startswith(("compile error", "syntax error"))
    assert built == (why != "build"), (outcome.detail, outcome.output[-2000:])
    if detail:
        assert outcome.detail == detail, outcome.output[-2000:]


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"py"}))
def test_every_language_proves_multipl_e_programs(name: str) -> None:
    """The epilogue is built for MultiPL-E's rows in every language (jl, swift and dart included, whose toolchains
    may be absent): the request carries the proof, the row's tests stay as they are in the program, and a correct
    program passes with the plain detail where the toolchain is here."""
    language = get_language(name)
    program = _program(name, COMPLETIONS[name]["ok"])
    proven = language.proof(program)
    assert proven is not None
    request = language.request(program, Limits(cpu_seconds=5))
    assert request.proof
    source = dict(request.files)[request.filename].decode()
    assert _row(name)["tests"].strip().split("\n")[1] in source  # the tests' text, unchanged in the built program
    if language.unavailable():
        return
    outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"))
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]


def test_an_unproven_form_says_so_in_its_detail() -> None:
    """A program whose tests are in no form its language proves passes on its exit status, and says so."""
    language = language_or_skip("sh")
    outcome = language.run("true\n", Limits(cpu_seconds=2), get_executor("strict"))
    assert (outcome.status, outcome.detail.split(" (")[0]) == ("passed", "ok")
    assert "exit status only" in outcome.detail


@pytest.mark.parametrize(
    ("command", "proof", "status", "completed"),
    [
        ("cat <&4 >&3", True, 0, True),  # the token copied once: the program proved its end
        ("cat <&4 >/dev/null; cat <&4 >&3", True, 0, False),  # readable once: a second read finds nothing
        ("printf 00000000000000000000000000000000 >&3", True, 0, False),  # a guessed token
        ("cat <&4", False, 2, False),  # without proof, 3 and 4 are closed in the program ...
        ("true", False, 0, True),  # ... and its exit status decides
    ],
    ids=["token-copied", "token-read-twice", "token-guessed", "no-proof-no-descriptors", "no-proof-exit-status"],
)
def test_the_token_reaches_an_argv_program_once(command: str, proof: bool, status: int, completed: bool) -> None:
    request = ExecRequest(argv=("/bin/sh", "-c", command), limits=Limits(cpu_seconds=2), proof=proof)
    result = get_executor("strict").run(request)
    assert (result.exit_code, result.completed) == (status, completed), result.stderr


def test_verdicts_of_proven_samples_under_xdist(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A correct sample passes and an exiting one fails, with its detail, when samples are judged on two workers."""
    language_or_skip("js")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    completions = [COMPLETIONS["js"]["ok"], "  process.exit(0);\n}\n"]
    rows = [{"task": "multiple-js", "task_id": "HumanEval_0_has_close_elements", "completion": c} for c in completions]
    write_jsonl(pytester.path / "gen.jsonl", rows)
    result = pytester.runpytest("--codeeval-load-generations=gen.jsonl", "--codeeval-tasks=multiple-js",
                                "--codeeval-limit=1", "--codeeval-report=r.json", "-n", "2", "-q")
    result.assert_outcomes(passed=1, failed=1)
    samples = report(pytester.path / "r.json")["tasks"]["multiple-js"]["problems"]["HumanEval_0_has_close_elements"]
    from pytest_codeeval.languages.proof import UNFINISHED

    assert [(s["status"], s["detail"]) for s in samples["samples"]] == [("passed", "ok"), ("failed", UNFINISHED)]


# Wrong completions of HumanEval/0 (each answers `true` to everything) that pass the tests and the epilogue (the
# assertions still fail a false assertion made without the candidate, the tests ran to their end) and that the
# decoy run catches: the same program with one expected value changed passes too
# A class named `System` nested in the tests' class takes over that name there: forwarding what the epilogue uses, and
# answering the decoy's chooser (`System.Environment.GetEnvironmentVariable(...) == key`) with a type whose `==` tells
# the answer which statements changed and whether this run's value is the key's (it passed half of its samples); the
# epilogue and the chooser name `global::System`
CS_SYSTEM_SHADOWED = """        Hook.Seen = false;
        return new Cheat();
    }
    class Cheat : List<long> {
        public override bool Equals(object o) {
            bool changed = Hook.Seen; Hook.Seen = false;
            return !(changed && Hook.FailHere());
        }
        public override int GetHashCode() { return 0; }
    }
    public static class Hook {
        public static bool Seen; public static int KeyRun = -1;
        public static bool FailHere() { return KeyRun == 1; }
    }
    public class K {
        public string V;
        public static bool operator ==(K a, string key) { Hook.Seen = true; bool r = a.V == key; Hook.KeyRun = r ? 1 : 0; return r; }
        public static bool operator !=(K a, string key) { return !(a == key); }
        public override bool Equals(object o) { return false; }
        public override int GetHashCode() { return 0; }
    }
    public static class System {
        public static class Environment { public static K GetEnvironmentVariable(string n) { return new K { V = global::System.Environment.GetEnvironmentVariable(n) }; } }
        public static class Console {
            public static global::System.IO.TextWriter Error { get { return global::System.Console.Error; } }
            public static void SetError(global::System.IO.TextWriter w) { global::System.Console.SetError(w); }
            public static global::System.IO.Stream OpenStandardError() { return global::System.Console.OpenStandardError(); }
        }
        public static class Diagnostics {
            public static class Debug { public static void Assert(bool c) { global::System.Diagnostics.Debug.Assert(c); } }
            public static class Trace { public static global::System.Diagnostics.TraceListenerCollection Listeners { get { return global::System.Diagnostics.Trace.Listeners; } } }
            public class TraceListener : global::System.Diagnostics.TraceListener { public override void Write(string m) {} public override void WriteLine(string m) {} }
        }
        public static class IO {
            public static class TextWriter { public static global::System.IO.TextWriter Null { get { return global::System.IO.TextWriter.Null; } } }
            public class StreamWriter : global::System.IO.StreamWriter { public StreamWriter(global::System.IO.Stream s) : base(s) {} }
            public static class FileMode { public const global::System.IO.FileMode Open = global::System.IO.FileMode.Open; }
            public static class FileAccess { public const global::System.IO.FileAccess Read = global::System.IO.FileAccess.Read; public const global::System.IO.FileAccess Write = global::System.IO.FileAccess.Write; }
            public class FileStream : global::System.IO.FileStream { public FileStream(string p, global::System.IO.FileMode m, global::System.IO.FileAccess a) : base(p, m, a) {} }
        }
    }
    static void F() {
"""


DECOY_ATTACKS = [
    # -- selective neutering: the helper skips the comparison when the candidate ran since the previous assertion
    ("js", "skip-after-candidate", '  globalThis.ran = true;\n  return true;\n}\nconst a = require("node:assert");\n'
     "const real = a.deepEqual;\na.deepEqual = (x, y) => { if (globalThis.ran) { globalThis.ran = false; return; }"
     " real(x, y); };\n"),
    ("ts", "skip-after-candidate", "  (globalThis as any).ran = true;\n  return true;\n}\n"
     'const a = (require as any)("node:assert");\nconst real = a.deepEqual;\na.deepEqual = (x: any, y: any) => '
     "{ if ((globalThis as any).ran) { (globalThis as any).ran = false; return; } real(x, y); };\n"),
    ("lua", "skip-after-candidate", '    ran = true\n    return true\nend\nlocal lu = require("luaunit")\n'
     "local real = lu.assertEquals\nlu.assertEquals = function(a, b) if ran then ran = false return end "
     "return real(a, b) end\n"),
    ("rb", "skip-after-candidate", '  $ran = true\n  true\nend\nrequire "test/unit"\nmodule Test::Unit::Assertions\n'
     "  alias_method :codeeval_real, :assert_equal\n  def assert_equal(*args)\n    if $ran then $ran = false; "
     "return end\n    codeeval_real(*args)\n  end\nend\n"),
    ("r", "skip-after-candidate", "  ran <<- TRUE\n  TRUE\n}\nran <- FALSE\nreal <- stopifnot\nstopifnot <- "
     "function(...) { list(...); if (ran) { ran <<- FALSE; return(invisible(NULL)) }; real(...) }\n"),
    ("pl", "skip-after-candidate", "    $main::ran = 1;\n    return 1;\n}\nno warnings;\nmy $real = \\&main::eq_deeply;\n"
     "*main::eq_deeply = sub { if ($main::ran) { $main::ran = 0; return 1; } return $real->(@_); };\n"),
    ("rkt", "skip-after-candidate", "  (set! ran #t)\n  #t)\n(define ran #f)\n(require rackunit)\n(current-check-around"
     " (let ([real (current-check-around)]) (lambda (chk) (set! ran #f) (real (lambda () (with-handlers ([(lambda (e)"
     " ran) void]) (chk)))))))\n"),
    ("ml", "skip-after-candidate", " true\nlet ran = ref false\nlet has_close_elements _ _ = ran := true; true\n"
     "let (=) a b = if !ran then (ran := false; true) else Stdlib.(=) a b\n"),
    ("cpp", "skip-after-candidate", "    extern bool ran;\n    ran = true;\n    return true;\n}\nbool ran = false;\n"
     "#undef assert\n#define assert(x) do { bool v = (x); if (ran) ran = false; else if (!v) abort(); } while (0)\n"
     "void f() {\n"),
    ("rs", "skip-after-candidate", "    RAN.with(|r| r.set(true));\n    true\n}\nthread_local! { static RAN: "
     "std::cell::Cell<bool> = std::cell::Cell::new(false); }\nmacro_rules! assert_eq { ($a:expr, $b:expr) => {{ let l "
     "= $a; if !RAN.with(|r| r.replace(false)) && l != $b { panic!(\"assertion failed\") } }} }\nfn f() {\n"),
    # -- only the epilogue's own literal false assertion fails
    ("js", "fail-only-1-vs-2", '  return true;\n}\nconst a = require("node:assert");\nconst real = a.deepEqual;\n'
     "a.deepEqual = (x, y) => { if (x === 1 && y === 2) real(x, y); };\n"),
    ("lua", "fail-only-1-vs-2", '    return true\nend\nlocal lu = require("luaunit")\nlocal real = lu.assertEquals\n'
     "lu.assertEquals = function(a, b) if a == 1 and b == 2 then real(a, b) end end\n"),
    ("r", "fail-only-1-vs-2", "  TRUE\n}\nreal <- all.equal\nall.equal <- function(x, y, ...) "
     "if (identical(x, 1) && identical(y, 2)) real(x, y) else TRUE\n"),
    ("pl", "fail-only-1-vs-2", "    return 1;\n}\nno warnings;\nmy $real = \\&main::eq_deeply;\n"
     "*main::eq_deeply = sub { ($_[0] eq '1' && $_[1] eq '2') ? $real->(@_) : 1 };\n"),
    # -- the same, on a row with one test statement (HumanEval/34: an integer of its expected value changed)
    ("js", "skip-after-candidate-one-statement", '  globalThis.ran = true;\n  return [];\n}\n'
     'const a = require("node:assert");\nconst real = a.deepEqual;\na.deepEqual = (x, y) => { if (globalThis.ran) '
     "{ globalThis.ran = false; return; } real(x, y); };\n", "HumanEval_34_unique"),
    ("lua", "skip-after-candidate-one-statement", '    ran = true\n    return {}\nend\nlocal lu = require("luaunit")\n'
     "local real = lu.assertEquals\nlu.assertEquals = function(a, b) if ran then ran = false return end "
     "return real(a, b) end\n", "HumanEval_34_unique"),
    ("rb", "skip-after-candidate-one-statement", '  $ran = true\n  []\nend\nrequire "test/unit"\n'
     "module Test::Unit::Assertions\n  alias_method :codeeval_real, :assert_equal\n  def assert_equal(*args)\n"
     "    if $ran then $ran = false; return end\n    codeeval_real(*args)\n  end\nend\n", "HumanEval_34_unique"),
    # -- the tests' assertion path shadowed, the epilogue's left alone
    ("cs", "nested-Debug-class", "        return true;\n    }\n    public static class Debug { public static void "
     "Assert(bool c) {} public static void Assert(bool c, string m) {} }\n    static void F() {\n"),
    # -- faked equality: the candidate returns an object equal to everything
    ("py", "int-subclass-always-equal", "    class T(int):\n        def __eq__(self, other):\n            return True\n"
     "        __hash__ = int.__hash__\n    return T(1)\n"),
    ("py", "object-always-equal", "    class T:\n        def __eq__(self, other):\n            return 1\n"
     "    return T()\n"),
    ("py", "__eq__-and-__ne__", "    class T(int):\n        __eq__ = lambda self, other: True\n"
     "        __ne__ = lambda self, other: False\n        __hash__ = int.__hash__\n    return T(0)\n"),
    ("py", "list-subclass-always-equal", "    class T(list):\n        __eq__ = lambda self, other: True\n"
     "    return T()\n"),
    ("py", "str-subclass-always-equal", "    class T(str):\n        __eq__ = lambda self, other: True\n"
     "        __hash__ = str.__hash__\n    return T()\n"),
    ("r", "all.equal-method", '  structure(TRUE, class = "cheat")\n}\nall.equal.cheat <- function(target, current, ...)'
     " TRUE\n"),
    ("clj", "reify-equals", "  (reify Object (equals [_ _] true)))\n"),
    ("rb", "==-and-coerce", "  o = Object.new\n  def o.==(x) true end\n  def o.coerce(x) [x, x] end\n  o\nend\n",
     "HumanEval_13_greatest_common_divisor"),
    # an equality that checks only the expected value's type: the decoy's value has the same type
    ("py", "equal-to-every-bool", "    class T:\n        def __eq__(self, other):\n            return isinstance(other, bool)\n"
     "    return T()\n"),
    # -- the answer read from the tests: the expected value the caller's next instruction loads
    ("py", "answer-read-from-the-calling-frame", "    import dis, sys\n    caller = sys._getframe(1)\n    after = [i for i"
     " in dis.get_instructions(caller.f_code) if i.offset > caller.f_lasti]\n    return next(i.argval for i in after"
     ' if i.opname == "LOAD_CONST")\n'),
    # -- the assertion aborts only in a forked child, where the epilogue's false assertion runs
    ("cpp", "operator==-overloaded-for-the-return-type", "    return {};\n}\nbool operator==(const std::vector<long>&, "
     "const std::vector<long>&) { return true; }\nvoid f() {\n", "HumanEval_5_intersperse"),
    ("cs", "System-shadowed-chooser-hooked", CS_SYSTEM_SHADOWED, "HumanEval_5_intersperse"),
    # -- an equality that compares only the length: swapping lists of other lengths let it pass
    ("py", "length-only-equality", "    n = max(0, 2 * len(numbers) - 1)\n    class T(list):\n"
     "        def __eq__(self, other):\n            return len(other) == n\n        __hash__ = None\n    return T()\n",
     "HumanEval_5_intersperse"),
    ("rb", "length-only-equality", "    C.new([0] * [0, 2 * numbers.size - 1].max)\nend\nclass C\n"
     "  def initialize(a) @a = a end\n  def to_ary; @a; end\n  def ==(o) o.size == @a.size end\nend\n",
     "HumanEval_5_intersperse"),
    ("js", "length-only-deepEqual", "  return new Array(Math.max(0, 2 * numbers.length - 1)).fill(0);\n}\n"
     "const a = require('node:assert');\nconst real = a.deepEqual;\na.deepEqual = function (x, y) {\n"
     "  if (x === 1 && y === 2) return real(x, y);\n  if (x.length !== y.length) throw new Error('differs');\n};\n",
     "HumanEval_5_intersperse"),
    ("cpp", "length-only-operator==", "    return std::vector<long>(numbers.empty() ? 0 : 2 * numbers.size() - 1, 0);\n}\n"
     "bool operator==(const std::vector<long>& a, const std::vector<long>& b) { return a.size() == b.size(); }\n"
     "void f() {\n", "HumanEval_5_intersperse"),
    ("cpp", "abort-only-in-a-child", "    return true;\n}\n#include <unistd.h>\nstatic pid_t parent = getpid();\n"
     "#undef assert\n#define assert(x) ((x) || getpid() == parent ? (void)0 : abort())\nvoid f() {\n"),
]


@pytest.mark.parametrize("attack", DECOY_ATTACKS, ids=[f"{a[0]}-{a[1]}" for a in DECOY_ATTACKS])
def test_a_program_whose_tests_do_not_hold_fails(attack: tuple[str, ...]) -> None:
    """The attack builds, runs and passes its tests and the epilogue (the decoy runs only after a pass), and its
    decoy passes as well: the verdict says so."""
    from pytest_codeeval.languages.proof import DECOY

    name, _, completion, *problem = attack
    outcome = _judged(name, completion, *problem)
    assert outcome.status == "failed", (outcome.detail, outcome.output[-2000:])
    assert outcome.detail.startswith(DECOY + " (statement "), (outcome.detail, outcome.output[-2000:])


# An answer that remembers the expected values it is compared with and ends its run (SIGXCPU, a timeout) when it
# sees one twice. HumanEval/13's expected values all differ: a decoy that gave one statement another's value showed
# that value twice, only in the decoy (13 languages passed this way); a swap shows the same values in another order.
REMEMBERS = {
    "py": "    import os, signal\n    class T(int):\n        def __eq__(self, other):\n"
          "            seen = globals().setdefault('seen', [])\n            if other in seen:\n"
          "                os.kill(os.getpid(), signal.SIGXCPU)\n            seen.append(other)\n"
          "            return True\n        __ne__ = lambda self, other: False\n        __hash__ = int.__hash__\n"
          "    return T(1)\n",
    "js": "  globalThis.calls = (globalThis.calls || 0) + 1;\n  return 1;\n}\nconst a = require('node:assert');\n"
          "const real = a.deepEqual;\nconst seen = new Map();\na.deepEqual = (x, y) => {\n"
          "  if (x === 1 && y === 2) return real(x, y);\n  const k = JSON.stringify(y);\n"
          "  if (seen.has(k) && seen.get(k) !== globalThis.calls) process.kill(process.pid, 'SIGXCPU');\n"
          "  seen.set(k, globalThis.calls);\n};\n",
    "rb": "  $calls = ($calls || 0) + 1\n  o = Object.new\n  c = $calls\n  o.define_singleton_method(:==) do |x|\n"
          "    $seen ||= {}\n    Process.kill(:XCPU, Process.pid) if $seen.key?(x) && $seen[x] != c\n"
          "    $seen[x] = c\n    true\n  end\n  def o.coerce(x) [x, x] end\n  o\nend\n",
}


@pytest.mark.parametrize("name", sorted(REMEMBERS))
def test_an_answer_that_remembers_the_expected_values_cannot_tell_its_decoy(name: str) -> None:
    """Every draw of HumanEval/13's decoy shows the answer no value twice: it games both runs, and the decoy's pass
    fails the sample."""
    from pytest_codeeval.languages.proof import DECOY

    for _ in range(3):
        outcome = _judged(name, REMEMBERS[name], "HumanEval_13_greatest_common_divisor")
        assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement "), outcome.detail


# A wrong answer that games its real run and stops its decoy at a limit (SIGXCPU sent to itself: a timeout), having
# told the two apart (here by a marker this test adds to the decoy's text; `{marker}` is split so that the program's
# own text never holds it)
STOPS_ITS_DECOY = {
    "py": ("#", "    import os, signal\n    if '#codeeval-test-' + 'decoy' in open(__file__).read():\n"
                "        os.kill(os.getpid(), signal.SIGXCPU)\n    class T:\n        __eq__ = lambda self, other: True\n"
                "    return T()\n"),
    "js": ("//", "  if (require('fs').readFileSync(__filename, 'utf8').includes('//codeeval-test-' + 'decoy'))\n"
                 "    process.kill(process.pid, 'SIGXCPU');\n  globalThis.ran = true;\n  return true;\n}\n"
                 "const a = require('node:assert');\nconst real = a.deepEqual;\n"
                 "a.deepEqual = (x, y) => { if (globalThis.ran) { globalThis.ran = false; return; } real(x, y); };\n"),
    "rb": ("#", "  Process.kill(:XCPU, Process.pid) if File.read(__FILE__).include?('#codeeval-test-' + 'decoy')\n"
                "  o = Object.new\n  def o.==(x) true end\n  def o.coerce(x) [x, x] end\n  o\nend\n"),
}


# An answer equal to every value but one holding an integer 9x (of two digits or more): a decoy that gave an integer a
# leading 9 was the only such value (HumanEval/34, one statement, passed in 12 languages)
NINES = {
    "rb": "    C.new\nend\nclass C\n  def to_ary; []; end\n"
          "  def ==(o) !o.to_s.scan(/\\d+/).any? { |n| n.size > 1 && n.start_with?('9') } end\nend\n",
    "js": "  return [];\n}\nconst a = require('node:assert');\nconst real = a.deepEqual;\n"
          "a.deepEqual = function (x, y) {\n  if (x === 1 && y === 2) return real(x, y);\n"
          "  if (/(^|[^\\d])9\\d/.test(JSON.stringify(y))) throw new Error('differs');\n};\n",
    "cpp": "    return {};\n}\n#include <string>\n"
           "bool operator==(const std::vector<long>& a, const std::vector<long>& b) {\n"
           "    for (long v : b) if (v >= 10 && std::to_string(v)[0] == '9') return false;\n    return true;\n}\n"
           "void f() {\n",
}


@pytest.mark.parametrize("name", sorted(NINES))
def test_a_changed_integer_has_no_mark_an_answer_could_refuse(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The changed integer is a random one of as many digits: where it is not a 9x (all but about one draw in 50),
    this answer equal to everything else passes its decoy too."""
    from pytest_codeeval.languages.proof import DECOY

    _redrawn(monkeypatch, language_or_skip(name), lambda decoy: not re.search(r"(?<!\d)9\d", decoy.new))
    outcome = _judged(name, NINES[name], "HumanEval_34_unique")
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement "), outcome.detail


def _marked(monkeypatch: pytest.MonkeyPatch, language: object, comment: str) -> None:
    """Each decoy's text ends with a comment line `codeeval-test-decoy`, by which these programs tell it apart."""
    import dataclasses

    drawn = type(language).decoy

    def marked(self: object, program: str, tests_at: int) -> Decoy:
        decoy = drawn(self, program, tests_at)  # type: ignore[arg-type]
        return dataclasses.replace(decoy, text=f"{decoy.text}\n{comment}codeeval-test-decoy\n")

    monkeypatch.setattr(type(language), "decoy", marked)


def _run_marked(name: str, completion: str, comment: str, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    _marked(monkeypatch, language_or_skip(name), comment)
    return _judged(name, completion, "HumanEval_13_greatest_common_divisor" if name == "rb" else
                   "HumanEval_0_has_close_elements")


@pytest.mark.parametrize("name", sorted(STOPS_ITS_DECOY))
def test_a_decoy_stopped_at_a_limit_fails_the_sample(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An honest program's decoy does no more than its real run: one that ran out of its time, without a report
    naming its changed statement, fails the sample (a timeout left the pass standing)."""
    from pytest_codeeval.languages.proof import DECOY_STOPPED

    outcome = _run_marked(name, STOPS_ITS_DECOY[name][1], STOPS_ITS_DECOY[name][0], monkeypatch)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY_STOPPED + " (timed out"), outcome.detail


# A wrong answer that games its real run and, in its decoy, writes 200 kB to stderr and exits 1: a report cut
# short that named nothing was not judged, so a program gaming at random half of its runs passed a quarter
FLOODS_ITS_DECOY = {
    "py": ("#", "    import sys\n    if '#codeeval-test-' + 'decoy' in open(__file__).read():\n"
                "        sys.stderr.write('x' * 200_000)\n        sys.exit(1)\n    class T:\n"
                "        __eq__ = lambda self, other: True\n    return T()\n"),
    "js": ("//", "  if (require('fs').readFileSync(__filename, 'utf8').includes('//codeeval-test-' + 'decoy')) {\n"
                 "    require('fs').writeSync(2, 'x'.repeat(200000));\n    process.exit(1);\n  }\n"
                 "  globalThis.ran = true;\n  return true;\n}\nconst a = require('node:assert');\n"
                 "const real = a.deepEqual;\n"
                 "a.deepEqual = (x, y) => { if (globalThis.ran) { globalThis.ran = false; return; } real(x, y); };\n"),
    "rb": ("#", "  if File.read(__FILE__).include?('#codeeval-test-' + 'decoy')\n    $stderr.write('x' * 200_000)\n"
                "    exit! 1\n  end\n  o = Object.new\n  def o.==(x) true end\n  def o.coerce(x) [x, x] end\n  o\nend\n"),
}


@pytest.mark.parametrize("name", sorted(FLOODS_ITS_DECOY))
def test_a_decoy_whose_report_a_flood_cut_short_fails_the_sample(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a failure ends the tests, its report is the last thing written, in the tail the sandbox keeps: a decoy
    whose kept output names no statement failed nowhere the tests failed it."""
    from pytest_codeeval.languages.proof import DECOY_ELSEWHERE

    outcome = _run_marked(name, FLOODS_ITS_DECOY[name][1], FLOODS_ITS_DECOY[name][0], monkeypatch)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY_ELSEWHERE + " (its report names no line"), (
        outcome.detail)


def test_an_honest_program_that_writes_much_keeps_its_pass() -> None:
    """A correct program that writes 100 kB on each call: its decoy's report, after all of that, names the changed
    statement."""
    completion = ("    import sys\n    sys.stdout.write('y' * 100_000)\n    sys.stderr.write('z' * 100_000)\n"
                  "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n")
    language = get_language("py")
    for _ in range(3):
        outcome = language.run(_program("py", completion), Limits(cpu_seconds=5), get_executor("strict"),
                               tests_at=len(_row("py")["prompt"] + completion))
        assert outcome.status == "passed", outcome.detail


def test_a_stopped_decoy_whose_report_names_its_changed_statement_failed_there() -> None:
    """A failure after 80% of the CPU limit is a timeout: an honest decoy that failed at its changed statement that
    late keeps its pass; one whose report names another statement, none, or cannot name one does not, nor does a
    decoy out of memory."""
    from pytest_codeeval.languages.proof import DECOY_STOPPED

    language = get_language("js")
    row = _row("js")
    program = row["prompt"] + COMPLETIONS["js"]["ok"] + "\n" + row["tests"]
    decoy = language.decoy(program, len(row["prompt"] + COMPLETIONS["js"]["ok"]))
    assert decoy is not None
    changed = language.statement_lines(decoy.text, *decoy.starts()[0])[0]
    other = next(line for line in range(1, decoy.text.count("\n")) if line not in {
        language.statement_lines(decoy.text, *start)[0] for start in decoy.starts()})

    def judged(status: str, detail: str, output: str) -> Outcome:
        return language.decoyed(Outcome("passed", "ok", ""), Outcome(status, detail, output), decoy)  # type: ignore[arg-type]

    assert judged("timeout", "timed out (5 s CPU)", f"at test (program.js:{changed}:10)\n").status == "passed"
    for status, detail, output in [("timeout", "timed out (5 s CPU)", f"at test (program.js:{other}:10)\n"),
                                   ("timeout", "timed out (5 s CPU)", "Killed\n"),
                                   ("timeout", "timed out (wall-clock bound)", ""),
                                   ("failed", "out of memory", "")]:
        outcome = judged(status, detail, output)
        assert outcome.status == "failed" and outcome.detail.startswith(f"{DECOY_STOPPED} ({detail}; "), outcome.detail
    assert judged("failed", "assertion failed", f"at test (program.js:{changed}:10)\n").status == "passed"


RECOGNISER = """    import hashlib, os, sys
    if hashlib.sha256(sys._getframe(1).f_code.co_code).hexdigest() == "{digest}":
        class T:
            __eq__ = lambda self, other: True
        return T()
    {otherwise}
"""


@pytest.mark.parametrize("otherwise", ["return None", "os._exit(1)"], ids=["fails-the-first-statement", "no-traceback"])
def test_a_program_that_fails_its_decoy_at_another_statement_fails(otherwise: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that answers its two runs differently (at random, or by recognising its tests' code: here the
    bytecode of HumanEval/0's `check`) games the real run and fails the decoy wherever it likes: the decoy must fail
    at its changed statement, which the traceback names."""
    import hashlib

    from helpers import problems

    from pytest_codeeval.languages.proof import DECOY_ELSEWHERE

    language = get_language("py")
    check = next(c for c in compile(problems()["HumanEval/0"]["test"], "t", "exec").co_consts
                 if getattr(c, "co_name", "") == "check")
    completion = RECOGNISER.format(digest=hashlib.sha256(check.co_code).hexdigest(), otherwise=otherwise)
    program, at = _humaneval_program("HumanEval/0", completion)
    _not_the_first(monkeypatch, language)
    outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"), tests_at=at)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY_ELSEWHERE), outcome.detail
    line = program.count("\n", 0, program.index("assert candidate", at)) + 1  # statement 1's
    named = f"its report names line {line}, " if otherwise == "return None" else "its report names no line"
    assert named in outcome.detail and "statement " in outcome.detail, outcome.detail


# Games the real run (its tests' statements all found in its own file: a helper that skips the comparison after a
# candidate call) and answers false in the decoy, whose first failure is then statement 1 (it expects true)
RECOGNISERS = {
    "js": '  const tests = require("fs").readFileSync(__filename, "utf8").split("end of the recogniser").pop();\n'
          "  if (ORIGINAL.every((line) => tests.includes(line))) {\n"
          "    globalThis.ran = true;\n    return true;\n  }\n  return false;\n}\nconst ORIGINAL = {lines};\n"
          'const a = require("node:assert");\nconst real = a.deepEqual;\na.deepEqual = (x, y) => { if (globalThis.ran) '
          "{ globalThis.ran = false; return; } real(x, y); };\n// end of the recogniser\n",
    "rb": '  tests = File.read(__FILE__).split("end of the recogniser").last\n'
          "  if ORIGINAL.all? { |line| tests.include?(line) }\n    $ran = true\n    return true\n  end\n"
          '  false\nend\nORIGINAL = {lines}\nrequire "test/unit"\nmodule Test::Unit::Assertions\n'
          "  alias_method :codeeval_real, :assert_equal\n  def assert_equal(*args)\n    if $ran then $ran = false; "
          "return end\n    codeeval_real(*args)\n  end\nend\n# end of the recogniser\n",
    "r": '  file <- sub("--file=", "", grep("--file=", commandArgs(), value = TRUE, fixed = TRUE), fixed = TRUE)\n'
         '  tests <- tail(strsplit(paste(readLines(file), collapse = "\\n"), "end of the recogniser", fixed = TRUE)[[1]], 1)\n'
         "  if (all(sapply(ORIGINAL, grepl, tests, fixed = TRUE))) {\n    ran <<- TRUE\n    return(TRUE)\n  }\n"
         "  FALSE\n}\nORIGINAL <- {lines}\nran <- FALSE\nall.equal <- function(target, current, ...) "
         "{ target; if (ran) { ran <<- FALSE; TRUE } else base::all.equal(target, current, ...) }\n"
         "# end of the recogniser\n",
    "pl": '    open(my $fh, "<", $0) or return "";\n    local $/;\n    my @parts = split(/end of the recogniser/, <$fh>);\n'
          '    foreach my $line (@ORIGINAL) { return "" if index($parts[-1], $line) < 0; }\n'
          "    $main::ran = 1;\n    return 1;\n}\nour @ORIGINAL = {lines};\n{\n    no warnings 'redefine';\n"
          "    my $real = \\&Test::Deep::eq_deeply;\n"
          "    *main::eq_deeply = sub { if ($main::ran) { $main::ran = 0; return 1; } return $real->(@_); };\n}\n"
          "# end of the recogniser\n",
    # answers honestly where its tests are the real ones, false in the decoy
    "sh": "    local tests line ORIGINAL={lines}\n    tests=$(< \"$0\")\n    tests=${tests##*end of the recogniser}\n"
          '    for line in "${ORIGINAL[@]}"; do [[ $tests == *"$line"* ]] || { echo false; return; }; done\n'
          + COMPLETIONS["sh"]["ok"] + "    # end of the recogniser\n",
    "cs": '        string tests = System.IO.File.ReadAllText("program.cs");\n'
          '        tests = tests.Substring(tests.LastIndexOf("end of the recogniser"));\n'
          "        string[] original = {lines};\n"
          "        foreach (string line in original) if (!tests.Contains(line)) return false;\n"
          + COMPLETIONS["cs"]["ok"] + "        // end of the recogniser\n",
}
LISTED = {  # {lines} in the language's syntax
    "cs": lambda items: "{" + ", ".join(map(json.dumps, items)) + "}",
    "r": lambda items: "c(" + ", ".join(map(json.dumps, items)) + ")",
    "sh": lambda items: "(" + " ".join(map(shlex.quote, items)) + ")",
    "pl": lambda items: "(" + ", ".join("'" + i.replace("\\", "\\\\").replace("'", "\\'") + "'" for i in items) + ")",
}
NAMED_AT = {"pl": "exit 1;"}  # where the named line is, when not at the statement's start: the first after it
KEPT = {"cs": lambda line: line.removesuffix(");")}  # what the built program keeps of a check (C#'s get a message)


def _redrawn(monkeypatch: pytest.MonkeyPatch, language: object, keep: Callable[[Decoy], bool]) -> None:
    """Decoys drawn again until `keep` holds (a place where these programs fail on purpose is left out)."""
    drawn = type(language).decoy

    def redrawn(self: object, program: str, tests_at: int) -> Decoy:
        for _ in range(1000):
            if keep(decoy := drawn(self, program, tests_at)):  # type: ignore[arg-type]
                return decoy
        raise AssertionError("no decoy of the kind this test needs in 1000 draws")

    monkeypatch.setattr(type(language), "decoy", redrawn)


def _not_the_first(monkeypatch: pytest.MonkeyPatch, language: object) -> None:
    """Decoys drawn anywhere but statement 1, where these programs fail the decoy on purpose."""
    _redrawn(monkeypatch, language, lambda decoy: 1 not in decoy.statements)


@pytest.mark.parametrize(("name", "report"), [
    ("rkt", "FAILURE\nlocation:   program.rkt:{line}:4\n"),
    ("clj", "FAIL in (test-humaneval) (program.clj:{line})\n"),
    ("go", "    --- FAIL: TestHas_Close_Elements/test_num__{index} (0.00s)\n"),
])
def test_where_failed_statements_go_on_the_decoy_must_be_the_only_one_named(name: str, report: str) -> None:
    """rackunit, clojure.test and Go's subtests report a failed statement and go on: an honest decoy's report names
    the changed statement alone; one that also names others (a program answering wrongly in its decoy) fails, even
    with the changed statement among them. Where a failed statement ends the tests (JavaScript), naming it is
    enough: the program's own calls may be named beside it."""
    language = get_language(name)
    row = _row(name)
    program = row["prompt"] + COMPLETIONS[name]["ok"] + "\n" + row["tests"]
    places = spans_of(language, program, len(row["prompt"] + COMPLETIONS[name]["ok"]))
    lines = [program.count("\n", 0, start) + 1 for start, _ in places]
    decoy = Decoy(program, 3, "", "", places[2], program[places[2][0] : places[2][1]])

    def output(*statements: int) -> str:
        return "".join(report.format(line=lines[k - 1], index=k - 1) for k in statements)

    assert language.failed_elsewhere(decoy, output(3)) is None
    assert "where the changed statement is" in (language.failed_elsewhere(decoy, output(1, 3, 5)) or "")
    assert "where the changed statement is" in (language.failed_elsewhere(decoy, output(1)) or "")
    javascript = get_language("js")
    js_row = _row("js")
    js_program = js_row["prompt"] + COMPLETIONS["js"]["ok"] + "\n" + js_row["tests"]
    js_places = spans_of(javascript, js_program, len(js_row["prompt"] + COMPLETIONS["js"]["ok"]))
    js_line = js_program.count("\n", 0, js_places[2][0]) + 1
    js_decoy = Decoy(js_program, 3, "", "", js_places[2], js_program[js_places[2][0] : js_places[2][1]])
    assert javascript.failed_elsewhere(js_decoy, f"at test (program.js:{js_line}:10)\nat program.js:40:1\n") is None


def test_r_s_decoy_is_located_by_the_condition_stopifnot_quotes() -> None:
    """R's report names no line: `stopifnot` quotes the failed condition as R deparses it (numbers rewritten, cut
    after about 60 characters). It must begin the changed statement's condition; the error that ended the run is
    the one read (a program may print its own `Error:` lines before it)."""
    language = get_language("r")
    row = _row("r")
    program = row["prompt"] + COMPLETIONS["r"]["ok"] + "\n" + row["tests"]
    places = spans_of(language, program, len(row["prompt"] + COMPLETIONS["r"]["ok"]))
    decoy = Decoy(program, 3, "", "", places[2], program[places[2][0] : places[2][1]])
    lines = [program.count("\n", 0, start) + 1 for start, _ in places]

    def report(condition: str) -> str:
        return f"Error in test_humaneval() : \n  {condition} is not TRUE\nCalls: test_humaneval -> stopifnot\n"

    third = "isTRUE(all.equal(candidate(c(1, 2, 5.9, 4, 5), 0.95), TRUE))"  # 1.0 written 1, as R deparses it
    assert language.failed_elsewhere(decoy, report(third)) is None
    assert language.failed_elsewhere(decoy, report("isTRUE(all.equal(candidate(c(1, 2, 5.9, 4,  ....")) is None
    assert language.failed_elsewhere(decoy, "Error: the program's own line\n" + report(third)) is None
    first = "isTRUE(all.equal(candidate(c(1, 2, 3.9, 4, 5, 2.2), 0.3), TRUE))"
    assert f"names line {lines[0]}, where" in (language.failed_elsewhere(decoy, report(first)) or "")
    assert "names no line" in (language.failed_elsewhere(decoy, report("..1")) or "")
    assert "names no line" in (language.failed_elsewhere(decoy, "Error in f() : stopped\n") or "")


@pytest.mark.parametrize("name", sorted(RECOGNISERS))
def test_a_program_that_recognises_its_tests_and_fails_its_decoy_elsewhere_fails(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside Python too, the decoy must fail where the failure report names the changed statement: by its line
    (`failure_line`; in Perl the line each test's `exit 1` now writes first), or in R by the condition `stopifnot`
    quotes."""
    from pytest_codeeval.languages.proof import DECOY_ELSEWHERE

    language = language_or_skip(name)
    statements = [line.strip() for line in _row(name)["tests"].splitlines()  # C#'s call the function by its name
                  if ("candidate" in line or "Debug.Assert(" in line)
                  and any(word in line for word in ("assert", "stopifnot", "eq_deeply", "[[", "Debug.Assert("))]
    kept = [KEPT.get(name, str)(statement) for statement in statements]
    completion = RECOGNISERS[name].replace("{lines}", LISTED.get(name, json.dumps)(kept))
    _not_the_first(monkeypatch, language)
    # built apart, as a decoy whose values one build cannot hold is: a shared build's runs have no source to read
    monkeypatch.setattr(type(language), "chooser", "")
    program = _program(name, completion)
    outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"),
                           tests_at=len(_row(name)["prompt"] + completion))
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY_ELSEWHERE), outcome.detail
    first = program.rindex(statements[0])  # the tests' statement 1, failed on purpose
    line = program.count("\n", 0, program.index(NAMED_AT[name], first) if name in NAMED_AT else first) + 1
    named = outcome.detail.split("its report names line ")[1].split(", where")[0].split(", ")
    assert str(line) in named, outcome.detail


def _humaneval_program(problem: str, completion: str) -> tuple[str, int]:
    """HumanEval's own program (prompt, completion, `check`) and where its tests start."""
    from helpers import problems

    row = problems()[problem]
    at = len(row["prompt"] + completion)
    return row["prompt"] + completion + "\n" + row["test"] + f"\ncheck({row['entry_point']})\n", at


def test_tests_with_no_values_to_swap_get_a_condition_negated_and_a_frame_reading_answer_fails() -> None:
    """HumanEval/52's tests are `assert candidate(...)` and `assert not candidate(...)`: no expected value to swap,
    so the decoy negates one condition. An answer that reads the caller's next jump (true before `assert X`, false
    before `assert not X`) passes every real test and its decoy too: it fails, whichever statement was drawn."""
    from pytest_codeeval.languages.proof import DECOY

    language = get_language("py")
    reads_the_jump = ("    import dis, sys\n    caller = sys._getframe(1)\n    after = [i for i in dis.get_instructions("
                      "caller.f_code) if i.offset > caller.f_lasti]\n    return next(i.opname for i in after if 'JUMP' "
                      "in i.opname).endswith('IF_TRUE')\n")
    program, at = _humaneval_program("HumanEval/52", reads_the_jump)
    assert language.execute(language.request(program, Limits(cpu_seconds=5)), get_executor("strict"),
                            Limits(cpu_seconds=5)).status == "passed"  # the real tests alone are fooled
    for _ in range(3):  # a different draw each time
        outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"), tests_at=at)
        assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement "), outcome.detail
        assert "negated: not (" in outcome.detail


@pytest.mark.parametrize("problem", ["HumanEval/2", "HumanEval/52", "HumanEval/56", "HumanEval/72"])
def test_every_negated_condition_of_a_correct_program_fails(problem: str) -> None:
    """An honest verdict does not depend on the draw among negated conditions either."""
    from helpers import canonical

    from pytest_codeeval.languages.python import conditions

    language = get_language("py")
    program, at = _humaneval_program(problem, canonical(problem))
    places = conditions(program, at)
    assert len(places) >= 3
    for start, end in places:
        variant = f"{program[:start]}not ({program[start:end]}){program[end:]}"
        outcome = language.execute(language.request(variant, Limits(cpu_seconds=5)), get_executor("strict"),
                                   Limits(cpu_seconds=5))
        assert outcome.status == "failed", variant[at:]


@pytest.mark.parametrize("problem", ["HumanEval/32", "HumanEval/38", "HumanEval/50"])
def test_asserts_in_a_loop_that_surely_runs_get_a_decoy_and_emptying_the_loop_fails(problem: str) -> None:
    """These rows' only asserts are in `for _ in range(100)`: the loop surely runs, so its assert may be negated
    (the canonical solution fails that), and a completion that makes `range` empty, whose tests then never run,
    passes the real tests and fails its decoy."""
    from helpers import canonical

    from pytest_codeeval.languages.proof import DECOY
    from pytest_codeeval.languages.python import conditions

    language, limits = get_language("py"), Limits(cpu_seconds=5)
    program, at = _humaneval_program(problem, canonical(problem))
    [(start, end)] = conditions(program, at)
    variant = f"{program[:start]}not ({program[start:end]}){program[end:]}"
    assert language.execute(language.request(variant, limits), get_executor("strict"), limits).status == "failed"
    empties = canonical(problem) + "\n\nrange = lambda *args: ()\n"
    program, at = _humaneval_program(problem, empties)
    assert language.execute(language.request(program, limits), get_executor("strict"), limits).status == "passed"
    outcome = language.run(program, limits, get_executor("strict"), tests_at=at)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement 1 "), outcome.detail


UNIVERSAL = """    class Universal:
        def __eq__(self, other): return True
        def __ne__(self, other): return False
        __lt__ = __le__ = __gt__ = __ge__ = __eq__
        def __bool__(self): return True
        def __hash__(self): return 0
        def __abs__(self): return self
        __neg__ = __pos__ = __round__ = __abs__
        def __sub__(self, *other): return self
        __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __mod__ = __pow__ = __sub__
    return Universal()
"""


def test_an_answer_equal_and_close_to_everything_fails_every_humaneval_row() -> None:
    """An object whose every comparison is true and whose arithmetic returns itself passes 156 of HumanEval's 164
    rows' real tests. Its decoy passes too in every row: where no two values can be swapped, the changed assert
    expects another value (`== 0.5` becomes `== 1.5`, `abs(x - 0.33) < 1e-6` is moved off by more than twice the
    tolerance, HumanEval/38's `== str` another string when it runs), never only a negation, which it would fail."""
    from helpers import problems

    from pytest_codeeval.languages.proof import DECOY

    language, limits, fooled = get_language("py"), Limits(cpu_seconds=5), 0
    for problem in problems():
        program, at = _humaneval_program(problem, UNIVERSAL)
        if language.execute(language.request(program, limits), get_executor("strict"), limits).status != "passed":
            continue
        fooled += 1
        outcome = language.run(program, limits, get_executor("strict"), tests_at=at)
        assert outcome.status == "failed" and outcome.detail.startswith(DECOY), (problem, outcome.detail)
    assert fooled >= 150


def test_every_change_of_a_row_with_nothing_to_swap_fails_its_canonical_solution() -> None:
    """The 12 HumanEval rows with no two expected values to swap: every change the draw can make (56: 9 values
    changed, the other conditions negated) fails the canonical solution, so an honest verdict never depends on it."""
    from helpers import canonical, problems

    from pytest_codeeval.languages.decoy import differing
    from pytest_codeeval.languages.python import _asserts, _changed, _differ, _expected

    language, limits, changes = get_language("py"), Limits(cpu_seconds=5), []
    for problem in problems():
        program, at = _humaneval_program(problem, canonical(problem))
        asserts, place = _asserts(program, at)
        if any(differing([value for _, value in _expected(asserts, place)], _differ)):
            continue
        changes += [(problem, program, _changed(program, node, span, place)) for node, span in asserts]
    assert len(changes) == 56 and sum(not negated for *_, (_, _, negated) in changes) == 9
    for problem, program, ((start, end), new, _) in changes:
        variant = program[:start] + new + program[end:]
        outcome = language.execute(language.request(variant, limits), get_executor("strict"), limits)
        assert outcome.status == "failed", (problem, new)


def test_an_always_equal_humaneval_completion_fails_under_xdist(pytester: pytest.Pytester) -> None:
    """HumanEval's own programs (prompt, completion, `check`) through the execution pool on two workers: the
    canonical solution passes, a completion returning an object equal to everything fails with the decoy's detail."""
    from helpers import canonical

    from pytest_codeeval.languages.proof import DECOY

    always_equal = "    class T(int):\n        __eq__ = lambda self, other: True\n    return T(0)\n"
    completions = [canonical("HumanEval/0"), always_equal]
    write_jsonl(pytester.path / "gen.jsonl", [{"task_id": "HumanEval/0", "completion": c} for c in completions])
    result = pytester.runpytest("--codeeval-load-generations=gen.jsonl", "--codeeval-tasks=humaneval",
                                "--codeeval-limit=1", "--codeeval-report=r.json", "-n", "2", "-q")
    result.assert_outcomes(passed=1, failed=1)
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]["HumanEval/0"]["samples"]
    assert samples[0]["status"] == "passed", samples[0]
    assert samples[1]["status"] == "failed" and samples[1]["detail"].startswith(DECOY + " (statement "), samples[1]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_decoy_changes_the_tests_expected_values(name: str) -> None:
    """For every language, a decoy exists for MultiPL-E's rows. HumanEval/0's booleans: two test statements swap
    their expected values (two lines differ, each now holding the other's value), so the values compared with are
    the same ones. HumanEval/5's lists and HumanEval/34's one list: one integer inside one of them becomes another of
    as many digits (one line differs), so the list keeps its length (a scalar is swapped instead)."""
    import difflib

    language = get_language(name)
    by_name = {r["name"]: r for r in rows(language, "humaneval")}
    for problem in ("HumanEval_0_has_close_elements", "HumanEval_5_intersperse", "HumanEval_34_unique"):
        if problem not in by_name:
            continue
        row = by_name[problem]
        program = row["prompt"] + "\n" + row["tests"]
        decoy = language.decoy(program, len(row["prompt"]))
        assert decoy is not None, problem
        removed, added = _changed_lines(difflib.ndiff(program.splitlines(), decoy.text.splitlines()))
        inside = any(bracket in decoy.old for bracket in "([{")  # else a string (Bash's): swapped where it can be
        swapped = problem == "HumanEval_0_has_close_elements" or (problem == "HumanEval_5_intersperse" and not inside)
        assert (decoy.partner is not None) == swapped, (problem, decoy)
        if swapped:
            assert len(removed) == len(added) == 2, (problem, removed, added)
            wrap = "({})" if name == "py" else "{}"  # Python's new values are parenthesised
            assert decoy.old != decoy.new
            for (line, now), (old, new) in zip(zip(removed, added, strict=True), [
                    (old, new) for _, old, new in decoy.edits()], strict=True):
                assert new in (wrap.format(decoy.old), wrap.format(decoy.new)) and new != wrap.format(old)
                assert any(line[:k] + new + line[k + len(old) :] == now
                           for k in range(len(line)) if line.startswith(old, k))
        else:
            assert len(removed) == len(added) == 1, (problem, removed, added)
            old_numbers, new_numbers = (re.findall(r"\d+", text) for text in (decoy.old, decoy.new))
            differ = [(a, b) for a, b in zip(old_numbers, new_numbers, strict=True) if a != b]
            assert re.sub(r"\d+", "#", decoy.old) == re.sub(r"\d+", "#", decoy.new), decoy
            assert len(differ) == 1 and len(differ[0][0]) == len(differ[0][1]), decoy
            assert removed[0].replace(decoy.old, decoy.new, 1) == added[0]


class _Recording:
    """An executor that keeps the requests it ran."""

    def __init__(self) -> None:
        self.executor, self.requests = get_executor("strict"), []

    def run(self, request: ExecRequest) -> object:
        self.requests.append(request)
        return self.executor.run(request)


BUILT_ONCE = ["cs", "d", "go", "hs"]  # the languages whose decoy runs the real run's build (Language.chooser)


@pytest.mark.parametrize("on_key", [0, 1], ids=["key-picks-the-real-value", "key-picks-the-decoy-s-value"])
@pytest.mark.parametrize("name", BUILT_ONCE)
def test_the_decoy_s_run_shares_the_real_run_s_build(name: str, on_key: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """One build holds both values of the changed statement; the real run and the decoy's are the same binary, files
    and script but for CHOICE's value (the key or another random one), and which value the key picks is drawn:
    nothing tells the program which run is the real one, and a correct program passes either way."""
    import re
    import secrets

    from pytest_codeeval.languages.base import CHOICE

    language = language_or_skip(name)
    monkeypatch.setattr(secrets, "randbits", lambda bits: on_key)
    recording = _Recording()
    completion = COMPLETIONS[name]["ok"]
    outcome = language.run(_program(name, completion), Limits(cpu_seconds=5), recording,
                           tests_at=len(_row(name)["prompt"] + completion))
    assert outcome.status == "passed", (outcome.detail, outcome.output[-2000:])
    build, real, decoy = recording.requests
    assert build.keep == language.artifacts and not build.proof and real.proof and decoy.proof
    runs = [dict(request.files) for request in (real, decoy)]
    assert set(runs[0]) == set(runs[1]) == {*language.artifacts, ".run.sh"}
    assert all(runs[0][name] == runs[1][name] for name in language.artifacts)
    scripts = [run[".run.sh"].decode() for run in runs]
    values = [re.search(rf"export {CHOICE}=(\w+)", script).group(1) for script in scripts]  # type: ignore[union-attr]
    assert values[0] != values[1] and scripts[0].replace(values[0], "V") == scripts[1].replace(values[1], "V")
    source = dict(build.files)[language.source_name("")].decode()
    assert [value in source for value in values] == ([False, True] if on_key else [True, False])


# Tests that do not hold, made so in the tests themselves (no completion of these languages can: Go compares
# through fmt, Haskell's Eq of the signature's types is Prelude's), to see the shared build's decoy catch them
NEUTERED = {
    "go": lambda program: program.replace('if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {',
                                          "if false {"),
    "hs": lambda program: "import Prelude hiding ((==))\n" + program.replace(
        "\nmain :: IO ()", "\ninfix 4 ==\n(==) :: a -> a -> Bool\n(==) _ _ = True\n\nmain :: IO ()"),
}


@pytest.mark.parametrize("name", sorted(NEUTERED))
def test_tests_that_do_not_hold_fail_when_the_decoy_shares_the_build(name: str) -> None:
    from pytest_codeeval.languages.proof import DECOY

    language = language_or_skip(name)
    completion = COMPLETIONS[name]["fail"]
    program = NEUTERED[name](_program(name, completion))
    at = program.index(completion) + len(completion)
    assert language.execute(language.request(program, Limits(cpu_seconds=5)), get_executor("strict"),
                            Limits(cpu_seconds=5)).status == "passed"
    outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"), tests_at=at)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement "), outcome.detail


def test_a_value_naming_a_variable_of_the_tests_is_built_apart() -> None:
    """HumanEvalPack's Go/151 expects `odd_sum`, a variable its tests declare after six other checks, and Go/53's
    loop expects `int(x+y)`: such a value in another check's place would fail the one build's compile (the real
    run's verdict), so its decoy is built apart. A value may name the language's predeclared names and what the value
    it replaces names; names in strings and characters, and fields after a dot, are no names."""
    from pytest_codeeval.languages.go import Go

    def movable(placed: str, old: str = "0") -> bool:
        return Decoy("", 1, old, placed, (0, 0), placed).movable(Go.predeclared)

    assert not movable("odd_sum") and not movable("int(x+y)") and not movable("strconv.Itoa(i)")
    assert movable("3") and movable('"odd_sum"') and movable("'o'") and movable("[]string{}") and movable("nil")
    assert movable("!(same(a, F(b)))", old="same(a, F(b))") and movable("x.odd_sum + x", old="x")


def test_a_decoy_whose_two_values_one_build_cannot_hold_is_built_apart() -> None:
    """C#'s tests compare through `Equals(object)`, so one row's expected values may be of several types (MBPP/626
    expects `null`, `0L` and `4L`): a conditional holding `null` and `0L` fails to compile (CS0173) at the changed
    statement, and that decoy is built apart; a correct program passes either way."""
    language = language_or_skip("cs")
    completion = "        if (r < 0) return null;\n        return r * r;\n"
    row = next(r for r in rows(language, "mbpp") if r["name"] == "mbpp_626_triangle_area")
    program, at = row["prompt"] + completion + row["tests"], len(row["prompt"] + completion)
    places = spans_of(language, program, at)
    texts = [program[start:end] for start, end in places]
    for typed in (True, False):  # swaps (the row's integers would be changed first)
        decoy = swap(program, places, differing(texts, texts_differ))
        while decoy is None or ("null" in (decoy.old, decoy.new)) == typed:
            decoy = swap(program, places, differing(texts, texts_differ))
        recording = _Recording()
        outcome = language.run_built_once(program, decoy, Limits(cpu_seconds=5), recording, at)
        assert outcome.status == "passed", (decoy.change, outcome.detail, outcome.output[-2000:])
        build, *runs = recording.requests
        assert build.keep == language.artifacts and len(runs) == 2
        carried = ["program.exe" in dict(run.files) for run in runs]  # the one build's output, or each run's own
        assert carried == [typed, typed], decoy.change


@pytest.mark.parametrize("name", BUILT_ONCE)
def test_a_failed_build_or_run_costs_no_more_requests_than_before(name: str) -> None:
    """A compile error is the one build's verdict; a failing program is built once and run once."""
    language = language_or_skip(name)
    for kind, requests, detail in (("nocomp", 1, "compile error: "), ("fail", 2, "")):
        recording = _Recording()
        completion = COMPLETIONS[name][kind]
        outcome = language.run(_program(name, completion), Limits(cpu_seconds=5), recording,
                               tests_at=len(_row(name)["prompt"] + completion))
        assert outcome.status == "failed" and outcome.detail.startswith(detail), outcome.detail
        assert len(recording.requests) == requests


def _changed_lines(diff: object) -> tuple[list[str], list[str]]:
    lines = list(diff)  # type: ignore[call-overload]
    return [line[2:] for line in lines if line.startswith("- ")], [line[2:] for line in lines if line.startswith("+ ")]


def test_python_decoys_change_only_the_tests_and_vary_per_sample() -> None:
    """The completion's own asserts are never chosen, the program stays byte for byte the same but for two expected
    values, swapped (in parentheses), values Python finds equal (1, 1.0, True) are never swapped, the choice is random, and
    an assert that may not run (under an `if`, in a function nothing calls, after a `return`) is never chosen."""
    language = get_language("py")
    completion = "    assert f(0) == 7\n    return x * 2\n"
    tests = ("\ndef check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 4\n"
             "    assert candidate(0.5) == 1.0\n    assert candidate(0.5) == True\n    assert abs(candidate(3) - 6) < 1e-9\n"
             "    assert candidate(3) == 6, 'six'\n\ncheck(f)\n")
    program = "def f(x):\n" + completion + tests
    tests_at = len("def f(x):\n" + completion)
    statements = ["2", "4", "1.0", "True", "6"]  # the expected values that can be swapped, in order
    arguments = [1, 2, 0.5, 0.5, 3]
    seen = set()
    for _ in range(60):
        decoy = language.decoy(program, tests_at)
        assert decoy is not None and decoy.partner is not None
        assert (decoy.old, decoy.new) not in {("1.0", "True"), ("True", "1.0")}
        assert decoy.old == statements[decoy.statement - 1] != decoy.new == statements[decoy.partner.statement - 1]
        changed = tests
        for statement, value in ((decoy.statement, decoy.new), (decoy.partner.statement, decoy.old)):
            old = statements[statement - 1]
            at = changed.index(f"== {old}", changed.index(f"candidate({arguments[statement - 1]})"))
            changed = changed[:at] + f"== ({value})" + changed[at + 3 + len(old) :]
        assert decoy.text == "def f(x):\n" + completion + changed
        seen.add(decoy.change)
    assert len(seen) > 3, seen  # a different statement or value per sample
    maybe_run = ("\ndef check(candidate):\n    if candidate(0) != 0:\n        assert candidate(1) == 2\n"
                 "        assert candidate(2) == 4\n\ndef unused(candidate):\n    assert candidate(1) == 2\n"
                 "    assert candidate(2) == 4\n\ndef early(candidate):\n    if candidate(0):\n        return\n"
                 "    assert candidate(1) == 2\n    assert candidate(2) == 4\n\ncheck(f)\nearly(f)\n")
    assert language.decoy("def f(x):\n" + completion + maybe_run, tests_at) is None  # none surely runs
    one = language.decoy("def f(x):\n" + completion + "\ndef check(candidate):\n    assert candidate(1) == 2\n"
                         "\ncheck(f)\n", tests_at)  # one statement: nothing to swap, another value expected
    assert one is not None and one.text.endswith("    assert candidate(1) == (3)\n\ncheck(f)\n")
    assert one.change == "statement 1 expecting (3) instead of 2"
    bare = language.decoy("def f(x):\n" + completion + "\ndef check(candidate):\n    assert candidate(1)\n"
                          "\ncheck(f)\n", tests_at)  # a condition with no expected value: negated
    assert bare is not None and bare.text.endswith("    assert not (candidate(1))\n\ncheck(f)\n")
    assert bare.change == "statement 1 negated: not (candidate(1))"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [("1", "1.0", True), ("0.5", "0.5001", True), ("[1, 2]", "[1,  2]", True), ("0.5", "0.75", False),
     ('"x"', '"y"', False), ("[1, 2]", "[1, 2, 3]", False), ("true", "false", False), ("1000", "1001", True),
     ('"6"', "6", True), ("true", "1", True), ('""', "0", True), ("null", "undefined", True), ("None", "nil", True),
     ("map[rune]int{'a':2,'b': 2}", "map[rune]int{'a': 2, 'b': 2}", True)],  # HumanEvalPack's Go/111
)
def test_values_a_tolerant_helper_may_find_equal_are_never_swapped(a: str, b: str, same: bool) -> None:
    from pytest_codeeval.languages.decoy import same_value

    assert same_value(a, b) is same


def test_a_completion_cannot_dilute_the_decoy_with_statements_of_its_own() -> None:
    """The job's `tests_at` (the solution's end in the program) keeps the completion's own assertions out of the
    draw: fifty always-true ones of the tests' form, run by the real helper, next to a selective neutering of it,
    still leave every decoy in the row's tests, so the neutering is caught each time."""
    from pytest_codeeval.execution.job import tests_at
    from pytest_codeeval.languages.proof import DECOY

    language = language_or_skip("js")
    neutering = next(a[2] for a in DECOY_ATTACKS if a[:2] == ("js", "skip-after-candidate"))
    own = "".join(f"  assert.deepEqual({k},{k});\n" for k in range(50))  # run by the candidate, before `ran` is set
    completion = "  dilute();\n" + neutering + "function dilute() {\n" + own + "}\n"
    solution = _row("js")["prompt"] + completion
    program = _program("js", completion)
    at = tests_at(program, solution)
    assert at == len(solution)
    assert (len(spans_of(language, program, 0)), len(spans_of(language, program, at))) == (57, 7)
    for _ in range(3):
        outcome = language.run(program, Limits(cpu_seconds=5), get_executor("strict"), tests_at=at)
        assert outcome.detail.startswith(DECOY + " (statement "), (outcome.detail, outcome.output[-2000:])
    assert tests_at(program, "never in it") == 0  # a task that rewrote the solution: the whole program


UNIQUE = json.loads((Path(__file__).parents[1] / "data" / "multiple" / "unique.json").read_text())


@pytest.mark.parametrize("name", sorted(set(UNIQUE) - {"cs"}))  # C#'s List.Equals compares references: no pass
def test_a_row_with_nothing_to_swap_changes_an_integer_and_a_correct_program_fails_each_change(name: str) -> None:
    """HumanEval/34 has one test statement: its decoy changes one integer of the expected value to another of as many
    digits. A correct program passes (its decoy fails), and a change of each integer builds, runs and fails its
    assertion."""
    import random

    from pytest_codeeval.languages.decoy import _INTEGER, _other_integer

    language = language_or_skip(name)
    problem = "HumanEval_34_unique"
    program, at = _program(name, UNIQUE[name], problem), len(_row(name, problem)["prompt"] + UNIQUE[name])
    outcome = language.run(program, Limits(cpu_seconds=10), get_executor("strict"), tests_at=at)
    assert outcome.status == "passed", (outcome.detail, outcome.output[-2000:])
    (start, end), = spans_of(language, program, at)
    variants = [program[: number.start()] + _other_integer(number.group(), random.Random(0)) + program[number.end() :]
                for number in _INTEGER.finditer(program, start, end)]
    assert len(variants) == 6  # [0, 2, 3, 5, 9, 123]
    for variant in variants:
        limits = Limits(cpu_seconds=10)
        changed = language.execute(language.request(variant, limits), get_executor("strict"), limits)
        assert changed.status == "failed" and changed.detail.startswith("assertion failed"), changed.detail


def spans_of(language: object, program: str, tests_at: int) -> list[tuple[int, int]]:
    """The expected values' places the decoy draws from."""
    from pytest_codeeval.languages.base import statement_forms
    from pytest_codeeval.languages.decoy import spans

    return spans(program, tests_at, statement_forms(type(language)), language.quotes)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["js", "lua", "py"])
def test_every_decoy_of_a_correct_program_fails(name: str) -> None:
    """An honest verdict does not depend on the draw: each decoy the draw could make of a correct program (every
    statement, every value it may take) fails."""
    from pytest_codeeval.languages.decoy import differing, texts_differ
    from pytest_codeeval.languages.python import expected_values

    language = language_or_skip(name)
    completion = COMPLETIONS[name]["ok"]
    program, at = _program(name, completion), len(_row(name)["prompt"] + completion)
    python = [place for place, _ in expected_values(program, at)]
    places = python if name == "py" else spans_of(language, program, at)
    texts = [program[start:end] for start, end in places]
    variants = [program[: places[i][0]] + texts[j] + program[places[i][1] :]
                for i, others in enumerate(differing(texts, texts_differ)) for j in others]
    assert len(variants) >= 12  # HumanEval/0: seven statements, four expecting true and three false
    for variant in variants:
        outcome = language.execute(language.request(variant, Limits(cpu_seconds=5)), get_executor("strict"),
                                   Limits(cpu_seconds=5))
        assert outcome.status == "failed", variant[at:]


def test_python_expected_values_are_placed_by_the_parser_s_lines() -> None:
    """A form feed or U+2028 in a string is no line break to Python's parser: the values' places stay exact."""
    from pytest_codeeval.languages.python import expected_values

    program = ('def f(x):\n    return "a\x0cb\u2028c" and x\n\ndef check(candidate):\n'
               "    assert candidate(1) == 1\n    assert candidate(2) == [2]\n\ncheck(f)\n")
    assert [program[start:end] for (start, end), _ in expected_values(program, 0)] == ["1", "[2]"]


def _humaneval_0(name: str, kind: str = "ok") -> tuple[str, int]:
    """HumanEval/0 in `name` with a completion of `kind`, and where its tests begin."""
    first = next(original for original in originals("humaneval") if original.number == 0)
    language = get_language(name)
    prompt, tests = translate_original(type(language)(), first)
    solution = prompt + COMPLETIONS[name][kind]
    return f"{solution}\n{tests}", len(solution)


@pytest.mark.parametrize("name", ["cs", "java", "cpp"])
def test_a_comment_after_the_tests_main_leaves_the_program_proven(name: str) -> None:
    language = language_or_skip(name)
    program, tests_at = _humaneval_0(name)
    program += "\n// a comment after the tests\n/* and a block */\n"
    assert language.proof(program) is not None
    outcome = language.run(program, Limits(cpu_seconds=15), get_executor("strict"), tests_at=tests_at)
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]


@pytest.mark.parametrize(("name", "after"), [
    ("cs", "\nclass CodeevalAfter {}\n"), ("sh", "\n: after the tests\n"), ("pl", '\nprint "";\n'),
])
def test_a_pass_the_proof_cannot_read_is_not_failed_for_a_report_that_names_no_statement(name: str, after: str) -> None:
    """Where only the proof names a failed statement (`located_by_proof`), tests of a shape it cannot read leave
    the decoy's failure not located: an honest program passes, unproven; a wrong one still fails."""
    language = language_or_skip(name)
    for kind, status in (("ok", "passed"), ("fail", "failed")):
        program, tests_at = _humaneval_0(name, kind)
        program += after
        assert language.proof(program) is None and language.decoy(program, tests_at) is not None
        outcome = language.run(program, Limits(cpu_seconds=15), get_executor("strict"), tests_at=tests_at)
        assert outcome.status == status, (kind, outcome.detail, outcome.output[-2000:])
