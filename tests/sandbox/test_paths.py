"""Sandbox paths (issue 22): a task's fixture gives a host file or directory that its programs, and theirs only,
read at the same path, read-only; no way out of it; a path that cannot work is one line and exit 4."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.execution.job import execution_job
from pytest_codeeval.execution.pool import ExecutionPool
from pytest_codeeval.sandbox import ExecRequest, ExecResult, Limits, get_executor
from pytest_codeeval.sandbox.binds import refusal
from pytest_codeeval.tasks import Task
from pytest_codeeval.tasks.base import Problem

pytestmark = pytest.mark.timeout(300)

FIXTURE = """
@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus")
    path.chmod(0o755)  # mktemp's 0o700: the sandbox's uid must enter it
    (path / "words.txt").write_text("apple banana cherry")
    return path
"""

CONFTEST = """
import os
import pytest
from pytest_codeeval.tasks import Task

FIXTURE

READ = "def count(path):\\n    return len(open(path).read().split())\\n"
WRITE = "def count(path):\\n    open(path, 'a').write(' extra')\\n    return 4\\n"
BLIND = "import os\\ndef count(path):\\n    return 3 if not os.path.exists(os.path.dirname(path)) else -1\\n"

class Reader(Task):
    name = "reader"
    sandbox_paths = ("corpus",)
    solution = {"count": READ, "tamper": WRITE}
    def get_dataset(self):
        return [{"task_id": "count"}, {"task_id": "tamper"}]
    def get_prompt(self, doc):
        return "def count(path):\\n"
    def get_solution(self, doc):
        return self.solution[doc["task_id"]]
    def build_program(self, doc, solution, resources=None):
        words = os.path.join(resources["corpus"], "words.txt")
        return f"{solution}\\nassert count({words!r}) == 3\\nassert count({words!r}) == 3\\n"

class Blind(Reader):
    '''The same fixture as a plain value: its programs never see the path.'''
    name = "blind"
    sandbox_paths = ()
    fixtures = ("corpus",)
    solution = {"count": BLIND, "tamper": BLIND}

def pytest_codeeval_register_tasks(registry):
    registry.add(Reader, source="conftest")
    registry.add(Blind, source="conftest")
"""


def run_pytest(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """In a subprocess, with its temporary directories outside pytester's own (its PYTHONPATH: the sandbox shows it
    as it is on the host, 0o700, which the sandbox's uid cannot pass through)."""
    basetemp = pytester.path.parent / f"{pytester.path.name}-basetemp"
    return pytester.runpytest_subprocess("--codeeval-model=reference", "-p", "no:randomly", f"--basetemp={basetemp}",
                                         *args)


