"""The adversarial suite: each case is a program, the verdict it must get, and the host state it must leave.

Everything here is bounded even if isolation failed: sleeps end by themselves, bombs stop after a fixed number of
forks, memory grabs are a few GiB at most, and the targets are canary files made by the test."""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_codeeval.runners import get_runner
from pytest_codeeval.runners.base import Outcome
from pytest_codeeval.sandbox import ExecRequest, Limits, get_executor
from pytest_codeeval.sandbox.executor import ZygoteExecutor

pytestmark = pytest.mark.timeout(120)

LEVELS = ["strict", "basic"]


def judge(program: str, level: str = "strict", cpu: float = 2.0, wall: float | None = None) -> Outcome:
    return get_runner("python").run(program, Limits(cpu_seconds=cpu, wall_seconds=wall), get_executor(level))


def sandbox_uid() -> int:
    state = get_executor("strict").layers()["unprivileged uid"]
    return int(state.split("uid ")[1].split(",")[0])


def host_processes_of(uid: int) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:
                continue
    return found


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text("intact")
    return path


# -- no false passes ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "program, detail",
    [
        ("import sys\nsys.exit(0)\nassert False", "exited with status 0 before its tests finished"),
        ("import os\nos._exit(0)\nassert False", "exited with status 0 before its tests finished"),
        ("raise SystemExit\nassert False", "exited with status 0 before its tests finished"),
        ("import atexit, os\natexit.register(lambda: os._exit(0))\nraise ValueError", "exception: ValueError"),
        ("import os, threading, time\nthreading.Thread(target=lambda: os._exit(0)).start()\ntime.sleep(3)\nassert False",
         "exited with status 0 before its tests finished"),
        ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(5)\nos._exit(0)", "exited with status 0 before its tests finished"),
        ("import os\nos.write(3, os.urandom(17))\nos._exit(0)", "exited with status 0 before its tests finished"),
        ("print('OK')\nprint('passed')\nimport os\nos._exit(0)", "exited with status 0 before its tests finished"),
        # The harness's token is in no frame of the sample's process (nor anywhere in its memory) while it runs.
        ("import os, sys\nf = sys._getframe()\nwhile f is not None:\n    for v in list(f.f_locals.values()):\n"
         "        if isinstance(v, bytes) and len(v) == 16:\n            os.write(3, v)\n            os._exit(0)\n"
         "    f = f.f_back\nos._exit(0)", "exited with status 0 before its tests finished"),
    ],
    ids=["sys.exit", "os._exit", "SystemExit", "atexit", "thread-exit", "new-session", "forged-token", "fake-output",
         "token-from-frames"],
)
def test_early_exits_never_pass(program: str, detail: str, level: str) -> None:
    outcome = judge(program, level)
    assert (outcome.status, outcome.detail) == ("failed", detail)


@pytest.mark.parametrize(
    "program, detail",
    [
        ("import os\nos.closerange(3, 100)", "exception: OSError: the program closed descriptor 3 or 4, which the sandbox needs to see it finish"),
        ("import sys\nsys.stderr = None\nraise ValueError('v')", "exception: ValueError: v"),
        ("import sys\nsys.stderr = object()\nsys.exit('bye')", "exit status 1"),
        # os._exit replaced: the harness's own calls to it must still end the process, with the failure's verdict.
        ("import os\nreal = os._exit\nos._exit = lambda status: None\nassert False", "assertion failed"),
        ("import atexit, os\natexit.register(os._exit, 0)\nos._exit = lambda status: None\nassert False", "assertion failed"),
    ],
    ids=["closed-descriptors", "no-stderr", "broken-stderr", "no-op-exit", "no-op-exit-then-atexit"],
)
def test_a_program_that_breaks_the_harness_gets_a_verdict_of_its_own(program: str, detail: str) -> None:
    """Whatever the program closes or replaces, its process ends in the harness's code, never back in the zygote's
    code it was forked from, and the report still reaches the output where it can."""
    outcome = judge(program)
    assert (outcome.status, outcome.detail) == ("failed", detail), outcome.output
    assert "zygote.py" not in outcome.output
    assert judge("print('next')").status == "passed"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "program",
    [
        "while True:\n    pass",
        "import signal\nfor s in (signal.SIGXCPU, signal.SIGTERM, signal.SIGALRM):\n    signal.signal(s, signal.SIG_IGN)\nsignal.alarm(0)\nwhile True:\n    pass",
        "import time\ntime.sleep(60)",
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)",
    ],
    ids=["busy-loop", "ignored-signals", "sleep", "output-flood"],
)
def test_runaway_programs_time_out(program: str, level: str) -> None:
    started = time.monotonic()
    outcome = judge(program, level, cpu=1.0, wall=3.0)
    assert outcome.status == "timeout"
    assert time.monotonic() - started < 15


