"""Toolchains that install under the home directory (rustup's), which the sandbox hides: only the toolchains
themselves are kept readable there (not ~/.cargo, which may hold a registry token), as is this project's cache of
built toolchain artefacts (C++'s precompiled header, Go's seeded build cache)."""

from __future__ import annotations

import os
import pwd

# (directory, its variable, part kept)
HOME_TOOLCHAINS = ((".rustup", "RUSTUP_HOME", "toolchains"), (".cache/pytest-codeeval", "", "toolchains"))


def real_home() -> str:
    return os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)  # the real one: pytester moves HOME


def cache_dir() -> str:
    """Where built toolchain artefacts are kept between runs (readable inside the sandbox)."""
    path = os.path.join(real_home(), ".cache", "pytest-codeeval", "toolchains")
    os.makedirs(path, exist_ok=True)
    return path


def toolchain_paths() -> tuple[str, ...]:
    """The toolchain directories of HOME_TOOLCHAINS that exist and lie under the home directory."""
    home = real_home()
    cache_dir()
    paths = (
        os.path.realpath(os.path.join(os.environ.get(variable) or os.path.join(home, name), part))
        for name, variable, part in HOME_TOOLCHAINS
    )
    return tuple(p for p in paths if p.startswith(home + "/") and os.path.isdir(p))
