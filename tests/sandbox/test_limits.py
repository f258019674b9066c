"""The sandbox's resource bounds for every language (issue 27): memory of every kind bounded per sample while
runtimes keep their address-space reservations; the wall deadline kept by the zygote, outside the sample's
processes (a program can neither kill it nor wait on it); no CPU rule overriding a successful exit; compile steps
bounded on their own; a uid per zygote that no concurrent run shares; no control group left after a run.

Programs are the languages' test programs (tests/data/languages/samples.json) with a body of the test's own, as a
model's completion would put it. A language whose toolchain is missing here is skipped with the line naming it."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.base import BUILD_CPU_SECONDS, BUILD_WALL_FACTOR, Language
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.sandbox import get_executor, isolation
from pytest_codeeval.sandbox.api import ExecRequest, ExecResult, Limits
from pytest_codeeval.sandbox.executor import ZygoteExecutor

pytestmark = pytest.mark.timeout(300)
SAMPLES = json.loads((Path(__file__).parents[1] / "data" / "languages" / "samples.json").read_text())
GiB = 1024**3


def language_or_skip(name: str) -> Language:
    language = get_language(name)
    missing = language.unavailable()
    if missing:
        pytest.skip(missing)
    return language


def run(name: str, body: str, limits: Limits) -> Outcome:
    """The language's test program (two assertions on a string's length) with `body` as the function's body."""
    language = language_or_skip(name)
    return language.run(SAMPLES[name]["program"].replace("{body}", body), limits, get_executor("strict"))


def control_group_or_skip() -> None:
    layer = get_executor("strict").layers()["control group"]
    if not layer.startswith("on"):
        pytest.skip(f"control group: {layer}")


# -- 1. memory: resident memory bounded per sample, address space left to the runtime ---------------------------------
# Each touches every page of `{size}` GiB outside its runtime's heap limit, then returns the right answer.
TOUCH = {
    "java": (
        "        try {\n"
        '            java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");\n'
        "            f.setAccessible(true);\n"
        "            sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);\n"
        "            long n = {size}L << 30, a = u.allocateMemory(n);\n"
        "            for (long i = 0; i < n; i += 4096) u.putByte(a + i, (byte) 1);\n"
        "        } catch (ReflectiveOperationException e) { throw new RuntimeException(e); }\n"
        "        return string.length();"
    ),
    "go": (
        "    held := make([][]byte, 0)\n"
        "    for k := 0; k < {size}*4; k++ {\n"
        "        b := make([]byte, 256<<20)\n"
        "        for i := 0; i < len(b); i += 4096 { b[i] = 1 }\n"
        "        held = append(held, b)\n"
        "    }\n"
        "    return len(string) + len(held) - {size}*4"
    ),
    "js": (
        "  globalThis.held = globalThis.held || Array.from({length: {size} * 4}, () => Buffer.alloc(256 << 20, 1));\n"
        "  return string.length;"
    ),
}


@pytest.mark.parametrize("name", sorted(TOUCH))
def test_a_4_gib_resident_allocation_fails(name: str) -> None:
    """The runtime's address space (16 GiB for the JVM, 8 GiB for V8 and Go) is not its memory: before, the control
    group's bound followed the address-space limit, and 4 GiB touched outside the heap passed."""
    control_group_or_skip()
    outcome = run(name, TOUCH[name].replace("{size}", "4"), Limits(cpu_seconds=20))
    assert (outcome.status, outcome.detail) == ("failed", "out of memory"), (outcome.detail, outcome.output[-2000:])


@pytest.mark.parametrize("name", sorted(TOUCH))
def test_a_program_within_its_memory_passes(name: str) -> None:
    outcome = run(name, TOUCH[name].replace("{size}", "1"), Limits(cpu_seconds=20))
    assert outcome.status == "passed", (outcome.detail, outcome.output[-2000:])


def test_the_memory_bound_is_the_task_s() -> None:
    """A task's memory limit (`Task.memory_limit`, here 512 MiB) bounds the runtime's memory, not its reservation."""
    control_group_or_skip()
    body = "  globalThis.held = globalThis.held || Buffer.alloc(768 << 20, 1);\n  return string.length;"
    assert run("js", body, Limits(cpu_seconds=20)).status == "passed"
    outcome = run("js", body, Limits(cpu_seconds=20, memory_bytes=512 * 1024**2))
    assert (outcome.status, outcome.detail) == ("failed", "out of memory"), outcome.output[-2000:]


