"""Length-prefixed messages between the judge's processes.

A message is a JSON header (a dict) plus an optional binary payload, framed as
two big-endian uint32 lengths. Only trusted judge code writes these: data from
the untrusted program travels as the opaque payload.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

_FRAME = struct.Struct("!II")


class ChannelClosed(EOFError):
    """The other end closed the pipe (its process exited or died)."""


def send(fd: int, header: dict[str, Any], payload: bytes = b"") -> None:
    body = json.dumps(header, separators=(",", ":")).encode()
    data = memoryview(_FRAME.pack(len(body), len(payload)) + body + payload)
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_exactly(fd: int, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed(f"channel closed with {remaining} of {size} bytes unread")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def receive(fd: int) -> tuple[dict[str, Any], bytes]:
    header_len, payload_len = _FRAME.unpack(_read_exactly(fd, _FRAME.size))
    header = json.loads(_read_exactly(fd, header_len))
    payload = _read_exactly(fd, payload_len) if payload_len else b""
    return header, payload