def test_segfault_and_memory_exhaustion_are_sample_failures() -> None:
    assert judge("import ctypes\nctypes.string_at(0)").detail == "killed by SIGSEGV"
    assert judge("x = bytearray(4 * 1024**3)").detail == "memory limit"
    assert judge("print('still fine')").status == "passed"


# -- isolation: host state after hostile programs ---------------------------------------------------------------------
def test_canary_files_cannot_be_touched(canary: Path) -> None:
    """The canary lives under the host's /tmp and the checkout may too: the sample sees neither as writable."""
    outside = Path(__file__).resolve().parent / f"owned-{os.getpid()}.txt"
    program = (
        f"import os\n"
        f"for action in (lambda: open({str(canary)!r}, 'w').write('owned'), lambda: os.unlink({str(canary)!r}),\n"
        f"               lambda: open({str(outside)!r}, 'w').write('x')):\n"
        f"    try:\n        action()\n        print('done')\n    except OSError:\n        print('blocked')\n"
    )
    outcome = judge(program)
    assert outcome.status == "passed"
    assert outcome.output.split()[:2] == ["blocked", "blocked"]
    assert canary.read_text() == "intact"
    assert not outside.exists()  # blocked (read-only), or written to a private /tmp that vanished with the sample


def test_secrets_are_invisible(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sk-canary-{os.getpid()}"
    secret_file = Path.home() / f".codeeval-secret-{os.getpid()}"
    secret_file.write_text(secret)
    monkeypatch.setenv("CODEEVAL_TEST_TOKEN", secret)
    try:
        program = (
            "import os, glob\n"
            "seen = repr(dict(os.environ))\n"
            "for path in glob.glob('/proc/*/environ') + glob.glob(os.path.expanduser('~root') + '/.codeeval-secret-*'):\n"
            "    try:\n        seen += open(path, 'rb').read().decode(errors='replace')\n    except OSError:\n        pass\n"
            "print(seen)\n"
        )
        outcome = judge(program)
        assert outcome.status == "passed"
        assert secret not in outcome.output
    finally:
        secret_file.unlink()


def test_no_network_even_loopback() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        program = (
            f"import socket\n"
            f"for host in ('127.0.0.1', 'localhost', {socket.gethostname()!r}):\n"
            f"    try:\n        socket.create_connection((host, {port}), timeout=1)\n        print('connected')\n"
            f"    except OSError as exc:\n        print('refused', type(exc).__name__)\n"
        )
        outcome = judge(program)
        assert "connected" not in outcome.output
        with pytest.raises(socket.timeout):
            listener.accept()


@pytest.mark.parametrize("level", ["strict", "network"])
def test_no_host_unix_socket_is_reachable(level: str) -> None:
    """Daemons' sockets (Docker's, a database's, D-Bus) are files: the network namespace does not cover them and a
    read-only mount does not stop connect(). /run is covered whole; a socket elsewhere is masked."""
    directories = [Path(f"/run/codeeval-test-{os.getpid()}"), Path(f"/var/lib/codeeval-test-{os.getpid()}")]
    try:
        for directory in directories:
            directory.mkdir()
    except OSError:
        pytest.skip("needs a writable /run and /var/lib (root)")
    listeners = []
    try:
        for directory in directories:
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(directory / "daemon.sock"))
            os.chmod(directory / "daemon.sock", 0o777)
            listener.listen()
            listener.settimeout(0.2)
            listeners.append(listener)
        paths = [str(d / "daemon.sock") for d in directories]
        program = (f"import socket\nfor path in {paths!r}:\n    s = socket.socket(socket.AF_UNIX)\n    try:\n"
                   "        s.connect(path)\n        print('connected', path)\n    except OSError as exc:\n"
                   "        print('refused', type(exc).__name__)\n")
        executor = ZygoteExecutor(level)  # started after the sockets were bound, as a run's zygotes are
        try:
            outcome = get_runner("python").run(program, Limits(cpu_seconds=2), executor)
        finally:
            executor.close()
        assert outcome.status == "passed" and "connected" not in outcome.output, outcome.output
        assert outcome.output.count("refused") == 2
        for listener in listeners:
            with pytest.raises(socket.timeout):
                listener.accept()
    finally:
        for listener in listeners:
            listener.close()
        for directory in directories:
            shutil.rmtree(directory, ignore_errors=True)


