"""A socket's decisions without a socket: frames handed to
:meth:`server.net.session.Conn.handle` as the websocket's reader hands them on, on an
instance of the narrow :class:`server.net.session.Instance` and a table of handlers that
records what reaches them.

- :class:`FakeInstance`: what a socket uses of its instance (settings as ``seahaven serve``
  would have them, real counters, background work collected, not run).
- :class:`Sent`: a :class:`~server.net.session.Conn` whose answers are kept as they are
  queued (decoded, in :attr:`Sent.answers`) instead of written to a socket: every decision
  of :meth:`~server.net.session.Conn.handle` is made before anything is written.
- :class:`Handlers`: a handler table that records each message it is given (``hello``
  identifies the socket, as the real one does), or raises what a test tells it to.

Usage::

    instance = FakeInstance(settings(["--rate", "5", "--burst", "10"]))  # tests.helpers.inproc
    conn, handlers = Sent.on(instance), Handlers()
    await conn.handle('{"type": "ping"}', handlers)
    handlers.seen == ["ping"]; conn.answers == []
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from websockets.asyncio.server import ServerConnection

from server.metrics import Metrics
from server.net.session import Conn, Handler
from server.settings import Settings


@dataclass
class FakeInstance:
    """An instance as a socket sees it (:class:`server.net.session.Instance`)."""

    settings: Settings
    instance_id: str = "fake"
    metrics: Metrics = field(default_factory=Metrics)
    sockets_by_address: Counter[str] = field(default_factory=Counter)
    spawned: list[Coroutine[Any, Any, Any]] = field(default_factory=list)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Keep the background work (a test asks what was spawned; nothing runs it)."""
        self.spawned.append(coro)

    def close(self) -> None:
        """Let go of the counters and of the work nobody ran."""
        for coro in self.spawned:
            coro.close()
        self.metrics.close()


class Sent(Conn):
    """A connection whose queued answers are kept, decoded, instead of written: the socket
    behind it is never touched by :meth:`~server.net.session.Conn.handle`."""

    __slots__ = ("answers",)

    def __init__(self, ctx: FakeInstance) -> None:
        # No socket: what handle() decides never reaches one (queue is overridden below).
        super().__init__(ctx, cast(ServerConnection, None), "203.0.113.9")
        self.answers: list[dict[str, Any]] = []

    @classmethod
    def on(cls, ctx: FakeInstance) -> Sent:
        """A connection of ``ctx``."""
        return cls(ctx)

    def queue(self, text: str) -> None:
        self.answers.append(json.loads(text))

    def codes(self) -> list[str]:
        """The codes of the errors sent so far."""
        return [str(a["code"]) for a in self.answers if a["type"] == "error"]


class Handlers(Mapping[str, Handler]):
    """Every message type answered by a recorder: :attr:`seen` lists the types of the
    messages that reached a handler, in order; :attr:`raises` makes a type's handler raise
    (the error a test gives it). ``hello`` identifies the socket (a player id), as the real
    one does; ``absent`` types have no handler at all (not offered by this server)."""

    def __init__(self, absent: frozenset[str] = frozenset()) -> None:
        self.seen: list[str] = []
        self.messages: list[Any] = []
        self.raises: dict[str, BaseException] = {}
        self.absent = absent

    def __getitem__(self, kind: str) -> Handler:
        if kind in self.absent:
            raise KeyError(kind)
        return self._handle

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    async def _handle(self, ctx: Any, conn: Conn, msg: Any) -> None:
        self.seen.append(str(msg.type))
        self.messages.append(msg)
        if msg.type in self.raises:
            raise self.raises[msg.type]
        if msg.type == "hello":
            conn.pid, conn.name = "p1", str(msg.name)
