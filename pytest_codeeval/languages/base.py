"""What every language shares: `Translator`, MultiPL-E's interface for writing Python problems in the language,
and `Language`, the one runner machinery (the sandbox request and its script, the verdict, the proof and decoy
runs, the JVM's flags), so that a language's module and this one say all there is about how its programs run.

The program runs under `/bin/sh` with a short script made here: the build step (a compiler, if any) runs first
under its own bounds (`build_cpu_seconds` of CPU per compiler process, three times that of wall time), then the
script sets the CPU limit to the sample's own, tells the zygote that the run begins (`RUN_MARK`) and `exec`s the
program, so the program's CPU time alone decides a timeout verdict and a slow compiler never does. The zygote
ends the program at its wall-clock bound, counted from that mark: no process of the sample's own keeps the time
(a program could kill it, and a correct one that waits for all its children would wait for it)."""

from __future__ import annotations

import re
import secrets
import shlex
import shutil
import signal
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_codeeval.languages.decoy import LEFT, RIGHT, Decoy, Form, changed, flip, spans, without_expected
from pytest_codeeval.languages.proof import (
    DECOY,
    DECOY_ELSEWHERE,
    DECOY_STOPPED,
    MARK,
    NEUTERED,
    NOT_RUN,
    Proven,
    unfinished,
)
from pytest_codeeval.runners.base import CUT, Outcome, Runner, tail
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Executor, Limits
from pytest_codeeval.sandbox.protocol import RUN_MARK

if TYPE_CHECKING:
    from pytest_codeeval.samples import Status

# Each compiler process's CPU limit, apart from the program's: MultiPL-E's bound on a build. A compile-time bomb
# (a type explosion, a template recursion) fails in about that time; honest builds of its programs take a few.
BUILD_CPU_SECONDS = 15.0
BUILD_WALL_FACTOR = 3  # the build's wall bound: this many times its CPU limit (a loaded machine, several processes)
BUILD_FAILED = 97  # the script's exit status when the build step failed
# the detail of a pass that only the exit status shows (a program whose tests are in no form its language proves)
UNPROVEN = "ok (exit status only: the tests' completion is not proven for this program's form)"
# The JVM's (Java, Scala, Clojure): its compilers are JVMs too, which C1 only and the serial collector start in about
# half the time; its memory beside the heap (metaspace, code cache, thread stacks, the collector's tables: 33 MiB
# committed for a clojure.main script, by -XX:NativeMemoryTracking) is kept free inside the sample's memory bound
COMPILER_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")
NON_HEAP_BYTES = 256 * 1024**2
JVM_ADDRESS_SPACE = 16 * 1024**3  # the JVM reserves address space for its heap, code cache and class space
# the environment variable whose value chooses, in a program built once for both runs, between the two values of the
# statement its decoy changed (`Language.chooser`)
CHOICE = "CODEEVAL_RUN"
# a `failure_line` for reports that write the source file's name, then the line: `program.js:22:`, `program.d(24)`
NAMED_LINE = r"{source}[:(](\d+)"
_JVM_EXCEPTION = re.compile(r'^Exception in thread "main" ([\w.$]+)(?::\s*(.*))?$', re.MULTILINE)