def statuses(path: Path) -> dict[str, dict[str, tuple[str, str]]]:
    tasks = report(path)["tasks"]
    return {name: {pid: (p["samples"][0]["status"], p["samples"][0]["detail"]) for pid, p in t["problems"].items()}
            for name, t in tasks.items()}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_programs_read_the_fixture_path_and_cannot_write_it(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest(CONFTEST.replace("FIXTURE", FIXTURE))
    result = run_pytest(pytester, "--codeeval-tasks=reader,blind", "--codeeval-report=r.json", *workers)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()  # failing samples are results
    found = statuses(pytester.path / "r.json")
    assert found["reader"]["count"] == ("passed", "ok")
    status, detail = found["reader"]["tamper"]
    assert status == "failed" and ("PermissionError" in detail or "Read-only file system" in detail), detail
    assert found["blind"] == {"count": ("passed", "ok"), "tamper": ("passed", "ok")}  # the path is not there
    words = list(pytester.path.parent.glob(f"{pytester.path.name}-basetemp/**/words.txt"))
    assert [w.read_text() for w in words] == ["apple banana cherry"] * len(words) and words


class Same(Task):
    name = "same"
    sandbox_paths = ("answer",)

    def build_program(self, doc, solution, resources=None):  # type: ignore[no-untyped-def]
        return f"{solution}assert open({str(resources['answer'])!r}).read() == 'alpha'\n"


def test_the_same_program_over_other_data_is_not_deduplicated(tmp_path: Path) -> None:
    """Two setups of a fixture write other data at the same path (a module fixture set up again when xdist
    interleaves tasks): the programs are the same text, their verdicts are not. The same data is run once."""
    answer, task, problem = tmp_path / "answer.txt", Same(), Problem("same", "p", 0, {})
    pool = ExecutionPool("strict", 1)
    try:
        outcomes = []
        for n, data in enumerate(("alpha", "alpha", "beta, not alpha")):
            if not answer.exists() or answer.read_text() != data:
                answer.write_text(data)
            job = execution_job(task, problem, "x = 1\n", None, {"answer": Path(answer)})  # a value per setup
            outcomes.append(pool.result(n, lambda job=job: job))
    finally:
        pool.close()
    assert outcomes[0][0].program == outcomes[2][0].program
    assert [(o.status, ran) for _, o, ran in outcomes] == [("passed", None), ("passed", 0), ("failed", None)]


PIPE_DIR = """
def pipe_dir(base):
    base.mkdir()
    os.mkfifo(base / "channel")  # a host process reading it would hear from the samples
    return base
"""


@pytest.mark.parametrize("value, message", [
    ("'data/words.txt'", "gives 'data/words.txt', a relative path: return an absolute one*"),
    ("tmp_path_factory.getbasetemp() / 'missing'", "gives */missing, which does not exist: create it in the fixture"),
    ("'/proc/self'", "gives /proc/self, which lies in /proc, which the sandbox never exposes"),
    ("'/tmp'", "gives /tmp, which would expose /tmp whole: give a file or directory inside it"),
    ("42", "gives 42, not a path: return the path of a file or directory"),
    ("tmp_path_factory.mktemp('closed')", "gives */closed0, but the sandbox's unprivileged uid cannot read */closed0 "
                                           "(mode 0700): make it readable by all*"),
    ("pipe_dir(tmp_path_factory.getbasetemp() / 'pipes')", "gives */pipes, which holds a named pipe (*/channel): "
                                                          "the sandbox binds files, directories and links only"),
], ids=["relative", "missing", "proc", "private-tmp", "not-a-path", "unreadable", "pipe"])
def test_a_path_that_cannot_work_is_one_line(pytester: pytest.Pytester, value: str, message: str) -> None:
    if "unreadable" in message and os.getuid() != 0:
        pytest.skip("samples run as the invoking user: its own directory is readable")
    fixture = f'{PIPE_DIR}\n@pytest.fixture(scope="session")\ndef corpus(tmp_path_factory):\n    return {value}\n'
    pytester.makeconftest(CONFTEST.replace("FIXTURE", fixture))
    result = run_pytest(pytester, "--codeeval-tasks=reader", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([f"ERROR: task 'reader': sandbox path fixture 'corpus' {message}"])
    assert "Traceback" not in result.stderr.str()


def test_a_match_task_with_sandbox_paths_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.replace("FIXTURE", FIXTURE).replace('    name = "reader"\n', '    name = "reader"\n    metrics = ("exact_match",)\n'
                                           '    def __init__(self):\n        super().__init__(requires_execution=False)\n'))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=reader")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: task 'reader' sets sandbox_paths, but it runs no program*"])


def test_refusals() -> None:
    home = pwd.getpwuid(os.getuid()).pw_dir
    assert refusal("/tmp/pytest-of-root/pytest-1/corpus0", home) is None
    assert refusal("/srv/data/words.txt", home) is None
    for path, reason in [("relative", "is a relative path"), ("/tmp/a/../b", "is not a normalised path"),
                         ("/tmp/a/", "is not a normalised path"), ("/", "would expose /tmp whole"),
                         ("/var", "would expose /var/tmp whole"), ("/run/docker.sock", "lies in /run"),
                         ("/dev/shm/x", "lies in /dev"), ("/tmp/sample/x", "lies in /tmp/sample"),
                         ("/sys/kernel", "lies in /sys"), (home, f"would expose {home} whole"),
                         (f"{home}/.ssh", "lies in the home directory")]:
        assert (refusal(path, home) or "").startswith(reason), path


# -- the sandbox itself: a program trying its way out of a bound directory --------------------------------------------
def run(program: str, binds: tuple[str, ...] = ()) -> ExecResult:
    return get_executor("strict").run(ExecRequest(python_source=program, binds=binds, limits=Limits(cpu_seconds=5)))


@pytest.fixture
def bound(tmp_path: Path) -> Path:
    """A directory to bind, beside a secret it must not lead to: a link inside points at it, another at the home."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    (data / "words.txt").write_text("apple")
    (data / "run.sh").write_text("#!/bin/sh\necho ran\n")
    (data / "run.sh").chmod(0o755)
    (tmp_path / "secret.txt").write_text("sk-secret")
    (data / "up").symlink_to(tmp_path / "secret.txt")
    (data / "rel").symlink_to("../secret.txt")
    (data / "home").symlink_to(pwd.getpwuid(os.getuid()).pw_dir)
    return data


ESCAPES = """
import ctypes, os, sys
data = {data!r}
seen = []
for path in ("up", "rel", "../secret.txt", "home/.bashrc", "../../secret.txt"):
    try:
        seen.append(open(os.path.join(data, path)).read())
    except OSError as exc:
        seen.append(type(exc).__name__)
