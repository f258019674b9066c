"""Toolchains that install under the home directory (rustup's), which the sandbox hides: only the toolchains
themselves are kept readable there (not ~/.cargo, which may hold a registry token), as is this project's cache of
built toolchain artefacts (C++'s precompiled header, Go's seeded build cache, GHC's main object, Racket's
light module language, Elixir's preloader, Ruby's gem loader)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import subprocess
from collections.abc import Callable

# (directory, its variable, part kept)
HOME_TOOLCHAINS = ((".rustup", "RUSTUP_HOME", "toolchains"), (".cache/pytest-codeeval", "", "toolchains"))


def real_home() -> str:
    """The user's home directory: its passwd entry's, whatever HOME says (pytester moves HOME); HOME for a uid that
    has no entry (a container run with an arbitrary uid)."""
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        home = os.environ.get("HOME") or "/"
    return os.path.realpath(home)


def cache_dir() -> str:
    """Where built toolchain artefacts are kept between runs (readable inside the sandbox)."""
    path = os.path.join(real_home(), ".cache", "pytest-codeeval", "toolchains")
    os.makedirs(path, exist_ok=True)
    return path


def tool_version(command: list[str]) -> str | None:
    """What `command` prints, the toolchain's version that names its artefacts' directory; None where it cannot run."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None


def built_once(name: str, marker: str, build: Callable[[str], bool]) -> str | None:
    """The directory `name` under cache_dir, filled by `build(directory)` once per machine (under a lock for
    parallel workers; `marker`, a file in it, says it is done); None where it cannot be built (samples are then
    built as they would be without it)."""
    try:
        directory = os.path.join(cache_dir(), name)  # not where the home directory cannot be written
        if not os.path.exists(os.path.join(directory, marker)):
            os.makedirs(directory + ".lock", exist_ok=True)
            with open(os.path.join(directory + ".lock", "lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not os.path.exists(os.path.join(directory, marker)) and not build(directory):
                    return None
        return directory
    except (OSError, subprocess.TimeoutExpired):
        return None


def compiled_once(name: str, source: str, text: str, compile: Callable[[str, str], list[str]], output: str) -> str | None:
    """The directory `name` under cache_dir holding `text` as `source` and `output`, what `compile(source's path,
    output's path)` makes of it, built once per machine (built_once); None where it cannot be built."""

    def build(directory: str) -> bool:
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, source)
        with open(path, "w") as handle:
            handle.write(text)
        part = os.path.join(directory, output + ".part")
        if subprocess.run(compile(path, part), capture_output=True, timeout=300).returncode:
            return False
        os.replace(part, os.path.join(directory, output))
        return True

    return built_once(name, output, build)


def toolchain_paths() -> tuple[str, ...]:
    """The toolchain directories of HOME_TOOLCHAINS that exist and lie under the home directory."""
    home = real_home()
    with contextlib.suppress(OSError):
        cache_dir()
    paths = (
        os.path.realpath(os.path.join(os.environ.get(variable) or os.path.join(home, name), part))
        for name, variable, part in HOME_TOOLCHAINS
    )
    return tuple(p for p in paths if p.startswith(home + "/") and os.path.isdir(p))