def test_network_level_allows_loopback() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        outcome = judge(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)", "network")
        assert outcome.status == "passed"


@pytest.mark.parametrize("level", LEVELS)
def test_no_process_outlives_its_sample(level: str) -> None:
    marker = f"{time.time() % 1000:.4f}"
    program = (
        "import os, subprocess, time\n"
        f"subprocess.Popen(['sleep', '20.{marker.replace('.', '')}'], start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(20)\n"
        "    os._exit(0)\n"
        "time.sleep(0.2)\n"
    )
    assert judge(program, level).status == "passed"
    leftovers = [p for p in host_processes_of(os.getuid() if level == "basic" else sandbox_uid())
                 if marker.replace(".", "") in p or ("sandbox.zygote" in p and level == "strict")]
    assert leftovers == []


LEAVE_FILES = "import os\nopen('left.txt', 'w').write('x')\nos.mkdir('sub')\nopen('sub/deep.txt', 'w').write('x')\n"
FIND_FILES = "import os\nassert sorted(os.listdir('.')) == ['program.py'], os.listdir('.')\n"
PRIVATE = ("/tmp", "/dev/shm", "/var/tmp")  # private tmpfs mounts at the strict level (basic has the host's)
LEAVE_PRIVATE = LEAVE_FILES + f"for d in {PRIVATE}:\n    open(os.path.join(d, 'left-behind'), 'w').write('x')\n"
FIND_PRIVATE = FIND_FILES + (
    f"found = [os.path.join(d, 'left-behind') for d in {PRIVATE}] + [os.getcwd() + '-gone']\n"
    "assert not any(os.path.lexists(p) for p in found), found\n"
)
# The scratch directory's owner can rename it away (it sits in the sticky /tmp) and leave a symlink in its place.
SWAP_SCRATCH = (
    "import os\ncwd = os.getcwd()\nos.rename('program.py', 'program.py.moved')\n"
    "os.rename(cwd, cwd + '-gone')\nos.symlink(cwd + '-gone', cwd)\n"
)


@pytest.mark.parametrize("level", LEVELS)
def test_nothing_a_sample_writes_reaches_the_next_one(level: str) -> None:
    """Its working directory (and at the strict level the private /tmp, /dev/shm and /var/tmp) starts empty."""
    leave, find = (LEAVE_PRIVATE, FIND_PRIVATE) if level == "strict" else (LEAVE_FILES, FIND_FILES)
    for program in (leave, SWAP_SCRATCH) if level == "strict" else (leave,):
        assert judge(program, level).status == "passed"
        outcome = judge(find, level)
        assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output


LEAVE_IPC = (  # System V objects outlive their process: 40 shared memory segments (more than one page of
    # /proc/sysvipc/shm lists), 64 MiB touched, a semaphore set, a message queue; and a POSIX message queue
    "import ctypes, os\nlibc = ctypes.CDLL(None)\nlibc.shmat.restype = ctypes.c_void_p\n"
    "libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]\n"
    "for key in range(0xC000, 0xC028):\n    assert libc.shmget(key, 4096, 0o1000 | 0o666) >= 0\n"
    "shm = libc.shmget(0xC0DE, 64 << 20, 0o1000 | 0o666)\nassert shm >= 0\naddress = libc.shmat(shm, None, 0)\n"
    "ctypes.memset(address, 65, 64 << 20)\nassert libc.semget(0xC0DF, 1, 0o1000 | 0o666) >= 0\n"
    "assert libc.msgget(0xC0E0, 0o1000 | 0o666) >= 0\n"
    "libc.mq_open(b'/codeeval-left', os.O_CREAT | os.O_RDWR, 0o600, None)\n"
)
FIND_IPC = (
    "import ctypes, os\nlibc = ctypes.CDLL(None)\n"
    "left = [line for kind in ('shm', 'sem', 'msg') for line in open(f'/proc/sysvipc/{kind}').read().splitlines()[1:]]\n"
    "assert left == [], left\nassert libc.shmget(0xC0DE, 0, 0) == -1\n"
    "assert libc.mq_open(b'/codeeval-left', os.O_RDONLY) == -1\n"
)


