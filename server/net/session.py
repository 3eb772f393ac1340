"""One websocket connection: frame limits, the rate limit, validation and dispatch.

Every frame is checked (size, rate, JSON, the protocol models) before the handler of its
type (from the table that :mod:`server.net.registry` builds) sees it. Whatever a handler raises
is answered with an ``error`` and the connection carries on; nothing a client sends can
stop the server.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import struct
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Protocol, TypeVar

from pydantic import ValidationError
from redis.exceptions import RedisError
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol.models import CLIENT_ADAPTER, ERROR_CODES, MAX_FRAME

from ..metrics import Metrics
from ..quiet import Quiet
from ..settings import Settings
from ..store.status import Status
from . import wire
from .limits import bucket_key, client_address, peer_of

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Bytes waiting in a socket's send buffer before the client counts as too slow.
MAX_BUFFERED = 1 << 20

#: Messages a connection may send before ``hello``: beside saying who it is, signing in as
#: a player it proves (a transfer code, a passkey), so that a device signed out everywhere
#: comes back without making a new player first.
BEFORE_HELLO = frozenset(
    {"hello", "resume", "ping", "transfer_claim", "passkey_options", "passkey_sign_in"}
)
#: Messages a socket signed out everywhere may still send: sign in (again, or as another
#: player), start as a new player, and leave what it was in. Everything else, every game
#: it could start above all, is refused with ``signed_out``.
AFTER_SIGN_OUT = BEFORE_HELLO | {"leave", "unqueue", "arena_leave", "arena_unwatch"}


class Instance(Protocol):
    """What a socket needs of the instance that serves it. The full context
    (:class:`server.context.Context`) has this and more; the socket layer hands it on to the
    handlers without knowing the rest, so it stays below the handlers and the services."""

    instance_id: str
    settings: Settings
    metrics: Metrics
    #: Open websockets by client address (as :func:`server.net.limits.bucket_key` counts).
    sockets_by_address: Counter[str]

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background."""


#: A websocket handler gets the context, the connection and the validated message. The
#: context is typed by each handler (:class:`server.context.Context`); to the socket layer
#: it is the :class:`Instance` it was given.
Handler = Callable[[Any, "Conn", Any], Awaitable[None]]


@functools.lru_cache(maxsize=128)
def frame(text: str) -> bytes:
    """One message as a server's websocket frame: final, text, unmasked, no extension (RFC
    6455 section 5.2), byte for byte what ``websockets`` writes for it.

    Cached: an event's text is one object for every socket of a room that sees the same view
    of it (:mod:`server.net.hub`), so it is encoded and framed once for all of them.
    """
    data = text.encode()
    n = len(data)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 1 << 16:
        header = struct.pack("!BBH", 0x81, 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 127, n)
    return header + data


