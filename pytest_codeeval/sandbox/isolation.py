"""OS isolation set up once per zygote: namespaces, a read-only filesystem, a private /tmp, a hidden home.

Every function returns what it achieved instead of raising, so that a machine lacking one layer still gets the
others and the report says which layer is off and why."""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import select
import signal
import stat
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 1 << 18, 1 << 21, 1 << 24
_LOCKED_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
                 "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME, "strictatime": MS_STRICTATIME}
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38

_libc = ctypes.CDLL(None, use_errno=True)


class IsolationError(OSError):
    pass


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise IsolationError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), "prctl")


def fork_dying_with_parent() -> int:
    """`os.fork()`, the child killed when this process dies. The parent-death signal can only be asked for in the
    child, after the fork: a parent killed before that (an executor's `kill` while its zygote starts) would leave the
    child running on, orphaned. So the child also checks a pipe that only the parent holds open: end-of-file there
    means the parent is already gone."""
    alive_r, alive_w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(alive_r)  # `alive_w` stays open as long as this process lives
        return pid
    os.close(alive_w)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([alive_r], [], [], 0)[0]:  # readable: end-of-file, the parent died before the line above
        os._exit(1)
    os.close(alive_r)
    return 0


def enter_namespaces(network: bool) -> dict[str, str]:
    """unshare mount, PID, IPC, UTS and (unless `network`) network namespaces; a user namespace when not root.

    The caller must fork afterwards: only its children live in the new PID namespace."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (0 if network else CLONE_NEWNET)
    uid, gid = os.getuid(), os.getgid()
    layers: dict[str, str] = {}
    if uid != 0:
        flags |= CLONE_NEWUSER
    unshare(flags)
    if uid != 0:
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        layers["user namespace"] = "on"
    else:
        layers["user namespace"] = "not needed (root: the code runs as an unprivileged uid instead)"
    layers["pid namespace"] = "on"
    layers["network namespace"] = "off (allowed by --codeeval-sandbox=network)" if network else "on (no interfaces up, loopback included)"
    return layers


def _mounts() -> list[tuple[str, str]]:
    """(mount point, per-mount options) of this mount namespace, parents before children."""
    result = []
    with open("/proc/self/mountinfo") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        fields = line.split()
        point = fields[4].encode().decode("unicode_escape")
        result.append((point, fields[5]))
    return result


def remount_read_only() -> list[str]:
    """Make every mount read-only in this (private) mount namespace; returns the mount points that refused."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    refused = []
    for point, options in _mounts():
        if point == "/proc" or point.startswith("/proc/"):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name in options.split(","):
            flags |= _LOCKED_FLAGS.get(name, 0)
        try:
            mount(None, point, None, flags)
        except IsolationError:
            refused.append(point)
    return refused


def exposed_paths() -> list[str]:
    """Directories the interpreter needs (its prefix, site-packages, sys.path) that must stay readable."""
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(p for p in sys.path if p and os.path.isdir(p))
    # this package itself: an editable install is found by an import hook, not through sys.path, and the harnesses
    # that run inside import modules of it the zygote has not loaded
    paths.add(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    # toolchains under the home directory (rustup's), named by the executor: kept readable, as the interpreter is
    paths.update(p for p in os.environ.get("CODEEVAL_TOOLCHAINS", "").split(os.pathsep) if p and os.path.isdir(p))
    return sorted(paths)


def _inside(directory: str, paths: list[str]) -> list[str]:
    """The outermost of `paths` that lie below `directory`. The directory itself is never kept (PYTHONPATH=/tmp,
    say): kept, the host's directory would cover the private one, or the home meant to be hidden."""
    found = [p for p in paths if p.startswith(directory.rstrip("/") + "/")]
    return [p for p in found if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in found)]