def test_no_ipc_object_outlives_its_sample() -> None:
    """Shared memory, semaphores and message queues a sample leaves are gone before the next sample: they could
    pin memory for the rest of the run or carry data to the next sample."""
    assert judge(LEAVE_IPC).status == "passed"
    outcome = judge(FIND_IPC)
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output


LEAVE_TRACES = (  # a socket in TIME_WAIT (its ports chosen: data), System V ids drawn on, its PID known
    "import ctypes, socket\nlibc = ctypes.CDLL(None)\n"
    "server = socket.socket()\nserver.bind(('127.0.0.1', 4242))\nserver.listen()\n"
    "client = socket.socket()\nclient.bind(('127.0.0.1', 4343))\nclient.connect(('127.0.0.1', 4242))\n"
    "accepted, _ = server.accept()\nclient.close()\naccepted.close()\nserver.close()\n"
    "for _ in range(5):\n    libc.shmctl(libc.shmget(0, 4096, 0o1000 | 0o600), 0, None)\n"
)
FIND_TRACES = (
    "import ctypes\nlibc = ctypes.CDLL(None)\n"
    "assert open('/proc/net/tcp').read().splitlines()[1:] == []\n"
    "assert ' tw 0 ' in open('/proc/net/sockstat').read()\n"
    "assert libc.shmget(0, 4096, 0o1000 | 0o600) == 0  # a new namespace's first id\n"
)


def test_a_sample_leaves_nothing_in_the_namespaces_for_the_next_one_to_read() -> None:
    """Beside files and IPC objects, a sample could leave the next one (its own decoy run) data in a socket in
    TIME_WAIT (its two ports), in the sequence System V ids are drawn from, or in the PID it leaves last: none of
    them reaches the next sample."""
    assert judge(LEAVE_TRACES).status == "passed"
    outcome = judge(FIND_TRACES)
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output
    pids = [int(judge("import os\nprint(os.getpid())").output.split()[0]) for _ in range(5)]
    assert not all(0 < later - earlier < 1000 for earlier, later in itertools.pairwise(pids)), pids


@pytest.mark.parametrize("level", LEVELS)
def test_samples_are_the_first_to_go_when_memory_runs_out(level: str) -> None:
    """Memory is capped per process; should a sample's processes together exhaust the machine, the kernel's OOM
    killer must take them, not the pytest run."""
    outcome = judge("print(open('/proc/self/oom_score_adj').read())", level)
    assert outcome.output.split() == ["1000"]


def test_fork_bomb_is_capped_and_cleaned_up() -> None:
    program = (
        "import os, time\n"
        "forks = 0\n"
        f"for _ in range({Limits().processes + 100}):\n"
        "    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
        "    if pid == 0:\n        time.sleep(10)\n        os._exit(0)\n"
        "    forks += 1\n"
        "print(forks)\n"
    )
    outcome = judge(program)
    assert outcome.status == "passed"
    assert int(outcome.output.split()[-1]) < Limits().processes
    assert host_processes_of(sandbox_uid()) == []


def test_sandbox_cannot_harm_its_zygote() -> None:
    """PID 1 of the namespace ignores its children's signals, and the sample's uid owns nothing else."""
    executor = get_executor("strict")
    executor.layers()
    zygote = executor._proc
    program = "import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\nos._exit(0)"
    assert judge(program).detail == "exited with status 0 before its tests finished"
    assert executor._proc is zygote and zygote.poll() is None
    assert judge("print(1)").status == "passed"


