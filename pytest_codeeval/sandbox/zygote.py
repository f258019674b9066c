"""The zygote: a small process per pytest worker that sets up isolation once, then forks one child per sample.

Run as `python -m pytest_codeeval.sandbox.zygote LEVEL`; requests arrive on stdin and results leave on stdout
(protocol.py). With namespaces the launcher unshares and forks the zygote, which is PID 1 of its own PID
namespace: after each sample it kills every other process in the namespace (daemons, new sessions, stopped
processes included) and wipes the private /tmp. Without them it is a child subreaper and kills what it adopts."""

from __future__ import annotations

import gc
import os
import select
import signal
import stat
import sys
import time
from typing import Any

from pytest_codeeval.sandbox import binds, cgroups, isolation, tracebacks
from pytest_codeeval.sandbox.backstop import Backstop
from pytest_codeeval.sandbox.child import SETUP_FAILED, ChildSpec, become_sample, configure_streams, rlimits
from pytest_codeeval.sandbox.protocol import RUN_MARK, receive, send, write_all
from pytest_codeeval.sandbox.toolchains import real_home

PRIVATE_DIRS = ("/tmp", "/dev/shm", "/var/tmp")
# Where the host's daemons keep their Unix sockets (Docker's, databases', D-Bus): a read-only mount does not stop
# connect() on a socket file, and the network namespace covers only abstract sockets.
SOCKET_DIRS = ("/run", "/var/run")
SCRATCH_IN_NAMESPACE = binds.SCRATCH
# Modules that samples commonly import, loaded once here so each forked sample gets them for free. Each module
# kept here makes every fork dearer (more memory to map and copy on write), so the list holds only what most
# programs use; others (random, json, hashlib...) cost the few samples that import them a millisecond or two.
PRELOAD = ("collections", "functools", "itertools", "math", "re", "string", "heapq", "bisect", "typing", "copy")
TOKEN_SIZE = 32  # 16 random bytes in hex: text that every language's epilogue can copy (languages/proof.py)
DONE_SIZE = 1 + TOKEN_SIZE  # what the completion pipe holds at the end: b"R" (ready) and the token
# How long the zygote waits for a killed process to go. A process the kernel cannot kill (stuck in an
# uninterruptible wait: a FUSE request whose server is gone) is abandoned after that, with its zygote.
REAP_SECONDS = 5.0
KEEP_BYTES = 256 * 1024**2  # what a request's `keep` may bring back: a build's outputs (a Go test binary: 2 MiB)
# Layers that can be left out, named as the layer report names them: `benchmarks/sandbox_layers.py` measures each
# one's cost against a zygote without it. Given by the executor (`ZygoteExecutor(level, without=...)`).
OPTIONAL_LAYERS = ("control group", "minimal /dev", "keyrings emptied", "no user namespaces")
LEFT_OUT: set[str] = set()
HOST = binds.HostView()  # the host's originals of the private directories, for the samples' read-only binds


class Capture:
    """Keeps the head and tail of a stream up to `limit` bytes, counts the rest: floods cost nothing."""

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[: max(0, len(self.tail) - self.half)]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        middle = f"\n[... {self.total - len(self.head) - len(self.tail)} bytes of output dropped ...]\n" if self.truncated else ""
        return self.head.decode("utf-8", "replace") + middle + self.tail.decode("utf-8", "replace")


