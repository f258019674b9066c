"""MultiPL-E's originals (Python problems) to another language, exactly as MultiPL-E's dataset builder turns them
into the hub's `humaneval-<lang>` and `mbpp-<lang>` rows (`--doctests transform`, `--prompt-terminology reworded`,
at nuprl/MultiPL-E commit 8963d9a4c13b9cafad622273251bdadd3056c131). tests/languages/test_builder_rows.py holds every
language to the builder's own output, row by row.

The walk, for one original (`translate_original`):
1. The original's file is read line by line: the prompt is every line before `### Canonical solution below ###`,
   the tests every line after `### Unit tests below ###` up to `def test_check():`.
2. Terminology: the prompt's first two triple-quote marks (`'''` counts as `\"\"\"`) delimit the docstring; outside
   its doctests, the words of terms.csv (`TERM_FIELDS`) become the language's (`Language.title`, `Language.name`,
   `Language.terms`).
3. The prompt must define one function whose body is its docstring alone. The translator's `translate_prompt` is
   called once with the raw docstring (typed translators remember the signature there), then each doctest (a `>>>`
   line and the line after it) is translated (`translate_expr`, then `finalize(call, "lhs")`, `finalize(result,
   "rhs")`), blank lines are dropped, the second line's indentation is removed from every line that has it, and
   `translate_prompt` is called again with that description: its result is the row's prompt.
4. The tests must be one function (after an optional assignment); each of its statements must be an
   `assert left == right` (`translate_expr` of both sides, then `finalize` of both, then `deep_equality`).
   `test_suite_prefix_lines(entry_point)` comes first, `test_suite_suffix_lines()` last, joined by newlines.
A problem is left out when anything in its translation fails or raises: the translator raises (any exception, e.g.
`Untranslatable`) to leave a problem out, as MultiPL-E's translators do.

Interface for a language (methods of `Language`, MultiPL-E's translator interface): `translate_prompt(name, args,
returns, description)` (args: `ast.arg` list; returns: the annotation node or None), `test_suite_prefix_lines`,
`test_suite_suffix_lines`, `deep_equality(left, right)`, `gen_literal`, `gen_var`, `gen_list`, `gen_tuple`,
`gen_dict`, `gen_set`, `gen_call`, `finalize(expr, side)`, and the class attributes `stop` (the rows'
`stop_tokens`), `title`, `name`, `terms`. `rows(language, source)` translates every original of a source in the
builder's order (by file name) with one fresh instance of the language (a translator may keep state from one
problem to the next, as MultiPL-E's do), and returns the rows by problem number; `translate_original(language,
original)` does one."""

from __future__ import annotations

import ast
import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pytest_codeeval.languages.base import Language

SOURCES = ("humaneval", "mbpp")  # the originals shipped in pytest_codeeval/tasks/data/multiple/
DOCTEST = re.compile(r">>>.*\n.*\n")
# terms.csv's columns: the words of Python's prompts that each language replaces
TERM_FIELDS = ("Python", "py", "array", "list", "tuple", "dictionary", "None", "True", "False")
CANONICAL_MARK = "### Canonical solution below ###"
TESTS_MARK = "### Unit tests below ###"


class Untranslatable(Exception):
    """The problem is outside what the language's translation handles: it is left out of the rows."""


@dataclass(frozen=True)
class Original:
    """One of MultiPL-E's Python originals: `name` is its file name without `.py` (HumanEval_0_has_close_elements,
    mbpp_3_is_not_prime), `source` the file's text."""

    name: str
    source: str

    @property
    def entry_point(self) -> str:
        """The function's name, read from the file name as the builder reads it."""
        match = re.search(r"([^0-9]+_\d+)_(.+).py", self.name + ".py")
        if match is None:
            raise Untranslatable(f"{self.name}: not a problem's file name")
        return match.group(2)

    @property
    def number(self) -> int:
        return int(self.name.split("_")[1])

    def parts(self) -> tuple[str, str]:
        """(prompt, tests): the lines before the canonical solution's mark, and those after the tests' mark up to
        `def test_check():`."""
        prompt: list[str] = []
        tests: list[str] = []
        in_prompt, in_tests = True, False
        for line in re.findall(r"[^\n]*\n|[^\n]+$", self.source):  # lines as a file reads them: split at \n only
            if CANONICAL_MARK in line:
                in_prompt, line = False, ""
            if TESTS_MARK in line:
                in_tests = True
                continue
            if "def test_check():" in line:
                break
            if in_prompt:
                prompt.append(line)
            if in_tests:
                tests.append(line)
        return "".join(prompt), "".join(tests)


