"""Perl: MultiPL-E's `pl`, tests with Test::Deep's eq_deeply (Debian: libtest-deep-perl)."""

from __future__ import annotations

import re
import signal
from typing import Any

from pytest_codeeval.languages.base import Language, describe
from pytest_codeeval.languages.proof import (
    FAILED_AT,
    NAMED_FAILURE,
    Proven,
    append,
    disabled_line,
    skipped_line,
    unnamed,
)
from pytest_codeeval.sandbox.api import ExecResult, Limits

_TESTS_CALLED = re.compile(r"\ntesthumaneval\(\);\s*$")
_TESTS = re.compile(r"^sub\s+testhumaneval\b", re.MULTILINE)
PERL_RAN = "        $codeeval::ran = 1;"  # at the end of the tests' sub: one the program put in its place never sets it
# A failed statement ends the program by `exit 1;`, which names nothing: in the tests (of both runs alike, so the
# decoy's is not told apart) each first writes its own line, which locates the decoy's failure
_EXIT = re.compile(r"^([ \t]*)exit 1;", re.MULTILINE)
NAMED_EXIT = f'print STDERR "\\n{NAMED_FAILURE} ", __LINE__, "\\n"; exit 1;'
# Test::Deep's eq_deeply (the tests' comparison) must still tell 1 from 2, and `exit` (how a failed test ends the
# program) must be Perl's own, not an override; the token copied by descriptor
PERL_PROOF = f"""
{{
    if (!$codeeval::ran) {{
        print STDERR "\\n", '{skipped_line()}', "\\n";
    }} elsif (eq_deeply(1, 2) || defined &CORE::GLOBAL::exit) {{
        print STDERR "\\n", '{disabled_line()}', "\\n";
    }} else {{
        open(my $codeeval_in, "<&=", 4) or die "descriptor 4: $!";
        open(my $codeeval_out, ">&=", 3) or die "descriptor 3: $!";
        sysread($codeeval_in, my $codeeval_token, 64);
        syswrite($codeeval_out, $codeeval_token);
    }}
}}
"""


class Perl(Language):
    name = "pl"
    title = "Perl"
    file_ext = "pl"
    comment = "#"
    dict_arrow = " => "
    stop = ("\nsub", "\n#", "\n\n")
    tools = ("perl",)
    package = "perl libtest-deep-perl"
    terms = ("array", "array", "array", "hash", "undef", "1", "''")
    failure_line = FAILED_AT
    located_by_proof = True
    statement_closes = "exit 1;"  # a statement runs from its `if` to the `exit 1;` whose line a failure names

    def unavailable(self) -> str | None:
        import subprocess

        missing = super().unavailable()
        if missing is None and subprocess.run(["perl", "-MTest::Deep", "-e1"], capture_output=True).returncode:
            return "Perl's Test::Deep is not installed: apt-get install libtest-deep-perl (or make setup LANGS=pl)"
        return missing

    def run_command(self, source: str, limits: Limits) -> list[str]:
        return ["perl", source]

    def failure_despite_success(self, result: ExecResult) -> str | None:
        # MultiPL-E's evaluator fails a Perl program that prints ERROR anywhere, whatever its exit status
        return "ERROR in the output" if "ERROR" in result.stdout or "ERROR" in result.stderr else None

    def runtime_error(self, result: ExecResult) -> str:
        err = unnamed(result.stderr)
        if "syntax error" in err or "Execution of" in err:
            return "syntax error: " + err.split("\n")[0][:200]
        if result.exit_code == 1 and not err:
            return "assertion failed: eq_deeply"
        if err and result.signal != signal.SIGKILL:
            return "exception: " + err.split("\n")[-1][:200]
        return super().runtime_error(result)

    def proof(self, program: str) -> Proven | None:
        """After MultiPL-E's `testhumaneval();`, which a failed test leaves by `exit 1` (naming its line first)."""
        tests, called = list(_TESTS.finditer(program)), _TESTS_CALLED.search(program)
        if not tests or called is None:
            return None
        # the sub's closing brace: the last before the call (found by place, not by a scan that a string spanning
        # lines would mislead: HumanEval_51's "abcdef\nghijklm")
        at, closing = tests[-1].start(), program.rfind("}", 0, called.start())
        if closing < at or program[closing + 1 : called.start()].strip():
            return None
        body = _EXIT.sub(lambda m: m.group(1) + NAMED_EXIT, program[at:closing])
        return append(program[:at] + body + "\n" + PERL_RAN + "\n" + program[closing:], PERL_PROOF)

    # -- translator --------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        described = describe(description, "# ") + "\n"
        return f"{described}sub {name} " + "{\n    " + f"my({', '.join('$' + a.arg for a in args)}) = @_;\n"

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["use Test::Deep;\n", "", "sub testhumaneval {", f"    my $candidate = \\&{entry_point};"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["}", "", "testhumaneval();"]

    def deep_equality(self, left: str, right: str) -> str:
        return f"        if(eq_deeply({left},{right})) " + '{\n        print "ok!" }else{\n        exit 1;\n        }'

    def gen_literal(self, value: Any) -> Any:
        if value is True:
            # a number, not text: MultiPL-E's Perl translation then fails (and leaves out) a problem with True among
            # a list's items or a call's arguments, which it joins as text; a tuple's items are converted first
            return 1
        if value is False:
            return '""'
        if isinstance(value, str):
            return f'"{value}"'
        if value is None:
            return "undef"
        return repr(value)

    def gen_tuple(self, items: list[Any]) -> str:
        return "[" + ", ".join(str(item) for item in items) + "]"

    def gen_call(self, func: str, args: list[str]) -> str:
        return ("$candidate->" if func == "candidate" else func) + "(" + ", ".join(args) + ")"
