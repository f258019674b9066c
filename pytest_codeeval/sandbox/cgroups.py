"""A control group per zygote: what rlimits cannot bound, because they count per process.

RLIMIT_AS does not see a memfd or tmpfs pages (a sample held 4 GiB under its 2 GiB limit), and RLIMIT_CPU does not
stop 300 processes from taking every core (each its own session, beyond the kernel's autogroup fairness): a
neighbouring sample then timed out. The zygote and its samples live in a group of their own: memory of every kind
(shared memory and tmpfs included, no swap) and processes are bounded across the sample's processes, and each
zygote's group has the same CPU weight as every other's, so a sample's many processes take one zygote's share, not
its neighbours'.

cgroup v2 where the controllers are delegated to the pytest process's own group, else the v1 hierarchies (memory,
cpu, pids). The group is made by the launcher before it leaves the host's namespaces: the descriptors it opens then
still reach the host's (writable) cgroup file system after the zygote made its own mounts read-only."""

from __future__ import annotations

import os

CONTROLLERS = ("memory", "pids", "cpu")
HEADROOM = 256 * 1024**2  # the zygote's own pages charged to the group, beyond the sample's memory limit
PID_HEADROOM = 64  # the zygote, and slack for threads the sample's limit counts differently


class Cgroup:
    """The zygote's group: descriptors of its parent directories (to remove it) and of the files the zygote writes,
    opened on the host's cgroup file system."""

    def __init__(self, version: int, name: str, parents: dict[str, int]) -> None:
        self.version = version
        self.name = name
        self._parents = list(dict.fromkeys(parents.values()))  # one under v2, one per controller under v1
        self._procs = [os.open(f"{name}/cgroup.procs", os.O_WRONLY, dir_fd=fd) for fd in self._parents]
        self._parent_procs = [os.open("cgroup.procs", os.O_WRONLY, dir_fd=fd) for fd in self._parents]
        memory = parents["memory"]
        if version == 2:
            names = ["memory.max"]
            _write_at(memory, f"{name}/memory.swap.max", "0")  # tmpfs pages pushed out to swap count too
        else:
            names = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
            names = [n for n in names if os.path.exists(f"/proc/self/fd/{memory}/{name}/{n}")]
        self._memory = [os.open(f"{name}/{n}", os.O_WRONLY, dir_fd=memory) for n in names]
        self._pids = os.open(f"{name}/pids.max", os.O_WRONLY, dir_fd=parents["pids"])
        # where the kernel counts the group's OOM kills ("oom_kill N"; v1 kernels before 4.13 have no count)
        events = f"{name}/memory.events" if version == 2 else f"{name}/memory.oom_control"
        self._events = os.open(events, os.O_RDONLY, dir_fd=memory)
        self._oom_kills = self.oom_kills()
        self._limits: tuple[int, int] | None = None

    def join(self) -> None:
        """Move the calling process (the zygote, before its first fork) into the group."""
        for fd in self._procs:
            os.write(fd, b"0")

    def leave(self) -> None:
        """Move the calling process back to the group it came from (so that its own group can be removed)."""
        for fd in self._parent_procs:
            os.write(fd, b"0")

    def limit(self, memory_bytes: int, processes: int) -> None:
        """Set the group's bounds for the next sample (written only when they change). Memory: the sample's limit
        and the zygote's own pages; v1's memory+swap limit must never be below the memory limit, hence the order."""
        if self._limits == (memory_bytes, processes):
            return
        raising = self._limits is not None and memory_bytes > self._limits[0]
        for fd in self._memory[::-1] if raising else self._memory:
            os.pwrite(fd, str(memory_bytes + HEADROOM).encode(), 0)
        os.pwrite(self._pids, str(processes + PID_HEADROOM).encode(), 0)
        self._limits = (memory_bytes, processes)

    def oom_kills(self) -> int:
        """How many processes the group's OOM killer has ended so far."""
        for line in os.pread(self._events, 4096, 0).splitlines():
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0

    def out_of_memory(self) -> bool:
        """Whether the OOM killer ended a process since the last call (called once after each sample)."""
        kills, self._oom_kills = self._oom_kills, self.oom_kills()
        return self._oom_kills > kills

    def remove(self) -> None:
        """Called by the launcher once the zygote (and so every sample) has ended."""
        for fd in [*self._procs, *self._parent_procs, *self._memory, self._pids, self._events]:
            os.close(fd)
        for parent in self._parents:
            try:
                os.rmdir(self.name, dir_fd=parent)
            except OSError:  # a process the kernel could not kill still holds it (see the zygote's reap)
                pass
            os.close(parent)