class Phases:
    """The wall deadline of a sample. A two-phase program (`ExecRequest.run_wall_seconds`) is building until its
    script writes RUN_MARK on its standard error (taken out of the output); its run phase's deadline starts then.
    Only the first mark counts: a program that writes one again, or a build that forges one early, can only bring
    its own deadline closer, never push it beyond the build's bound plus the run's. Under the CPU clock, `backstop`
    moves a deadline one window (the phase's bound) on while the machine holds the program back, a few times at
    most (backstop.py)."""

    def __init__(self, started: float, wall: float, run_wall: float | None, err_fd: int,
                 backstop: Backstop | None) -> None:
        self.deadline = started + wall
        self.window = wall
        self.backstop = backstop
        self.run_wall = run_wall
        self.building = run_wall is not None
        self.err_fd = err_fd

    def read(self, fd: int, chunk: bytes) -> bytes:
        """`chunk` as the sample's output keeps it, starting the run phase at the mark."""
        if fd != self.err_fd or RUN_MARK not in chunk:
            return chunk
        assert self.run_wall is not None
        self.building = False
        self.deadline = time.monotonic() + self.run_wall
        self.window = self.run_wall
        if self.backstop is not None:  # the run phase's windows count from here; the compilers are gone
            self.backstop.restart(time.monotonic())
        return chunk.replace(RUN_MARK, b"", 1)

    def extended(self) -> bool:
        """At the deadline: whether the sample gets one more window. A sample with more processes than its cores
        could run (plus one) never is, a fork bomb's way: counted first and cheaply, in the PID namespace's own /proc
        (without one, the host's processes count too, and nothing is extended). Every process below the zygote is
        the sample's (it runs one at a time): the orphans the zygote adopted are read with the program."""
        if self.backstop is None or _processes() > self.backstop.cpus + 2:  # the zygote, and the sample's
            return False
        if not self.backstop.extend(_descendants(os.getpid()), self.window):
            return False
        self.deadline += self.window
        return True