# -- no false fails ---------------------------------------------------------------------------------------------------
LEGITIMATE = {
    "threads": "import threading\nout = []\nts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]\n"
               "[t.start() for t in ts]\n[t.join() for t in ts]\nassert sorted(out) == list(range(8))",
    "many-threads": "from concurrent.futures import ThreadPoolExecutor\nimport time\ndef work(i):\n    time.sleep(0.05)\n"
                    "    return 2 * i\nwith ThreadPoolExecutor(max_workers=100) as ex:\n"
                    "    assert list(ex.map(work, range(100))) == [2 * i for i in range(100)]",
    "subprocess": "import subprocess, sys\nr = subprocess.run([sys.executable, '-c', 'print(6*7)'], capture_output=True, text=True)\n"
                  "assert r.stdout.strip() == '42'\nassert subprocess.run(['true']).returncode == 0",
    "multiprocessing": "import multiprocessing as mp\ndef sq(x):\n    return x * x\n"
                       "with mp.Pool(2) as pool:\n    assert pool.map(sq, range(5)) == [0, 1, 4, 9, 16]\n"
                       "q = mp.Queue()\np = mp.Process(target=q.put, args=(7,))\np.start()\nassert q.get(timeout=5) == 7\np.join()",
    "multiprocessing-classes": "import multiprocessing as mp\nfrom dataclasses import dataclass\n@dataclass\nclass P:\n"
                               "    x: int\ndef double(p):\n    return P(p.x * 2)\nwith mp.Pool(2) as pool:\n"
                               "    assert pool.map(double, [P(1), P(2)]) == [P(2), P(4)]\n",
    "tempfile": "import tempfile, os\nwith tempfile.NamedTemporaryFile('w', delete=False) as f:\n    f.write('x')\n"
                "assert open(f.name).read() == 'x'\nopen('local.txt', 'w').write('y')\nassert os.path.exists('local.txt')",
    "recursion": "import sys\nsys.setrecursionlimit(100000)\ndef depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
                 "assert depth(30000) == 30000",
    "big-output": "import sys\nfor i in range(200000):\n    print('line', i)\nprint('x' * 3_000_000, file=sys.stderr)",
    "numpy": "import numpy as np\nassert np.arange(10).sum() == 45",
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(LEGITIMATE))
def test_legitimate_code_passes(name: str, level: str) -> None:
    outcome = judge(LEGITIMATE[name], level, cpu=10.0)
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]


def test_verdicts_do_not_depend_on_machine_load() -> None:
    """Every core busy with host work: a sample that needs 1 s of CPU under a 2 s CPU limit still passes."""
    burners = [subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 8\nwhile time.time() < end: pass"])
               for _ in range(2 * (os.cpu_count() or 1))]
    try:
        program = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end:\n    pass"
        assert judge(program, cpu=2.0).status == "passed"
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.mark.parametrize("level", LEVELS)
def test_files_reach_the_scratch_directory_and_commands_run(level: str) -> None:
    """What other languages need: data files beside the program, and a command exec'd instead of Python."""
    executor = get_executor(level)
    python = executor.run(ExecRequest(python_source="import os\nprint(open('data.txt').read(), sorted(os.listdir('.')))",
                                      files=(("data.txt", b"hello"),), limits=Limits(cpu_seconds=2)))
    assert python.completed and python.stdout.strip() == "hello ['data.txt', 'program.py']"
    command = executor.run(ExecRequest(argv=("/bin/sh", "-c", "cat data.txt && ls && exit 3"),
                                       files=(("data.txt", b"bye\n"),), limits=Limits(cpu_seconds=2)))
    assert (command.exit_code, command.stdout.split()) == (3, ["bye", "data.txt"])


def test_samples_inherit_symbols_the_zygote_resolved() -> None:
    """The zygote starts with LD_BIND_NOW: every symbol is resolved once, before the forks, not lazily in each
    sample (a page copied and the symbol tables searched at each first call). The environment block it started
    with shows it (a sample under the strict level runs as another uid and cannot read that block)."""
    result = get_executor("basic").run(ExecRequest(python_source="print(open('/proc/self/environ', 'rb').read())"))
    assert result.completed and "LD_BIND_NOW=1" in result.stdout