@pytest.mark.parametrize(("name", "reserved"), [("java", 16 * GiB), ("scala", 16 * GiB), ("go", 8 * GiB), ("js", 8 * GiB)])
def test_runtimes_reserve_address_space_but_hold_the_task_s_memory(name: str, reserved: int) -> None:
    language = get_language(name)
    request = language.request(SAMPLES[name]["program"], Limits(cpu_seconds=5))
    assert (request.limits.memory_bytes, request.limits.address_space()) == (2 * GiB, reserved)
    request = language.request(SAMPLES[name]["program"], Limits(cpu_seconds=5, memory_bytes=32 * GiB))
    assert (request.limits.memory_bytes, request.limits.address_space()) == (32 * GiB, 32 * GiB)


def test_python_keeps_its_address_space_limit() -> None:
    """Where no control group can be made, `RLIMIT_AS` is what bounds memory: 2 GiB for Python, as before."""
    outcome = get_language("py").run("x = bytearray(3 << 30)\n", Limits(cpu_seconds=5), get_executor("basic"))
    assert outcome.status == "failed", outcome


# -- 2. the wall deadline kept outside the sample's processes --------------------------------------------------------
CPP_KILLS_ALL_THEN_SLEEPS = (
    "    return string.size();\n}\n#include <signal.h>\n#include <unistd.h>\n"
    "static int attack = [] { kill(-1, SIGKILL); for (;;) pause(); return 0; }();\nlong unused() {\n    return 0;"
)


def test_a_program_cannot_kill_its_deadline() -> None:
    """A static constructor killing every process it may (the sample's own watchdog, before) then sleeping: ended at
    its own wall bound, not the whole request's backstop (165 s instead of 45 s before)."""
    limits = Limits(cpu_seconds=2)
    started = time.monotonic()
    outcome = run("cpp", CPP_KILLS_ALL_THEN_SLEEPS, limits)
    assert (outcome.status, outcome.detail) == ("timeout", "timed out (wall-clock bound)"), outcome.output[-2000:]
    assert time.monotonic() - started < limits.wall_bound() + 30  # the compiler's share (a few seconds) and load


# Correct programs that wait for all their children: the watchdog was one of them, and they waited for it to fire.
WAIT_FOR_CHILDREN = {
    "cpp": (
        "    return string.size();\n}\n#include <sys/wait.h>\n#include <unistd.h>\n"
        "static int children = [] { if (fork() == 0) _exit(0); while (wait(nullptr) > 0) {} return 0; }();\n"
        "long unused() {\n    return 0;"
    ),
    "rb": "  fork { exit!(0) }\n  Process.waitall\n  string.length",
    "pl": "    if (!fork) { require POSIX; POSIX::_exit(0); }\n    1 while wait() != -1;\n    return length($string);",
}


@pytest.mark.parametrize("name", sorted(WAIT_FOR_CHILDREN))
def test_a_program_that_waits_for_all_its_children_passes(name: str) -> None:
    limits = Limits(cpu_seconds=2)
    started = time.monotonic()
    outcome = run(name, WAIT_FOR_CHILDREN[name], limits)
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]
    assert time.monotonic() - started < limits.wall_bound(), "waited for something that was not its own"


def test_the_run_phase_deadline_starts_at_the_mark_and_only_the_first_counts() -> None:
    """The build's wall bound holds until the script marks the run phase; the run's from then on. A program writing
    the mark again moves nothing, and the mark is no part of the output."""
    executor = get_executor("strict")
    script = "sleep 1; echo '@@codeeval:run' >&2; echo '@@codeeval:run' >&2; echo after >&2; sleep 30"
    request = ExecRequest(argv=("/bin/sh", "-c", script), limits=Limits(cpu_seconds=5, wall_seconds=20),
                          run_wall_seconds=2)
    result = executor.run(request)
    assert result.timed_out and not result.build_timed_out and 2.5 < result.wall_seconds < 10, result
    assert result.stderr == "@@codeeval:run\nafter\n", result.stderr
    build = ExecRequest(argv=("/bin/sh", "-c", "sleep 30"), limits=Limits(cpu_seconds=5, wall_seconds=1),
                        run_wall_seconds=60)
    result = executor.run(build)
    assert result.timed_out and result.build_timed_out and result.wall_seconds < 10, result


