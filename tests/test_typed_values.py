"""Typed translators' values: MultiPL-E's text where it compiles, the typed value where its text does not (its
`Just (Nothing)` in Haskell, `(~1)` in OCaml, ".0" glued to a negative int); Swift's type-directed values (Result,
the enum `Value`, `[] as [T]`); checked on small made-up problems. And Swift's runner, which cannot run here, on
made-up sandbox results."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.base import BUILD_FAILED, MARK
from pytest_codeeval.languages.translate import translate
from pytest_codeeval.sandbox.api import ExecResult, Limits


def _tests(name: str, signature: str, *asserts: str) -> list[str]:
    prompt = f'def f({signature}:\n    """Doc."""\n'
    checks = "def check(candidate):\n" + "".join(f"    assert {line}\n" for line in asserts)
    return translate(get_language(name), prompt, checks, "f")[1].splitlines()


@pytest.mark.parametrize(
    ("name", "signature", "check", "line"),
    [
        # MultiPL-E's own text: a float list written without a point gets ".0" after its last item only
        ("hs", "x: List[float]) -> float", "candidate([1, 2, 3]) == 1.5", "candidate [1,2,3.0] == 1.5"),
        ("hs", "x: List[float]) -> float", "candidate([1.5, -2]) == -1.5", "candidate [1.5,(-2)] == -1.5"),
        ("hs", "x: int) -> Optional[int]", "candidate(-3) == -9", "candidate (-3) == Just ((-9))"),
        ("hs", "x: Tuple[int, str]) -> float", "candidate((1, 'a')) == 2", 'candidate (1, "a") == 2.0'),
        # where MultiPL-E's text does not compile
        ("hs", "x: int) -> Optional[int]", "candidate(1) == None", "candidate 1 == Nothing"),
        ("hs", "x: List[float]) -> float", "candidate([]) == -1", "candidate [] == (-1.0)"),
        ("hs", "x: List[float]) -> float", "candidate([2, -1]) == 0.5", "candidate [2,(-1)] == 0.5"),
        (
            "hs",
            "x: float) -> Tuple[Optional[int], int]",
            "candidate(-0.5) == (None, 1)",
            "candidate (-0.5) == (Nothing, 1)",
        ),
        (
            "hs",
            "x: int) -> Tuple[Optional[int], Optional[int]]",
            "candidate(2) == (None, 1)",
            "candidate 2 == (Nothing, Just (1))",
        ),
        ("ml", "x: List[float]) -> float", "candidate([1, 2.5]) == 1", "(assert ((candidate [1.0; 2.5]) = 1.0));"),
        (
            "ml",
            "x: List[int]) -> Optional[int]",
            "candidate([-1]) == -2",
            "(assert ((candidate [(-1)]) = Some((-2))));",
        ),
        ("ml", "x: int) -> Optional[str]", "candidate(0) == None", "(assert ((candidate 0) = None));"),
        (
            "ml",
            "x: Dict[str, int]) -> Tuple[int, float]",
            "candidate({'a': 1}) == (1, 2)",
            '(assert ((candidate [("a", 1)]) = (1, 2.0)));',
        ),
        ("ml", "x: float) -> bool", "candidate(-1.5) == True", "(assert ((candidate (-1.5)) = true));"),
    ],
)
def test_values(name: str, signature: str, check: str, line: str) -> None:
    written = _tests(name, signature, check)[-2]  # the one check, before the suite's last line
    assert f"if {line} then" in written if name == "hs" else written.strip() == line


def test_haskell_doctests_and_names() -> None:
    prompt = 'def sum_it_up(x: List[int]) -> Optional[int]:\n    """Add.\n    >>> sum_it_up([1, -2])\n    -1\n    """\n'
    translated, tests = translate(
        get_language("hs"), prompt, "def check(candidate):\n    assert candidate([]) == None\n", "sum_it_up"
    )
    assert translated.splitlines() == [
        "-- | Add.",
        "-- | >>> sumItUp [1,(-2)]",
        "-- | Just ((-1))",
        "sumItUp :: [Int] -> Maybe Int",
        "sumItUp x =",
    ]
    assert tests.splitlines()[:4] == ["", "main :: IO ()", "main = do", "  let candidate = sumItUp"]


@pytest.mark.parametrize(
    ("signature", "check", "line"),
    [
        ("x: List[int]) -> List[str]", "candidate([]) == []", "assert(f(x: [] as [Int]) == [] as [String])"),
        ("x: float, y: str) -> bool", "candidate(2, 'a\"b') == True", 'assert(f(x: 2, y: "a\\"b") == true)'),
        ("x: int) -> Optional[int]", "candidate(-1) == None", "assert(f(x: -1) == nil)"),
        (
            "x: Dict[str, int]) -> Dict[str, int]",
            "candidate({'a': 1}) == {}",
            'assert(f(x: ["a" : 1]) == [:] as [String : Int])',
        ),
        ("x: Tuple[int, ...]) -> Tuple[int, str]", "candidate((1, 2)) == (3, 'c')", 'assert(f(x: [1, 2]) == (3, "c"))'),
        ("x: int) -> Union[str, int]", "candidate(1) == -1", "assert(f(x: 1) == .failure(-1))"),
        ("x: int) -> Union[str, int]", "candidate(1) == 'a'", 'assert(f(x: 1) == .success("a"))'),
        ("x: int) -> Union[float, int]", "candidate(1) == 2", "assert(f(x: 1) == .failure(2))"),  # no int-to-Double
        ("x: int) -> Union[int, str, float]", "candidate(1) == 2.5", "assert(f(x: 1) == .doubleValue(2.5))"),
        ("x: int) -> Union[str, None]", "candidate(1) == None", "assert(f(x: 1) == nil)"),
        ("x: Any) -> Any", "candidate([1, 'a']) == []", 'assert(f(x: [1, "a"]) == [] as [AnyHashable])'),
    ],
)
def test_swift_values(signature: str, check: str, line: str) -> None:
    assert _tests("swift", signature, check)[-1] == line


def test_swift_prompt_declares_what_its_types_need() -> None:
    language = get_language("swift")
    prompt = 'def f(x: int) -> Union[int, str, bool]:\n    """Doc.\n    >>> f(1)\n    True\n    """\n'
    translated, tests = translate(language, prompt, "def check(candidate):\n    assert candidate(1) == 'a'\n", "f")
    assert translated == (
        "\nenum Value: Equatable, Hashable {\n    case intValue(Int)\n    case stringValue(String)\n"
        "    case boolValue(Bool)\n}\n\n            \n/// Doc.\n/// >>> f(x: 1)\n/// .boolValue(true)\n"
        "func f(x: Int) -> Value {\n"
    )
    assert tests.endswith('\nassert(f(x: 1) == .stringValue("a"))')
    result = translate(
        language,
        'def f(x: int) -> Union[str, float]:\n    """Doc."""\n',
        "def check(candidate):\n    assert candidate(1) == 2.5\n",
        "f",
    )
    assert result[0].startswith("\nextension Double: Error {}\n        \n/// Doc.")


def _result(stderr: str, exit_code: int | None = None, sig: int | None = None, **extra: Any) -> ExecResult:
    return ExecResult(exit_code=exit_code, signal=sig, completed=True, stdout="", stderr=stderr, **extra)


@pytest.mark.parametrize(
    ("name", "result", "verdict"),
    [
        ("swift", _result("", exit_code=0), ("passed", "ok")),
        (
            "swift",
            _result("program/program.swift:19: Assertion failed\n", sig=signal.SIGILL),
            ("failed", "assertion failed"),
        ),
        (
            "swift",
            _result("Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range\n", sig=signal.SIGTRAP),
            ("failed", "exception: Index out of range"),
        ),
        (
            "swift",
            _result(
                "program.swift:3:12: error: cannot convert return expression of type 'Int' to return type 'Bool'\n"
                f"{MARK}build-failed 1\n",
                exit_code=BUILD_FAILED,
            ),
            (
                "failed",
                "compile error: program.swift:3:12: error: cannot convert return expression of type 'Int' to return type 'Bool'",
            ),
        ),
        ("swift", _result("", sig=signal.SIGXCPU, cpu_seconds=2.0, timed_out=True), ("timeout", "timed out (2 s CPU)")),
        ("swift", _result("", sig=signal.SIGKILL, cpu_seconds=2.0), ("timeout", "timed out (2 s CPU)")),
        ("swift", _result("", sig=signal.SIGKILL, timed_out=True), ("timeout", "timed out (wall-clock bound)")),
        (
            "hs",
            _result(
                "program: Prelude.head: empty list\nCallStack (from HasCallStack):\n  error, called at ...\n",
                exit_code=1,
            ),
            ("failed", "exception: Prelude.head: empty list"),
        ),
        (
            "hs",
            _result(
                "program.hs:4:18: error:\n    • Couldn't match expected type \u2018Int\u2019 with actual type \u2018Bool\u2019\n"
                f"{MARK}build-failed 1\n",
                exit_code=BUILD_FAILED,
            ),
            ("failed", "compile error: program.hs:4:18: Couldn't match expected type \u2018Int\u2019 with actual type \u2018Bool\u2019"),
        ),
        (
            "ml",
            _result(
                'File "./program.ml", line 3, characters 2-5:\nError: This expression has type string but an expression was '
                "expected of type\n         int\n",
                exit_code=2,
            ),
            (
                "failed",
                "type error: line 3: This expression has type string but an expression was expected of type int",
            ),
        ),
        ("ml", _result('Exception: Failure "hd".\n', exit_code=2), ("failed", 'exception: Failure "hd"')),
    ],
)
def test_verdicts_read_from_the_runtime(name: str, result: ExecResult, verdict: tuple[str, str]) -> None:
    """The runners' reading of compilers' and runtimes' messages, on results as the sandbox returns them (swiftc is
    not installable here: this is how its runner is tested)."""
    assert get_language(name).verdict(result, Limits(cpu_seconds=2)) == verdict


def test_swift_script_and_missing_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    language = get_language("swift")
    request = language.request("func f() {}\n", Limits(cpu_seconds=3), network=False)
    script = dict(request.files)[".run.sh"].decode()
    assert "swiftc -module-cache-path /tmp/.swift-module-cache program.swift -o program" in script
    assert "ulimit -S -t 3" in script and script.rstrip().endswith("exec ./program")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert language.unavailable() == (
        "Swift is not packaged by Debian: install a toolchain from https://www.swift.org/install/linux/ "
        "and put swiftc on PATH"
    )