print("read", open(os.path.join(data, "words.txt")).read(), seen)
print("parent", sorted(os.listdir(os.path.dirname(data))))
for name, action in [("append", lambda: open(os.path.join(data, "words.txt"), "a").write("x")),
                     ("create", lambda: open(os.path.join(data, "new.txt"), "w").write("x")),
                     ("unlink", lambda: os.unlink(os.path.join(data, "words.txt"))),
                     ("chmod", lambda: os.chmod(os.path.join(data, "words.txt"), 0o777)),
                     ("link", lambda: os.link(os.path.join(data, "words.txt"), "/tmp/mine")),
                     ("exec", lambda: os.execv(os.path.join(data, "run.sh"), ["run.sh"]))]:
    try:
        action()
        print(name, "done")
    except OSError as exc:
        print(name, "blocked", exc.errno)
libc = ctypes.CDLL(None, use_errno=True)
print("remount", libc.mount(None, data.encode(), None, 32 | 4096, None), ctypes.get_errno() != 0)
print("umount", libc.umount2(data.encode(), 2), ctypes.get_errno() != 0)
"""


def test_a_bound_directory_leads_nowhere_else(bound: Path) -> None:
    result = run(ESCAPES.format(data=str(bound)), (str(bound),))
    assert result.completed, result
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["read"] == f"apple {['FileNotFoundError'] * 5}"  # the links and '..' lead into the sandbox's view
    assert "sk-secret" not in result.stdout
    assert lines["parent"] == "['data']"  # the directory above is the sandbox's own, made for the bind
    for action in ("append", "create", "unlink", "chmod", "link", "exec"):
        assert lines[action].startswith("blocked"), (action, lines[action])
    if os.getuid() == 0:  # not root: the sample holds the namespace's capabilities (docs/security.md, not defended)
        assert lines["remount"] == "-1 True" and lines["umount"] == "-1 True"
    assert (bound / "words.txt").read_text() == "apple" and not (bound / "new.txt").exists()


LIST_TMP = "import os\nprint(sorted(os.listdir('/tmp')))"


def plain_tmp() -> str:
    """What a sample without binds sees in /tmp: its scratch directory, and the way to a checkout or virtualenv
    kept there (a clone under /tmp, as CI's may be)."""
    listing = run(LIST_TMP).stdout
    assert "'sample'" in listing
    return listing


def test_only_the_sample_that_asks_sees_the_path(bound: Path) -> None:
    plain = plain_tmp()
    probe = f"import os\nprint(os.path.exists({str(bound / 'words.txt')!r}), sorted(os.listdir('/tmp')))\n"
    assert run(probe, (str(bound),)).stdout.split()[0] == "True"
    assert run(probe).stdout == f"False {plain}"  # the next sample: no bind, no mount point left behind
    assert run(probe, (str(bound / "words.txt"),)).stdout.split()[0] == "True"  # a file alone
    assert run(probe).stdout == f"False {plain}"


@pytest.mark.parametrize("path", ["/proc/self", "/tmp", "relative", "link"])
def test_the_zygote_refuses_what_it_should_never_bind(bound: Path, path: str) -> None:
    """The pytest side checks first; the zygote trusts nothing it is sent: no bind, a machinery error."""
    plain = plain_tmp()
    result = run("print('ran')", (str(bound / "up") if path == "link" else path,))
    assert not result.completed and result.machinery_error and "ran" not in result.stdout
    assert run(LIST_TMP).stdout == plain


def test_a_request_keeps_the_files_it_names_for_the_next_request() -> None:
    """`keep` brings back files the program left in its scratch directory once it ended (a build's outputs, which
    the decoy's run carries instead of building again): all of them, or none if one is missing or not a regular
    file (a link to a host file is never followed)."""
    script = "printf 'binary\\0bytes' > out.bin; echo made > out.txt; ln -s /etc/passwd link\n"
    limits = Limits(cpu_seconds=5)

    def kept(*names: str) -> tuple[tuple[str, bytes], ...]:
        request = ExecRequest(argv=("/bin/sh", "s.sh"), filename="s.sh", files=(("s.sh", script.encode()),),
                              limits=limits, keep=names)
        result = get_executor("strict").run(request)
        assert result.exit_code == 0, result.stderr
        return result.kept

    assert kept("out.bin", "out.txt") == (("out.bin", b"binary\0bytes"), ("out.txt", b"made\n"))
    assert kept("out.bin", "missing") == ()
    assert kept("link") == () and kept("out.txt", "link") == ()
    assert kept() == ()
    carried = ExecRequest(argv=("/bin/sh", "r.sh"), filename="r.sh", limits=limits,
                          files=(("out.bin", b"binary\0bytes"), ("r.sh", b"od -c out.bin | head -1\n")))
    assert "b   i   n   a   r   y  \\0" in get_executor("strict").run(carried).stdout