def test_no_watchdog_in_the_script() -> None:
    """No process of the sample's own keeps its time: its script execs the program, which is then alone."""
    for name in ("cpp", "js", "java", "sh"):
        language = get_language(name)
        script = language.script(language.source_name(""), Limits(cpu_seconds=3))
        assert "sleep" not in script and "kill" not in script and "&\n" not in script, script


# -- 3. no CPU rule overriding a successful exit ---------------------------------------------------------------------
def test_a_correct_program_using_90_percent_of_its_cpu_passes() -> None:
    """4.5 of 5 CPU-seconds, then the right answer: before, 80% of the limit was read as a timeout."""
    body = ("  while (process.cpuUsage().user + process.cpuUsage().system < 4.5e6) {}\n"
            "  return string.length;")
    outcome = run("js", body, Limits(cpu_seconds=5, wall_seconds=120))  # CPU time, however loaded the machine
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]


@pytest.mark.parametrize("name", ["js", "cpp", "sh"])
def test_a_real_cpu_timeout_names_its_limit(name: str) -> None:
    outcome = run(name, SAMPLES[name]["loop"], Limits(cpu_seconds=2))
    assert (outcome.status, outcome.detail) == ("timeout", "timed out (2 s CPU)"), outcome.output[-2000:]


def test_the_verdict_reads_the_kernel_not_the_cpu_time() -> None:
    js = get_language("js")
    success = ExecResult(0, None, True, "", "", cpu_seconds=4.9)
    assert js.verdict(success, Limits(cpu_seconds=5)) == ("passed", "ok")
    cpu = ExecResult(None, signal.SIGXCPU, False, "", "", timed_out=True, cpu_seconds=5.0)
    assert js.verdict(cpu, Limits(cpu_seconds=5)) == ("timeout", "timed out (5 s CPU)")
    wall = ExecResult(None, signal.SIGKILL, False, "", "", timed_out=True, cpu_seconds=0.1)
    assert js.verdict(wall, Limits(cpu_seconds=5)) == ("timeout", "timed out (wall-clock bound)")


# -- 4. compile steps with their own bound ---------------------------------------------------------------------------
COMPILE_BOMBS = {
    # constant evaluations of 4 million steps each (under GCC's bound per evaluation), 64 of them
    "cpp": "    constexpr auto f = [](long k) { long s = k; for (long i = 0; i < 2000; i++) for (long j = 0; j < 2000; "
           "j++) s += i ^ j; return s; };\n"
           + "".join(f"    constexpr long b{k} = f({k});\n" for k in range(64))
           + "    return string.size() + ((" + " + ".join(f"b{k}" for k in range(64)) + ") & 0);",
    # a type that doubles with each composition, 2^32 pairs deep (40 s of CPU in 230 MB, and more)
    "hs": "  let { p x = (x, x); a = p . p . p . p; b = a . a . a . a; c = b . b } in length string",
}


@pytest.mark.parametrize("name", sorted(COMPILE_BOMBS))
def test_a_compile_time_bomb_fails_in_the_build_s_time(name: str) -> None:
    started = time.monotonic()
    outcome = run(name, COMPILE_BOMBS[name], Limits(cpu_seconds=5))
    took = time.monotonic() - started
    assert (outcome.status, outcome.detail) == ("failed", "compile error: the compiler ran out of its time"), (
        outcome.detail, outcome.output[-2000:])
    assert took < BUILD_WALL_FACTOR * BUILD_CPU_SECONDS + 15, took


