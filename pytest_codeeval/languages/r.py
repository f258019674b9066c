"""R: MultiPL-E's `r`, run with Rscript; a failed test is `stopifnot` ending the script."""

from __future__ import annotations

import ast
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from pytest_codeeval.languages.base import Language, line_comments
from pytest_codeeval.languages.decoy import Decoy
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

# R's report: "Error in f(x) : message" or "Error: message", the message possibly on the next line
_ERROR = re.compile(
    r"^Error(?: in .*?)?\s*:\s*(.*?)\n(?:Calls:|Execution halted|In addition:)", re.MULTILINE | re.DOTALL
)
# a failed `stopifnot` quotes its condition as R deparses it, cut with " ...." after about 60 characters
# (on the error's line, or the next one: "Error in f() : \n  isTRUE(...) is not TRUE")
_NOT_TRUE = re.compile(r"^Error(?: in [^\n]*?)? *:[ \t]*\n?[ \t]*([^\n]*?)(?: \.\.\.\.)? is not TRUE$", re.MULTILINE)
_STATEMENT = re.compile(r"^[ \t]*stopifnot\((.*)\)[ \t]*$", re.MULTILINE)
_LITERAL = re.compile(r"(?<![\w.])(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_UNQUOTED = str.maketrans("", "", "\"'`\\")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?")
# every word a program may name an object by, in its code or its strings (`do.call("median", x)`): an R name, an
# operator `%o%`; found after its comments are dropped (a string, a quoted name or a comment, whichever opens first)
_WORDS = re.compile(r"[\w.]+|%[^%\n]*%")
_COMMENT_OR_NOT = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|#[^\n]*')
# what Rscript prints, for each package it attaches at start-up, in its order: the package, then every name it adds
_ATTACHED = ('for (p in rev(grep("^package:", search(), value = TRUE))[-1]) '
             '{ cat(sub("package:", "", p), ls(p, all.names = TRUE), sep = "\\t"); cat("\\n") }')


_TESTS_CALLED = re.compile(r"\ntest_humaneval\(\)\s*$")
# the tests' whole assertion, `stopifnot(isTRUE(all.equal(...)))`, must stop on a false one
R_PROOF = f"""
local({{
    codeeval_failed <- tryCatch({{ stopifnot(isTRUE(all.equal(1, 2))); FALSE }}, error = function(e) TRUE)
    if (!codeeval_failed) {{
        cat("\\n{disabled_line()}\\n", file = stderr())
    }} else {{
        codeeval_in <- file("{TOKEN_IN}", "rb")
        codeeval_token <- readBin(codeeval_in, "raw", 64)
        close(codeeval_in)
        codeeval_out <- file("{DONE_OUT}", "wb")
        writeBin(codeeval_token, codeeval_out)
        close(codeeval_out)
    }}
}})
"""


