"""Auto-pipelining of the move script: every call is written to one Redis connection of its
own at once, without waiting for the answers of the calls before it, and the answers are
matched to their calls in order as they come back.

Redis answers the commands of a connection in the order it received them, so one connection
carries any number of calls in flight (which costs less CPU in the server and in Redis than
one round trip each, and needs one connection, not one per move). Each call still runs as its
own atomic script; only the transport is shared.

This is a minimal client on purpose (an asyncio protocol and the ``hiredis`` reply parser):
an answer is handed to its caller in the same event-loop callback that reads it, where a
general client would take two or three more turns of a busy loop before the move could be
acknowledged. The connection is the batcher's own, so a burst of other commands on the
instance's shared pool (sockets arriving, snapshots, a stall that piles them up) can never make
a move wait for a free connection, let alone fail with "No connection available".
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.connection import SSLConnection
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

#: Called with a script's answer as soon as it is read.
OnReply = Callable[[Any], None]


def pack(*parts: Any) -> bytes:
    """One command in the Redis protocol (RESP): an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class _Pipe(asyncio.Protocol):
    """One connection: commands out as they come, answers matched in order."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader(encoding="utf-8", replyError=ResponseError)
        self.waiting: deque[tuple[asyncio.Future[Any], OnReply | None]] = deque()
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            future, on_reply = self.waiting.popleft()
            if future.done():  # its caller was cancelled
                continue
            if on_reply is not None and not isinstance(reply, ResponseError):
                try:
                    on_reply(reply)
                except Exception:  # the caller still gets its answer
                    log.exception("a reply callback failed")
            future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = RedisConnectionError(f"connection to Redis lost: {exc or 'closed'}")
        self.transport = None
        while self.waiting:
            future, _ = self.waiting.popleft()
            if not future.done():
                future.set_exception(self.lost)

    def send(self, command: bytes, on_reply: OnReply | None = None) -> asyncio.Future[Any]:
        """Write a command; the future gets its answer (an error answer as a value).

        ``on_reply`` is called with a successful answer as soon as it is read, before the
        caller resumes (a loop turn later).
        """
        if self.transport is None or self.transport.is_closing():
            raise self.lost or RedisConnectionError("not connected to Redis")
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((future, on_reply))
        self.transport.write(command)
        return future


class ScriptBatcher:
    """Pipelined calls of one registered script on a connection of its own.

    Args:
        redis: the client whose server and settings (host and port or Unix socket, TLS for
            ``rediss://``, database, credentials) the connection uses; its pool is not used.
        script: the script, from ``redis.register_script``.
        timeout: seconds a call (or connecting) may take before it fails with a
            ``TimeoutError``; its answer, if it comes later, is read and dropped.
    """

    def __init__(self, redis: aioredis.Redis, script: AsyncScript, timeout: float = 10.0) -> None:
        self._shared = redis.connection_pool
        self._settings = dict(self._shared.connection_kwargs)
        self._tls = issubclass(self._shared.connection_class, SSLConnection)
        self.timeout = timeout
        self.script = script
        self._pipe: _Pipe | None = None
        self._connecting: asyncio.Future[_Pipe] | None = None

    async def __call__(
        self, keys: list[Any], args: list[Any], on_reply: OnReply | None = None
    ) -> Any:
        """Run the script with ``keys`` and ``args``; returns its answer.

        Args:
            keys: the script's KEYS.
            args: its ARGV.
            on_reply: called with the answer in the callback that reads it, before this call
                returns (so that, say, an acknowledgement leaves a loop turn sooner).

        Raises:
            RedisError: the call failed (the script's own errors included);
                ``TimeoutError`` when Redis did not answer in time (the script may still
                run: a caller retries with the same idempotent arguments).
        """
        pipe = self._pipe
        if pipe is None or pipe.transport is None:
            pipe = await self._connect()
        try:
            command = pack("EVALSHA", self.script.sha, len(keys), *keys, *args)
            reply = await self._answer(pipe.send(command, on_reply))
        except RedisConnectionError:
            self._lost(pipe)
            raise
        if isinstance(reply, ResponseError):
            if not str(reply).startswith("NOSCRIPT"):
                raise reply
            # Redis lost its script cache: EVAL sends the source, which loads it again.
            source = self.script.script
            sent = pipe.send(pack("EVAL", source, len(keys), *keys, *args), on_reply)
            reply = await self._answer(sent)
            if isinstance(reply, ResponseError):
                raise NoScriptError(str(reply)) if "NOSCRIPT" in str(reply) else reply
        return reply

    async def _answer(self, future: asyncio.Future[Any]) -> Any:
        # The answers of one connection come in order: a call that gave up leaves its place
        # in the queue, and its answer, if it ever comes, is read and dropped there.
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            raise RedisTimeoutError(f"Redis did not answer within {self.timeout} s") from None

    async def aclose(self) -> None:
        """Close the connection."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None and pipe.transport is not None:
            pipe.transport.close()

    def _lost(self, pipe: _Pipe | None) -> None:
        # Redis went away: the shared pool's idle connections are dead too. Drop them, so
        # that the next commands there connect afresh instead of failing once each.
        if pipe is not None and pipe is self._pipe:  # not a newer connection
            self._pipe = None
            if pipe.transport is not None:
                pipe.transport.close()
        task = asyncio.get_running_loop().create_task(
            self._shared.disconnect(inuse_connections=False)
        )
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _connect(self) -> _Pipe:
        # One connecting task, shared by every call that finds no connection, and not tied
        # to any of them: a cancelled caller does not fail the others.
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._connected)
        try:
            return await asyncio.shield(self._connecting)
        except (TimeoutError, OSError) as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc!r}") from exc

    def _connected(self, task: asyncio.Future[_Pipe]) -> None:
        self._connecting = None
        if task.cancelled():
            return
        if task.exception() is None:
            self._pipe = task.result()
        else:
            self._lost(None)

    async def _open(self) -> _Pipe:
        loop = asyncio.get_running_loop()
        s = self._settings
        pipe = _Pipe()
        if s.get("path"):
            opening = loop.create_unix_connection(lambda: pipe, s["path"])
        elif self._tls:
            # The same TLS settings as the shared client's (``rediss://`` and its ssl_* query).
            conn = self._shared.connection_class(**self._shared.connection_kwargs)
            context = conn.ssl_context.get()  # type: ignore[attr-defined]
            host = s.get("host", "127.0.0.1")
            name = host if context.check_hostname else None
            opening = loop.create_connection(
                lambda: pipe, host, s["port"], ssl=context, server_hostname=name
            )
        else:
            opening = loop.create_connection(lambda: pipe, s.get("host", "127.0.0.1"), s["port"])
        await asyncio.wait_for(opening, self.timeout)
        setup = []
        if s.get("password"):
            user = s.get("username")
            setup.append(pack("AUTH", user, s["password"]) if user else pack("AUTH", s["password"]))
        if s.get("db"):
            setup.append(pack("SELECT", s["db"]))
        for command in setup:
            reply = await self._answer(pipe.send(command))
            if isinstance(reply, ResponseError):
                if pipe.transport is not None:
                    pipe.transport.close()
                raise reply
        return pipe
