"""Rust: MultiPL-E's `rs` (rustc without optimisation, as MultiPL-E builds: integer overflow panics)."""

from __future__ import annotations

import ast
import os
import pwd
import re
import shutil
import subprocess
from functools import lru_cache
from typing import Any, ClassVar

from pytest_codeeval.languages.base import NAMED_LINE, Language, describe
from pytest_codeeval.languages.coerced import Coerced, generic, named
from pytest_codeeval.languages.proof import Proven, append, disabled_line, in_last_body
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.sandbox.api import ExecResult, Limits

_SCALARS = {"int": "isize", "float": "f64", "bool": "bool", "str": "String"}

_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)")
# The false `assert_eq!` must panic (caught, under a silent hook in place of any the program set)
RUST_PROOF = f"""
fn codeeval_proof() {{
    use std::io::{{Read, Write}};
    use std::os::unix::io::FromRawFd;
    let codeeval_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {{}}));
    let codeeval_one = std::hint::black_box(1);
    let codeeval_failed = std::panic::catch_unwind(|| {{ assert_eq!(codeeval_one, 2); }}).is_err();
    std::panic::set_hook(codeeval_hook);
    if !codeeval_failed {{
        let _ = writeln!(std::io::stderr(), "\\n{disabled_line()}");
        return;
    }}
    let mut codeeval_token = Vec::new();
    let mut codeeval_in = unsafe {{ std::fs::File::from_raw_fd(4) }};
    let mut codeeval_out = unsafe {{ std::fs::File::from_raw_fd(3) }};
    if codeeval_in.read_to_end(&mut codeeval_token).is_ok() {{
        let _ = codeeval_out.write_all(&codeeval_token);
    }}
}}
"""
_PANIC = re.compile(r"panicked at (?:'(.*?)', )?[^\n]*?(?::\n(.*))?$", re.MULTILINE)


class Rust(Coerced, Language):
    name = "rs"
    title = "Rust"
    file_ext = "rs"
    failure_line = NAMED_LINE
    timeout = 5.0  # MultiPL-E's evaluator gives this language 5 s
    stop = ("\n}",)
    tools = ("rustc",)
    package = "rustc (or rustup)"
    terms = ("vector", "vector", "tuple", "HashMap", "None", "true", "false")
    scalars: ClassVar[dict[str, Any]] = {"int": "isize", "float": "f64", "bool": "bool", "str": "String"}
    dict_names = frozenset({"int", "str"})
    list_format, optional_format = "Vec<{}>", "Option<{}>"
    dict_format, tuple_format = "HashMap<{key}, {value}>", ("(", ", ", ")")
    list_open = "vec!["
    string_format = 'String::from("{}")'
    curried = False
    tests_function: ClassVar[re.Pattern[str]] = _MAIN  # the function whose end the epilogue's call ends

    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        return [[rustc(), source, "-o", "program"]]

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["./program"]

    def proof(self, program: str) -> Proven | None:
        """At the end of the tests' function (`main`; a failed `assert_eq!` panics out of it), a call of the
        epilogue defined after the program, where the tests' `assert_eq!` (a shadowing macro included) is the one
        in scope."""
        proven = in_last_body(program, self.tests_function, "    crate::codeeval_proof();")
        return append(proven.text, RUST_PROOF) if proven else None

    def runtime_error(self, result: ExecResult) -> str:
        match = _PANIC.search(result.stderr)
        if match:
            message = (match.group(1) or match.group(2) or "").strip()[:200]
            return f"assertion failed: {message}" if message.startswith("assertion") else f"exception: panic: {message}"
        return super().runtime_error(result)

    # -- translator ----------------------------------------------------------------------------------------------
    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.hashmap = False
        typed = ", ".join(f"{a.arg}: {self.type_name(a.annotation)}" for a in args)
        result = self.type_name(returns)
        uses = "use std::collections::HashMap;\n\n" if self.hashmap else ""
        return f"{uses}{describe(description, '/// ')}\nfn {name}({typed}) -> {result} " + "{\n"

    def dict_type(self, key: str, value: str) -> str:
        self.hashmap = True
        return super().dict_type(key, value)

    def gen_literal(self, value: Any) -> str:
        if isinstance(value, str) and '"' in value:
            raise Untranslatable("a string with a double quote")
        return str(super().gen_literal(value))

    def gen_dict(self, keys: list[Any], values: list[Any]) -> str:
        return "HashMap::from(" + super().gen_dict(keys, values) + ")"

    def coerce_first(self, text: Any, annotation: Any) -> Any:
        if text == "vec![]" and generic(annotation, "List"):
            return f"Vec::<{self.type_name(annotation.slice)}>::new()"
        if text == "vec![]" and named(annotation, "str"):
            return "String::new()"
        return None

    def coerce_last(self, text: Any, annotation: Any) -> Any:
        match annotation:
            case ast.Subscript(value=ast.Name(id="Tuple"), slice=ast.Tuple(elts=[first, second])) if all(
                generic(item, "Optional") for item in (first, second)
            ):
                left, right = text.strip("()").split(", ")
                return "(" + ", ".join(self.coerce(item, first) for item in (left, right)) + ")"
        return text

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["}", "", "fn main() {", f"    let candidate = {entry_point};"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"    assert_eq!({left}, {right});"


@lru_cache(maxsize=1)
def rustc() -> str:
    """The compiler itself, by its full path: rustup's proxy (under the home directory, off the sandbox's PATH)
    would need rustup's settings and environment to choose it."""
    found = shutil.which("rustc") or "rustc"
    home = pwd.getpwuid(os.getuid()).pw_dir  # rustup's defaults follow HOME, which tests and tools may move
    env = {"RUSTUP_HOME": os.path.join(home, ".rustup"), "CARGO_HOME": os.path.join(home, ".cargo"), **os.environ}
    try:
        sysroot = subprocess.run(
            [found, "--print", "sysroot"], capture_output=True, text=True, timeout=60, env=env
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return found
    direct = os.path.join(sysroot, "bin", "rustc")
    return direct if sysroot and os.path.exists(direct) else found