class Translator:
    """MultiPL-E's translator interface (its `Translator`): a Python problem's prompt and tests written in the
    language (languages/translate.py walks them). The typed translators' shared syntax extends it (typed.py); each
    language's class joins its translator to its runner, `Language`."""

    name: ClassVar[str] = ""  # MultiPL-E's short name: js, java, rs, ... (the `multiple-<name>` task)
    title: ClassVar[str] = ""  # the language's name as MultiPL-E's terms.csv writes it
    stop: ClassVar[tuple[str, ...]] = ()
    # MultiPL-E's prompt terminology (terms.csv): Python's words for array, list, tuple, dictionary, None, True, False
    terms: ClassVar[tuple[str, str, str, str, str, str, str]] = (
        "array",
        "list",
        "tuple",
        "dictionary",
        "None",
        "True",
        "False",
    )
    comment: ClassVar[str] = "//"  # line comment for the prompt's description
    dict_arrow: ClassVar[str] = ": "  # between a dictionary literal's key and value

    # -- MultiPL-E's interface -------------------------------------------------------------------------------------
    def describe(self, description: str, indent: str = "") -> str:
        """The docstring as line comments: the first line right after the comment marker, the others after it and
        a space, MultiPL-E's layout."""
        return describe(description, f"{indent}{self.comment} ", f"{indent}{self.comment}") + "\n"

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str | None:
        raise NotImplementedError

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        raise NotImplementedError

    def test_suite_suffix_lines(self) -> list[str]:
        raise NotImplementedError

    def deep_equality(self, left: Any, right: Any) -> str:
        raise NotImplementedError

    def gen_literal(self, value: Any) -> Any:
        raise NotImplementedError

    def gen_var(self, name: str) -> Any:
        return name

    def gen_list(self, items: list[Any]) -> Any:
        return "[" + ", ".join(items) + "]"

    def gen_tuple(self, items: list[Any]) -> Any:
        return self.gen_list(items)

    def gen_dict(self, keys: list[Any], values: list[Any]) -> Any:
        return "{" + ", ".join(f"{k}{self.dict_arrow}{v}" for k, v in zip(keys, values, strict=True)) + "}"

    def gen_set(self, items: list[Any]) -> Any:
        """A set: most of MultiPL-E's translators have none, and leave the problem out (whatever a translator
        raises leaves the problem out)."""
        raise NotImplementedError(f"{self.title}'s translation writes no sets")

    def gen_call(self, func: Any, args: list[Any]) -> Any:
        return f"{func}(" + ", ".join(args) + ")"

    def finalize(self, expr: Any, side: str) -> str:
        """The text of a translated expression (typed translators carry (text, type) pairs until here)."""
        return expr

    def decoy_templates(self) -> tuple[str, ...]:
        """The tests' assertion statements rendered with `LEFT` and `RIGHT` (asked of a fresh instance,
        without a problem's translation state): the translator's own `deep_equality`, which the decoy finds."""
        return (self.deep_equality(LEFT, RIGHT),)

    def condition_templates(self) -> tuple[str, ...]:
        """The tests' assertion statements that hold one condition, rendered with `RIGHT` in its place: the decoy
        negates one where no two expected values can be swapped (HumanEvalPack's `console.assert(...)`)."""
        return ()