class R(Language):
    name = "r"
    title = "R"
    file_ext = "r"
    comment = "#"
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\n#", "\n```")
    tools = ("Rscript",)
    package = "r-base-core"
    terms = ("vector", "list", "list", "named list", "NULL", "TRUE", "FALSE")
    literal_or_comment, comment_starts, name_pattern = _COMMENT_OR_NOT, ("#",), _WORDS

    parameters: tuple[Any, ...] = ()  # the entry point's parameter annotations, set by translate_prompt

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["Rscript", source]

    def script(self, source: str, limits: Limits, program: str = "", run: bool = True) -> str:
        """Rscript attaches only the default packages that `program` names something of (`attached`, `names`)."""
        if not (packages := attached()):  # Rscript could not list them: it attaches every one, as it would
            return super().script(source, limits, program, run)
        names = self.names(program)
        needed = ",".join(package for package, exports in packages if exports & names) or "NULL"
        return f"export R_DEFAULT_PACKAGES={needed}\n" + super().script(source, limits, program, run)

    def runtime_error(self, result: ExecResult) -> str:
        match = _ERROR.search(result.stderr + "\n")
        if match is None or result.signal:
            return super().runtime_error(result)
        message = " ".join(match.group(1).split())
        if message.endswith("is not TRUE"):
            return "assertion failed: " + message[:200]
        if message.startswith("unexpected "):
            return "syntax error: " + message[:200]
        return "exception: " + message[:200]

    def failed_lines(self, decoy: Decoy, output: str) -> list[int]:
        """`stopifnot` names no line, but quotes the condition that failed (deparsed, perhaps cut short): the lines
        of the test statements whose condition begins with the quote of the error that ended the run."""
        quotes = _NOT_TRUE.findall(output)
        said = _deparsed(quotes[-1]) if quotes else None
        return [decoy.text.count("\n", 0, match.start()) + 1 for match in _STATEMENT.finditer(decoy.text)
                if said is not None and _deparsed(match.group(1)).startswith(said)]

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `test_humaneval()`, which a failed `stopifnot` ends with an error."""
        return append(program, R_PROOF) if _TESTS_CALLED.search(program) else None

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.parameters = tuple(a.annotation for a in args)
        return f"{line_comments(description, '# ')}{name} <- function({', '.join(a.arg for a in args)}) " + "{"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["test_humaneval <- function() {", f"    candidate <- {entry_point}"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "test_humaneval()"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    stopifnot(isTRUE(all.equal({left}, {right})))"

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if value is None:
            return "NULL"
        return repr(value)

    def gen_list(self, items: list[str]) -> str:
        """An atomic vector `c(...)` when the items are of one R type, a `list(...)` otherwise."""
        kinds = {_kind(item) for item in items}
        atomic = not kinds & {"null", "vector", "list"} and len(kinds) <= 1
        return ("c(" if atomic else "list(") + ", ".join(items) + ")"

    def gen_dict(self, keys: list[str], values: list[str]) -> str:
        return "list(" + ", ".join(f"{k} = {v}" for k, v in zip(keys, values, strict=True)) + ")"

    def gen_call(self, func: str, args: list[str]) -> str:
        # an argument the signature declares a list of scalars is a vector, even when its items mix R types
        types = self.parameters
        coerced = [
            "c(" + arg.split("(", 1)[1] if "(" in arg and i < len(types) and _scalar_list(types[i]) else arg
            for i, arg in enumerate(args)
        ]
        return func + "(" + ", ".join(coerced) + ")"


@lru_cache(maxsize=1)
def attached() -> tuple[tuple[str, frozenset[str]], ...]:
    """The packages Rscript attaches at start-up (methods, stats, utils, graphics, grDevices, datasets), in its order,
    each with the names it adds. Attaching them is most of Rscript's start (0.15 s of 0.18 s), so a program gets
    only those it names something of: the same names resolve to the same objects, in a fraction of the time. A name
    built at run time (`get(paste0("med", "ian"))`) is the one thing not seen; empty where Rscript cannot run."""
    env = {key: os.environ[key] for key in ("PATH", "LANG") if key in os.environ}  # the sandbox's, near enough
    try:
        listed = subprocess.run(["Rscript", "-e", _ATTACHED], capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    packages = [line.split("\t") for line in listed.stdout.splitlines() if line]
    return tuple((names[0], frozenset(names[1:])) for names in packages)


def _kind(item: str) -> str:
    if item.startswith("c("):
        return "vector"
    if item.startswith("list("):
        return "list"
    if item == "NULL":
        return "null"
    if item in ("TRUE", "FALSE"):
        return "boolean"
    return "numeric" if _NUMBER.fullmatch(item) else "string"


def _scalar_list(annotation: Any) -> bool:
    """`List[int]` and the like (MultiPL-E's rule: a name other than Any inside List[...])."""
    return (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "List"
        and isinstance(annotation.slice, ast.Name)
        and annotation.slice.id != "Any"
        and "complex" not in annotation.slice.id
    )


def _deparsed(code: str) -> str:
    """R code as R's `deparse` writes it, near enough to compare: numbers to 15 significant digits, no quotes (a
    list's names lose theirs) or escapes, no white space."""
    code = _LITERAL.sub(lambda number: format(float(number.group()), ".15g"), code)
    return "".join(code.translate(_UNQUOTED).split())
