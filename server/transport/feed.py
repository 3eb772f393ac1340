"""Room channels on one Redis server (not a cluster), read by an asyncio protocol.

Every move publishes one event that each instance with a socket in the room reads; read
through ``redis-py``'s ``PubSub.get_message`` (a task woken per message, its parser, its
dicts) that cost about twice the CPU of parsing the replies with ``hiredis`` in the
protocol's data callback, as the move pipeline does (:mod:`server.transport.batch`). So the
instance's channels are followed on a connection of its own, opened like the pipeline's
(same address, credentials, database and TLS), and each message is handed on as it is read.

When the connection is lost (Redis restarted, a network fault), it is opened again every
half second and every channel followed is subscribed again; each one confirmed without
anyone waiting for it is reported (``on_again``): what it published meanwhile reached
nobody here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, cast

import redis.asyncio as aioredis

from .batch import _Link, _Pipe, link_settings, pack

log = logging.getLogger(__name__)

#: The first element of the replies Redis pushes on a subscribed connection (sharded or not).
_PUSHED = frozenset(
    {"message", "subscribe", "unsubscribe", "smessage", "ssubscribe", "sunsubscribe"}
)


class FeedPipe(_Pipe):
    """A subscribed connection: pushed messages to ``on_push``, other answers (``AUTH``,
    ``SELECT`` while connecting) to their callers in order."""

    #: Pushed messages are not answers: a command is written at once.
    batch_in_flight = False

    def __init__(
        self, on_push: Callable[[list[Any]], None], on_lost: Callable[[], None] | None = None
    ) -> None:
        super().__init__()
        self.on_push = on_push
        self.on_lost = on_lost
        self.closed = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            if type(reply) is list and reply and reply[0] in _PUSHED:
                try:
                    self.on_push(reply)
                except Exception:  # one bad event must not end the fan-out of every room
                    log.exception("forwarding an event failed")
                continue
            if self.waiting:
                future, _ = self.waiting.popleft()
                if not future.done():
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.closed.set()
        if self.on_lost is not None:
            self.on_lost()


#: Seconds between two checks that Redis still answers on a subscribed connection.
HEALTH_CHECK_S = 10.0


async def watch(pipe: FeedPipe, timeout: float) -> None:
    """Return when a subscribed connection ends, or stops answering: it sends ``PING``
    every :data:`HEALTH_CHECK_S` and is closed when no answer comes within ``timeout`` (a
    connection cut without a reset would otherwise stay silent for ever)."""
    while True:
        try:
            await asyncio.wait_for(pipe.closed.wait(), HEALTH_CHECK_S)
            return
        except TimeoutError:
            pass
        try:
            await asyncio.wait_for(pipe.send(pack("PING")), timeout)
        except Exception:  # no answer in time, or the connection went meanwhile
            if pipe.transport is not None:
                pipe.transport.abort()
            return


class Feed:
    """The channels one instance follows on one Redis server.

    Args:
        redis: the instance's client (the server and settings to connect with).
        on_message: called with (channel, data) for every message, as it is read.
        on_again: called with a channel subscribed again after a lost connection.
        on_failure: called when the connection fails or cannot be opened (a metric).
        timeout: seconds connecting may take.
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        on_message: Callable[[str, str], None],
        on_again: Callable[[str], None],
        on_failure: Callable[[], None],
        timeout: float = 5.0,
    ) -> None:
        self.on_message = on_message
        self.on_again = on_again
        self.on_failure = on_failure
        settings, tls = link_settings(redis)
        #: The channels followed (subscribed again on every new connection).
        self.wanted: set[str] = set()
        #: The channels Redis confirmed on the connection open now: forgotten as soon as
        #: it is lost (a move script publishes only while another instance follows its room,
        #: see :meth:`server.net.hub.Hub.follows`).
        self.live: set[str] = set()
        self.link = _Link(
            settings, timeout, tls, lambda: None, lambda: FeedPipe(self._push, self.live.clear)
        )
        self._confirm: dict[str, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Connect, and keep connecting whenever the connection is lost."""
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        """Stop and close the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        self.link.close()

    async def subscribe(self, channel: str, timeout: float = 5.0) -> None:
        """Follow a channel; returns once Redis confirmed it.

        Raises:
            TimeoutError: no confirmation in time (Redis is away: the channel is followed
                anyway, subscribed as soon as a connection opens, and ``on_again`` says so).
        """
        self.wanted.add(channel)
        waiter = asyncio.get_running_loop().create_future()
        self._confirm[channel] = waiter
        try:
            self._send("SUBSCRIBE", channel)
            await asyncio.wait_for(waiter, timeout)
        finally:
            self._confirm.pop(channel, None)

    def unsubscribe(self, channel: str) -> None:
        """Stop following a channel."""
        self.wanted.discard(channel)
        self.live.discard(channel)
        self._send("UNSUBSCRIBE", channel)

    def _send(self, *command: str) -> None:
        pipe = self.link.pipe
        if pipe is not None and pipe.transport is not None and not pipe.transport.is_closing():
            pipe.transport.write(pack(*command))
        # Else not connected: the next connection subscribes every channel followed.

    async def _run(self) -> None:
        while True:
            pipe: _Pipe | None = None
            try:
                pipe = await self.link.get()
                self.live.clear()  # whatever the last connection had
                if self.wanted and pipe.transport is not None:
                    pipe.transport.write(pack("SUBSCRIBE", *sorted(self.wanted)))
                await watch(cast(FeedPipe, pipe), self.link.timeout)
                raise ConnectionError("the pub/sub connection to Redis was lost")
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis went away: count it, retry; catch-ups recover the rest
                self.live.clear()
                self.link.lost(pipe)
                self.on_failure()
                await asyncio.sleep(0.5)

    def _push(self, reply: list[Any]) -> None:
        kind, channel = reply[0], reply[1]
        if kind == "message":
            self.on_message(channel, reply[2])
        elif kind == "subscribe":
            if channel in self.wanted:
                self.live.add(channel)
            waiter = self._confirm.get(channel)
            if waiter is not None:
                if not waiter.done():
                    waiter.set_result(None)
            elif channel in self.wanted:  # subscribed again on a new connection
                self.on_again(channel)