class Language(Translator, Runner):
    """A language: its translator (`Translator`, or a typed one of typed.py) and its runner, in one module under
    `pytest_codeeval/languages/`, which says how its program is assembled (`proof`) and the commands that build
    and run it (`build_commands`, `run_command`); this class is the machinery every language's runner shares."""

    file_ext: ClassVar[str] = ""
    filename: ClassVar[str] = ""  # the source file's name in the scratch directory (default: program.<ext>)
    tools: ClassVar[tuple[str, ...]] = ()  # executables that must be on PATH
    package: ClassVar[str] = ""  # what to install when a tool is missing (Debian package names)
    # RLIMIT_AS, when the runtime reserves more address space than it uses (its memory stays the task's: the
    # control group bounds it)
    address_space_bytes: ClassVar[int | None] = None
    build_cpu_seconds: ClassVar[float] = BUILD_CPU_SECONDS
    env: ClassVar[dict[str, str]] = {}
    timeout: ClassVar[float] = 15.0  # the program's limit in MultiPL-E's evaluator (seconds; CPU time here)
    quotes: ClassVar[str] = "\"'"  # what opens a string in the tests (the decoy's scan skips strings)
    helpers: ClassVar[str | None] = None  # what begins the tests' own helpers after their statements (Dart's)
    negation: ClassVar[str] = "!({})"  # a condition negated, for a decoy of `condition_templates`
    # What `names` reads a program with: `literal_or_comment` matches, whichever opens first, a string or character
    # literal (kept) or a comment (dropped: it begins with one of `comment_starts`); `name_pattern`, a name
    literal_or_comment: ClassVar[re.Pattern[str]] = re.compile(r"(?!)")
    comment_starts: ClassVar[tuple[str, ...]] = ()
    name_pattern: ClassVar[re.Pattern[str]] = re.compile(r"\w+")
    # How a failed run's report names where it failed, for `failed_elsewhere`: `failure_line`, a pattern with
    # `{source}` (the source file's name) whose group 1 is a line of the program, or `failure_row`, one whose group 1
    # is the failed statement's index among the tests' statements, from 0 (Go's table rows); neither where the
    # report does not name the failed statement. `failures_go_on` where a failed statement lets the tests go on
    # (rackunit, clojure.test, Go's subtests): the report must then name the changed statement alone.
    failure_line: ClassVar[str] = ""
    failure_row: ClassVar[str] = ""
    failures_go_on: ClassVar[bool] = False
    # Where only the proof makes the report name the failed statement (a message given to each check, a trap): a
    # program the proof cannot be added to (tests of another shape) has a report that names none, whose decoy's
    # failure is then not located, rather than every pass of it failed for naming none
    located_by_proof: ClassVar[bool] = False
    # Where the report names another line of a statement than its expected value's: the text that opens it (the
    # last before the value: HumanEvalPack's `assert` macro, `console.assert(`) and the one after the value that
    # closes it (Perl's `exit 1;`), whose lines are its first and its last (`statement_lines`)
    statement_opens: ClassVar[str] = ""
    statement_closes: ClassVar[str] = ""
    # One build for both runs, where the build is most of a sample's time: the decoy's change made an expression
    # (`{when}` if the environment's CHOICE is `{key}`, else `{otherwise}`; `chooser_header` first in the program),
    # and the build's outputs that the run needs (`artifacts`) run twice (`run_built_once`)
    chooser: ClassVar[str] = ""
    chooser_header: ClassVar[str] = ""
    artifacts: ClassVar[tuple[str, ...]] = ()
    # A compile error that the chooser itself caused at the changed statement's line `{line}` (C#'s two values of
    # another type, which its tests' `Equals(object)` accepted): that decoy is built apart
    chooser_refused: ClassVar[str] = ""
    predeclared: ClassVar[frozenset[str]] = frozenset()  # names known everywhere (a value naming them can move)

    # -- runner: what to run -----------------------------------------------------------------------------------
    def build_commands(self, source: str, program: str = "") -> list[list[str]]:
        """Commands that build `source`, whose text is `program` (run in order; empty for interpreted languages)."""
        return []

    def run_command(self, source: str, limits: Limits) -> list[str]:
        """The command that runs the built program, under the sample's `limits` (the JVM's heap follows them)."""
        raise NotImplementedError

    def source_name(self, program: str) -> str:
        """The source file's name (Java's must follow its public class)."""
        return self.filename or f"program.{self.file_ext}"

    def missing_tools(self) -> list[str]:
        return [tool for tool in self.tools if shutil.which(tool) is None]

    def unavailable(self) -> str | None:
        """One line naming what to install, when this machine cannot run the language; None when it can."""
        missing = self.missing_tools()
        if not missing:
            return None
        return (
            f"{self.title} toolchain not installed ({', '.join(missing)} not found): "
            f"apt-get install {self.package} (or make setup LANGS={self.name})"
        )

    def limits(self, limits: Limits) -> Limits:
        if self.address_space_bytes is None:
            return limits
        return replace(limits, address_space_bytes=max(limits.address_space(), self.address_space_bytes))

    def names(self, program: str) -> set[str]:
        """The names `program` may use: the words of its code and strings, not of its comments nor of its tests'
        expected values. A decoy changes one expected value (languages/decoy.py): a run's set-up chosen from these
        (R's packages, Racket's language) is its real run's, and cannot tell the program which run it is."""
        program = without_expected(program, statement_forms(type(self)), self.quotes)
        code = self.literal_or_comment.sub(
            lambda found: "" if found.group().startswith(self.comment_starts) else found.group(), program
        )
        return set(self.name_pattern.findall(code))

    def script(self, source: str, limits: Limits, program: str = "", run: bool = True) -> str:
        """The build's commands and the program's (only the build's, without `run`)."""
        lines = self.exports()
        build = self.build_commands(source, program)
        cpu = max(1, int(limits.cpu_seconds + 0.999))
        if build and cpu > self.build_cpu_seconds:  # the request's CPU limit is the program's: lowered for the build
            lines.append(f"ulimit -S -t {int(self.build_cpu_seconds + 0.999)}")
        for command in build:
            lines.append(
                f"{shlex.join(command)} >.build.log 2>&1 || "
                f"{{ s=$?; cat .build.log >&2; echo '{MARK}build-failed' $s >&2; exit {BUILD_FAILED}; }}"
            )
        if not run:
            return "\n".join(lines) + "\n"
        if build:  # the program's own CPU limit, apart from the compiler's; then the zygote's run-phase deadline
            lines.append(f"ulimit -S -t {cpu}; ulimit -H -t {cpu + 1}")
            lines.append(f"echo '{RUN_MARK.decode().strip()}' >&2")
        lines.append(f"exec {shlex.join(self.run_command(source, limits))}")
        return "\n".join(lines) + "\n"

    def exports(self) -> list[str]:
        return ["set -u"] + [f"export {key}={shlex.quote(value)}" for key, value in self.env.items()]

    def run(
        self, program: str, limits: Limits, executor: Executor, data: str | None = None, tests_at: int = 0
    ) -> Outcome:
        """Run `program` and judge it (`data`, the task's judge data, is read by judges only). A pass is run once
        more as a decoy (languages/decoy.py), one expected value after `tests_at` changed, and stands only if the
        decoy does not pass."""
        decoy = self.decoy(program, tests_at) if self.chooser else None
        if decoy is not None and decoy.movable(self.predeclared):
            return self.run_built_once(program, decoy, limits, executor, tests_at)
        return self.run_apart(program, limits, executor, tests_at)

    def run_apart(self, program: str, limits: Limits, executor: Executor, tests_at: int) -> Outcome:
        """The program, then (after a pass) its decoy, each built and run on its own."""
        outcome = self.execute(self.request(program, limits), executor, limits)
        if outcome.status != "passed" or (decoy := self.decoy(program, tests_at)) is None:
            return outcome
        rerun = self.execute(self.request(decoy.text, limits), executor, limits, whole=True)
        return self.decoyed(outcome, rerun, decoy)

    def run_built_once(
        self, program: str, decoy: Decoy, limits: Limits, executor: Executor, tests_at: int
    ) -> Outcome:
        """The real run and the decoy run of one build: the program holds both values of the changed statement, and
        the environment's CHOICE picks one. Both runs have the same files, the same binary and a value of the same
        kind (the key, or another random one), and which of the two values the key picks is drawn too, so the
        program cannot tell which run is the real one (docs/security.md)."""
        key, other = secrets.token_hex(16), secrets.token_hex(16)
        on_key = secrets.randbits(1) == 1  # whether the key picks the decoy's value

        def choice(old: str, placed: str) -> str:
            when, otherwise = (placed, old) if on_key else (old, placed)
            return self.chooser.format(key=key, when=when, otherwise=otherwise)

        chosen, starts = decoy.choosing(program, choice)
        text = self.chooser_header + chosen
        source, proven = self.source_name(text), self.proof(text) is not None
        build = self.attempt(self.request(text, limits, run=False), executor)
        if not build.kept:
            built = build.exit_code == 0 and not build.signal and not build.machinery_error  # outputs too large
            lines = [text.count("\n", 0, len(self.chooser_header) + start) + 1 for start in starts]
            if built or (self.chooser_refused and any(
                    re.search(self.chooser_refused.format(line=line), build.stderr) for line in lines)):
                apart = self.run_apart(program, limits, executor, tests_at)
                apart.duration += build.wall_seconds  # the one build was spent too
                return apart
            return self.outcome_of(build, limits, proof=False)  # the build failed: its compile error
        real = self.built_request(source, proven, build.kept, other if on_key else key, limits)
        outcome = self.execute(real, executor, limits)
        outcome.duration += build.wall_seconds
        if outcome.status != "passed":
            return outcome
        rerun = self.built_request(source, proven, build.kept, key if on_key else other, limits)
        return self.decoyed(outcome, self.execute(rerun, executor, limits, whole=True), decoy)

    def decoyed(self, outcome: Outcome, rerun: Outcome, decoy: Decoy) -> Outcome:
        """A pass (`outcome`) after its decoy's run: it stands unless the decoy passed too, or failed elsewhere than
        at its changed statement (`failed_elsewhere`), or was stopped at a limit where its report does not name
        that statement: an honest program's decoy does no more than its real run, and a program that recognises
        its decoy could otherwise end it by a timeout of its own making (SIGXCPU sent to itself)."""
        if rerun.status == "error":  # the sandbox broke on the decoy: no verdict either way
            return replace(rerun, output=tail(rerun.output))
        stopped = rerun.status == "timeout" or rerun.detail == "out of memory"
        if rerun.status == "passed":
            outcome.status, outcome.detail = "failed", f"{DECOY} ({decoy.change})"
        elif where := self.failed_elsewhere(decoy, rerun.output, stopped):
            said = f"{DECOY_STOPPED} ({rerun.detail}; " if stopped else f"{DECOY_ELSEWHERE} ("
            outcome.status, outcome.detail = "failed", f"{said}{where}; {decoy.change})"
        return outcome

    def failed_elsewhere(self, decoy: Decoy, output: str, stopped: bool = False) -> str | None:
        """Where a failed decoy's report (`output`) says it failed, when that is not its changed statement; None
        when it is, or where the language cannot tell. An honest program answers both runs alike, so its decoy
        passes every statement the real run passed and fails at the changed one; a program that fails its decoy
        elsewhere answers at random (it passes a quarter of its samples if it games half of its runs) or
        recognises the decoy. Read from what the report names (`failed_lines`, `failure_row`) in all the output the
        sandbox kept (the head and the tail of each stream): where a failure ends the tests, its report is the last
        thing the program wrote, so a report that names nothing is no failure at a changed statement, however
        much came before (a flood of output, made to cut the report short, fails too). Where failures go on, more
        output may follow the report: one cut short that names nothing is not judged, unless the decoy was
        `stopped` at a limit: then only a report that names a changed statement is its failure there."""
        named: list[int] | None
        if self.located_by_proof and self.proof(decoy.text) is None:
            named = None
        elif self.failure_row:
            what, changed = "statement", {statement: statement for statement in decoy.statements}
            named = sorted({int(index) + 1 for index in re.findall(self.failure_row, output, re.MULTILINE)})
        elif (named := self.failed_lines(decoy, output)) is not None:
            statements = [self.statement_lines(decoy.text, start, placed) for start, placed in decoy.starts()]
            what, changed = "line", {line: first for first, last in statements for line in range(first, last + 1)}
        if named is None:
            return "its report cannot name a statement" if stopped else None
        inside = [place for place in named if place in changed]
        if (inside and (not self.failures_go_on or inside == named)) or (
                not named and output.startswith(CUT) and self.failures_go_on and not stopped):
            return None
        shown = f"its report names {what} {', '.join(map(str, named))}" if named else f"its report names no {what}"
        firsts = sorted(set(changed.values()))
        if len(firsts) == 1:
            return f"{shown}, where the changed statement is {what} {firsts[0]}"
        return f"{shown}, where the changed statements are {what}s {' and '.join(map(str, firsts))}"

    def failed_lines(self, decoy: Decoy, output: str) -> list[int] | None:
        """The lines of the decoy's program that its failed run's report (`output`) names, in order; None where the
        language cannot tell (no `failure_line`)."""
        if not self.failure_line:
            return None
        pattern = self.failure_line.format(source=re.escape(self.source_name(decoy.text)))
        return sorted({int(line) for line in re.findall(pattern, output, re.MULTILINE)})

    def statement_lines(self, text: str, start: int, placed: str) -> tuple[int, int]:
        """The first and last line of the statement whose new value `placed` begins at `start` in `text`: where
        that value stands (a test statement of MultiPL-E's is one line), or from `statement_opens` to
        `statement_closes` where they are set."""
        end = start + len(placed)
        opens = text.rfind(self.statement_opens, 0, start) if self.statement_opens else -1
        closes = text.find(self.statement_closes, end) if self.statement_closes else -1
        first = text.count("\n", 0, opens if opens >= 0 else start) + 1
        if closes >= 0:
            return first, text.count("\n", 0, closes) + 1
        return first, text.count("\n", 0, start) + 1 + placed.count("\n")

    def built_request(
        self, source: str, proof: bool, built: tuple[tuple[str, bytes], ...], choice: str, limits: Limits
    ) -> ExecRequest:
        """The request that runs the build's outputs `built` (of `source`, with an epilogue if `proof`), CHOICE set
        to `choice`."""
        limits = self.limits(limits)
        lines = [*self.exports(), f"export {CHOICE}={choice}", f"chmod u+x {shlex.join(name for name, _ in built)}",
                 f"exec {shlex.join(self.run_command(source, limits))}"]
        script = (".run.sh", "\n".join(lines).encode() + b"\n")
        return ExecRequest(argv=("/bin/sh", ".run.sh"), filename=source, files=(*built, script), limits=limits,
                           proof=proof)

    def request(self, program: str, limits: Limits, run: bool = True) -> ExecRequest:
        """The sandbox request that builds and runs `program`: its source, its epilogue's files, the script. Without
        `run`, it only builds, and keeps the build's `artifacts`."""
        source = self.source_name(program)
        proven = self.proof(program)  # the program with its epilogue (languages/proof.py), when it can have one
        if proven is not None:
            program = proven.text
        limits = self.limits(limits)
        files = (
            (source, program.encode("utf-8", "surrogatepass")),
            *((name, text.encode()) for name, text in (proven.files if proven else ())),
            (".run.sh", self.script(source, limits, program, run).encode()),
        )
        run_wall = None
        if self.build_commands(source):  # two phases: the request's limits bound the build's
            run_wall = limits.wall_bound()
            limits = replace(limits, cpu_seconds=max(self.build_cpu_seconds, limits.cpu_seconds),
                             wall_seconds=BUILD_WALL_FACTOR * self.build_cpu_seconds)
        return ExecRequest(
            argv=("/bin/sh", ".run.sh"), filename=source, files=files, limits=limits,
            run_wall_seconds=run_wall, proof=proven is not None and run, keep=() if run else self.artifacts,
        )

    def proof(self, program: str) -> Proven | None:
        """`program` as built for execution with its epilogue, which proves that the tests ran to their end and that
        their assertions still fail (languages/proof.py); None where this program's tests are in no form the language
        knows, and only its exit status decides (the detail of its pass says so)."""
        return None

    def decoy(self, program: str, tests_at: int) -> Decoy | None:
        """The decoy (languages/decoy.py): the test statements after `tests_at` found by their templates, one
        expected value swapped; else one of their integers changed; else one condition negated."""
        end = program.find(self.helpers, tests_at) if self.helpers else -1
        tests = program[: end if end >= 0 else len(program)]
        places = spans(tests, tests_at, statement_forms(type(self)), self.quotes)
        decoy = changed(program, places)
        conditions = condition_forms(type(self))
        if decoy is not None or not conditions:
            return decoy
        return flip(program, spans(tests, tests_at, conditions, self.quotes), self.negation)

    # -- runner: what happened ---------------------------------------------------------------------------------
    def execute(self, request: ExecRequest, executor: Executor, limits: Limits, whole: bool = False) -> Outcome:
        """Run a request (retried once on a broken executor) and judge it under the sample's `limits`; `whole`: its
        outcome keeps all the output the sandbox kept (a decoy's, whose failure is looked for in it)."""
        proof = request.proof or request.argv is None
        return self.outcome_of(self.attempt(request, executor), limits, proof=proof, whole=whole)

    def attempt(self, request: ExecRequest, executor: Executor) -> ExecResult:
        result = executor.run(request)
        if result.machinery_error:  # the executor broke, not the model: one retry on a fresh executor
            result = executor.run(request)
        return result

    def outcome_of(self, result: ExecResult, limits: Limits, proof: bool, whole: bool = False) -> Outcome:
        """The verdict on a run's `result` (`proof`: whether the program had an epilogue); its output's last
        characters, or with `whole` all that the sandbox kept of it (CUT first if it dropped some)."""
        output = result.stdout + (("\n" if result.stdout and result.stderr else "") + result.stderr)
        output = (CUT + output if result.output_truncated else output) if whole else tail(output)
        if result.machinery_error:
            return Outcome("error", f"sandbox: {result.machinery_error}", output, result.wall_seconds)
        if result.abandoned:  # charged to the sample: it made them
            detail = f"left {result.abandoned} processes that could not be killed"
            return Outcome("failed", detail, output, result.wall_seconds)
        status, detail = self.verdict(result, limits)
        if status == "timeout" and detail == "timed out":
            detail = f"timed out ({_limits(limits)})"
        if status == "passed" and not proof:
            detail = UNPROVEN
        return self.judge(result, Outcome(status, detail, output, result.wall_seconds))

    def judge(self, result: ExecResult, outcome: Outcome) -> Outcome:
        """A judge's reading of a completed run (its own verdict, scores, judgement); languages keep `outcome`."""
        return outcome

    def verdict(self, result: ExecResult, limits: Limits) -> tuple[Status, str]:
        """(status, detail) for a run that the sandbox completed without breaking, under the sample's `limits` (a
        compiled language's program runs under lower limits than its build step, which the request carries). A
        timeout is the kernel's or the zygote's verdict (a CPU-limit signal, the wall deadline), never inferred
        from the CPU time of a program that exited successfully."""
        err, run_cpu = result.stderr, limits.cpu_seconds
        if result.build_timed_out or (f"{MARK}build-failed" in err and result.exit_code == BUILD_FAILED):
            if result.build_timed_out or "CPU time limit" in err or re.search(rf"{MARK}build-failed (152|137)", err):
                return "failed", "compile error: the compiler ran out of its time"
            return "failed", "compile error: " + (self.compile_error(err.split(MARK)[0]) or "the build failed")
        if result.out_of_memory and not (result.exit_code == 0 and not result.signal):
            return "failed", "out of memory"
        limit = f"{run_cpu:g} s CPU"
        cpu_signal = result.signal == signal.SIGXCPU or (
            result.signal == signal.SIGKILL and result.cpu_seconds >= 0.95 * run_cpu)
        if cpu_signal:  # SIGKILL: at the hard limit, after ignoring SIGXCPU
            return "timeout", f"timed out ({limit})"
        if result.timed_out:
            return "timeout", "timed out (wall-clock bound)"
        if result.exit_code == 0 and not result.signal:
            # the epilogue after the tests (languages/proof.py) found the assertions disabled or tests not run; else
            # the runtime's own report of a failure; else, without the epilogue's token, what the epilogue counted,
            # or the tests never finished
            said = unfinished(err) if not result.completed else None
            failure = said if said in (NEUTERED, NOT_RUN) else self.failure_despite_success(result)
            if failure:
                return "failed", failure
            return ("failed", said) if said else ("passed", "ok")
        compiled = bool(self.build_commands(self.source_name("")))
        if result.cpu_seconds >= 0.8 * run_cpu and not compiled:
            # a failure after a process of the sample was stopped at its CPU limit (bash's $(...) around a looping
            # function: the subshell ends, the script fails), whose time the kernel counts a little short of the
            # limit (1.91 of 2 s under load); no compiler's time is in this count. Never read on a successful exit
            return "timeout", f"timed out ({limit})"
        return "failed", self.runtime_error(result)

    def failure_despite_success(self, result: ExecResult) -> str | None:
        """Some harnesses report a failure on a zero exit status (MultiPL-E's Perl checks for ERROR)."""
        return None

    def compile_error(self, log: str) -> str:
        """The first error line of the compiler's output."""
        for line in log.splitlines():
            if "error" in line.lower():
                return line.strip()[:300]
        lines = [line for line in log.splitlines() if line.strip()]
        return lines[0].strip()[:300] if lines else ""

    def runtime_error(self, result: ExecResult) -> str:
        """The detail of a failed run: an assertion, an exception, a signal. Subclasses read their runtime's
        messages; this default names the signal or the exit status and the last line written to stderr."""
        if result.signal:
            return f"killed by {signal_name(result.signal)}"
        last = next((line.strip() for line in reversed(result.stderr.splitlines()) if line.strip()), "")
        return f"exit status {result.exit_code}" + (f": {last[:200]}" if last else "")


