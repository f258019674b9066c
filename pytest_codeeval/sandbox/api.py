"""The contract between runners and the sandbox: what to run, under which limits, and what came of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# --codeeval-sandbox: strict (the default), network (the samples reach the network), basic (no namespaces)
SANDBOX_LEVELS = ("strict", "network", "basic")
# Under the CPU clock, how many more times the wall bound is granted to a program that a busy machine held back
# (sandbox/backstop.py); once they are spent and it is still held back, it is not judged
BUSY_EXTENSIONS = 3


@dataclass(frozen=True)
class Limits:
    """Resource bounds for one sample. CPU time is the verdict; wall time is only a generous backstop.

    Memory has two bounds: `memory_bytes`, the memory of every kind the sample's processes hold together (resident
    pages, shared memory, tmpfs files), bounded by the zygote's control group; and `address_space_bytes`, each
    process's `RLIMIT_AS`, which runtimes that reserve address space up front (JVMs, V8, Go) need far above what
    they use. Without a control group, `RLIMIT_AS` is the only memory bound (docs/security.md)."""

    cpu_seconds: float = 10.0
    wall_seconds: float | None = None  # None: derived from cpu_seconds (see wall_bound)
    memory_bytes: int = 2 * 1024**3
    address_space_bytes: int | None = None  # None: memory_bytes
    output_bytes: int = 64 * 1024  # per stream, what is kept; the rest is counted and dropped
    file_size_bytes: int = 64 * 1024**2
    open_files: int = 256
    processes: int = 512  # threads count too (RLIMIT_NPROC): a correct program with a 100-thread pool must pass
    # --codeeval-timeout-clock=wall: the wall bound is the verdict. Otherwise (the CPU clock) it is only a backstop,
    # granted again while the machine, not the program, held the program back (sandbox/backstop.py)
    wall_clock: bool = False

    def wall_bound(self) -> float:
        return self.wall_seconds if self.wall_seconds is not None else max(3 * self.cpu_seconds, self.cpu_seconds + 10)

    def reply_bound(self, run_wall: float | None) -> float:
        """The longest a sample can take, its extensions under the CPU clock included (`run_wall`: a two-phase
        program's run phase, after its build's bound)."""
        once = self.wall_bound() + (run_wall or 0)
        return once if self.wall_clock else once * (1 + BUSY_EXTENSIONS)

    def address_space(self) -> int:
        return self.address_space_bytes if self.address_space_bytes is not None else self.memory_bytes


@dataclass(frozen=True)
class ExecRequest:
    """One program to run.

    Exactly one of `python_source` (run in a forked interpreter: fast, no exec) and `argv` (exec a command,
    for compiled or other languages) is set. `files` are written into the sample's scratch directory first.
    `binds` are host files or directories (absolute, links resolved) that this sample alone sees at their own
    paths, read-only (sandbox/binds.py: what may be bound). `proof`: an `argv` program that proves its own
    completion (languages/proof.py): it keeps descriptors 3 and 4, and `completed` is True only if it wrote the
    token it read from 4 to 3. `keep`: files of the scratch directory to bring back in `ExecResult.kept` once the
    program ended (a build's outputs, which later requests carry in `files`).
    """

    python_source: str | None = None
    argv: tuple[str, ...] | None = None
    filename: str = "program.py"
    files: tuple[tuple[str, bytes], ...] = ()
    limits: Limits = field(default_factory=Limits)
    binds: tuple[str, ...] = ()
    # A two-phase program: `limits` bound its build, and from the moment it writes protocol.RUN_MARK (its build done)
    # the zygote gives it this many seconds of wall time. Kept outside the sample's processes, which can
    # neither remove this deadline nor wait on it.
    run_wall_seconds: float | None = None
    proof: bool = False
    keep: tuple[str, ...] = ()


@dataclass
class ExecResult:
    """What happened. `completed` is True only if the program ran to its end (python: the source returned; an argv
    program with `proof`: it reported the sample's token; other argv programs: exit status 0)."""

    exit_code: int | None
    signal: int | None
    completed: bool
    stdout: str
    stderr: str
    timed_out: bool = False
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    output_truncated: bool = False
    machinery_error: str | None = None  # the sandbox itself broke: never the model's fault
    abandoned: int = 0  # processes of the sample the kernel would not kill (its zygote was retired with them)
    build_timed_out: bool = False  # a two-phase program reached the wall bound of its build (no RUN_MARK yet)
    out_of_memory: bool = False  # the control group's OOM killer ended a process of the sample
    kept: tuple[tuple[str, bytes], ...] = ()  # the request's `keep`, all of them or none (missing, not a file, too large)


class Executor(Protocol):
    """What a runner is given to run its requests: the sandbox's `ZygoteExecutor`, or a wrapper that adds to each
    request (execution/job.py's read-only binds). A broken executor says so in `machinery_error`, never raises."""

    def run(self, request: ExecRequest) -> ExecResult: ...
