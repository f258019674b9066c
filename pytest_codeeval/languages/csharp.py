"""C#: MultiPL-E's `cs` (compiled with DEBUG defined, so that the tests' Debug.Assert checks, and run on Mono).

MultiPL-E builds with Roslyn's `csc`, which Debian does not ship; Debian's Mono compiler `mcs` takes the same
flags and compiles the translated prompts and tests alike (it lacks some C# 8+ syntax a completion may use).
A failed Debug.Assert does not end a Mono program: it is written to stderr (MONO_TRACE_LISTENER) and the
program goes on to exit 0, so stderr decides, as in MultiPL-E's evaluator."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pytest_codeeval.languages.base import CHOICE, Language
from pytest_codeeval.languages.cfamily import ClassWrapped
from pytest_codeeval.languages.proof import (
    DONE_OUT,
    NAMED_FAILURE,
    TOKEN_IN,
    Proven,
    append,
    disabled_line,
    failed_line,
    in_last_body,
)
from pytest_codeeval.sandbox.api import ExecResult, Limits

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
# A failed Debug.Assert names no line (Mono's report has none, even with debugging symbols): each of the tests'
# one-line checks gets its own line as its message (in both runs alike, so the decoy's is not told apart), which
# Mono's listener writes
_CHECK = re.compile(r"^([ \t]*Debug\.Assert\(.*)\);[ \t]*$", re.MULTILINE)
# A failed Debug.Assert does not end the program: a listener of ours, added when the tests' Main starts, counts the
# failures; at its end, none may have failed, and a false Debug.Assert (its report to stderr muted) must reach the
# listener (a program that cleared Trace.Listeners removed it)
CSHARP_START = " global::System.Diagnostics.Trace.Listeners.Add(new CodeevalListener());"
CSHARP_END = f"""    {{
        int codeevalOne = int.Parse("1");
        int codeevalFailures = CodeevalListener.Failures;
        var codeevalError = global::System.Console.Error;
        global::System.Console.SetError(global::System.IO.TextWriter.Null);
        global::System.Diagnostics.Debug.Assert(codeevalOne == 2);
        global::System.Console.SetError(codeevalError);
        var codeevalStderr = new global::System.IO.StreamWriter(global::System.Console.OpenStandardError());
        if (CodeevalListener.Failures != codeevalFailures + 1) {{
            codeevalStderr.WriteLine("{disabled_line()}");
        }} else if (codeevalFailures != 0) {{
            codeevalStderr.WriteLine("{failed_line()}");
        }} else {{
            var codeevalToken = new byte[64];
            int codeevalRead;
            var codeevalOpen = global::System.IO.FileMode.Open;
            var codeevalReading = global::System.IO.FileAccess.Read;
            var codeevalWriting = global::System.IO.FileAccess.Write;
            using (var codeevalIn = new global::System.IO.FileStream("{TOKEN_IN}", codeevalOpen, codeevalReading))
                codeevalRead = codeevalIn.Read(codeevalToken, 0, 64);
            using (var codeevalOut = new global::System.IO.FileStream("{DONE_OUT}", codeevalOpen, codeevalWriting))
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


class CSharp(ClassWrapped, Language):
    name = "cs"
    title = "C#"
    int_suffix = "L"
    file_ext = "cs"
    tools = ("mcs", "mono")
    package = "mono-mcs mono-runtime"
    timeout = 5.0  # MultiPL-E's evaluator gives the program 5 s
    terms = ("list", "list", "tuple", "dictionary", "null", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "long", "float": "float", "bool": "bool", "str": "string"},
        **{"None": "null", "Any": "object"},
    }
    none_annotation = "null"
    # names C# reserves, and MultiPL-E's C++ list
    renamed: ClassVar[dict[str, str]] = {
        **ClassWrapped.renamed,
        **{"string": "str", "base": "numBase", "decimal": "decimalNum"},
    }
    optional_name = "Nullable"
    tuple_maker = "Tuple.Create"
    map_value = "new {kind}(){literal}"
    list_format, dict_format, tuple_format = "List<{}>", "Dictionary<{key},{value}>", ("Tuple<", ", ", ">")
    main = "public static void Main(string[] args) {"
    header = "".join(f"using {module};\n" for module in _USINGS)
    assertion = "Debug.Assert"
    equals = "Equals"
    env: ClassVar[dict[str, str]] = {"MONO_TRACE_LISTENER": "Console.Error"}  # a failed Debug.Assert, on stderr
    failure_line = rf"^Fail: {NAMED_FAILURE} (\d+)$"  # Mono's listener writes the message after `Fail: `
    failures_go_on = True  # a failed Debug.Assert lets the tests go on
    located_by_proof = True
    # the decoy's run shares the real run's build (mcs, half of a pass's time without it); the choice is read inline,
    # needing no declaration, which C# allows only inside a class
    chooser = f'(global::System.Environment.GetEnvironmentVariable("{CHOICE}") == "{{key}}" ? {{when}} : {{otherwise}})'
    artifacts = ("program.exe",)
    # no conversion between the two values' types (mcs writes a column past 255 as `255+`)
    chooser_refused = r"\({line},\d+\+?\): error CS0173:"
    # C#'s literals and the names MultiPL-E's values are written with: a value naming only these may move
    predeclared = frozenset(
        ["true", "false", "null", "new", "List", "Dictionary", "Tuple", "Create", "Nullable", "long", "float", "double",
         "bool", "string", "object"]
    )

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [["mcs", "-d:DEBUG", "-r:System.Numerics.dll", source, "-out:program.exe"]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
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
        """Our listener added at the start of the tests' `Main` (the program's last method), the proof at its end;
        each check in it names its line."""
        mains = list(_MAIN.finditer(program))
        if not mains:
            return None
        at = mains[-1].end()

        def named(check: re.Match[str]) -> str:
            line = program.count("\n", 0, at + check.start()) + 1
            return f'{check.group(1)}, "{NAMED_FAILURE} {line}");'

        proven = in_last_body(program[:at] + _CHECK.sub(named, program[at:]), _MAIN, CSHARP_END, at_start=CSHARP_START)
        return append(proven.text, CSHARP_LISTENER) if proven else None

    # -- translator ----------------------------------------------------------------------------------------------
    def function_name(self, name: str) -> str:
        return pascal_case(name)

    def call_name(self, func: str) -> str:
        name = pascal_case(func)
        return self.entry if name.lower() == "candidate" else name

    def optional_type(self, item: str) -> str:
        return f"Nullable<{item}>" if item in self.primitives else item

    def make_list(self, element: str, literal: str) -> str:
        return f"new List<{element}>(" + (f"new {element}[]{literal}" if literal else "") + ")"

    def optional_value(self, element: str, text: str) -> str:
        return f"(Nullable<{element}>)null" if text == "null" else text

    def coerced_prefix(self, text: str) -> str | None:
        if text == "null":
            return None
        dictionary = re.search(r"Dictionary<.+,.+>\(", text)
        if dictionary:
            return dictionary.group(0)
        constructed = re.search(r"new (.+?\()", text)
        return constructed.group(1) if constructed else None