class Zygote:
    def __init__(self, namespaced: bool, uid: int | None, layers: dict[str, str], kept: list[str],
                 cgroup: cgroups.Cgroup | None, private_network: bool) -> None:
        self.namespaced = namespaced
        self.kept = kept  # interpreter paths bound read-only inside the private directories: never wiped
        self.needed = isolation.exposed_paths() if namespaced else []  # what `isolation.cover` keeps
        self.cgroup = cgroup
        self.abandoned = 0  # processes of the last sample that would not die: the zygote retires after its reply
        self.keyrings: isolation.Keyrings | None = None
        if "keyrings emptied" in LEFT_OUT:
            layers["keyrings emptied"] = "off (left out)"
        elif namespaced:
            try:
                self.keyrings = isolation.Keyrings(uid)
                layers["keyrings emptied"] = "on (a session keyring per zygote, emptied after each sample" + (
                    "; the samples' uid's keyrings too)" if uid is not None else "; user keyrings end with the namespace)")
            except OSError as exc:
                layers["keyrings emptied"] = f"off ({exc})"
        else:
            layers["keyrings emptied"] = "off (needs namespaces)"
        self.uid = uid
        self.layers = layers
        self.scratch: str | None = None
        self.binds = binds.Binds(HOST)  # the running sample's read-only binds (namespaces only)
        self.written: list[str] = []  # names of the files this zygote wrote into the scratch directory
        self.private_dirs = [d for d in PRIVATE_DIRS if namespaced and os.path.isdir(d)]
        self.poller = select.epoll(4)  # one for the zygote's life: each sample registers its descriptors
        # What a sample leaves in the namespaces (IPC objects, sockets, counters, the last PID): gone after each one
        self.traces = isolation.Traces(private_network) if namespaced else None
        bindir = os.path.dirname(sys.executable)
        self.path_env = f"{bindir}:/usr/local/bin:/usr/bin:/bin"
        # In the namespaces every sample's environment is the same: `main` makes it the zygote's own, forks inherit it.
        self.env = self._env(SCRATCH_IN_NAMESPACE) if namespaced else None

    # -- one sample -------------------------------------------------------------------------------------------
    def _scratch(self) -> str:
        if not self.namespaced:
            import tempfile

            return tempfile.mkdtemp(prefix="codeeval-sample-")
        os.mkdir(SCRATCH_IN_NAMESPACE, 0o700)
        return SCRATCH_IN_NAMESPACE

    def _env(self, scratch: str) -> dict[str, str]:
        """Built from nothing: no host variable (tokens, keys, proxies) reaches generated code."""
        tmp = "/tmp" if self.namespaced else scratch
        return {"PATH": self.path_env, "HOME": scratch, "TMPDIR": tmp, "LANG": "C.UTF-8", "USER": "sandbox",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}

    def run(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Run one sample; `cleanup` must follow (after the reply is sent, off the caller's critical path)."""
        if self.cgroup is not None:
            self.cgroup.limit(msg["limits"]["memory_bytes"], msg["limits"]["processes"])
        scratch = self.scratch = self._scratch()
        if self.uid is not None:
            os.chown(scratch, self.uid, self.uid)
        for name, data in msg["files"]:
            self._write(name, data)
        if msg["python_source"] is not None:  # written out for __file__ and inspect; it runs from memory
            # surrogatepass: a completion may hold a lone surrogate (valid JSON); compile() then fails, as it should
            self._write(msg["filename"], msg["python_source"].encode("utf-8", "surrogatepass"))
        if self.namespaced:  # basic: no namespace, the host's files are the sample's as they are
            self.binds.mount(msg.get("binds") or [])
        reply = self._fork_and_watch(msg, msg["limits"], scratch)
        if msg.get("keep") and not reply["timed_out"]:
            reply["kept"] = self._kept(msg["keep"])
        return reply

    def _kept(self, names: list[str]) -> list[list[Any]]:
        """The files `names` of the scratch directory, read once every process of the sample is gone: regular files
        only (no link followed), up to KEEP_BYTES in all; none at all if one is missing or too large."""
        kept: list[list[Any]] = []
        left = KEEP_BYTES
        for name in names:
            try:
                fd = os.open(os.path.join(self.scratch, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # type: ignore[arg-type]
            except OSError:
                return []
            try:
                found = os.fstat(fd)
                if not stat.S_ISREG(found.st_mode) or found.st_size > left:
                    return []
                data = _read_all(fd, found.st_size)
            finally:
                os.close(fd)
            kept.append([name, data])
            left -= len(data)
        return kept

    def _write(self, name: str, data: bytes) -> None:
        path = os.path.join(self.scratch, name)  # type: ignore[arg-type]
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)
        self.written.append(name)

    def _fork_and_watch(self, msg: dict[str, Any], limits: dict[str, Any], scratch: str) -> dict[str, Any]:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        done_r, done_w = os.pipe()
        token_r, token_w = os.pipe()
        env = None if self.env else self._env(scratch)
        spec = ChildSpec(scratch, out_w, err_w, done_w, token_r, rlimits(limits, self.uid is not None), self.uid, env,
                         msg["python_source"], msg["argv"], msg["filename"], bool(msg.get("proof")))
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            become_sample(spec)
        token = _token()  # made after the fork: no copy of it in the sample's memory (see child._run_python)
        os.write(token_w, token)
        for fd in (out_w, err_w, done_w, token_r, token_w):
            os.close(fd)
        captures = {out_r: Capture(limits["output_bytes"]), err_r: Capture(limits["output_bytes"])}
        backstop = None if limits.get("wall_clock") else Backstop(limits["cpu_seconds"], len(os.sched_getaffinity(0)), started)
        phases = Phases(started, limits["wall_seconds"], msg.get("run_wall_seconds"), err_r, backstop)
        status, rusage, timed_out = self._watch(pid, phases, captures)
        self._kill_everything_else()
        if self.abandoned:  # a writer that would not die holds the pipes open: read what is there, never wait
            for fd in (*captures, done_r):
                os.set_blocking(fd, False)
        for fd, capture in captures.items():  # every writer is dead now: the pipes reach EOF quickly
            while chunk := _read(fd, 1 << 16):
                capture.add(chunk)
            os.close(fd)
        # Read only now: the harness writes DONE_SIZE bytes (a sample that fills the pipe only blocks itself); more than
        # that is no completion, and is not read (a megabyte read 64 bytes at a time cost the zygote seconds).
        done = _read(done_r, DONE_SIZE + 1)
        while done and len(done) <= DONE_SIZE and (chunk := _read(done_r, DONE_SIZE + 1 - len(done))):
            done += chunk
        os.close(done_r)
        reply = self._result(status, rusage, timed_out, started, limits, captures[out_r], captures[err_r], done, token, msg)
        reply["build_timed_out"] = timed_out and phases.building
        if timed_out and backstop is not None and backstop.detail:  # held back to the end: not the program's fault
            reply["machinery_error"] = backstop.detail
        reply["out_of_memory"] = self.cgroup is not None and self.cgroup.out_of_memory()
        return reply

    def _watch(self, pid: int, phases: Phases, captures: dict[int, Capture]) -> tuple[int, Any, bool]:
        """Read output as it comes until the sample's process ends; kill it at its wall-clock deadline."""
        pidfd = os.pidfd_open(pid)
        poller = self.poller
        registered = [*captures, pidfd]
        for fd in registered:
            poller.register(fd, select.EPOLLIN)
        timed_out = False
        try:
            while True:
                left = phases.deadline - time.monotonic()
                if left <= 0 and not timed_out and phases.extended():
                    continue
                if left <= 0 and not timed_out:
                    timed_out = True
                    # in the namespace, every process of the sample at once: a fork bomb's spinners would otherwise
                    # starve the killed process's exit of the group's CPU share past REAP_SECONDS on a busy machine
                    os.kill(-1 if self.namespaced else pid, signal.SIGKILL)
                if left < -REAP_SECONDS:  # killed, and still not gone: the kernel holds it
                    self.abandoned = 1
                    return 0, None, True
                for fd, _ in poller.poll(max(left, 0.05) if not timed_out else 1.0):
                    if fd == pidfd:
                        _, status, rusage = os.wait4(pid, 0)
                        return status, rusage, timed_out
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        captures[fd].add(phases.read(fd, chunk) if phases.building else chunk)
                    else:
                        poller.unregister(fd)
                        registered.remove(fd)
        finally:
            for fd in registered:
                poller.unregister(fd)
            os.close(pidfd)

    def _result(self, status: int, rusage: Any, timed_out: bool, started: float, limits: dict[str, Any],
                out: Capture, err: Capture, done: bytes, token: bytes, msg: dict[str, Any]) -> dict[str, Any]:
        cpu = rusage.ru_utime + rusage.ru_stime if rusage is not None else limits["cpu_seconds"]
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        # SIGXCPU comes from the soft CPU limit (rusage may lag it under load); SIGKILL from the hard one.
        cpu_limited = sig == signal.SIGXCPU or sig == signal.SIGKILL and cpu >= 0.95 * limits["cpu_seconds"]
        machinery_error = None
        if not done.startswith(b"R") and not timed_out:
            machinery_error = f"sample process setup failed (status {exit_code if exit_code != SETUP_FAILED else 'setup'}): {err.text()[-500:]}"
        completed = done == b"R" + token if msg.get("python_source") is not None or msg.get("proof") else exit_code == 0
        return {
            "exit_code": exit_code, "signal": sig, "completed": completed and not timed_out,
            "stdout": out.text(), "stderr": err.text(), "timed_out": timed_out or cpu_limited,
            "cpu_seconds": round(cpu, 4), "wall_seconds": round(time.monotonic() - started, 4),
            "output_truncated": out.truncated or err.truncated, "machinery_error": machinery_error,
            "abandoned": self.abandoned,
        }

    # -- after each sample ------------------------------------------------------------------------------------
    def _kill_everything_else(self) -> None:
        """Nothing a sample started outlives it: daemons, new sessions and stopped processes included. What the
        kernel cannot kill within `REAP_SECONDS` is abandoned and counted (the sample fails for it)."""
        deadline = time.monotonic() + REAP_SECONDS
        if self.namespaced:
            while True:  # again while any is left: a process forking while kill(-1) went by has a child it missed
                try:
                    os.kill(-1, signal.SIGKILL)  # from PID 1: every other process of the namespace
                except ProcessLookupError:
                    pass
                left = reap_all(min(deadline, time.monotonic() + 0.25))
                if not left or time.monotonic() > deadline:
                    self.abandoned += left
                    return
        while pids := _descendants(os.getpid()):
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if left := reap_all(deadline):
                self.abandoned += left
                return

    def cleanup(self) -> None:
        """Everything a sample left goes before the next one runs. Its cost is bounded: in the namespaces a private
        directory the sample left anything in is replaced by a fresh tmpfs (the kernel frees the old one, bounded by
        its size and file count), never walked file by file (a 3,000-deep tree, 374k files)."""
        if self.scratch is None:
            return
        scratch, self.scratch = self.scratch, None
        written, self.written = self.written, []
        self.binds.release()  # first: a bind's mount point may lie in a private directory
        try:  # the usual case, cheap: the sample left nothing beside what we wrote (no symlink followed)
            fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                for name in written:
                    os.unlink(name, dir_fd=fd)
            finally:
                os.close(fd)
            os.rmdir(scratch)
        except OSError:
            if not self.namespaced:  # basic: a directory of the host's /tmp; in the namespaces it goes with /tmp
                _remove_tree(scratch)
        for directory in self.private_dirs:  # the private /tmp is private per sample, not just per worker
            if _left_behind(directory, self.kept):
                self.kept = [k for k in self.kept if not k.startswith(directory + "/")]
                self.kept += isolation.renew(directory, self.needed)
        if self.traces is not None:
            self.traces.clear()
        if self.keyrings is not None:
            self.keyrings.clear()


def _left_behind(directory: str, kept: list[str]) -> bool:
    """Whether a private directory holds anything but the kept paths bound into it (and the directories to them)."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.path in kept:
                continue
            if not any(k.startswith(entry.path + "/") for k in kept) or _left_behind(entry.path, kept):
                return True
    return False


def _remove_tree(path: str) -> None:
    """`rm`, which walks a tree of any depth without recursing (shutil.rmtree ran out of Python's stack on a
    3,000-deep one) and never follows a link; only at the basic level, where /tmp is the host's."""
    import subprocess

    subprocess.run(["rm", "-rf", "--one-file-system", "--", path], check=False, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _token() -> bytes:
    """A sample's completion token: TOKEN_SIZE characters of hex, which no program can guess."""
    return os.urandom(TOKEN_SIZE // 2).hex().encode()


def _read_all(fd: int, size: int) -> bytes:
    chunks = []
    while size > 0 and (chunk := os.read(fd, min(size, 1 << 20))):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read(fd: int, size: int) -> bytes:
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return b""


def reap_all(deadline: float) -> int:
    """Wait for every child until `deadline`; returns how many are left (0: all gone). Killed processes go within
    microseconds; this polls, as no call waits for any child with a time limit."""
    pause = 0.0001
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid:
            continue
        if time.monotonic() > deadline:
            return max(1, len(_descendants(os.getpid())))
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def _processes() -> int:
    """How many processes /proc lists: one directory read, however many processes a fork bomb made."""
    return sum(entry.isdigit() for entry in os.listdir("/proc"))


def _descendants(root: int) -> list[int]:
    """Processes below `root`, from /proc (used without a PID namespace)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def _setup(level: str, proto: tuple[int, int]) -> tuple[bool, int | None, dict[str, str], list[str], cgroups.Cgroup | None]:
    """Isolation for this level: (namespaced, uid to run samples as, layer report, paths kept in /tmp & co, the
    zygote's control group)."""
    layers: dict[str, str] = {}
    namespaced = False
    # a uid of this zygote's own on the host: RLIMIT_NPROC, keyrings and kill() stay per zygote
    worker_uid, uid_note = isolation.UID_BASE + os.getpid() % isolation.UID_COUNT, ""
    root = os.getuid() == 0  # read before a user namespace (where this uid would be 0) is entered
    if root and level != "basic":  # (root alone drops to it, in the namespaces) held for life
        try:
            worker_uid, _ = isolation.claim_uid(os.getpid())
        except OSError as exc:
            uid_note = f"; not reserved: {exc}"
    home = real_home()  # read before a user namespace makes this uid 0
    group, layers["control group"] = (None, "off (left out)") if "control group" in LEFT_OUT else \
        cgroups.create(f"codeeval-{os.getpid()}")  # before leaving the host's mounts
    if level == "basic":
        layers["namespaces"] = "off (--codeeval-sandbox=basic)"
    else:
        sockets = isolation.host_unix_sockets()  # while /proc/net/unix still lists the host's
        try:
            layers.update(isolation.enter_namespaces(network=level == "network"))
            namespaced = True
        except OSError as exc:
            layers["namespaces"] = f"off ({exc}); without them: no filesystem, network or PID isolation"
    if namespaced:
        pid = isolation.fork_dying_with_parent()
        if pid:  # the launcher stays outside; the zygote below is PID 1 of the new namespace
            for fd in proto:
                os.close(fd)
            _, status = os.waitpid(pid, 0)
            if group is not None:
                group.remove()
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    if group is not None:
        try:
            group.join()
        except OSError as exc:
            group, layers["control group"] = None, f"off (could not join it: {exc.strerror})"
    if namespaced:
        if level == "strict":
            try:
                isolation.loopback_up()
                layers["network namespace"] = "on (a private loopback only: the host's network and services unreachable)"
            except OSError as exc:
                layers["network namespace"] = f"on (no interfaces up; loopback refused: {exc})"
        filesystem, kept = _filesystem(
            network=level == "network", sockets=sockets, uid=worker_uid if root else None, home=home
        )
        filesystem["no lasting IPC"] = _lasting_ipc()
        layers.update(filesystem)
    else:
        isolation.prctl(isolation.PR_SET_CHILD_SUBREAPER, 1)
    uid = None
    if namespaced and root and not layers["home hidden"].startswith("off"):
        uid = worker_uid
        layers["unprivileged uid"] = f"on (uid {uid}, no capabilities, no new privileges{uid_note})"
    else:
        layers["unprivileged uid"] = "off (not root: runs as the invoking user, inside a user namespace)" if namespaced else "off (needs namespaces)"
    layers["scrubbed environment"] = "on"
    layers["rlimits"] = "on (cpu, address space, file size, open files" + (", processes)" if uid is not None else ")")
    layers["samples first out of memory"] = _first_out_of_memory()
    layers["own session, whole tree killed"] = "on (PID namespace)" if namespaced else "on (child subreaper)"
    return namespaced, uid, layers, kept if namespaced else [], group


def _first_out_of_memory() -> str:
    """The address-space limit is per process: a sample's many processes together could still exhaust the machine's
    (or the control group's) memory. The kernel's OOM killer then takes the process with the highest score: each
    sample's process raises its own to the highest (`child._prepare`; raising needs no privilege), the zygote keeps
    its own, so the killer takes the sample's, never the zygote nor the pytest run."""
    if not os.access("/proc/self/oom_score_adj", os.W_OK):
        return "off (/proc/self/oom_score_adj is not writable)"
    return "on (oom_score_adj 1000: the OOM killer takes samples before anything else)"


def _lasting_ipc() -> str:
    refused = isolation.forbid_posix_queues()
    queues = f"POSIX message queues allowed: {refused}" if refused else "no POSIX message queues"
    return f"on (a new IPC namespace for each sample; {queues})"


def _filesystem(network: bool, sockets: list[str], uid: int | None, home: str) -> tuple[dict[str, str], list[str]]:
    """Read-only mounts, a private /proc, private temporary directories, a hidden home and hidden local sockets.

    Returns the layer report and the interpreter's paths re-exposed inside the private directories."""
    layers = {}
    refused = isolation.remount_read_only()
    layers["read-only filesystem"] = "on" if not refused else f"{'off' if '/' in refused else 'partly on'} (refused: {', '.join(refused)})"
    try:
        isolation.mount_proc()
        layers["private /proc"] = "on"
    except OSError as exc:
        layers["private /proc"] = f"off ({exc})"
    try:
        layers["minimal /dev"] = "off (left out)" if "minimal /dev" in LEFT_OUT else isolation.minimal_dev()
    except OSError as exc:
        layers["minimal /dev"] = f"off ({exc}): the host's devices are reachable"
    if uid is not None:
        try:
            isolation.sandbox_user(uid)
            layers["passwd entry"] = f"on (sandbox: uid {uid})"
        except OSError as exc:
            layers["passwd entry"] = f"off ({exc})"
    needed = isolation.exposed_paths()
    kept: list[str] = []
    for directory in PRIVATE_DIRS:
        if os.path.isdir(directory):
            HOST.keep(directory)  # before the cover hides the host's
            kept += isolation.cover(directory, needed, writable=True)
    layers["private /tmp"] = "on (tmpfs of 512 MiB and 32768 files, replaced after each sample that leaves anything)"
    HOST.home = home
    try:
        hidden = isolation.cover(home, needed, writable=False) if home != "/" else []
        layers["home hidden"] = f"on ({home}" + (f"; read-only: {', '.join(hidden)})" if hidden else ")")
    except OSError as exc:
        layers["home hidden"] = f"off ({exc})"
    layers["local sockets hidden"] = _hide_sockets(needed, network, sockets)
    return layers, kept


def _hide_sockets(needed: list[str], network: bool, sockets: list[str]) -> str:
    """An empty read-only tmpfs over /run, where most daemons keep their sockets, and /dev/null over every other
    socket the host had bound when the zygote started (a database's under /var/lib, a syslog /dev/log). With the
    network allowed, the directory of the resolver's configuration stays (systemd links /etc/resolv.conf into
    /run)."""
    keep = list(needed)
    if network:
        keep.append(os.path.dirname(os.path.realpath("/etc/resolv.conf")))
    covered = []
    try:
        for directory in SOCKET_DIRS:
            if os.path.isdir(directory) and not os.path.islink(directory):
                isolation.cover(directory, keep, writable=False)
                covered.append(directory)
        masked = [path for path in sockets if _is_socket(path)]
        for path in masked:
            isolation.mask(path)
    except OSError as exc:
        return f"off ({exc})"
    return f"on ({', '.join(covered) or 'no /run'} covered, {len(masked)} other host sockets masked)"


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:  # in another mount namespace, or under a directory now covered
        return False


def main() -> None:
    level = sys.argv[1]
    LEFT_OUT.update(sys.argv[2].split(",") if len(sys.argv) > 2 else ())
    # `python -m` put the working directory first on sys.path. Its imports are done; kept, it would be re-exposed
    # inside the sandbox as a path the interpreter needs: the host's whole /tmp when pytest runs from /tmp (and then
    # read-only: no sample could run), a checkout under the hidden home directory.
    if sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]
    proto = (os.dup(0), os.dup(1))
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # the executor's process died: so do we
    for name in PRELOAD:
        __import__(name)
    namespaced, uid, layers, kept, group = _setup(level, proto)
    isolation.prctl(isolation.PR_SET_NO_NEW_PRIVS, 1)  # inherited by every sample: setuid binaries cannot raise it
    zygote = Zygote(namespaced, uid, layers, kept, group, private_network=level == "strict")
    # After the keyring set-up: no set-up follows
    layers["no user namespaces"] = "off (left out)" if "no user namespaces" in LEFT_OUT else isolation.forbid_user_namespaces()
    if zygote.env is not None:  # the sample environment is the same for every sample: set once, inherited by each fork
        os.environ.clear()
        os.environ.update(zygote.env)
    configure_streams()
    tracebacks.rehearse()
    gc.freeze()  # the zygote's objects leave the collector's view: a sample's collections do not touch (and copy) them
    send(proto[1], {"layers": layers})
    while (msg := receive(proto[0])) is not None:
        try:
            reply = zygote.run(msg)
        except Exception as exc:  # never the model's fault: the executor reports it as a machinery error
            reply = {"machinery_error": f"zygote: {exc!r}"}
        send(proto[1], reply)
        if zygote.abandoned:  # its namespace holds a process the kernel will not kill: a fresh zygote takes over
            os._exit(0)
        try:
            zygote.cleanup()
        except Exception:  # the next sample must not see what this one left: a fresh zygote takes over
            os._exit(0)
    if group is not None and not namespaced:  # no launcher to remove it (basic): leave the group, then remove it
        zygote.cleanup()
        group.leave()
        group.remove()


if __name__ == "__main__":
    main()
