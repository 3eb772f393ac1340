"""A lean websocket client for the load of the race benchmarks: the load clients share the
machine's cores with the server they measure, so the less each message costs them, the more
of the cores the server gets and the less of the latency they measure is their own.

``websockets``' client parses each frame in a generator, queues each message and wakes a
task to read it: 0.2-0.3 ms of CPU a move at 2,000 racers, close to the server's own 0.3
(``bench/move_cost.py --websockets-clients`` prints both). This one, about 0.12, is an
:class:`asyncio.Protocol` that parses the server's frames in its data callback and hands
each text to a callback, and writes its own frames with a zero mask key (RFC 6455 section
5.3 asks a client to mask every frame and lets the key be any value; XOR with zeros leaves
the payload as it is). It speaks what the benchmark needs:
text frames, the server's pings and its close. It is not for anything but load.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable
from urllib.parse import urlsplit

#: A masked frame's header after its length: a zero mask key.
_ZERO_MASK = b"\x00\x00\x00\x00"


def client_frame(opcode: int, data: bytes) -> bytes:
    """A final, masked frame (with a zero key, so the payload goes as it is)."""
    n = len(data)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + _ZERO_MASK + data


class LeanConnection(asyncio.Protocol):
    """One connection: the opening handshake, then the server's frames to ``on_text``."""

    def __init__(self, on_text: Callable[[str], None], request: bytes) -> None:
        self.on_text = on_text
        self.request = request
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass
        self.transport.write(self.request)  # type: ignore[union-attr]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed before the handshake: {exc}"))

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.opened.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self.opened.set_exception(ConnectionError(status.decode(errors="replace")))
                if self.transport is not None:
                    self.transport.close()
                return
            self.opened.set_result(None)
        at = 0
        size = len(buf)
        while size - at >= 2:
            first, second = buf[at], buf[at + 1]
            n = second & 0x7F  # the server does not mask its frames
            head = 2
            if n == 126:
                if size - at < 4:
                    break
                n = int.from_bytes(buf[at + 2 : at + 4], "big")
                head = 4
            elif n == 127:
                if size - at < 10:
                    break
                n = int.from_bytes(buf[at + 2 : at + 10], "big")
                head = 10
            if size - at < head + n:
                break
            payload = bytes(buf[at + head : at + head + n])
            at += head + n
            opcode = first & 0x0F
            if opcode == 0x1:  # the server sends each message in one frame
                self.on_text(payload.decode())
            elif opcode == 0x9:  # ping: pong with its data
                self.write(0xA, payload)
            elif opcode == 0x8:  # close: answer it and go
                self.write(0x8, payload[:2])
                if self.transport is not None:
                    self.transport.close()
                break
        del buf[:at]

    def write(self, opcode: int, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(client_frame(opcode, data))

    async def send(self, text: str) -> None:
        """Send a text message (written at once; the kernel buffers it)."""
        if self.closed:
            raise ConnectionError("the connection is closed")
        self.write(0x1, text.encode())

    async def close(self) -> None:
        """Send a close frame (1000) and drop the connection."""
        self.write(0x8, (1000).to_bytes(2, "big"))
        if self.transport is not None:
            self.transport.close()


async def lean_connect(
    url: str, on_text: Callable[[str], None], timeout: float = 120
) -> LeanConnection:
    """Open ``ws://HOST:PORT/PATH`` and return the connection once the server accepted it.

    Raises:
        ConnectionError: the server refused the upgrade or closed first.
        TimeoutError: no answer within ``timeout`` seconds.
    """
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, conn = await asyncio.wait_for(
        loop.create_connection(lambda: LeanConnection(on_text, request), host, port), timeout
    )
    await asyncio.wait_for(conn.opened, timeout)
    return conn
