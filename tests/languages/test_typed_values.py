"""Typed translators' values as MultiPL-E's builder writes them, quirks included (Haskell's `Just (Nothing)`,
OCaml's `(~1)` and `Some(None)`, Scala's int where a float goes), and the differences the conformance issue found
(Rust's and C++'s empty lists, Go's tests after a closed function); Swift's type-directed values (Result, the enum
`Value`, `[] as [T]`); checked on small made-up problems. And Swift's runner, which cannot run here, on made-up
sandbox results."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.base import BUILD_FAILED, MARK
from pytest_codeeval.languages.translate import translate_prompt, translate_tests
from pytest_codeeval.sandbox.api import ExecResult, Limits


def _translated(name: str, signature: str, *asserts: str, doc: str = "Doc.") -> tuple[str, str]:
    """(prompt, tests) of a made-up problem `f`, by a fresh translator of the language."""
    language = type(get_language(name))()
    prompt = translate_prompt(language, f'def f({signature}:\n    """{doc}"""\n')
    checks = "def check(candidate):\n" + "".join(f"    assert {line}\n" for line in asserts)
    return prompt, translate_tests(language, checks, "f")


def _tests(name: str, signature: str, *asserts: str) -> list[str]:
    return _translated(name, signature, *asserts)[1].splitlines()


@pytest.mark.parametrize(
    ("name", "signature", "check", "line"),
    [
        # MultiPL-E's coercion of a float list's text: ".0" after what it splits at ", " (Haskell writes ",")
        ("hs", "x: List[float]) -> float", "candidate([1, 2, 3]) == 1.5", "candidate [1,2,3.0] == 1.5"),
        ("hs", "x: int) -> Optional[int]", "candidate(-3) == -9", "candidate (-3) == Just ((-9))"),
        # the problems MultiPL-E leaves unsolvable stay so: comparable scores need the same rows
        ("hs", "x: int) -> Optional[int]", "candidate(1) == None", "candidate 1 == Just (Nothing)"),
        ("hs", "x: List[float]) -> float", "candidate([]) == -1", "candidate [.0] == (-1).0"),
        ("ml", "x: Optional[int]) -> int", "candidate(None) == -1", "(assert ((candidate Some(None)) = (~1)));"),
        ("ml", "x: List[int]) -> Optional[int]", "candidate([-1]) == 2", "(assert ((candidate [(~1)]) = Some(2)));"),
        ("ml", "x: int) -> int", "candidate(1) == None", "(assert ((candidate 1) = None));"),
        ("ml", "x: Dict[str, int]) -> float", "candidate({'a': 1}) == 2", '(assert ((candidate [("a", 1)]) = 2.0));'),
        # an empty list at the signature's type (Rust: vec![] does not type-check for Vec<String>)
        (
            "rs",
            "x: List[str]) -> List[str]",
            "candidate([]) == []",
            "assert_eq!(candidate(Vec::<String>::new()), Vec::<String>::new());",
        ),
        (
            "rs",
            "x: str) -> Tuple[Optional[int], Optional[int]]",
            "candidate('') == (None, 1)",
            'assert_eq!(candidate(String::from("")), (None, Some(1)));',
        ),
        (
            "cpp",
            "x: List[int]) -> List[int]",
            "candidate([]) == []",
            "assert(candidate((std::vector<long>())) == (std::vector<long>()));",
        ),
        # the items cast to the first one's type, then the list's constructor replaced (2.5 becomes 2)
        (
            "cpp",
            "x: List[float]) -> float",
            "candidate([1, 2.5]) == 3",
            "assert(candidate((std::vector<float>({(long)1, (long)2.5f}))) == (float(3)));",
        ),
        # ints where floats go: each language's cast, as MultiPL-E writes it (Scala's leaves the int)
        ("cs", "x: float) -> float", "candidate(3) == 3", "Debug.Assert(F((float)3L) == (float)3L);"),
        ("java", "x: float) -> float", "candidate(3) == 3", "assert(f((float)3l) == (float)3l);"),
        ("scala", "x: float) -> float", "candidate(3) == 3", "assert(f(3l) == 3l);"),
        ("d", "x: float) -> float", "candidate(3) == 3", "assert(candidate(3L) == 3L);"),
        (
            "java",
            "x: int) -> Dict[str, int]",
            "candidate(1) == {'a': 1}",
            'assert(f((1l)).equals((new HashMap<String,Long>(Map.of("a", 1l)))));',
        ),
        ("java", "x: int) -> Optional[int]", "candidate(1) == 2", "assert(f((1l)).equals(Optional.of(2l)));"),
        (
            "go",
            "x: List[int]) -> List[str]",
            "candidate([]) == []",
            "{ actual: candidate([]int{}), expected: []string{} },",
        ),
        (
            "go",
            "x: List[float]) -> float",
            "candidate([1, 2.5]) == 1",
            "{ actual: candidate([]float64{1, 2.5}), expected: 1 },",
        ),
    ],
)
def test_values(name: str, signature: str, check: str, line: str) -> None:
    """One check of a made-up problem, written as MultiPL-E's builder writes it (tests/languages/test_builder_rows.py holds
    whole datasets; these name the differences the issue found)."""
    tests = _translated(name, signature, check)[1]
    prefix = "\n".join(get_language(name).test_suite_prefix_lines("f")) + "\n"
    written = tests.removeprefix(prefix).split("\n")[0]
    assert f"if {line} then" in written if name == "hs" else written.strip() == line


def test_go_tests_follow_a_closed_function_and_rename_parameters() -> None:
    """MultiPL-E's Go prompts expect the completion to close the function: the tests start with the test function;
    a parameter called `string` (a Go type) is renamed."""
    prompt, tests = _translated("go", "string: str) -> int", "candidate('a') == 1")
    assert prompt.endswith("func f(myString string) int {\n")
    assert tests.startswith("func TestF(t *testing.T) {\n")


def test_haskell_doctests_and_names() -> None:
    prompt = "Add.\n    >>> sum_it_up([1, -2])\n    -1\n    "
    language = type(get_language("hs"))()
    translated = translate_prompt(language, f'def sum_it_up(x: List[int]) -> Optional[int]:\n    """{prompt}"""\n')
    tests = translate_tests(language, "def check(candidate):\n    assert candidate([]) == None\n", "sum_it_up")
    assert translated.splitlines() == [
        "-- | Add.",
        "--  >>> sumItUp [1,(-2)]",
        "--  Just ((-1))",
        "sumItUp :: [Int] -> Maybe Int",
        "sumItUp x =",
    ]
    assert tests.splitlines()[:4] == ["", "main :: IO ()", "main = do", "  let candidate = sumItUp"]


def test_d_imports_what_an_earlier_problem_needed() -> None:
    """MultiPL-E's D translator never forgets an import: once a problem needed std.typecons, every later problem
    (in the builder's order) imports it."""
    language = type(get_language("d"))()
    first = translate_prompt(language, 'def f(x: int) -> int:\n    """Doc."""\n')
    translate_prompt(language, 'def g(x: int) -> Optional[int]:\n    """Doc."""\n')
    later = translate_prompt(language, 'def h(x: int) -> int:\n    """Doc."""\n')
    assert first.startswith("import std.math;\n/*")
    assert later.startswith("import std.math;\nimport std.typecons;\n/*")


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
    translated, tests = _translated(
        "swift", "x: int) -> Union[int, str, bool]", "candidate(1) == 'a'", doc="Doc.\n    >>> f(1)\n    True\n    "
    )
    assert translated == (
        "\nenum Value: Equatable, Hashable {\n    case intValue(Int)\n    case stringValue(String)\n"
        "    case boolValue(Bool)\n}\n\n            \n/// Doc.\n/// >>> f(x: 1)\n/// .boolValue(true)\n"
        "func f(x: Int) -> Value {\n"
    )
    assert tests.endswith('\nassert(f(x: 1) == .stringValue("a"))')
    result = _translated("swift", "x: int) -> Union[str, float]", "candidate(1) == 2.5")
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
            (
                "failed",
                "compile error: program.hs:4:18: Couldn't match expected type \u2018Int\u2019 with actual type \u2018Bool\u2019",
            ),
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
    request = language.request("func f() {}\n", Limits(cpu_seconds=3))
    script = dict(request.files)[".run.sh"].decode()
    assert "swiftc -module-cache-path /tmp/.swift-module-cache program.swift -o program" in script
    assert "ulimit -S -t 3" in script and script.rstrip().endswith("exec ./program")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert language.unavailable() == (
        "Swift is not packaged by Debian: install a toolchain from https://www.swift.org/install/linux/ "
        "and put swiftc on PATH"
    )
