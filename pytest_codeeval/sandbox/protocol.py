"""Framing between an executor and its zygote: one JSON message per frame, length-prefixed, over pipes."""

from __future__ import annotations

import json
import os
import struct
from typing import Any

_HEADER = struct.Struct(">I")


def send(fd: int, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    view = memoryview(_HEADER.pack(len(data)) + data)
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
    return None if body is None else json.loads(body)