def heap_flags(limits: Limits) -> list[str]:
    """The JVM's heap follows the sample's memory bound, not a fixed -Xmx that failed correct programs holding
    0.9 GiB (MultiPL-E sets none). The serial collector's old generation, where a large array must fit whole, is 2/3
    of the heap by default: NewRatio=7 makes it 7/8, so a 2 GiB bound holds a 1.2 GiB `long[]`."""
    heap = limits.memory_bytes - min(NON_HEAP_BYTES, limits.memory_bytes // 4)
    return [f"-Xmx{heap // 1024**2}m", "-XX:NewRatio=7"]


def jvm_exception(stderr: str) -> str | None:
    """The JVM's uncaught exception by name; a failed assertion (Java's `assert`, Scala's) as such."""
    match = _JVM_EXCEPTION.search(stderr)
    if match is None:
        return None
    kind, message = match.group(1), (match.group(2) or "").strip()
    if kind == "java.lang.AssertionError":
        return "assertion failed" + (f": {message[:200]}" if message and message != "assertion failed" else "")
    return f"exception: {kind}" + (f": {message[:200]}" if message else "")


def signal_name(number: int) -> str:
    """SIGKILL, SIGSEGV...: how a verdict names the signal that ended a program."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _limits(limits: Limits) -> str:
    """The limits a timed-out sample ran under, as a reader needs them to judge the verdict."""
    wall = f"{limits.wall_seconds:g} s wall clock" if limits.wall_seconds is not None else \
        f"{limits.wall_bound():g} s wall-clock backstop"
    return f"{limits.cpu_seconds:g} s CPU; {wall}"


@cache
def statement_forms(kind: type[Language]) -> tuple[Form, ...]:
    """The shapes of a language's test statements, made once per class."""
    return tuple(form for template in kind().decoy_templates() if (form := Form.of(template)) is not None)


@cache
def condition_forms(kind: type[Language]) -> tuple[Form, ...]:
    """The shapes of a language's one-condition assertions, made once per class."""
    return tuple(form for template in kind().condition_templates() if (form := Form.of(template)) is not None)


def line_comments(description: str, marker: str) -> str:
    """The description as line comments, each line after `marker` (MultiPL-E's Lua, R, Racket, Ruby prompts);
    nothing for an empty description."""
    return marker + description.strip().replace("\n", "\n" + marker) + "\n" if description else ""


def describe(description: str, marker: str, first: str | None = None) -> str:
    """A description as MultiPL-E's translators write it in a comment: each line's leading white space (blank
    lines with it) replaced by `marker`, the first line started by `first` (by `marker` when not given)."""
    return (marker if first is None else first) + re.sub(r"\n\s*", "\n" + marker, description.strip())
