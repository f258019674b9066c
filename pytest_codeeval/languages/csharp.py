"""C#: MultiPL-E's `cs` (compiled with DEBUG defined, so that the tests' Debug.Assert checks, and run on Mono).

MultiPL-E builds with Roslyn's `csc`, which Debian does not ship; Debian's Mono compiler `mcs` takes the same
flags and compiles the translated prompts and tests alike (it lacks some C# 8+ syntax a completion may use).
A failed Debug.Assert does not end a Mono program: it is written to stderr (MONO_TRACE_LISTENER) and the
program goes on to exit 0, so stderr decides, as in MultiPL-E's evaluator."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line, failed_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import Tup, TypedLanguage, has_ellipsis, items_of, parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "long", "float": "float", "bool": "bool", "str": "string"}
_PRIMITIVES = ("long", "float", "bool")
# parameter names that C# reserves or that the dataset's other translations rename (MultiPL-E's replacements)
_RENAMED = {"operator": "op", "strlen": "string_length", "string": "str", "base": "numBase", "decimal": "decimalNum"}
_USINGS = (
    "System",
    "System.Numerics",
    "System.Diagnostics",
    "System.Collections.Generic",
    "System.Linq",
    "System.Text",
    "System.Security.Cryptography",
)
_ASSERT_FAILED = "System.Diagnostics.DefaultTraceListener.Fail"
_UNHANDLED = re.compile(r"^Unhandled Exception:\s*\n?([\w.]+)(?::\s*(.*))?$", re.MULTILINE)


_MAIN = re.compile(r"\bstatic\s+void\s+Main\s*\([^)]*\)")
# A failed Debug.Assert does not end the program: a listener of ours, added when the tests' Main starts, counts the
# failures; at its end, none may have failed, and a false Debug.Assert (its report to stderr muted) must reach the
# listener (a program that cleared Trace.Listeners removed it)
CSHARP_START = " System.Diagnostics.Trace.Listeners.Add(new CodeevalListener());"
CSHARP_END = f"""    {{
        int codeevalOne = int.Parse("1");
        int codeevalFailures = CodeevalListener.Failures;
        var codeevalError = System.Console.Error;
        System.Console.SetError(System.IO.TextWriter.Null);
        System.Diagnostics.Debug.Assert(codeevalOne == 2);
        System.Console.SetError(codeevalError);
        var codeevalStderr = new System.IO.StreamWriter(System.Console.OpenStandardError());
        if (CodeevalListener.Failures != codeevalFailures + 1) {{
            codeevalStderr.WriteLine("{disabled_line()}");
        }} else if (codeevalFailures != 0) {{
            codeevalStderr.WriteLine("{failed_line()}");
        }} else {{
            var codeevalToken = new byte[64];
            int codeevalRead;
            var codeevalOpen = System.IO.FileMode.Open;
            using (var codeevalIn = new System.IO.FileStream("{TOKEN_IN}", codeevalOpen, System.IO.FileAccess.Read))
                codeevalRead = codeevalIn.Read(codeevalToken, 0, 64);
            using (var codeevalOut = new System.IO.FileStream("{DONE_OUT}", codeevalOpen, System.IO.FileAccess.Write))
                codeevalOut.Write(codeevalToken, 0, codeevalRead);
        }}
        codeevalStderr.Flush();
    }}"""
CSHARP_LISTENER = """
class CodeevalListener : System.Diagnostics.TraceListener {
    public static int Failures;
    public override void Write(string message) {}
    public override void WriteLine(string message) {}
    public override void Fail(string message) { Failures++; }
    public override void Fail(string message, string detail) { Failures++; }
}
"""


def pascal_case(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


class CSharp(TypedLanguage):
    name = "cs"
    title = "C#"
    aliases = ("csharp", "c#")
    int_suffix = "L"
    float_suffix = "f"
    file_ext = "cs"
    stop = ("\n    }\n",)
    tools = ("mcs", "mono")
    package = "mono-mcs mono-runtime"
    timeout = 5.0  # MultiPL-E's evaluator gives the program 5 s
    terms = ("list", "list", "tuple", "dictionary", "null", "true", "false")
    env: ClassVar[dict[str, str]] = {"MONO_TRACE_LISTENER": "Console.Error"}  # a failed Debug.Assert, on stderr

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["mcs", "-d:DEBUG", "-r:System.Numerics.dll", source, "-out:program.exe"]]

    def run_command(self, source: str) -> list[str]:
        return ["mono", "program.exe"]

    def failure_despite_success(self, result: ExecResult) -> str | None:
        if _ASSERT_FAILED in result.stderr:
            return "assertion failed: Debug.Assert"
        if "Unhandled Exception" in result.stderr:
            return self.runtime_error(result)
        return None

    def runtime_error(self, result: ExecResult) -> str:
        match = _UNHANDLED.search(result.stderr)
        if match:
            return f"exception: {match.group(1)}" + (f": {match.group(2).strip()[:200]}" if match.group(2) else "")
        if _ASSERT_FAILED in result.stderr:
            return "assertion failed: Debug.Assert"
        return super().runtime_error(result)

    def compile_error(self, log: str) -> str:
        for line in log.splitlines():
            if ": error CS" in line:
                return line.split(": ", 1)[-1].strip()[:300]
        return super().compile_error(log)

    def proof(self, program: str) -> Proven | None:
        """Our listener added at the start of the tests' `Main` (the program's last method), the proof at its end."""
        proven = in_last_body(program, _MAIN, CSHARP_END, at_start=CSHARP_START)
        return append(proven.text, CSHARP_LISTENER) if proven else None

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "    // " + re.sub(r"\n(\s*)", "\n    // ", description.strip()) + "\n"
        typed = ", ".join(f"{self.type_name(a.annotation)} {_RENAMED.get(a.arg, a.arg)}" for a in args)
        usings = "".join(f"using {module};\n" for module in _USINGS)
        return (
            f"{usings}class Problem {{\n{described}"
            f"    public static {self.type_name(returns)} {pascal_case(name)}({typed}) " + "{\n"
        )

    def call(self, func: str, args: list[str]) -> str:
        called = self.entry if func == "candidate" else _RENAMED.get(func, func)
        return f"{pascal_case(called)}(" + ", ".join(args) + ")"

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List" or (kind == "Tuple" and has_ellipsis(inner)):
            return f"List<{self.type_name(inner[0])}>"
        if kind == "Tuple":
            return "Tuple<" + ", ".join(self.type_name(i) for i in inner) + ">"
        if kind == "Dict":
            return f"Dictionary<{self.type_name(inner[0])},{self.type_name(inner[1])}>"
        if kind == "Optional":
            element = self.type_name(inner[0])
            return f"Nullable<{element}>" if element in _PRIMITIVES else element
        raise Untranslatable(f"no C# type for {kind}")

    def value(self, value: Any, annotation: Any) -> str:
        """A value where MultiPL-E puts one: in parentheses, but for nulls, optionals and tuples holding a null,
        which its translation leaves bare (their type differs from the one it expects)."""
        kind = parts(annotation)[0]
        if value is None or (isinstance(value, Tup) and None in value.items):
            return self._value(value, annotation)
        if kind == "Optional" and self.type_name(annotation).startswith("Nullable"):
            return self._value(value, annotation)
        return f"({self._value(value, annotation)})"

    def _value(self, value: Any, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind == "Optional":
            return "null" if value is None else self._value(value, inner[0])
        if (literal := self.scalar(value, kind)) is not None:
            return literal
        if isinstance(value, list) and (kind == "List" or (kind == "Tuple" and has_ellipsis(inner))):
            element = self.type_name(inner[0])
            if not value:
                return f"new List<{element}>()"
            items = ", ".join(f"({element}){self._value(v, inner[0])}" for v in value)
            return f"new List<{element}>(new {element}[]" + "{" + items + "})"
        if kind == "Tuple" and isinstance(value, (Tup, list)) and len(inner) == len(items_of(value)):
            items = ", ".join(self._tuple_item(v, t) for v, t in zip(items_of(value), inner, strict=True))
            return f"Tuple.Create({items})"
        if kind == "Dict" and isinstance(value, dict):
            pairs = ", ".join(
                "{" + f"{self._value(k, inner[0])}, {self._value(v, inner[1])}" + "}" for k, v in value.items()
            )
            return f"new {self.type_name(annotation)}()" + ("{" + pairs + "}" if pairs else "")
        raise Untranslatable(f"a value {value!r} that is not a {kind}")

    def _tuple_item(self, value: Any, annotation: Any) -> str:
        if value is None:  # a typed null, so that Tuple.Create can infer the element's type
            return f"({self.type_name(annotation)})null"
        return self._value(value, annotation)

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["    }", "    public static void Main(string[] args) {"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["    }\n", "}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        if self.type_name(self.return_type) in _PRIMITIVES:
            return f"    Debug.Assert({left} == {right});"
        return f"    Debug.Assert({left}.Equals({right}));"



LANGUAGE = CSharp
