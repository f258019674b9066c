"""Swift: MultiPL-E's `swift` (`swiftc` without optimisation, so `assert` is checked; the binary runs).

The translation is type-directed as MultiPL-E's: a Python union becomes `Result<A, B>` (with an `extension B: Error
{}` in the prompt), an enum `Value` for three or more simple types, or an optional when None is one of them; an
empty list is written `[] as [T]`; calls name their parameters. Swift is not packaged by Debian: the runner is
written and its reading of the compiler's and the runtime's messages is tested, but it is not run on this system."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Language, describe
from pytest_codeeval.languages.proof import Proven, append
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage, is_ellipsis
from pytest_codeeval.sandbox.api import ExecResult, Limits

_SIMPLE = {"int": "Int", "float": "Double", "bool": "Bool", "str": "String"}


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Tup:
    """A Python tuple (kept apart from lists: Swift writes them differently)."""

    items: tuple[Any, ...]


# MultiPL-E's test prelude: tuples are not Equatable, so arrays of (Int, Int) get their own ==
_TUPLE_ARRAY_EQUALITY = """
func ==(left: [(Int, Int)], right: [(Int, Int)]) -> Bool {
    if left.count != right.count {
        return false
    }
    for (l, r) in zip(left, right) {
        if l != r {
            return false
        }
    }
    return true
}
            """
_ASSERT = re.compile(r"^(?:.*?:\d+: )?Assertion failed(?:: (?:file .*?, line )?(.*))?$", re.MULTILINE)
_FATAL = re.compile(r"^(?:.*?:\d+: )?Fatal error(?:: (.*))?$", re.MULTILINE)


# After the tests' top-level `assert` lines (a failed one traps). Swift cannot catch a failed `assert` nor fork, so
# the epilogue proves that the tests finished, not that `assert` still works (docs/security.md)
SWIFT_PROOF = """
import Glibc
do {
    var codeevalToken = [UInt8](repeating: 0, count: 64)
    let codeevalRead = read(4, &codeevalToken, 64)
    if codeevalRead > 0 { _ = write(3, codeevalToken, codeevalRead) }
}
"""


@dataclass(frozen=True)
class SwiftType:
    """A Swift type: `kind` is a simple name (Int, Double, Bool, String, AnyHashable, Value), or Array, Dictionary,
    Optional, Tuple or Result with its `args`."""

    kind: str
    args: tuple[SwiftType, ...] = ()

    def text(self) -> str:
        match self.kind, self.args:
            case "Array", (inner,):
                return f"[{inner.text()}]"
            case "Dictionary", (key, value):
                return f"[{key.text()} : {value.text()}]"
            case "Optional", (inner,):
                return f"{inner.text()}?"
            case "Tuple", items:
                return "(" + ", ".join(t.text() for t in items) + ")"
            case "Result", (ok, err):
                return f"Result<{ok.text()}, {err.text()}>"
        return self.kind


UNIT = SwiftType("Tuple")  # Python's None as a type
ANY = SwiftType("AnyHashable")  # also what a value inside an untyped one is written at


class Swift(TypedLanguage, Language):
    name = "swift"
    title = "Swift"
    file_ext = "swift"
    timeout = 5.0  # MultiPL-E's evaluator gives the binary 5 s (and swiftc 45 s)
    build_cpu_seconds = 45.0  # MultiPL-E's bound on swiftc (Swift is not installable here to measure it)
    stop = ("\n}",)
    tools = ("swiftc",)
    package = "swift.org's Linux toolchain"
    terms = ("array", "array", "tuple", "dictionary", "nil", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {
        **{name: SwiftType(kind) for name, kind in _SIMPLE.items()},
        **{"Any": ANY},
    }
    none_annotation = UNIT

    def unavailable(self) -> str | None:
        if not self.missing_tools():
            return None
        return (
            "Swift is not packaged by Debian: install a toolchain from https://www.swift.org/install/linux/ "
            "and put swiftc on PATH"
        )

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        # the module cache in the sample's private /tmp (the home directory is hidden in the sandbox)
        return [["swiftc", "-module-cache-path", "/tmp/.swift-module-cache", source, "-o", "program"]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["./program"]

    def compile_error(self, log: str) -> str:
        return next(
            (line.strip()[:300] for line in log.splitlines() if ": error: " in line), ""
        ) or super().compile_error(log)

    def runtime_error(self, result: ExecResult) -> str:
        """A failed `assert` and a runtime trap (index out of range, overflow, force-unwrapped nil) both end in
        SIGILL or SIGTRAP; Swift's message says which."""
        failed = _ASSERT.search(result.stderr)
        if failed:
            return "assertion failed" + (f": {failed.group(1).strip()[:200]}" if failed.group(1) else "")
        fatal = _FATAL.search(result.stderr)
        if fatal:
            return "exception: " + (fatal.group(1) or "fatal error").strip()[:200]
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After the tests' last line, a top-level `assert` (their form in MultiPL-E's rows)."""
        last = program.rstrip().rsplit("\n", 1)[-1]
        return append(program, SWIFT_PROOF) if last.startswith("assert(") else None

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.conformances: list[str] = []
        self.enum: SwiftType | None = None
        self.params = [(a.arg, self.simplify(self.type_name(a.annotation))) for a in args]
        self.result = self.simplify(self.type_name(returns))
        needs = ""
        if self.enum is not None:
            cases = "\n".join(
                f"    case {self.constructor(self.enum, i, t.text())}" for i, t in enumerate(self.enum.args)
            )
            needs += f"\nenum Value: Equatable, Hashable {{\n{cases}\n}}\n\n            "
        needs += "\n".join(self.conformances)
        described = describe(description, "/// ") + "\n"
        params = ", ".join(f"{arg}: {kind.text()}" for arg, kind in self.params)
        return f"{needs}\n{described}func {name}({params}) -> {self.result.text()} {{\n"

    def list_type(self, item: SwiftType) -> SwiftType:
        return SwiftType("Array", (item,))

    def ellipsis_tuple(self, items: list[Any]) -> SwiftType:
        if len(items) != 2 or not is_ellipsis(items[1]):
            raise Untranslatable("a tuple type with an ellipsis among its items")
        return self.list_type(self.type_name(items[0]))

    def tuple_type(self, items: list[SwiftType]) -> SwiftType:
        return SwiftType("Tuple", tuple(items))

    def dict_type(self, key: SwiftType, value: SwiftType) -> SwiftType:
        return SwiftType("Dictionary", (key, value))

    def optional_type(self, item: SwiftType) -> SwiftType:
        return SwiftType("Optional", (item,))

    def union_type(self, items: list[SwiftType]) -> SwiftType:
        return SwiftType("Union", tuple(items))

    def simplify(self, kind: SwiftType) -> SwiftType:
        """MultiPL-E's simplification: one-tuples unwrapped, unions as optionals, Results or the enum `Value`."""
        args = tuple(self.simplify(a) for a in kind.args)
        if kind.kind == "Tuple" and len(args) == 1:
            return args[0]
        if kind.kind == "Result":
            if args[1] == UNIT:
                return SwiftType("Optional", (args[0],))
            conformance = f"\nextension {args[1].text()}: Error {{}}\n        "
            if conformance not in self.conformances:
                self.conformances.append(conformance)
            return SwiftType("Result", args)
        if kind.kind != "Union":
            return SwiftType(kind.kind, args)
        cases = list(dict.fromkeys(a for a in args if a != UNIT))
        if not cases:
            return UNIT
        if len(cases) == 1:
            single = cases[0]
        elif len(cases) == 2:
            single = self.simplify(SwiftType("Result", tuple(cases)))
        else:
            if any(c.kind not in _SIMPLE.values() or c.args for c in cases):
                raise Untranslatable("a union of types that are not simple")
            single = SwiftType("Value", tuple(cases))
            if self.enum not in (None, single):
                raise Untranslatable("two different unions")
            self.enum = single
        return SwiftType("Optional", (single,)) if UNIT in args else single

    @staticmethod
    def constructor(union: SwiftType, index: int, inner: str) -> str:
        return f"{union.args[index].text().lower()}Value({inner})"

    # values stay Python values while walked, and are written at the signature's types in `finalize`
    def gen_literal(self, value: Any) -> Any:
        return value

    def gen_list(self, items: list[Any]) -> Any:
        return list(items)

    def gen_tuple(self, items: list[Any]) -> Any:
        return Tup(tuple(items))

    def gen_dict(self, keys: list[Any], values: list[Any]) -> Any:
        return dict(zip(keys, values, strict=True))

    def gen_call(self, func: Any, args: list[Any]) -> Any:
        return Call(func, tuple(args))

    def finalize(self, expr: Any, side: str) -> str:
        if isinstance(expr, Call):
            if len(expr.args) != len(self.params):
                raise Untranslatable("a call with another number of arguments than the signature")
            labelled = (f"{arg}: {self.top(v, kind)}" for v, (arg, kind) in zip(expr.args, self.params, strict=True))
            return f"{self.entry}(" + ", ".join(labelled) + ")"
        return self.top(expr, self.result)

    def top(self, value: Any, kind: SwiftType) -> str:
        written = self.render(value, kind)
        if written is None:
            raise Untranslatable(f"a value {value!r} that is not a {kind.text()}")
        return written[0]

    def render(self, value: Any, kind: SwiftType) -> tuple[str, bool] | None:
        """(text, whether an int was written where a Double goes) for a value at a type; None if it is not one."""
        untyped = kind == ANY
        if kind.kind == "Optional":
            return ("nil", False) if value is None else self.render(value, kind.args[0])
        if kind.kind in ("Result", "Value"):  # the first case the value fits, one needing no int-to-Double first
            tried = [self.render(value, case) for case in kind.args]
            fitting = [(w[1], i, w) for i, w in enumerate(tried) if w is not None]
            if not fitting:
                return None
            _, index, (text, upcast) = min(fitting)
            if kind.kind == "Result":
                return (".success" if index == 0 else ".failure") + f"({text})", upcast
            return f".{self.constructor(kind, index, text)}", upcast
        if isinstance(value, (bool, int, float, str)) or value is None:
            return self.literal(value, kind.kind, untyped)
        if isinstance(value, list) and (untyped or kind.kind == "Array"):
            inner = ANY if untyped else kind.args[0]
            return self.sequence(value, [inner] * len(value), "[]", inner)
        if isinstance(value, Tup) and (untyped or kind.kind == "Tuple"):
            kinds = [ANY] * len(value.items) if untyped else list(kind.args)
            return self.sequence(list(value.items), kinds, "()", ANY) if len(kinds) == len(value.items) else None
        if isinstance(value, Tup) and kind.kind == "Array":  # Tuple[int, ...]
            array = self.sequence(list(value.items), [kind.args[0]] * len(value.items), "[]", kind.args[0])
            return None if array is None else (array[0], True)
        if isinstance(value, dict) and (untyped or kind.kind == "Dictionary"):
            key, val = (ANY, ANY) if untyped else kind.args
            pairs = [(self.render(k, key), self.render(v, val)) for k, v in value.items()]
            entries = [(k, v) for k, v in pairs if k is not None and v is not None]
            if len(entries) != len(pairs):
                return None
            if not entries:
                return f"[:] as [{key.text()} : {val.text()}]", False
            return "[" + ", ".join(f"{k[0]} : {v[0]}" for k, v in entries) + "]", any(k[1] or v[1] for k, v in entries)
        if isinstance(value, (list, Tup, dict)):
            return None
        raise Untranslatable(f"a value {value!r} Swift's translation does not write")

    def sequence(
        self, values: list[Any], kinds: list[SwiftType], brackets: str, inner: SwiftType
    ) -> tuple[str, bool] | None:
        tried = [self.render(v, k) for v, k in zip(values, kinds, strict=True)]
        written = [w for w in tried if w is not None]
        if len(written) != len(tried):
            return None
        text = brackets[0] + ", ".join(w[0] for w in written) + brackets[1]
        if brackets == "[]" and not values:
            text += f" as [{inner.text()}]"
        return text, any(w[1] for w in written)

    @staticmethod
    def literal(value: Any, name: str, untyped: bool) -> tuple[str, bool] | None:
        if type(value) is bool and (name == "Bool" or untyped):
            return ("true" if value else "false"), False
        if isinstance(value, str) and (name == "String" or untyped):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            return f'"{escaped}"', False
        if type(value) is float and (name == "Double" or untyped):
            return f"{value}", False
        if type(value) is int and (name in ("Int", "Double") or untyped):
            return f"{value}", name == "Double"
        return None

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "", _TUPLE_ARRAY_EQUALITY]

    def test_suite_suffix_lines(self) -> list[str]:
        return []

    def deep_equality(self, left: str, right: str) -> str:
        return f"assert({left} == {right})"
