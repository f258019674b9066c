"""What Java and Scala share beyond the C family's translators (cfamily.py): camelCase names, the call of
`candidate` written as the function's own, `l`/`f` literal suffixes, a list's items in parentheses; and, as
runners, the compiler's JVM flags and the reading of an uncaught exception."""

from __future__ import annotations

import re

from pytest_codeeval.languages.cfamily import ClassWrapped
from pytest_codeeval.sandbox.api import ExecResult

# the compilers are JVMs too: C1 only and the serial collector start them in about half the time
COMPILER_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")
_EXCEPTION = re.compile(r'^Exception in thread "main" ([\w.$]+)(?::\s*(.*))?$', re.MULTILINE)


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


class Jvm(ClassWrapped):
    int_suffix = "l"
    float_suffix = "f"
    empty_literal = brackets = "()"

    def function_name(self, name: str) -> str:
        return camel_case(name)

    def call_name(self, func: str) -> str:
        name = camel_case(func)
        return self.entry if name == "candidate" else name

    def runtime_error(self, result: ExecResult) -> str:
        """The uncaught exception by name; a failed assertion (Java's `assert`, Scala's `assert`) as such."""
        match = _EXCEPTION.search(result.stderr)
        if match is None:
            return super().runtime_error(result)
        kind, message = match.group(1), (match.group(2) or "").strip()
        if kind == "java.lang.AssertionError":
            return "assertion failed" + (f": {message[:200]}" if message and message != "assertion failed" else "")
        return f"exception: {kind}" + (f": {message[:200]}" if message else "")
