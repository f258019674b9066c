"""Framing between an executor and its zygote: one message per frame, length-prefixed, over pipes.

Messages are dicts of plain values (str, bytes, numbers, lists, None) in `marshal`'s format: the fastest
encoder in the standard library, and bytes (a sample's files) travel as they are. Both ends are this package,
on the same interpreter; no sample ever writes to these pipes (its descriptors are closed before it runs)."""

from __future__ import annotations

import marshal
import os
import struct
from typing import Any

_HEADER = struct.Struct(">I")
# A two-phase program (a build, then the program: `ExecRequest.run_wall_seconds`) writes this line on its standard
# error when its build is done; the zygote takes it out of the output and starts the run phase's wall deadline.
RUN_MARK = b"@@codeeval:run\n"


def send(fd: int, message: dict[str, Any]) -> None:
    data = marshal.dumps(message)
    write_all(fd, _HEADER.pack(len(data)) + data)


def write_all(fd: int, data: bytes) -> None:
    """`os.write` until all of `data` is written (a pipe takes a large write in parts)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(fd: int) -> dict[str, Any] | None:
    """The next message, or None when the other side has gone."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    body = _read_exactly(fd, _HEADER.unpack(header)[0])
    return None if body is None else marshal.loads(body)