class Conn:
    """A client connection and who it is.

    Attributes:
        pid, name, token: the player, once ``hello`` or ``resume`` identified it.
        signed_out: the player's sessions were ended ("sign out everywhere" on another
            device) while this socket was open: it may only sign in again (see
            :data:`AFTER_SIGN_OUT`).
        room, role: the room the socket is in and its role there.
        syncing: while a snapshot is being built, events are held here (seq, text, delay).
        held: events a spectator of a ``delayed`` race receives later, in order
            (loop time to send at, text); see :meth:`push`.
    """

    __slots__ = (
        "address",
        "allowance",
        "cid",
        "ctx",
        "flush_handle",
        "held",
        "held_timer",
        "last_check",
        "name",
        "out",
        "pid",
        "role",
        "room",
        "signed_out",
        "syncing",
        "token",
        "ws",
    )

    def __init__(self, ctx: Instance, ws: ServerConnection, address: str = "") -> None:
        self.ctx = ctx
        self.ws = ws
        #: The client's address as the limits count it (see :mod:`server.net.limits`).
        self.address = address
        self.cid = f"{ctx.instance_id}.{secrets.token_hex(4)}"
        self.out: list[str] = []
        self.flush_handle: asyncio.Handle | None = None
        self.pid: str | None = None
        self.name = ""
        self.token = ""
        self.signed_out = False
        self.room: str | None = None
        self.role = "spectator"
        self.syncing: list[tuple[int, str, int]] | None = None
        self.held: deque[tuple[float, str]] = deque()
        self.held_timer: asyncio.TimerHandle | None = None
        self.allowance = float(ctx.settings.rate_burst)
        self.last_check = time.monotonic()

    def queue(self, text: str) -> None:
        """Queue a frame; every frame queued in one turn of the event loop goes out in one
        socket write, which matters when each system call is expensive."""
        self.out.append(text)
        if self.flush_handle is None:
            self.flush_handle = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write the queued frames now (dropped if the socket is closing); called by the loop
        at the end of the turn, or earlier by a caller that wants them out at once."""
        if self.flush_handle is not None:  # a flush at once makes the one scheduled moot
            self.flush_handle.cancel()
            self.flush_handle = None
        if not self.out:
            return
        frames, self.out = self.out, []
        protocol = self.ws.protocol
        transport = self.ws.transport
        if protocol.state is not State.OPEN or transport.is_closing():
            return
        if transport.get_write_buffer_size() > MAX_BUFFERED:
            # A client that does not read its events would hold memory without bound:
            # drop it; it resumes from its last seq.
            self.ctx.spawn(self.ws.close(1013, "too slow"))
            return
        if protocol.extensions:  # none is offered (no compression); were one, it frames
            for text in frames:
                protocol.send_text(text.encode())
            data = protocol.data_to_send()
        else:  # whatever the protocol has to send first (a pong), then the frames
            data = [*protocol.data_to_send(), *map(frame, frames)]
        if data:
            transport.write(b"".join(data))

    def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""
        self.ctx.metrics.errors.inc()
        self.queue(wire.error(code, message))

    def error_unless_ok(self, status: Status) -> None:
        """Send ``error`` with the refusal ``status`` names; nothing when it is ``OK`` (the
        answer of the handlers whose success is told by what they push)."""
        if status is not Status.OK:
            self.error(status)

    def reject(self, action_id: int, reason: str, message: str | None = None) -> None:
        """Send ``reject``: an action refused."""
        self.ctx.metrics.rejects.inc()
        self.queue(wire.reject(action_id, reason, message))

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        """Forward a room event (held back while a snapshot is on its way).

        With ``delay_ms`` the event goes out that much later (a ``delayed`` race's board for
        a spectator); an event behind a held one waits for it, so that seqs stay in order.
        """
        if self.syncing is not None:
            self.syncing.append((seq, text, delay_ms))
            return
        if not delay_ms and not self.held:
            self.queue(text)
            return
        loop = asyncio.get_running_loop()
        at = loop.time() + delay_ms / 1000
        if self.held:
            at = max(at, self.held[-1][0])
        self.held.append((at, text))
        if self.held_timer is None:
            self.held_timer = loop.call_at(at, self._release_due)

    def _release_due(self) -> None:
        self.held_timer = None
        now = asyncio.get_running_loop().time()
        while self.held and self.held[0][0] <= now:
            self.queue(self.held.popleft()[1])
        if self.held:
            self.held_timer = asyncio.get_running_loop().call_at(self.held[0][0], self._release_due)

    def release_held(self) -> None:
        """Send every held event now (the race is over: nothing is secret any more)."""
        if self.held_timer is not None:
            self.held_timer.cancel()
            self.held_timer = None
        while self.held:
            self.queue(self.held.popleft()[1])

    def is_open(self) -> bool:
        """Whether the socket can still be written to."""
        return self.ws.protocol.state is State.OPEN

    def drop_held(self) -> None:
        """Forget the held events (the socket leaves the room they came from)."""
        if self.held_timer is not None:
            self.held_timer.cancel()
            self.held_timer = None
        self.held.clear()

    def allow(self) -> bool:
        """The token bucket: ``rate_per_s`` messages a second, bursts of ``rate_burst``."""
        now = time.monotonic()
        settings = self.ctx.settings
        self.allowance = min(
            float(settings.rate_burst),
            self.allowance + (now - self.last_check) * settings.rate_per_s,
        )
        self.last_check = now
        if self.allowance < 1.0:
            return False
        self.allowance -= 1.0
        return True

    async def handle(self, raw: str | bytes, handlers: Mapping[str, Handler]) -> None:
        """Check one frame and hand it to the handler of its type."""
        # Every frame counts against the rate, whatever is wrong with it: an oversized or
        # binary flood costs the sender as much as a valid one.
        if not self.allow():
            self.error("rate_limited")
            return
        if isinstance(raw, bytes):
            self.error("bad_json", "frames are JSON text, not binary")
            return
        # The cap is in bytes; a character of a text frame takes up to 4 of them in UTF-8.
        size = len(raw) if len(raw) <= MAX_FRAME // 4 else len(raw.encode())
        if size > MAX_FRAME:
            self.error("too_large")
            return
        try:
            msg = CLIENT_ADAPTER.validate_json(raw)
        except ValidationError as exc:
            self.error(*_classify(exc))
            return
        kind = msg.type
        if self.pid is None and kind not in BEFORE_HELLO:
            self.error("hello_first")
            return
        if self.signed_out and kind not in AFTER_SIGN_OUT:
            self.error("signed_out")
            return
        handler = handlers.get(kind)
        if handler is None:
            self.error("unavailable", f"{kind} is not available on this server")
            return
        try:
            await handler(self.ctx, self, msg)
        except (RedisError, TimeoutError):
            self.ctx.metrics.redis_errors.inc()
            QUIET.failure("redis", "redis failed on %s", kind)
            self.error("busy")
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("handler of %s failed", kind)
            self.error("internal")


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


def _close_if_anonymous(ctx: Instance, conn: Conn) -> None:
    if conn.pid is None:
        ctx.spawn(conn.ws.close(1008, "send hello or resume first"))


_I = TypeVar("_I", bound=Instance)


async def serve_connection(
    ctx: _I,
    ws: ServerConnection,
    handlers: Mapping[str, Handler],
    on_close: Callable[[_I, Conn], Awaitable[None]],
) -> None:
    """The lifetime of one websocket: read frames until it closes, then ``on_close``.

    A client address holds at most ``sockets_per_address`` sockets on this instance, and a
    socket that has not said who it is within ``hello_timeout_s`` is closed: sockets cost
    memory whether or not they play.
    """
    settings = ctx.settings
    headers = ws.request.headers if ws.request is not None else None
    forwarded = headers.get_all("X-Forwarded-For") if headers is not None else []
    address = bucket_key(
        client_address(peer_of(ws.remote_address), forwarded, settings.trusted_proxies)
    )
    if ctx.sockets_by_address[address] >= settings.sockets_per_address:
        await ws.close(1013, "too many connections from your address")
        return
    ctx.sockets_by_address[address] += 1
    conn = Conn(ctx, ws, address)
    ctx.metrics.connection_opened()
    anonymous = asyncio.get_running_loop().call_later(
        settings.hello_timeout_s, _close_if_anonymous, ctx, conn
    )
    try:
        async for raw in ws:
            await conn.handle(raw, handlers)
    except ConnectionClosed:
        pass
    finally:
        anonymous.cancel()
        ctx.sockets_by_address[address] -= 1
        if ctx.sockets_by_address[address] <= 0:
            del ctx.sockets_by_address[address]
        ctx.metrics.connection_closed()
        try:
            await on_close(ctx, conn)
        except Exception:
            log.exception("tidying up a closed connection failed")