def _write_at(dir_fd: int, name: str, value: str) -> None:
    fd = os.open(name, os.O_WRONLY, dir_fd=dir_fd)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _mounts() -> tuple[str | None, dict[str, str]]:
    """The cgroup2 mount point and each v1 controller's mount point, from this process's mount table."""
    unified: str | None = None
    v1: dict[str, str] = {}
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            rest = fields[fields.index("-") + 1:]
            if rest[0] == "cgroup2" and unified is None:
                unified = fields[4]
            elif rest[0] == "cgroup":
                for option in rest[2].split(","):
                    v1.setdefault(option, fields[4])
    return unified, v1


def _own_paths() -> dict[str, str]:
    """This process's group per controller ('' for v2), from /proc/self/cgroup."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _sweep(parent: int) -> None:
    """Remove groups of earlier zygotes whose launcher was killed before it could (the group is named after the
    launcher's pid, read here in the host's /proc: a live one's group, perhaps still empty, is left alone)."""
    for entry in os.listdir(parent):
        if entry.startswith("codeeval-") and not os.path.exists(f"/proc/{entry[9:]}"):
            try:
                os.rmdir(entry, dir_fd=parent)
            except OSError:
                pass


def _parent_v2(base: str) -> int:
    with open(os.path.join(base, "cgroup.subtree_control")) as handle:
        enabled = handle.read().split()
    missing = [c for c in CONTROLLERS if c not in enabled]
    if missing:
        try:
            with open(os.path.join(base, "cgroup.subtree_control"), "w") as handle:
                handle.write(" ".join(f"+{c}" for c in missing))
        except OSError as exc:  # EBUSY: the group holds processes itself (pytest's), and v2 allows none beside groups
            raise OSError(exc.errno, f"cgroup v2 group {base} cannot hand down {', '.join(missing)} "
                                     "(it holds processes: run pytest in a leaf of a group with them enabled)") from exc
    return os.open(base, os.O_RDONLY | os.O_DIRECTORY)


def _where() -> tuple[int, dict[str, str]] | None:
    """(cgroup version, the directory per controller under which this process's zygote groups are made), or None."""
    unified, v1 = _mounts()
    own = _own_paths()
    if unified and "" in own and _v2_has_controllers(os.path.join(unified, own[""].lstrip("/"))):
        return 2, dict.fromkeys(CONTROLLERS, os.path.join(unified, own[""].lstrip("/")))
    if all(c in v1 for c in CONTROLLERS):
        return 1, {c: os.path.join(v1[c], own.get(c, "/").lstrip("/")) for c in CONTROLLERS}
    return None


def create(name: str) -> tuple[Cgroup | None, str]:
    """The zygote's group, made now (before the namespaces), and the layer's report."""
    parents: dict[str, int] = {}
    try:
        where = _where()
        if where is None:
            return None, "off (neither cgroup v2 nor v1 hierarchies with the memory, pids and cpu controllers)"
        version, paths = where
        if version == 2:
            parents = dict.fromkeys(CONTROLLERS, _parent_v2(paths["memory"]))
        else:
            for c in CONTROLLERS:
                parents[c] = os.open(paths[c], os.O_RDONLY | os.O_DIRECTORY)
        for parent in dict.fromkeys(parents.values()):
            _sweep(parent)
            os.mkdir(name, 0o755, dir_fd=parent)
        group = Cgroup(version, name, parents)
    except OSError as exc:
        for parent in dict.fromkeys(parents.values()):
            try:
                os.rmdir(name, dir_fd=parent)
            except OSError:
                pass
            os.close(parent)
        return None, f"off ({exc.strerror or exc}: no group of our own could be made here)"
    return group, f"on (cgroup v{version}: memory of every kind incl. shared memory and tmpfs, processes, equal CPU weight per zygote)"


def _v2_has_controllers(group: str) -> bool:
    """Whether pytest's own v2 group may hand the controllers down (they are available to it)."""
    try:
        with open(os.path.join(group, "cgroup.controllers")) as handle:
            return set(CONTROLLERS) <= set(handle.read().split())
    except OSError:
        return False


def remove_left(name: str, wait: float = 2.0) -> None:
    """Remove the group `name` made by a zygote's launcher that was killed before it could (the executor's `kill`).
    Its processes die with the launcher, each a little later (the zygote by its parent-death signal, the samples
    with their namespace's init): an occupied group is tried again until `wait` seconds have passed."""
    import time

    try:
        where = _where()
    except OSError:
        return
    if where is None:
        return
    deadline = time.monotonic() + wait
    for parent in dict.fromkeys(where[1].values()):
        path = os.path.join(parent, name)
        while os.path.isdir(path):
            try:
                os.rmdir(path)
            except OSError:  # EBUSY: its processes are still exiting
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)
