"""Python: MultiPL-E's `py`, its Python-to-Python translation (typed prompt, `check` tests), and how every Python
program runs (a task's language `python`, and the judges built on it): in a forked interpreter, passing only if it
ran to its end without an error."""

from __future__ import annotations

import ast
import re
import secrets
import string
from collections.abc import Callable, Iterator
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from pytest_codeeval.languages.base import Language, signal_name
from pytest_codeeval.languages.decoy import Change, Decoy, Span, differing, renumber, rewrite, same_value, swap
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits

if TYPE_CHECKING:
    from pytest_codeeval.samples import Status

_EXC_LINE = re.compile(r"^((?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Interrupt|Warning|Iteration))\b(?::\s?(.*))?$")
_ANY_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")  # a class of the program's: `__sample__.Bad: boom`
_GROUP_LINE = re.compile(r"^\|?\s*((?:[A-Za-z_][\w.]*)?ExceptionGroup)(?::\s?(.*))?$")


def last_exception(stderr: str) -> tuple[str, str] | None:
    """(exception type, message) of the traceback at the end of stderr, if any. The harness writes the report
    last, so after a traceback header the last line is the exception, whatever its class is called; an
    exception group's own line comes before its members' boxes."""
    tail = stderr.strip().splitlines()[-50:]
    if any("Exception Group Traceback" in line for line in tail):
        matches: Iterator[re.Match[str] | None] = (_GROUP_LINE.match(line.strip()) for line in tail)
    elif any(line.startswith("Traceback (most recent call last):") for line in tail):
        matches = iter([_ANY_EXC_LINE.match(tail[-1].strip())])
    else:
        matches = (_EXC_LINE.match(line.strip()) for line in reversed(tail))
    match = next((m for m in matches if m), None)
    return (match.group(1), (match.group(2) or "").strip()) if match else None


def py_type(annotation: Any, needs: list[str]) -> str:
    """An annotation as MultiPL-E's Python translation writes it, adding the `typing` names it imports to `needs`
    (a generic's name, and `Any`): a constant other than None is written `...`, as MultiPL-E writes it."""
    match annotation:
        case ast.Subscript(value=ast.Name(id=name), slice=inner):
            if name not in needs:
                needs.append(name)
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return name + "[" + ", ".join(py_type(item, needs) for item in items) + "]"
        case ast.Name(id=name):
            if name == "Any" and name not in needs:
                needs.append(name)
            return name
        case ast.Constant(value=None):
            return "None"
        case ast.Constant():
            return "..."
    raise Untranslatable(f"an annotation MultiPL-E's Python translation does not write: {ast.dump(annotation)[:60]}")


def _statement_lines(program: str, at: int) -> tuple[int, int]:
    """The first and last line of the innermost statement of `program` that holds offset `at` (its line alone if
    the program does not parse)."""
    line = program.count("\n", 0, at) + 1
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError):
        return line, line
    holding = [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree)
               if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return min(holding, key=lambda lines: lines[1] - lines[0], default=(line, line))


def _offsets(program: str) -> list[int]:
    """Each line's first character's index (ast's lines count from 1: index 0 is unused). Lines end where the
    parser ends them, at `\n`, `\r\n` or `\r`, not at the form feeds or U+2028 that `str.splitlines` also takes."""
    return [0, 0] + [end.end() for end in re.finditer(r"\r\n|\r|\n", program)]


def _place(program: str, starts: list[int], line: int, byte: int) -> int:
    """The character index of ast's (line, UTF-8 byte column)."""
    text = program[starts[line] : starts[line + 1] if line + 1 < len(starts) else len(program)]
    return starts[line] + len(text.encode("utf-8", "surrogatepass")[:byte].decode("utf-8", "surrogatepass"))


def _called(body: list[ast.stmt]) -> list[str]:
    """The functions a statement list calls by name in statements of their own (`check(candidate)`)."""
    return [s.value.func.id for s in body
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)]


def _until_a_jump(body: list[ast.stmt], jumps: tuple[type[ast.AST], ...]) -> list[ast.stmt]:
    """`body`'s statements up to the first that holds one of `jumps` (a `return`; in a loop `break` and `continue`
    too), and those of the loops among them that surely run at least once, transitively."""
    run = list(takewhile(lambda s: not any(isinstance(n, jumps) for n in ast.walk(s)), body))
    loops = [node for node in run if isinstance(node, ast.For) and _runs_once(node)]
    return run + [inner for loop in loops for inner in _until_a_jump(loop.body, _LEAVES)]


_LEAVES = (ast.Return, ast.Break, ast.Continue)


def _runs_once(node: ast.For) -> bool:
    """A loop over `range` with constant bounds that are not empty (HumanEval/32's `for _ in range(100)`)."""
    if not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
            and node.iter.func.id == "range" and not node.iter.keywords and len(node.iter.args) in (1, 2)):
        return False
    bounds = [arg.value for arg in node.iter.args if isinstance(arg, ast.Constant) and type(arg.value) is int]
    if len(bounds) != len(node.iter.args):
        return False
    start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
    return start < stop