@pytest.mark.parametrize("name", ["cpp", "hs", "d", "scala", "java", "rs", "go", "cs"])
def test_compile_steps_have_their_own_bound(name: str) -> None:
    language = get_language(name)
    request = language.request(SAMPLES[name]["program"], Limits(cpu_seconds=5))
    assert request.limits.cpu_seconds == language.build_cpu_seconds == BUILD_CPU_SECONDS
    assert request.limits.wall_bound() == BUILD_WALL_FACTOR * BUILD_CPU_SECONDS
    assert request.run_wall_seconds == Limits(cpu_seconds=5).wall_bound()
    # a program whose limit is above the build's: the build is still bounded by its own
    request = language.request(SAMPLES[name]["program"], Limits(cpu_seconds=60))
    script = dict(request.files)[".run.sh"].decode()
    assert request.limits.cpu_seconds == 60 and f"ulimit -S -t {int(BUILD_CPU_SECONDS)}\n" in script, script


# -- 5. sandbox uids never shared between concurrent runs -------------------------------------------------------------
CLAIM = ("import sys, time\nfrom pytest_codeeval.sandbox import isolation\n"
         "uid, _ = isolation.claim_uid(42, (sys.argv[1],))\nprint(uid, flush=True)\ntime.sleep(3)\n")


def test_two_concurrent_claims_never_share_a_uid(tmp_path: Path) -> None:
    """Two processes (two runs' zygotes) starting from the same seed (pids equal modulo 5000: the same uid before)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    procs = [subprocess.Popen([sys.executable, "-c", CLAIM, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    uids = [int(proc.stdout.readline()) for proc in procs]  # type: ignore[union-attr]
    for proc in procs:
        proc.wait()
    assert len(set(uids)) == 2 and 42 + isolation.UID_BASE in uids, uids
    # both ended, both uids are free again
    uid, fd = isolation.claim_uid(42, (str(tmp_path),))
    os.close(fd)
    assert uid == 42 + isolation.UID_BASE


def test_a_claimed_uid_is_held_for_the_claimer_s_life(tmp_path: Path) -> None:
    first, held = isolation.claim_uid(4999, (str(tmp_path),))
    second, other = isolation.claim_uid(4999, (str(tmp_path),))
    assert first == isolation.UID_BASE + 4999 and second == isolation.UID_BASE  # the range wraps
    os.close(held)
    again, fd = isolation.claim_uid(4999, (str(tmp_path),))
    assert again == first
    for descriptor in (other, fd):
        os.close(descriptor)


def test_a_lock_directory_of_another_user_is_not_trusted(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (to make a directory another user owns)")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 12345, 12345)
    uid, fd = isolation.claim_uid(7, (str(theirs), str(tmp_path / "ours")))
    os.close(fd)
    assert not list(theirs.iterdir()) and (tmp_path / "ours" / str(uid)).exists()


def test_a_zygote_holds_its_uid_until_it_ends() -> None:
    executor = ZygoteExecutor("strict")
    try:
        layer = executor.layers()["unprivileged uid"]
        if not layer.startswith("on"):
            pytest.skip(f"unprivileged uid: {layer}")
        uid = int(layer.split("uid ")[1].split(",")[0].split(")")[0])
        lock = next(Path(d) / str(uid) for d in isolation.UID_LOCKS if (Path(d) / str(uid)).exists())
        fd = os.open(lock, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            executor.close()
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the zygote and its launcher ended: free
        finally:
            os.close(fd)
    finally:
        executor.close()


# -- 6. no control group left after a run ----------------------------------------------------------------------------
def _groups(name: str) -> list[Path]:
    """Where a group `name` beside pytest's own would be, in every hierarchy this process belongs to."""
    found = []
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for mount in ([Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")] if not controllers else
                      [Path("/sys/fs/cgroup") / c for c in controllers.split(",")]):
            if (mount / path.lstrip("/") / name).is_dir():
                found.append(mount / path.lstrip("/") / name)
    return found


def test_no_control_group_is_left_after_a_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool kills its zygotes' launchers at the end of a run, before they could remove their groups."""
    control_group_or_skip()
    launched: list[int] = []
    launch = ZygoteExecutor.launch

    def recording(self: ZygoteExecutor) -> None:
        launch(self)
        if self._proc is not None and self._proc.pid not in launched:
            launched.append(self._proc.pid)

    monkeypatch.setattr(ZygoteExecutor, "launch", recording)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=2", "--codeeval-jobs=2")
    result.assert_outcomes(passed=2)
    assert launched
    left = [group for pid in launched for group in _groups(f"codeeval-{pid}")]
    assert not left, left
