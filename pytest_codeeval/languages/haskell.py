"""Haskell: MultiPL-E's `hs`. MultiPL-E runs `runghc`; here the program is compiled by `ghc` (no optimisation,
as the interpreter) and the binary runs, so the type check and code generation count as the compiler's time
and the sample's CPU limit is its own. The tests are `if x == y then pure () else error "assertion failed"` lines
of `main`; values are written as MultiPL-E writes them (its literals coerced to the signature's types), except
where its coercion would not compile (a negative int or an empty list where a float list is expected, an
Optional inside a container), where the typed value is written instead."""

from __future__ import annotations

import re
from typing import Any

from pytest_codeeval.languages.coerced import CoercedLanguage
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import parts
from pytest_codeeval.sandbox.api import ExecResult

_SCALARS = {"int": "Int", "float": "Float", "bool": "Bool", "str": "String"}
# what a failing `error` call and an uncaught exception print: "program: message", then GHC's call stack
_RAISED = re.compile(r"^program: (.*?)(?:\nCallStack \(from HasCallStack\):|\Z)", re.MULTILINE | re.DOTALL)


_TESTS_END = re.compile(r"^main = do\n(?:  .*\n)*  pure \(\)\s*$", re.MULTILINE)
# One more statement at the end of the tests' `main` (a failed test is `error`, which ends the program before it).
# With Prelude's functions only (a completion cannot import): `error` itself cannot be redefined (a definition of
# it is an ambiguous occurrence), so there is no assertion mechanism to check.
HASKELL_PROOF = f"""  codeevalProof

codeevalProof :: IO ()
codeevalProof = readFile "{TOKEN_IN}" >>= appendFile "{DONE_OUT}"
"""


def camel_case(name: str) -> str:
    """MultiPL-E's function names: has_close_elements -> hasCloseElements (the rest lowered, as it does)."""
    joined = "".join(word.capitalize() for word in name.lower().split("_"))
    return name[0].lower() + joined[1:]


class Haskell(CoercedLanguage):
    name = "hs"
    title = "Haskell"
    aliases = ("haskell",)
    file_ext = "hs"
    stop = ("\n\n", "\n{-", "\n-- |", "\n--", "\ntype", "\ndata", "\nnewtype")
    tools = ("ghc",)
    package = "ghc"
    terms = ("list", "list", "tuple", "association list", "Nothing", "True", "False")
    comment = "--"
    list_separator = ","
    nothing = "Nothing"
    some = "Just ({})"
    nested_floats = False  # a Haskell literal 1 is a Float where one goes

    def boolean(self, value: bool) -> str:
        return str(value)

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        # linked against GHC's shared libraries: the same program, without statically linking the runtime and base
        # into every sample's binary (a second of the build's wall time)
        return [["ghc", "-dynamic", source, "-o", "program"]]

    def run_command(self, source: str) -> list[str]:
        return ["./program"]

    def compile_error(self, log: str) -> str:
        """GHC's first error: its `file:line:col: error:` line and the message's first line under it."""
        lines = log.splitlines()
        for index, line in enumerate(lines):
            if " error:" in line:
                message = line.split(" error:", 1)[1].strip()
                following = next((t.strip(" •") for t in lines[index + 1 :] if t.strip(" •")), "")
                where = line.split(" error:", 1)[0].strip()
                return f"{where} {message or following}"[:300]
        return super().compile_error(log)

    def runtime_error(self, result: ExecResult) -> str:
        raised = _RAISED.search(result.stderr)
        if raised:
            message = " ".join(raised.group(1).split())[:200]
            if message == "assertion failed":
                return "assertion failed"
            return f"exception: {message}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """A last statement of the tests' `main = do` block (the program's end), and its definition after it."""
        return append(program, HASKELL_PROOF) if _TESTS_END.search(program) else None

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = "-- | " + re.sub(r"\n\s*", "\n-- | ", description.strip()) + "\n"
        function = camel_case(name)
        types = " -> ".join(self.type_name(t) for t in [*(a.annotation for a in args), returns])
        return f"{described}{function} :: {types}\n{function} {' '.join(a.arg for a in args)} ="

    def type_name(self, annotation: Any) -> str:
        kind, inner = parts(annotation)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "List":
            return f"[{self.type_name(inner[0])}]"
        if kind == "Tuple" and Ellipsis not in [getattr(i, "value", None) for i in inner]:
            return "(" + ", ".join(self.type_name(i) for i in inner) + ")"
        if kind == "Dict":
            return f"[({self.type_name(inner[0])}, {self.type_name(inner[1])})]"
        if kind == "Optional":
            return f"Maybe {self.type_name(inner[0])}"
        raise Untranslatable(f"no Haskell type for {kind}")

    def gen_var(self, name: str) -> Any:
        return camel_case(name)

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["\nmain :: IO ()", "main = do", f"  let candidate = {camel_case(entry_point)}"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["  pure ()"]

    def deep_equality(self, left: str, right: str) -> str:
        return f'  if {left} == {right} then pure () else error "assertion failed"'

    def float_list(self, value: list[Any], annotation: Any) -> str:
        """MultiPL-E's Haskell coerces a float list's text as one item: ".0" after the last item of a list written
        without a point ([1,2,3.0]); not after an empty list or a negative item, where that would not compile."""
        text = self.plain(value)
        return text[:-1] + ".0]" if value and "." not in text and not text.endswith(")]") else text


LANGUAGE = Haskell