def _surely_run(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run whenever the program runs to its end: the module's own, and those of the functions
    it calls in statements of its own (HumanEval's `check(candidate)`, MultiPL-E's `test_check()` calling `check`),
    transitively, up to a function's first statement that may return; in each, the body of a loop over a constant
    `range` that is not empty, up to its first jump. An `assert` under an `if`, in another loop or in a function
    nothing calls this way (DS-1000's image checks) may not run: it gets no decoy."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    statements = _until_a_jump(tree.body, ())
    seen: set[str] = set()
    pending = _called(statements)
    while pending:
        name = pending.pop()
        function = functions.get(name)
        if name in seen or function is None or function.decorator_list:
            continue
        seen.add(name)
        if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in ast.walk(function)):
            continue  # a generator's body does not run when it is called
        body = _until_a_jump(function.body, (ast.Return,))
        statements += body
        pending += _called(body)
    return statements


def expected_values(program: str, tests_at: int) -> list[tuple[Span, Any]]:
    """The places and values of the tests' `assert <a call> == <literal>` statements after `tests_at` that surely
    run (`_surely_run`: in `check(candidate)`, at the top level): the forms that get a decoy. An approximate test
    (`abs(...) < 1e-6`, `math.isclose`) or a computed expected value (`set(...)`, a variable) is none of them."""
    return _expected(*_asserts(program, tests_at))


def conditions(program: str, tests_at: int) -> list[Span]:
    """The places of the conditions of the tests' asserts after `tests_at` that surely run and call something
    (`assert candidate("<>")`, `assert not candidate(x)`, an approximate test): what a flip decoy may negate."""
    return sorted(span for _, span in _asserts(program, tests_at)[0])


def _asserts(program: str, tests_at: int) -> tuple[list[tuple[ast.Assert, Span]], Callable[[ast.expr], Span]]:
    """The tests' asserts after `tests_at` that surely run and call something, each with its condition's place, and
    how to place another of their expressions: the program parsed once for both kinds of decoy."""
    starts = _offsets(program)

    def place(node: ast.expr) -> Span:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return (_place(program, starts, node.lineno, node.col_offset),
                _place(program, starts, node.end_lineno, node.end_col_offset))

    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError):
        return [], place
    found = [(node, place(node.test)) for node in _surely_run(tree)
             if isinstance(node, ast.Assert) and _calls(node.test)]
    return [(node, span) for node, span in found if span[0] >= tests_at], place


def _expected(asserts: list[tuple[ast.Assert, Span]], place: Callable[[ast.expr], Span]) -> list[tuple[Span, Any]]:
    """Of `asserts`, those comparing a call with `==` to a literal: the expected value's place and value."""
    found = []
    for node, _ in asserts:
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            continue
        if not _calls(test.left):
            continue
        expected = test.comparators[0]
        try:
            value = ast.literal_eval(expected)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        found.append((place(expected), value))
    return sorted(found, key=lambda item: item[0])


def _changed(program: str, node: ast.Assert, span: Span, place: Callable[[ast.expr], Span]) -> Change:
    """The change a decoy makes to one assert that an honest pass fails, and that an answer equal (or close) to
    everything passes: `== <literal>` expects another value of its type; `== <name>` another at run time;
    `abs(<answer> - <expected>) < <tolerance>` an expected value further off than twice the tolerance. Any other
    condition is negated (`not (...)`), which an answer equal to everything does not pass."""
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _calls(test.left):
        operator, right = test.ops[0], test.comparators[0]
        if isinstance(operator, ast.Eq) and (other := _other(right)) is not None:
            return place(right), other, False
        if isinstance(operator, (ast.Lt, ast.LtE)) and (further := _further(program, test.left, right, place)):
            return further
    return span, f"not ({program[span[0] : span[1]]})", True


def _calls(node: ast.expr) -> bool:
    return any(isinstance(inner, ast.Call) for inner in ast.walk(node))


def _other(expected: ast.expr) -> str | None:
    """Another value than `expected`'s, of its type: a literal changed here (never equal to it, even to Python's
    `1 == 1.0 == True`), a variable's value changed when the assert runs; None for anything else."""
    if isinstance(expected, ast.Name):  # no builtin's name: tests shadow them (HumanEval/38's variable `str`)
        name, letter = expected.id, secrets.choice(string.ascii_letters)
        return (f"({name} + {letter!r} if {name}.__class__ is ''.__class__ "
                f"else {name} + 1 if {name}.__class__ is (0).__class__ else [{name}])")
    try:
        value = ast.literal_eval(expected)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    match value:
        case bool():
            other: Any = not value
        case int():
            other = value + 1
        case float() if abs(value) < 1e15:
            other = value + 1.0
        case str():
            other = value + secrets.choice(string.ascii_letters)
        case list() | tuple():
            other = value[:-1] if value else type(value)([0])
        case dict():
            other = {} if value else {0: 0}
        case None:
            other = 0
        case _:
            return None
    return f"({other!r})"