def test_the_working_directory_is_not_exposed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m` puts pytest's working directory on the zygote's sys.path, PYTHONPATH adds its own, and the paths
    the interpreter needs stay visible: neither a checkout under the hidden home (its secrets), nor the home itself,
    nor the host's /tmp itself (which then covered the private /tmp, read-only: no sample could run) may come
    through."""
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    project = home / f".codeeval-project-{os.getpid()}"
    project.mkdir()
    (project / ".env").write_text("TOKEN=secret")
    program = f"import os\nprint(os.path.exists({str(project / '.env')!r}))\nopen('/tmp/x', 'w').write('ok')\n"
    try:
        for cwd, pythonpath in ((project, None), (Path("/tmp"), None), (Path("/"), "/tmp"), (Path("/"), str(home))):
            monkeypatch.chdir(cwd)
            if pythonpath:
                monkeypatch.setenv("PYTHONPATH", pythonpath)
            executor = ZygoteExecutor("strict")
            try:
                result = executor.run(ExecRequest(python_source=program))
            finally:
                executor.close()
            assert (result.stdout, result.machinery_error, result.completed) == ("False\n", None, True), (cwd, pythonpath, result)
    finally:
        shutil.rmtree(project)


def test_failure_reports_find_their_machinery_loaded() -> None:
    """Most samples of a real model fail, and reporting a failure loads `traceback`: the zygote loads it and
    rehearses reports before it forks, leaving nothing of the rehearsal behind."""
    program = ("import linecache, sys\n"
               "print(sorted(m for m in ('linecache', 'tokenize', 'traceback') if m in sys.modules))\n"
               "print(sorted(linecache.cache))\n"
               "assert [1][0] == 2\n")
    result = get_executor("strict").run(ExecRequest(python_source=program))
    loaded, cached = result.stdout.splitlines()
    assert loaded == "['linecache', 'tokenize', 'traceback']" and cached == "[]"
    assert "    assert [1][0] == 2\nAssertionError\n" in result.stderr


FAILING = {
    "recursion": "def f(n):\n    return f(n + 1)\n\ndef check():\n    f(0)\n\ncheck()\n",
    "chained": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('x') from e\n",
    "group": "raise ExceptionGroup('g', [ValueError(1), TypeError(2)])\n",
    "syntax": "def f(:\n",
    "assertion": "def f(n):\n    return n\n\nassert f(1) == 2\n",
    # Line ends of all kinds and a form feed (no line end for Python, one for str.splitlines): the lines shown
    # must be the ones Python reads back from the file.
    "line ends": "x = 1\r\n\x0c\ry = [x]\r\ndef f():\n    assert y[0] == 2\x0c\nf()",
    "chained recursion": "def f(n):\n    return f(n + 1)\n\ntry:\n    f(0)\nexcept RecursionError as e:\n"
                         "    raise ValueError('too deep') from e\n",
    "stdlib frame": "import json\njson.loads('{')\n",
}


@pytest.mark.parametrize("name", FAILING)
def test_failures_are_reported_as_python_reports_them(name: str, tmp_path: Path) -> None:
    """The sample's traceback is the one Python's `traceback` module gives, without the ^^^ markers (as under
    `python -X no_debug_ranges`), source lines as read back from the program's file (the sample's process does not
    read its file back, and shows the same lines), without the harness's frame."""
    source = FAILING[name]
    result = get_executor("strict").run(ExecRequest(python_source=source))
    path = tmp_path / "program.py"
    path.write_text(source, encoding="utf-8", newline="")
    report = ("import sys, traceback\nsource = open(sys.argv[1], newline='').read()\ntry:\n"
              "    exec(compile(source, sys.argv[1], 'exec', dont_inherit=True), {'__name__': '__main__'})\n"
              "except BaseException as exc:\n"
              "    sys.stderr.write(''.join(traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next)))\n")
    python = subprocess.run([sys.executable, "-X", "no_debug_ranges", "-c", report, str(path)], capture_output=True, text=True)
    expected = python.stderr.replace(str(path), "/tmp/sample/program.py")
    repeats = re.compile(r"repeated \d+ more times")  # the recursion's depth differs between the two processes
    assert repeats.sub("repeated N more times", result.stderr) == repeats.sub("repeated N more times", expected)


@pytest.mark.parametrize(
    ("program", "detail"),
    [
        ("class Bad(Exception):\n    pass\n\nraise Bad('boom')", "exception: __sample__.Bad: boom"),
        ("raise Exception('x')", "exception: Exception: x"),
        ("raise ExceptionGroup('g', [ValueError(1), TypeError(2)])", "exception: ExceptionGroup: g (2 sub-exceptions)"),
        ("try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise KeyError('k')", "exception: KeyError: 'k'"),
    ],
    ids=["own-class", "bare-exception", "group", "chained"],
)
def test_a_failures_detail_names_its_exception(program: str, detail: str) -> None:
    outcome = judge(program)
    assert (outcome.status, outcome.detail) == ("failed", detail), outcome.output


def test_failure_report_shows_the_program_that_ran() -> None:
    """The report's lines come from the program in memory, not read back from its file: a sample that rewrites
    or removes its file still shows the line that failed (and its process reads nothing more to say so)."""
    program = "import os\nos.remove(__file__)\nassert 1 + 1 == 3, 'the failing line'\n"
    result = get_executor("strict").run(ExecRequest(python_source=program))
    assert "    assert 1 + 1 == 3, 'the failing line'\n" in result.stderr, result.stderr
    assert result.stderr.rstrip().endswith("AssertionError: the failing line")


def test_a_recursions_repeated_frame_is_formatted_once(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """In a chained report (formatted by `traceback`) a recursion's frame repeated a thousand times is formatted
    once, not a thousand times before three are printed."""
    import traceback

    from pytest_codeeval.sandbox import tracebacks

    calls = []
    original = traceback.StackSummary.format_frame_summary
    monkeypatch.setattr(traceback.StackSummary, "format_frame_summary", lambda self, f: calls.append(f) or original(self, f))
    source = FAILING["chained recursion"]
    try:
        exec(compile(source, "<recursion>", "exec"), {})
    except ValueError as exc:
        tracebacks.print_failure(exc, "<recursion>", source)
    assert "RecursionError" in capfd.readouterr().err
    assert 3 <= len(calls) < 10  # <module> (twice) and f: each once, not f a thousand times


def test_a_new_zygote_can_be_asked_for_its_layers_from_two_threads() -> None:
    """The pool's thread starts a zygote with its first sample while pytest's thread may ask it for its layers (the
    report at the end of a run that -x stopped early): one of them reads the zygote's first message, never both
    (the other waited for a message that never came, and the run hung)."""
    for _ in range(3):
        executor = ZygoteExecutor("strict")
        answers: list[dict[str, str]] = []
        done = threading.Event()

        def ask(executor: ZygoteExecutor = executor, answers: list[dict[str, str]] = answers) -> None:
            answers.append(executor.layers())
            done.wait(30)  # the zygote dies with the thread that started it (its parent-death signal), as in a pool

        threads = [threading.Thread(target=ask) for _ in range(2)]
        try:
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + 30
            while len(answers) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(answers) == 2 and answers[0] == answers[1] and "pid namespace" in answers[0]
        finally:
            done.set()
            for thread in threads:
                thread.join()
            executor.close()


def test_machinery_failure_is_an_error_not_a_verdict() -> None:
    executor = ZygoteExecutor("strict")
    try:
        executor.layers()
        killer = threading.Timer(0.5, lambda: executor._proc and executor._proc.kill())
        killer.start()
        result = executor.run(ExecRequest(python_source="import time\ntime.sleep(3)", limits=Limits(cpu_seconds=5)))
        killer.join()
        assert result.machinery_error and not result.completed
        assert executor.run(ExecRequest(python_source="print(1)")).completed  # a fresh zygote takes over
    finally:
        executor.close()


def test_layers_are_reported(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=1", "--codeeval-report=r.json", "-v")
    result.stdout.fnmatch_lines(["codeeval sandbox: strict, * at a time per process: *pid namespace*network namespace*read-only filesystem*"])
    short = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=1")  # without -v: a count, one short line
    short.stdout.fnmatch_lines(["codeeval sandbox: strict, * at a time per process: * isolation layers on (-v lists them; docs/security.md)"])
    assert max(len(line) for line in short.stdout.lines if line.startswith("codeeval")) < 120
    import json

    sandbox = json.loads((pytester.path / "r.json").read_text())["sandbox"]
    assert sandbox["level"] == "strict" and sandbox["layers"]["network namespace"].startswith("on")
    assert {"control group", "minimal /dev", "passwd entry", "keyrings emptied", "no user namespaces"} <= set(sandbox["layers"])
