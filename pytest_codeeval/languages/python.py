"""Python: MultiPL-E's `py`, its Python-to-Python translation (typed prompt, `check` tests). Its programs run
through Python's own runner (pytest_codeeval/runners/python.py): the task's language is `python`."""

from __future__ import annotations

import ast
from typing import Any

from pytest_codeeval.languages.base import Language
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.runners.python import PythonRunner
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits


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


class Python(Language):
    name = "py"
    title = "Python"
    file_ext = "py"
    stop = ("\ndef", "\n#", "\nif", "\nclass")
    package = "python3"
    runner = PythonRunner()

    def request(self, program: str, limits: Limits, network: bool) -> ExecRequest:
        return self.runner.request(program, limits, network)

    def verdict(self, result: ExecResult, limits: Limits) -> tuple[str, str]:
        return self.runner.classify(result)

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


LANGUAGE = Python