def _further(program: str, left: ast.expr, right: ast.expr, place: Callable[[ast.expr], Span]) -> Change | None:
    """`abs(<answer> - <expected>) < <tolerance>` with the expected value moved by more than twice the tolerance,
    in proportion to its size (a large float moved by a constant would not move)."""
    tolerance = right.value if isinstance(right, ast.Constant) else None
    if not (isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool) and tolerance > 0
            and isinstance(left, ast.Call)
            and isinstance(left.func, ast.Name) and left.func.id == "abs" and len(left.args) == 1
            and isinstance(difference := left.args[0], ast.BinOp) and isinstance(difference.op, ast.Sub)):
        return None
    answer, expected = difference.left, difference.right
    if _calls(expected):
        answer, expected = expected, answer
    if _calls(expected) or not _calls(answer):
        return None
    start, end = place(expected)
    text = program[start:end]
    return (start, end), f"(({text}) + {4 * tolerance + 1!r} * (1 + abs({text})))", False


def _differ(a: Any, b: Any) -> bool:
    """Whether no honest value can equal both: they are unequal to Python (1, 1.0 and True are equal), and not
    numbers that a tolerant comparison could confuse."""
    try:
        return bool(a != b) and not same_value(repr(a), repr(b))
    except Exception:  # noqa: BLE001 - a literal whose comparison fails is not swapped
        return False


class Python(Language):
    name = "py"
    title = "Python"
    file_ext = "py"
    stop = ("\ndef", "\n#", "\nif", "\nclass")
    package = "python3"
    failure_line = r'^\s*File "(?:[^"\n]*/)?{source}", line (\d+)'  # a frame of the traceback

    def request(self, program: str, limits: Limits, run: bool = True) -> ExecRequest:
        return ExecRequest(python_source=program, filename=self.source_name(program), limits=limits)

    def decoy(self, program: str, tests_at: int) -> Decoy | None:
        """HumanEval's `check`, MBPP's top-level asserts, MultiPL-E's py: found with `ast`, rewritten by their
        offsets, the rest of the program byte for byte the same: an integer inside an expected list, tuple or dict
        changed, else two expected values swapped (in parentheses). Tests with neither (one `==`, `abs(...) <
        1e-6`, `assert candidate("<>")` and `assert not ...`) get one assert changed instead (`_changed`): its
        expected value made another, else its condition negated."""
        asserts, place = _asserts(program, tests_at)
        found = _expected(asserts, place)
        places = [span for span, _ in found]
        differ = differing([value for _, value in found], _differ)
        return (renumber(program, places, inside=True) or swap(program, places, differ, "({})")
                or rewrite(program, [_changed(program, node, span, place) for node, span in asserts]))

    def statement_lines(self, text: str, start: int, placed: str) -> tuple[int, int]:
        """The changed assert's lines (its traceback names them, or a call made from them)."""
        return _statement_lines(text, start)

    def verdict(self, result: ExecResult, limits: Limits) -> tuple[Status, str]:
        """The harness's reading: a pass ran to its end (its token read back), a failure is named by the
        traceback's last exception."""
        if result.timed_out:
            return "timeout", "timed out"
        if result.completed and result.exit_code == 0:
            return "passed", "ok"
        if result.signal:
            return "failed", f"killed by {signal_name(result.signal)}"
        exc = last_exception(result.stderr)
        if exc is not None:
            kind, message = exc
            if kind in ("SyntaxError", "IndentationError", "TabError"):
                return "failed", f"syntax error: {message}" if message else "syntax error"
            if kind == "AssertionError":
                return "failed", f"assertion failed: {message}" if message else "assertion failed"
            if kind == "MemoryError":
                return "failed", "memory limit"
            return "failed", f"exception: {kind}" + (f": {message}" if message else "")
        if result.exit_code == 0:
            return "failed", "exited with status 0 before its tests finished"
        return "failed", f"exit status {result.exit_code}"

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        needs: list[str] = []
        params = ", ".join(a.arg + (f": {py_type(a.annotation, needs)}" if a.annotation else "") for a in args)
        result = f" -> {py_type(returns, needs)}" if returns is not None else ""
        imports = f"from typing import {', '.join(needs)}\n\n" if needs else ""
        return f'{imports}def {name}({params}){result}:\n    """{description}"""\n'

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        self.entry = entry_point
        return ["def check(candidate):"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["", "def test_check():", f"    check({self.entry})", "", "test_check()", ""]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert {left} == {right}"

    def gen_literal(self, value: Any) -> str:
        return repr(value)

    def gen_tuple(self, items: list[str]) -> str:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "{ " + ", ".join(f"{k}: {v}" for k, v in zip(keys, values, strict=True)) + " }"
