"""What Java and Scala share beyond the C family's translators (cfamily.py): camelCase names, the call of
`candidate` written as the function's own, `l`/`f` literal suffixes, a list's items in parentheses; and, as
runners, the compiler's JVM flags and the reading of an uncaught exception."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_codeeval.languages.cfamily import ClassWrapped
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits

# the compilers are JVMs too: C1 only and the serial collector start them in about half the time
COMPILER_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")
# The JVM's memory beside its heap (metaspace, code cache, thread stacks, the collector's tables: 33 MiB committed
# for a clojure.main script, by -XX:NativeMemoryTracking), kept free inside the sample's memory bound
NON_HEAP_BYTES = 256 * 1024**2
HEAP_ARGS = ".jvm-heap"  # the java launcher's argument file (`java @file`), written beside the program
_EXCEPTION = re.compile(r'^Exception in thread "main" ([\w.$]+)(?::\s*(.*))?$', re.MULTILINE)


def heap_options(limits: Limits) -> str:
    """The heap follows the sample's memory bound, not a fixed -Xmx that failed correct programs holding 0.9 GiB
    (MultiPL-E sets none). The serial collector's old generation, where a large array must fit whole, is 2/3 of the
    heap by default: NewRatio=7 makes it 7/8, so a 2 GiB bound holds a 1.2 GiB `long[]`."""
    heap = limits.memory_bytes - min(NON_HEAP_BYTES, limits.memory_bytes // 4)
    return f"-Xmx{heap // 1024**2}m -XX:NewRatio=7\n"


class HeapBounded:
    """A runner whose programs run on the JVM: its `run_command` names `@HEAP_ARGS`, written here for each sample
    from its limits (the command itself is made without them)."""

    def request(self, program: str, limits: Limits) -> ExecRequest:
        request: ExecRequest = super().request(program, limits)  # type: ignore[misc]
        return replace(request, files=(*request.files, (HEAP_ARGS, heap_options(limits).encode())))


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