@cache
def originals(source: str) -> tuple[Original, ...]:
    """The shipped originals of `source` ("humaneval" or "mbpp"), in the order the builder translates them: by file
    name (HumanEval_107_... before HumanEval_1_...), which matters to a translator that remembers."""
    path = resources.files("pytest_codeeval.tasks") / "data" / "multiple" / f"{source}-originals.jsonl.gz"
    with gzip.open(path.open("rb"), "rt", encoding="utf-8") as lines:
        found = [Original(**json.loads(line)) for line in lines]
    return tuple(sorted(found, key=lambda original: original.name))


# -- terminology ---------------------------------------------------------------------------------------------------
def reword(language: Language, prompt: str) -> str:
    """The prompt with the docstring's words outside its doctests in the language's terms. Only what precedes the
    third triple-quote mark is kept, as the builder does."""
    pieces = prompt.replace("'''", '"""').split('"""')
    if len(pieces) < 3:
        raise Untranslatable("the prompt has no docstring")
    before, docstring, after = pieces[:3]
    out, last = [], 0
    for match in DOCTEST.finditer(docstring):
        out += [_terms(language, docstring[last : match.start()]), match.group(0)]
        last = match.end()
    return before + '"""' + "".join(out) + _terms(language, docstring[last:]) + '"""' + after


def _terms(language: Language, text: str) -> str:
    targets = (language.title, language.name, *language.terms)
    for field, target in zip(TERM_FIELDS, targets, strict=True):
        if field not in text:
            continue
        if f"an {field}" in text and target[0].lower() not in "aeiou":
            text = text.replace(f"an {field}", f"a {target}")
        elif f"a {field}" in text and target[0].lower() in "aeiou":
            text = text.replace(f"a {field}", f"an {target}")
        text = text.replace(field, target)
    return text


# -- expressions ---------------------------------------------------------------------------------------------------
def translate_expr(language: Language, node: ast.AST) -> Any:
    match node:
        case ast.Constant(value=value):
            return language.gen_literal(value)
        case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=value)):
            return language.gen_literal(-value)  # type: ignore[operator]  # a string's minus fails the problem
        case ast.Name(id=name):
            return language.gen_var(name)
        case ast.List(elts=items):
            return language.gen_list([translate_expr(language, e) for e in items])
        case ast.Tuple(elts=items):
            return language.gen_tuple([translate_expr(language, e) for e in items])
        case ast.Set(elts=items):
            return language.gen_set([translate_expr(language, e) for e in items])
        case ast.Dict(keys=keys, values=values):
            return language.gen_dict(
                [translate_expr(language, k) for k in keys],  # type: ignore[arg-type]
                [translate_expr(language, v) for v in values],
            )
        case ast.Call(func=func, args=args):  # keyword arguments are not written, as the builder does
            return language.gen_call(translate_expr(language, func), [translate_expr(language, a) for a in args])
    raise Untranslatable(f"unhandled expression: {ast.dump(node)[:80]}")


def _statement_value(line: str) -> ast.AST:
    """The value of the first statement of a doctest's line (an expression's, or an assignment's right side)."""
    return ast.parse(line).body[0].value  # type: ignore[attr-defined]


