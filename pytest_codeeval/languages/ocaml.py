"""OCaml: MultiPL-E's `ml`, run as MultiPL-E runs it, by the `ocaml` toplevel (the file type-checked and run
phrase by phrase). The tests are `assert` lines of a `let assertions = ...` phrase. Values are written as
MultiPL-E writes them, its quirks included (coerced.py): a negative int is `(~1)`, which OCaml's parser rejects,
as in MultiPL-E's own rows."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Language, describe
from pytest_codeeval.languages.coerced import Coerced
from pytest_codeeval.languages.proof import DONE_OUT, TOKEN_IN, Proven, append, disabled_line
from pytest_codeeval.sandbox.api import ExecResult, Limits

_LOCATION = re.compile(r'^File "[^"]*", line (\d+), characters [\d-]+:', re.MULTILINE)
_ASSERT = re.compile(r'^Exception: Assert_failure\s*\("[^"]*", (\d+), \d+\)', re.MULTILINE)
_EXCEPTION = re.compile(r"^Exception: (.*?)\.?$", re.MULTILINE)


_TESTS = re.compile(r"^let assertions =", re.MULTILINE)
# After the tests' phrase (a failed `assert` raises out of it and the toplevel stops): `assert` is a keyword, but
# `=` (the tests' comparison) can be redefined, so the false assertion uses it
OCAML_PROOF = f"""
;;
let () =
  let codeeval_one = int_of_string "1" in
  if (try assert (codeeval_one = 2); true with Assert_failure _ -> false) then
    prerr_string "\\n{disabled_line()}\\n"
  else begin
    let codeeval_in = Stdlib.open_in_bin "{TOKEN_IN}" in
    let codeeval_out = Stdlib.open_out_gen [Open_wronly; Open_append; Open_binary] 0 "{DONE_OUT}" in
    let codeeval_token = Bytes.create 64 in
    Stdlib.output codeeval_out codeeval_token 0 (Stdlib.input codeeval_in codeeval_token 0 64);
    Stdlib.close_out codeeval_out
  end
;;
"""


class OCaml(Coerced, Language):
    name = "ml"
    title = "OCaml"
    file_ext = "ml"
    failure_line = r'"\./{source}", (\d+)'  # Assert_failure ("./program.ml", 21, 2)
    stop = ("\n\n", "\n(*", "\ntype", "\nlet")
    tools = ("ocaml",)
    package = "ocaml-nox"
    terms = ("list", "list", "tuple", "association list", "None", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {"int": "int", "float": "float", "bool": "bool", "str": "string"}
    dict_names = frozenset({"int", "str"})
    list_format, optional_format = "{} list", "{} option"
    dict_format, tuple_format = "({key}, {value}) list", (" ", " * ", "")  # MultiPL-E's leading space
    list_separator = items_separator = pair_separator = "; "
    # MultiPL-E writes no text for None: the problem fails, or None shows as `None` or `Some(None)`
    negative_format, none_literal = "(~{})", None

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["ocaml", source]

    def runtime_error(self, result: ExecResult) -> str:
        err = result.stderr
        failed = _ASSERT.search(err)
        if failed:
            return f"assertion failed: line {failed.group(1)}"
        error = re.search(r"^Error: (.*(?:\n\s+\S.*)*)", err, re.MULTILINE)
        if error:  # the toplevel's parser or type checker, before the phrase ran
            message = " ".join(error.group(1).split())[:200]
            located = _LOCATION.search(err)
            where = f"line {located.group(1)}: " if located else ""
            kind = "syntax error" if message.startswith("Syntax error") else "type error"
            return f"{kind}: {where}{message}"
        raised = _EXCEPTION.search(err)
        if raised:
            return f"exception: {raised.group(1)[:200]}"
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `let assertions = ...` phrase, the program's last."""
        return append(program, OCAML_PROOF) if _TESTS.search(program) else None

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        typed = " ".join(f"({a.arg} : {self.type_name(a.annotation)})" for a in args)
        return f"{describe(description, ' * ', '(**')}\n*)\nlet {name} {typed} : {self.type_name(returns)} ="

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["", "let assertions =", f" let candidate = {entry_point} in"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["  ()", ""]

    def deep_equality(self, left: str, right: str) -> str:
        return f"  (assert (({left}) = {right}));"
