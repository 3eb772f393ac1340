"""One HTTP/1.1 request over a plain socket, read to the end, for tests of the server's HTTP.

urllib hides what a test needs to see here (the exact bytes after a HEAD's headers, a
chunked body, a dropped connection), so the request is written and the answer read by hand.
The server closes the connection after every answer.

Usage::

    reply = request(port, "POST", "/api/daily", body=b"x=1")
    reply.status, reply.header("allow"), reply.json()
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """A parsed answer: status, headers (names in lower case, every value kept) and body."""

    status: int
    headers: dict[str, list[str]] = field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The first value of a header, or None."""
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    body: bytes = b"",
    *,
    chunked: bool = False,
    timeout: float = 10,
) -> Reply:
    """Send one request to 127.0.0.1:``port`` and read the whole answer.

    A body goes with a ``Content-Length`` (or, with ``chunked``, as one chunk with
    ``Transfer-Encoding: chunked``).

    Raises:
        AssertionError: the server closed the connection without an answer.
    """
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    payload = body
    if chunked:
        lines.append("Transfer-Encoding: chunked")
        payload = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    elif body:
        lines.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        # Answered before the whole body is sent, the answer is still there to read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(raw)
        data = bytearray()
        while chunk := sock.recv(65536):
            data += chunk
    return parse_reply(bytes(data))


def parse_reply(data: bytes) -> Reply:
    """Parse an HTTP/1.1 answer: status line, headers and the rest as the body.

    Raises:
        AssertionError: ``data`` is empty or has no complete head.
    """
    assert data, "the server closed the connection without an answer"
    head, sep, body = data.partition(b"\r\n\r\n")
    assert sep, f"no complete head in {data[:200]!r}"
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    reply = Reply(int(status_line.split(" ", 2)[1]), body=body)
    for line in header_lines:
        name, _, value = line.partition(":")
        reply.headers.setdefault(name.strip().lower(), []).append(value.strip())
    return reply