# -- the prompt ----------------------------------------------------------------------------------------------------
def _functions(node: ast.AST) -> Iterator[ast.FunctionDef]:
    """The functions defined outside any function (in the module, or within classes and statements)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef):
            yield child
        else:
            yield from _functions(child)


def _doctests(language: Language, description: str) -> str:
    out, last = [], 0
    for match in DOCTEST.finditer(description):
        call_line, result_line = match.group(0).split("\n")[:2]
        call = translate_expr(language, _statement_value(call_line.strip("> ")))
        result = translate_expr(language, _statement_value(result_line.strip()))
        call, result = language.finalize(call, "lhs"), language.finalize(result, "rhs")
        out += [description[last : match.start()], f">>> {call}\n    {result}\n"]
        last = match.end()
    return "".join(out) + description[last:]


def _dedented(description: str) -> str:
    """Blank lines dropped; the indentation of the second line removed from each line that starts with it."""
    lines = [line for line in description.split("\n") if line.strip()]
    indent = len(lines[1]) - len(lines[1].lstrip()) if len(lines) > 1 else 0
    return "\n".join(line[indent:] if line[indent:].lstrip() == line.lstrip() else line for line in lines)


def translate_prompt(language: Language, prompt: str) -> str:
    functions = list(_functions(ast.parse(prompt + "    pass")))
    if len(functions) != 1:
        raise Untranslatable("the prompt does not define exactly one function")
    function = functions[0]
    match function.body:
        case [ast.Expr(value=ast.Constant(value=str(description))), ast.Pass()]:
            pass
        case _:
            raise Untranslatable("the prompt's function has more than its docstring")
    signature = (function.name, function.args.args, function.returns)
    language.translate_prompt(*signature, description)  # typed translators remember the signature's types here
    if ">>>" in description:
        description = _doctests(language, description)
    translated = language.translate_prompt(*signature, _dedented(description))
    if translated is None:
        raise Untranslatable("the language's translation does not handle this signature")
    return translated


# -- the tests -----------------------------------------------------------------------------------------------------
def translate_tests(language: Language, tests: str, entry_point: str) -> str:
    match ast.parse(tests).body:
        case [ast.FunctionDef(body=body)] | [ast.Assign(), ast.FunctionDef(body=body)]:
            pass
        case _:
            raise Untranslatable("the tests are not one check function")
    lines = list(language.test_suite_prefix_lines(entry_point))
    checks = 0
    for statement in body:
        match statement:
            case ast.Assert(test=ast.Compare(left=left_node, ops=[ast.Eq()], comparators=[right_node])):
                left, right = translate_expr(language, left_node), translate_expr(language, right_node)
                left, right = language.finalize(left, "lhs"), language.finalize(right, "rhs")
                lines.append(language.deep_equality(left, right))
                checks += 1
            case ast.Expr(value=ast.Name(id="print")):
                continue
            case _:
                raise Untranslatable(f"test line {ast.unparse(statement)[:60]!r} is not `assert x == y`")
    if not checks:
        raise Untranslatable("no test to translate")
    return "\n".join(lines + list(language.test_suite_suffix_lines()))


# -- rows ----------------------------------------------------------------------------------------------------------
def translate_original(language: Language, original: Original) -> tuple[str, str]:
    """(prompt, tests) of one original in `language`; raises when the problem is left out."""
    prompt, tests = original.parts()
    translated_prompt = translate_prompt(language, reword(language, prompt))
    return translated_prompt, translate_tests(language, tests, original.entry_point)


def rows(language: Language, source: str) -> list[dict[str, Any]]:
    """Every row of MultiPL-E's `<source>-<lang>` config (its hub schema) that the originals give, by problem
    number as the hub has them."""
    translator = type(language)()  # a fresh translator: what one remembers between problems starts empty
    out: list[tuple[int, dict[str, Any]]] = []
    for original in originals(source):
        try:
            prompt, tests = translate_original(translator, original)
        except Exception:  # noqa: BLE001 -- whatever fails in a problem's translation leaves it out, as MultiPL-E does
            continue
        row = {
            "name": original.name,
            "language": language.name,
            "prompt": prompt,
            "doctests": "transform",
            "original": f"{original.name}.py",
            "prompt_terminology": "reworded",
            "tests": tests,
            "stop_tokens": list(language.stop),
        }
        out.append((original.number, row))
    return [row for _, row in sorted(out, key=lambda pair: pair[0])]
