"""Haskell: MultiPL-E's `hs`. MultiPL-E runs `runghc`; here the program is compiled by `ghc` (no optimisation,
as the interpreter) and the binary runs, so the type check and code generation count as the compiler's time
and the sample's CPU limit is its own. The tests are `if x == y then pure () else error "assertion failed"` lines
of `main`; values are written as MultiPL-E writes them, its coercion's quirks included (coerced.py)."""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from typing import Any, ClassVar

from pytest_codeeval.languages.base import CHOICE, NAMED_LINE, Language, describe
from pytest_codeeval.languages.coerced import Coerced
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append
from pytest_codeeval.sandbox.api import ExecResult, Limits
from pytest_codeeval.sandbox.toolchains import compiled_once, tool_version

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

# The C `main` that GHC writes and compiles at every link of a program without `-rtsopts` (its defaults: RTS options
# from the command line limited to the safe ones, with the hint to link with -rtsopts; CAFs not kept)
GHC_MAIN = """#include <Rts.h>
extern StgClosure ZCMain_main_closure;
int main(int argc, char *argv[])
{
    RtsConfig conf = defaultRtsConfig;
    conf.rts_opts_enabled = RtsOptsSafeOnly;
    conf.rts_opts_suggestions = true;
    conf.keep_cafs = false;
    conf.rts_hs_main = true;
    return hs_main(argc, argv, &ZCMain_main_closure, conf);
}
"""


@lru_cache(maxsize=1)
def main_object() -> str | None:
    """GHC_MAIN compiled by this ghc (once per machine), linked in place of the one GHC would compile for every
    sample (`-no-hs-main`); None if it cannot be built (samples then link as they would anyway)."""
    if (version := tool_version(["ghc", "--numeric-version"])) is None:
        return None

    def compile(source: str, output: str) -> list[str]:
        return ["ghc", "-dynamic", "-c", source, "-o", output]

    digest = hashlib.sha256(GHC_MAIN.encode()).hexdigest()[:12]
    directory = compiled_once(f"ghc-main-{version}-{digest}", "main.c", GHC_MAIN, compile, "main.o")
    return os.path.join(directory, "main.o") if directory else None


def camel_case(name: str) -> str:
    """MultiPL-E's function names: has_close_elements -> hasCloseElements (the rest lowered, as it does)."""
    joined = "".join(word.capitalize() for word in name.lower().split("_"))
    return name[0].lower() + joined[1:]


class Haskell(Coerced, Language):
    name = "hs"
    title = "Haskell"
    file_ext = "hs"
    failure_line = NAMED_LINE
    stop = ("\n\n", "\n{-", "\n-- |", "\n--", "\ntype", "\ndata", "\nnewtype")
    tools = ("ghc",)
    package = "ghc"
    terms = ("list", "list", "tuple", "association list", "Nothing", "True", "False")
    scalars: ClassVar[dict[str, Any]] = {
        **{"int": "Int", "float": "Float", "bool": "Bool", "str": "String"},
        **{"None": "Nothing"},
    }
    dict_names = frozenset(scalars)
    list_format, optional_format = "[{}]", "Maybe {}"
    dict_format, tuple_format = "[({key}, {value})]", ("(", ", ", ")")
    list_separator = ","
    booleans, negative_format, none_literal = ("False", "True"), "(-{})", "Nothing"
    nothing = "Nothing"
    some = "Just ({})"

    # the decoy's run shares the real run's build (GHC's compile and link: nearly all of a sample's time). The
    # imports go on the program's first line, before its own, so that GHC's line numbers stay the program's
    chooser_header = (
        "import qualified System.Environment as CodeevalEnvironment; "
        "import qualified System.IO.Unsafe as CodeevalUnsafe; "
    )
    chooser = (
        f'(if CodeevalUnsafe.unsafePerformIO (CodeevalEnvironment.lookupEnv "{CHOICE}") == Just "{{key}}" '
        "then {when} else {otherwise})"
    )
    artifacts = ("program",)
    predeclared = frozenset(["Just", "Nothing", "True", "False", "Left", "Right", "LT", "EQ", "GT"])

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        # linked against GHC's shared libraries: the same program, without statically linking the runtime and base
        # into every sample's binary (a second of the build's wall time); its C `main`, the same for every program,
        # compiled once (a third of the link's time)
        main = main_object()
        return [["ghc", "-dynamic", source, "-o", "program", *(["-no-hs-main", main] if main else [])]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
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
        function = camel_case(name)
        types = " -> ".join(self.type_name(t) for t in [*self.arg_types, returns])
        declared = f"{function} {' '.join(a.arg for a in args)} ="
        return f"{describe(description, '--  ', '-- | ')}\n{function} :: {types}\n{declared}"

    def gen_var(self, name: str) -> Any:
        return camel_case(name)

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["\nmain :: IO ()", "main = do", f"  let candidate = {camel_case(entry_point)}"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["  pure ()"]

    def deep_equality(self, left: str, right: str) -> str:
        return f'  if {left} == {right} then pure () else error "assertion failed"'
