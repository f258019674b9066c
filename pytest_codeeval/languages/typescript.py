"""TypeScript: MultiPL-E's `ts` (tsc to JavaScript, then Node.js). Values are JavaScript's; the signature is
typed from the originals' annotations (a problem whose types MultiPL-E's translation does not write is left out)."""

from __future__ import annotations

import ast
from typing import Any

from pytest_codeeval.languages.javascript import JavaScript, node_error
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecResult, Limits

_SCALARS = {"int": "number", "float": "number", "bool": "boolean", "str": "string", "Any": "any"}


def ts_type(annotation: Any, context: str = "top") -> str:
    """The TypeScript type of a Python annotation, as MultiPL-E writes it. `context`: "bar" (inside a union) or
    "bracket" (an array's items, where a union needs parentheses). A dictionary's key and value types must be plain
    `int` or `str` (MultiPL-E's translation rejects any other, and the problem is left out)."""
    match annotation:
        case ast.Name(id=name) if name in _SCALARS:
            return _SCALARS[name]
        case ast.Subscript(value=ast.Name(id="List"), slice=inner):
            return ts_type(inner, "bracket") + "[]"
        case ast.Subscript(value=ast.Name(id="Union"), slice=ast.Tuple(elts=items)):
            union = " | ".join(ts_type(i, "bar") for i in items)
            return f"({union})" if context == "bracket" else union
        case ast.Subscript(value=ast.Name(id="Tuple"), slice=ast.Tuple(elts=items)):
            return "[" + ", ".join(ts_type(i) for i in items) + "]"
        case ast.Subscript(
            value=ast.Name(id="Dict"), slice=ast.Tuple(elts=[ast.Name(id="int" | "str" as key), ast.Name(id=value)])
        ) if value in ("int", "str"):
            return "{" + f"[key: {_SCALARS[key]}]: {_SCALARS[value]}" + "}"
        case ast.Subscript(value=ast.Name(id="Optional"), slice=inner):
            union = ts_type(inner, "bar") + " | undefined"
            return f"({union})" if context == "bracket" else union
    raise Untranslatable(f"no TypeScript type for {ast.dump(annotation) if annotation else 'a missing annotation'}")


class TypeScript(JavaScript):
    name = "ts"
    title = "TypeScript"
    file_ext = "ts"
    stop = ("\nfunction ", "\n/*", "\n//", "\nclass")
    tools = ("tsc", "node")
    package = "node-typescript nodejs"
    timeout = 15.0

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        # --skipLibCheck: the standard library's declaration files are not type-checked again for every sample (half
        # of tsc's time); a sample is one .ts file, whose own declarations are still checked. The source map lets
        # Node's reports name the program's own lines (`failure_line`), not those of the JavaScript tsc wrote
        return [["tsc", "--target", "esnext", "--skipLibCheck", "--sourceMap", source]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["node", "--enable-source-maps", "--max-old-space-size=1024", source[: -len(".ts")] + ".js"]

    def compile_error(self, log: str) -> str:
        return next((line.strip()[:300] for line in log.splitlines() if "error TS" in line), super().compile_error(log))

    def runtime_error(self, result: ExecResult) -> str:
        return node_error(result) or super().runtime_error(result)

    # -- translator: JavaScript's, with types --------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        typed = ", ".join(f"{a.arg}: {ts_type(a.annotation)}" for a in args)
        return f"{self.describe(description)}function {name}({typed}): {ts_type(returns)} " + "{\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return [
            "declare var require: any;\nconst assert = require('node:assert');\n",
            "",
            "function test() {",
            f"  let candidate = {entry_point};",
        ]

    def gen_literal(self, value: Any) -> str:
        return super().gen_literal(value.replace("\n", "\\n") if isinstance(value, str) else value)
