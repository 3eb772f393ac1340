"""One websocket connection: frame limits, the rate limit, validation and dispatch.

Every frame is checked (size, rate, JSON, the protocol models) before a handler from
:data:`server.registry.WS_HANDLERS` sees it. Whatever a handler raises is answered with an
``error`` and the connection carries on; nothing a client sends can stop the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from redis.exceptions import RedisError
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol.models import CLIENT_ADAPTER, ERROR_CODES, MAX_FRAME

from .hub import event_seq
from .registry import WS_HANDLERS

if TYPE_CHECKING:
    from .app import App

log = logging.getLogger(__name__)

#: Bytes waiting in a socket's send buffer before the client counts as too slow.
MAX_BUFFERED = 1 << 20

#: Messages a connection may send before ``hello``.
BEFORE_HELLO = frozenset({"hello", "resume", "ping"})


class Conn:
    """A client connection and who it is.

    Attributes:
        pid, name, token: the player, once ``hello`` or ``resume`` identified it.
        room, role: the room the socket is in and its role there.
        syncing: while a snapshot is being built, events are held here (seq, text).
    """

    __slots__ = (
        "allowance",
        "app",
        "cid",
        "flush_scheduled",
        "last_check",
        "name",
        "out",
        "pid",
        "role",
        "room",
        "syncing",
        "token",
        "ws",
    )

    def __init__(self, app: App, ws: ServerConnection) -> None:
        self.app = app
        self.ws = ws
        self.cid = f"{app.instance_id}.{secrets.token_hex(4)}"
        self.out: list[str] = []
        self.flush_scheduled = False
        self.pid: str | None = None
        self.name = ""
        self.token = ""
        self.room: str | None = None
        self.role = "spectator"
        self.syncing: list[tuple[int, str]] | None = None
        self.allowance = float(app.config.rate_burst)
        self.last_check = time.monotonic()

    async def send_text(self, text: str) -> None:
        """Send one frame (queued; see :meth:`queue`)."""
        self.queue(text)

    def queue(self, text: str) -> None:
        """Queue a frame; every frame queued in one turn of the event loop goes out in one
        socket write, which matters when each system call is expensive."""
        self.out.append(text)
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write the queued frames (dropped if the socket is closing)."""
        self.flush_scheduled = False
        frames, self.out = self.out, []
        protocol = self.ws.protocol
        transport = self.ws.transport
        if protocol.state is not State.OPEN or transport.is_closing():
            return
        if transport.get_write_buffer_size() > MAX_BUFFERED:
            # A client that does not read its events would hold memory without bound:
            # drop it; it resumes from its last seq.
            self.app.spawn(self.ws.close(1013, "too slow"))
            return
        for text in frames:
            protocol.send_text(text.encode())
        data = protocol.data_to_send()
        if data:
            transport.write(b"".join(data))

    async def send(self, data: dict[str, Any]) -> None:
        """Send a message."""
        self.queue(json.dumps(data, separators=(",", ":")))

    async def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""
        self.app.metrics.errors += 1
        await self.send({"type": "error", "code": code, "message": message or ERROR_CODES[code]})

    def push(self, text: str, full: str) -> None:
        """Forward a room event (held back while a snapshot is on its way)."""
        if self.syncing is not None:
            self.syncing.append((event_seq(full), text))
            return
        self.queue(text)

    def allow(self) -> bool:
        """The token bucket: ``rate_per_s`` messages a second, bursts of ``rate_burst``."""
        now = time.monotonic()
        config = self.app.config
        self.allowance = min(
            float(config.rate_burst), self.allowance + (now - self.last_check) * config.rate_per_s
        )
        self.last_check = now
        if self.allowance < 1.0:
            return False
        self.allowance -= 1.0
        return True

    async def handle(self, raw: str | bytes) -> None:
        """Check and dispatch one frame."""
        # The cap is in bytes; a character of a text frame takes up to 4 of them in UTF-8.
        if isinstance(raw, bytes) or len(raw) <= MAX_FRAME // 4:
            size = len(raw)
        else:
            size = len(raw.encode())
        if size > MAX_FRAME:
            await self.error("too_large")
            return
        if not self.allow():
            await self.error("rate_limited")
            return
        try:
            msg = CLIENT_ADAPTER.validate_json(raw)
        except ValidationError as exc:
            await self.error(*_classify(exc))
            return
        kind = msg.type
        if self.pid is None and kind not in BEFORE_HELLO:
            await self.error("hello_first")
            return
        handler = WS_HANDLERS.get(kind)
        if handler is None:
            await self.error("unavailable", f"{kind} is not available on this server")
            return
        try:
            await handler(self.app, self, msg)
        except RedisError:
            self.app.metrics.redis_errors += 1
            log.exception("redis failed on %s", kind)
            await self.error("busy")
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("handler of %s failed", kind)
            await self.error("internal")


def _classify(exc: ValidationError) -> tuple[str, str]:
    """The error code and a short message for a frame that failed validation."""
    errors = exc.errors(include_url=False)
    first = errors[0] if errors else {"type": "", "msg": "invalid", "loc": ()}
    kind = first["type"]
    if kind == "json_invalid" or kind in ("model_type", "model_attributes_type", "dict_type"):
        return "bad_json", ERROR_CODES["bad_json"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return "unknown_type", ERROR_CODES["unknown_type"]
    where = ".".join(str(p) for p in first["loc"][1:]) or "message"
    return "invalid_message", f"{where}: {first['msg']}"[:200]


async def serve_connection(app: App, ws: ServerConnection) -> None:
    """The lifetime of one websocket: read frames until it closes, then tidy up."""
    conn = Conn(app, ws)
    app.metrics.connections += 1
    app.metrics.connections_total += 1
    try:
        async for raw in ws:
            await conn.handle(raw)
    except ConnectionClosed:
        pass
    finally:
        app.metrics.connections -= 1
        try:
            await app.on_disconnect(conn)
        except Exception:
            log.exception("tidying up a closed connection failed")