def cover(directory: str, keep: list[str], writable: bool) -> list[str]:
    """Mount an empty tmpfs over `directory`, re-exposing read-only the `keep` paths that lie inside it.

    Used for the home directory (ssh keys, tokens: covered read-only) and for /tmp, /dev/shm, /var/tmp
    (private and writable), so that a virtualenv or checkout living there stays usable. The kept paths are
    held by O_PATH descriptors while the tmpfs goes on top, then bound back. Returns them."""
    inside = _inside(directory, keep)
    handles = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in inside]
    try:
        options = TMPFS_OPTIONS if writable else "size=1m,mode=755"
        mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, options)
        for path, fd in handles:
            os.makedirs(path, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        if not writable:
            mount(None, directory, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        for _, fd in handles:
            os.close(fd)
    return inside


class Traces:
    """What a sample can leave in its zygote's namespaces beside files, processes and keys, for the next sample to
    read: System V IPC objects and the sequence their ids are drawn from, sockets in TIME_WAIT and the network's
    counters, the PID namespace's last PID. Besides pinning memory, each would carry what a program saw in its real
    run to its decoy run (docs/security.md). `clear`, after each sample: a new IPC namespace (the old one goes with
    its objects), a new network namespace where the sample changed the private one's counters, a last PID drawn at
    random (also before the first sample: a PID of 2 would tell a program it is its zygote's first)."""

    def __init__(self, private_network: bool) -> None:
        self.private_network = private_network  # the host's network (the `network` level) is not renewed
        self.tables: list[int] = []
        self.counters = self._watch_network() if private_network else b""
        with open("/proc/sys/kernel/pid_max") as handle:
            self.pid_max = int(handle.read())
        self.scatter_pids()

    def clear(self) -> None:
        unshare(CLONE_NEWIPC)
        forbid_posix_queues()
        if self.private_network and self._counters() != self.counters:
            unshare(CLONE_NEWNET)
            with contextlib.suppress(OSError):  # as at the start: where loopback was refused, no interface is up
                loopback_up()
            self.counters = self._watch_network()
        self.scatter_pids()

    def _watch_network(self) -> bytes:
        """Open the network namespace's tables of counters (each under a page: one read is the whole of it)."""
        for fd in self.tables:
            os.close(fd)
        paths = (f"/proc/net/{name}" for name in NETWORK_COUNTERS)
        self.tables = [os.open(path, os.O_RDONLY | os.O_CLOEXEC) for path in paths if os.path.exists(path)]
        return self._counters()

    def _counters(self) -> bytes:
        """Its interfaces' and protocols' counters and its sockets' (TIME_WAIT included)."""
        return b"\0".join(os.pread(fd, 1 << 16, 0) for fd in self.tables)

    def scatter_pids(self) -> None:
        """The next sample's PIDs from a random point (where the kernel has no `ns_last_pid`, or refuses it, they count on)."""
        with contextlib.suppress(OSError), open("/proc/sys/kernel/ns_last_pid", "w") as handle:
            handle.write(str(RESERVED_PIDS + secrets.randbelow(self.pid_max - RESERVED_PIDS - 1)))


RESERVED_PIDS = 300  # the kernel's: PIDs wrap around to here
NETWORK_COUNTERS = ("dev", "snmp", "snmp6", "sockstat")  # traffic on loopback or none, v4 and v6; TIME_WAIT


def forbid_posix_queues() -> str | None:
    """No POSIX message queue can be made in this IPC namespace (none of Python's own modules uses them): one
    would outlive its sample and carry data to the next. Returns why not, if the kernel refused."""
    try:
        with open("/proc/sys/fs/mqueue/queues_max", "w") as handle:
            handle.write("0")
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def host_unix_sockets() -> list[str]:
    """The paths of the Unix sockets bound on the host now (read before leaving the host's network namespace,
    whose sockets /proc/net/unix lists): daemons' sockets may live anywhere, not only under /run."""
    try:
        with open("/proc/net/unix", "rb") as handle:
            rows = handle.read().decode("utf-8", "replace").splitlines()[1:]
    except OSError:
        return []
    fields = (row.split(None, 7) for row in rows)  # the path, when the socket has one, is the eighth
    return sorted({f[7] for f in fields if len(f) == 8 and f[7].startswith("/")})


def mask(path: str) -> None:
    """Bind /dev/null over a file (a socket): connect() on its path then fails."""
    mount("/dev/null", path, None, MS_BIND)


def mount_proc() -> None:
    """A /proc that shows only this PID namespace's processes (called by its init, the zygote)."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


MNT_DETACH = 2
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PTYS = 64  # terminals a zygote's samples may hold at once, in a devpts instance of their own
# Writable private directories: bounded in bytes and in files, so that emptying one (a sample may leave a deep
# tree or hundreds of thousands of files) costs the zygote a bounded time.
TMPFS_OPTIONS = "size=512m,nr_inodes=32768,mode=1777"


def minimal_dev() -> str:
    """An empty tmpfs on /dev holding only what programs use: null, zero, full, random, urandom, tty (the host's
    nodes, bound), a devpts instance of its own (`PTYS` terminals: the host's cannot run out) and the usual links.
    No /dev/fuse (a FUSE mount whose server is gone hangs the processes using it), no net/tun, no disks."""
    handles = [(name, os.open(f"/dev/{name}", os.O_PATH)) for name in DEVICES if os.path.exists(f"/dev/{name}")]
    mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=755")
    try:
        for name, fd in handles:
            os.close(os.open(f"/dev/{name}", os.O_CREAT | os.O_WRONLY, 0o666))
            mount(f"/proc/self/fd/{fd}", f"/dev/{name}", None, MS_BIND)
        for directory in ("pts", "shm"):
            os.mkdir(f"/dev/{directory}", 0o755)
        mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, f"newinstance,ptmxmode=0666,mode=0620,max={PTYS}")
        for link, target in (("ptmx", "pts/ptmx"), ("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            os.symlink(target, f"/dev/{link}")
        mount(None, "/dev", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)
    except OSError:  # the host's /dev back, whole, rather than half of ours
        _libc.umount2(b"/dev", MNT_DETACH)
        raise
    finally:
        for _, fd in handles:
            os.close(fd)
    return f"on ({', '.join(name for name, _ in handles)}, a private devpts of {PTYS} terminals)"


def unmount(target: str) -> None:
    """Detach the mount at `target` (and what is mounted below it) at once."""
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def renew(directory: str, keep: list[str]) -> list[str]:
    """Replace a private directory's tmpfs by an empty one: what a sample left there (however deep or many) goes
    with the old one, in the kernel, in a time bounded by the tmpfs's own bounds."""
    unmount(directory)
    return cover(directory, keep, writable=True)


def sandbox_user(uid: int) -> None:
    """/etc/passwd and /etc/group with an entry for the samples' uid (`getpass.getuser()`, `pwd.getpwuid(os.getuid())`
    and `~` must not fail): the host's files plus one line each, bound over them from a tmpfs that is then let go."""
    scratch = "/tmp"  # covered by the private /tmp later; borrowed meanwhile
    mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=700")
    try:
        for name, line in (("passwd", f"sandbox:x:{uid}:{uid}:codeeval sample:/tmp/sample:/bin/sh\n"),
                           ("group", f"sandbox:x:{uid}:\n")):
            with open(f"/etc/{name}", "rb") as handle:
                text = handle.read()
            with open(f"{scratch}/{name}", "wb") as handle:
                handle.write(text + (b"" if text.endswith(b"\n") or not text else b"\n") + line.encode())
            os.chmod(f"{scratch}/{name}", 0o644)
            mount(f"{scratch}/{name}", f"/etc/{name}", None, MS_BIND)
            mount(None, f"/etc/{name}", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        _libc.umount2(scratch.encode(), MNT_DETACH)


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """Loopback up in the private network namespace: a program may serve and connect on 127.0.0.1 (its own
    namespace's: the host's loopback stays out of reach)."""
    fd = _libc.socket(2, 2, 0)  # AF_INET, SOCK_DGRAM: any socket serves for interface ioctls
    if fd < 0:
        _check(-1, "socket")
    try:
        request = ctypes.create_string_buffer(b"lo", 40)  # struct ifreq: the name, then a union (flags: a short)
        _check(_libc.ioctl(fd, SIOCGIFFLAGS, request), "SIOCGIFFLAGS")
        flags = int.from_bytes(request.raw[16:18], sys.byteorder) | IFF_UP
        request.raw = b"lo".ljust(16, b"\0") + flags.to_bytes(2, sys.byteorder)
        _check(_libc.ioctl(fd, SIOCSIFFLAGS, request), "SIOCSIFFLAGS")
    finally:
        os.close(fd)


# seccomp: (audit architecture, unshare, clone, clone3) per machine; clone's flags are its first argument on both.
_SYSCALLS = {"x86_64": (0xC000003E, 272, 56, 435), "aarch64": (0xC00000B7, 97, 220, 435)}
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def forbid_user_namespaces() -> str:
    """A seccomp filter, inherited by every sample: no new user namespace (`unshare` or `clone` with
    CLONE_NEWUSER: EPERM; `clone3`, whose flags a filter cannot read: ENOSYS, and the C library falls back to
    `clone`), no system call of another architecture's table. In a user namespace of its own a sample would hold
    every capability over it: mount FUSE, make devices of its own. Needs no_new_privs (set before)."""
    import errno
    import platform

    machine = platform.machine()
    if machine not in _SYSCALLS:
        return f"off (no filter for {machine})"
    arch, unshare_nr, clone_nr, clone3_nr = _SYSCALLS[machine]
    def deny(code: int) -> tuple[int, int, int, int]:
        return (_RET_K, 0, 0, _RET_ERRNO | code)

    rules = [
        (_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch), deny(errno.ENOSYS),  # another architecture's table
        (_LD_W_ABS, 0, 0, 0),
        (_JGE_K, 0, 1, 0x40000000), deny(errno.ENOSYS),  # x32's numbers on x86_64
        (_JEQ_K, 3, 0, unshare_nr), (_JEQ_K, 2, 0, clone_nr),
        (_JEQ_K, 0, 4, clone3_nr), deny(errno.ENOSYS),
        (_LD_W_ABS, 0, 0, 16),  # the first argument's low 32 bits (the flags)
        (_JSET_K, 0, 1, CLONE_NEWUSER), deny(errno.EPERM),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]
    table = (_Filter * len(rules))(*(_Filter(*rule) for rule in rules))
    program = _Program(len(rules), table)
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        return f"off ({os.strerror(ctypes.get_errno())})"
    return "on (seccomp: unshare and clone with CLONE_NEWUSER refused)"


UID_BASE, UID_COUNT = 60000, 5000  # the samples' uids: one per zygote, never a host user's
UID_LOCKS = ("/run/codeeval-uids", "/var/lock/codeeval-uids", "/tmp/codeeval-uids")  # the first usable one


def claim_uid(seed: int, directories: tuple[str, ...] = UID_LOCKS) -> tuple[int, int]:
    """A uid for this zygote's samples that no other zygote on the host holds (concurrent runs included), and the
    descriptor that holds it: an exclusive `flock` on a file named after the uid, released by the kernel when the
    zygote and its launcher have ended, however they ended. The search starts at `seed` (the pid): a zygote whose
    uid is taken takes the next free one. Two samples of different zygotes on one uid would share `RLIMIT_NPROC`,
    the uid's keyrings and the right to signal each other. The lock directory is root's own (root alone drops to
    these uids): one made or owned by another user is not trusted."""
    import fcntl

    directory = next((d for d in directories if _own_directory(d)), None)
    if directory is None:
        raise OSError(f"no directory for the uid locks ({', '.join(directories)})")
    for step in range(UID_COUNT):
        uid = UID_BASE + (seed + step) % UID_COUNT
        fd = os.open(f"{directory}/{uid}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return uid, fd
    raise OSError(f"all {UID_COUNT} sandbox uids are held by other zygotes")


def _own_directory(path: str) -> bool:
    """Whether `path` is (or now is made) a directory of this user's, not a link, writable by nobody else."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    info = os.lstat(path)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


_KEYCTL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5


def _keyctl(*args: int | None) -> int:
    import platform

    return int(_libc.syscall(_KEYCTL[platform.machine()], *(ctypes.c_long(a) if a is not None else None for a in args)))


class Keyrings:
    """Kernel keys a sample made, removed after it. Keys belong to a uid, not to a namespace of ours: a key added to
    the uid's keyrings outlived the run, readable by a later run whose zygote drew the same uid. The zygote joins a
    session keyring of its own (the samples inherit it: pytest's stays untouched) and, when /proc/key-users says the
    samples' uid owns more than its two empty keyrings, empties them and the session keyring. Without the uid drop
    (`uid` None: a user namespace, whose user keyrings end with it) only the session keyring is shared: emptied
    after every sample."""

    def __init__(self, uid: int | None) -> None:
        import platform

        if platform.machine() not in _KEYCTL:
            raise OSError(f"no keyctl number known for {platform.machine()}")
        self.uid = uid
        self.prefix = f"{uid}:".encode()
        if _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
            _check(-1, "keyctl")
        self._users = os.open("/proc/key-users", os.O_RDONLY)
        self._buffer = bytearray(4096)

    def _owned(self) -> int:
        size = os.preadv(self._users, [self._buffer], 0)
        for line in bytes(self._buffer[:size]).splitlines():
            if line.lstrip().startswith(self.prefix):
                return int(line.split()[1])
        return 0

    def clear(self) -> None:
        if self.uid is None:
            _keyctl(KEYCTL_CLEAR, KEY_SPEC_SESSION_KEYRING)
            return
        if self._owned() <= 2:  # none, or the user and user-session keyrings, empty
            return
        _keyctl(KEYCTL_CLEAR, KEY_SPEC_SESSION_KEYRING)
        os.setresuid(self.uid, self.uid, 0)  # the uid's own keyrings are reached as that uid (root comes back)
        try:
            for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
                _keyctl(KEYCTL_CLEAR, ring)
        finally:
            os.setresuid(0, 0, 0)
