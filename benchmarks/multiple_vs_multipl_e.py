"""Per language: pytest-codeeval's runner vs MultiPL-E's evaluator approach, side by side, on the same programs.

MultiPL-E's evaluator (the one bigcode-evaluation-harness vendors) judges each program with a fresh toolchain:
one subprocess per step (compile, then run), each in a new session, its output polled every 0.1 s, 15 s allowed;
nothing else isolates it. Here that approach is reproduced (the same commands per language) and timed against
this project's runner, which runs every program in the full sandbox (namespaces, read-only filesystem, limits)
and builds with its own speed-ups (C++'s precompiled <bits/stdc++.h>, javac's JVM flags). Both judge the same
programs one at a time: HumanEval/0 translated to the language, with a passing, a failing and a non-compiling
completion, each made distinct by a comment after the completion, new for every tool and round, so that no
tool's cache (Go's build cache is the user's own in MultiPL-E's approach) answers for a program it has seen
(looping samples cost their time limit in any harness and are left out). The tools alternate for --rounds
rounds; medians are compared, the ratio printed, and both tools' verdicts checked equal.

    .venv/bin/python benchmarks/multiple_vs_multipl_e.py [--langs js,java,...] [--repeat 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from pytest_codeeval.languages import get_language  # noqa: E402
from pytest_codeeval.languages.java import JAVATUPLES  # noqa: E402
from pytest_codeeval.languages.translate import originals, translate_original  # noqa: E402
from pytest_codeeval.runners import MODULES  # noqa: E402
from pytest_codeeval.sandbox import get_executor  # noqa: E402
from pytest_codeeval.sandbox.api import Limits  # noqa: E402

COMPLETIONS = json.loads((ROOT / "tests" / "data" / "multiple" / "completions.json").read_text())
LIMIT = 15.0
COMMENT = {
    **dict.fromkeys(("sh", "rb", "pl", "py", "elixir", "r", "jl"), "# {}"),
    **dict.fromkeys(("clj", "rkt"), "; {}"),
    **dict.fromkeys(("hs", "lua"), "-- {}"),
    "ml": "(* {} *)",
}
# MultiPL-E's steps per language ({src}: the program's file, {out}: a build output in the same directory)
STEPS = {
    "js": [["node", "{src}"]],
    "ts": [["tsc", "--target", "esnext", "{src}"], ["node", "{base}.js"]],
    "java": [["javac", "-encoding", "UTF8", "-d", "{dir}", "{src}"], ["java", "-ea", "-cp", "{dir}", "Problem"]],
    "cpp": [["g++", "{src}", "-o", "{base}", "-std=c++17"], ["{base}"]],
    "go": [["go", "test", "{src}"]],
    "rs": [["rustc", "{src}", "-o", "{base}"], ["{base}"]],
    "rb": [["ruby", "{src}"]],
    "php": [["php", "{src}"]],
    "sh": [["bash", "{src}"]],
    "pl": [["perl", "{src}"]],
    "py": [[sys.executable, "{src}"]],
    "elixir": [["elixir", "{src}"]],
    # MultiPL-E runs the Clojure CLI's `clojure -M`; Debian's `clojure` (no CLI options) runs the same clojure.main
    "clj": [["clojure", "{src}"]],
    "dart": [["dart", "analyze", "--no-fatal-warnings", "{src}"], ["dart", "{src}"]],
    "hs": [["runghc", "{src}"]],
    "ml": [["ocaml", "{src}"]],
    "swift": [["swiftc", "{src}", "-o", "{base}"], ["{base}"]],
    "cs": [["mcs", "-d:DEBUG", "-r:System.Numerics.dll", "{src}", "-out:{base}.exe"], ["mono", "{base}.exe"]],
    "scala": [["scalac", "-d", "{dir}", "{src}"], ["scala", "-cp", "{dir}", "Problem"]],
    "d": [["ldmd2", "-unittest", "-main", "-run", "{src}"]],  # rdmd's dmd flags; rdmd also builds, then runs
    "lua": [["lua5.4", "{src}"]],
    "r": [["Rscript", "{src}"]],
    "rkt": [["racket", "{src}"]],
    "jl": [["julia", "{src}"]],
}
SUFFIX = {"go": "_test.go"}
BUILD_LIMIT = {"scala": 45.0}  # MultiPL-E gives scalac 45 s
# where MultiPL-E's evaluator also reads stderr: a failed Debug.Assert leaves Mono's exit status 0; Scala's pass
# and Clojure's and Racket's need an empty stderr
STDERR_FAILS = {
    "clj": lambda err: err != "",
    "rkt": lambda err: err != "",
    "cs": lambda err: "DefaultTraceListener.Fail" in err or "Unhandled Exception" in err,
    "scala": lambda err: err != "",
}


def polled_run(argv: list[str], env: dict[str, str], limit: float = LIMIT) -> tuple[bool, int, str]:
    """One step as MultiPL-E runs it: a new session, output read every 0.1 s, the group killed at the end."""
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    for fd in (proc.stdout, proc.stderr):
        os.set_blocking(fd.fileno(), False)  # type: ignore[union-attr]
    deadline = time.monotonic() + limit
    err = b""
    while proc.poll() is None and time.monotonic() < deadline:
        proc.stdout.read(1024)  # type: ignore[union-attr]
        err += proc.stderr.read(1024) or b""  # type: ignore[union-attr]
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    code = proc.wait()
    err += proc.stderr.read() or b""  # type: ignore[union-attr]
    return proc.returncode is not None and code == 0, code, err.decode(errors="replace")


def multipl_e_style(name: str, program: str, tests_at: int) -> bool:
    env = {**os.environ, "CLASSPATH": JAVATUPLES, "MONO_TRACE_LISTENER": "Console.Error"}
    with tempfile.TemporaryDirectory() as workdir:
        src = Path(workdir) / f"program{SUFFIX.get(name, '.' + get_language(name).file_ext)}"
        src.write_text(program)
        base = str(src).split(".")[0]
        for number, step in enumerate(STEPS[name], 1):
            argv = [part.format(src=src, dir=workdir, base=base) for part in step]
            last = number == len(STEPS[name])
            ok, _, err = polled_run(argv, env, LIMIT if last else BUILD_LIMIT.get(name, LIMIT))
            if not ok or (last and STDERR_FAILS.get(name, lambda _: False)(err)):
                return False
    return True


def codeeval_style(name: str, program: str, tests_at: int) -> bool:
    limits = Limits(cpu_seconds=LIMIT)
    return get_language(name).run(program, limits, get_executor("strict"), tests_at=tests_at).status == "passed"


def programs_for(name: str, repeat: int, salt: str = "") -> list[tuple[str, int]]:
    """The programs, each with where its tests begin (the completion's end), as the plugin runs them; `salt` makes
    them new to every cache."""
    first = next(original for original in originals("humaneval") if original.number == 0)
    prompt, tests = translate_original(type(get_language(name))(), first)
    marker = COMMENT.get(name, "// {}")
    out = []
    for copy in range(repeat):
        for kind in ("ok", "fail", "nocomp"):
            # the comment ends the completion: after the tests, it would hide their end from the proof in languages
            # that find it at the program's end (MultiPL-E's rows end with the tests' call)
            solution = f"{prompt}{COMPLETIONS[name][kind]}\n{marker.format(f'sample {copy}-{kind} {salt}')}"
            out.append((f"{solution}\n{tests}\n", len(solution)))
    return out


def timed(tool, name: str, programs: list[tuple[str, int]]) -> tuple[float, list[bool]]:
    started = time.perf_counter()
    verdicts = [tool(name, program, tests_at) for program, tests_at in programs]
    return time.perf_counter() - started, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--langs", default=",".join(sorted(MODULES)))
    parser.add_argument("--repeat", type=int, default=2, help="copies of each program (made distinct)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'lang':5} {'programs':>8} {'MultiPL-E s':>12} {'codeeval s':>11} {'ratio':>6}  verdicts")
    for name in args.langs.split(","):
        language = get_language(name)
        if language.unavailable() or (name == "rs" and not shutil.which("rustc")):
            print(f"{name:5} skipped: {language.unavailable()}")
            continue
        programs = programs_for(name, args.repeat)
        codeeval_style(name, *programs[0])  # warm-up, untimed: the sandbox's zygote, C++'s precompiled header
        times: dict[str, list[float]] = {"multipl-e": [], "codeeval": []}
        verdicts: dict[str, list[bool]] = {}
        tools = [("multipl-e", multipl_e_style), ("codeeval", codeeval_style)]
        for round_number in range(args.rounds):
            for label, tool in tools if round_number % 2 == 0 else tools[::-1]:
                seconds, verdicts[label] = timed(tool, name, programs_for(name, args.repeat, f"{label} {round_number}"))
                times[label].append(seconds)
        theirs, ours = statistics.median(times["multipl-e"]), statistics.median(times["codeeval"])
        agree = "same" if verdicts["multipl-e"] == verdicts["codeeval"] else f"DIFFER {verdicts}"
        print(f"{name:5} {len(programs):8} {theirs:12.2f} {ours:11.2f} {theirs / ours:5.2f}x  {agree}", flush=True)


if __name__ == "__main__":
    main()
