"""Auto-pipelining of the move script: every call goes to one Redis connection of its own,
many calls in flight at once, and the answers are matched to their calls in order as they
come back. The calls of one turn of the event loop go out in one write; while a write waits
for its answers, the calls that come meanwhile gather and go out in one write when the
answers are in (one batch in flight: under load fewer, larger writes, each costing a system
call here and a read in Redis; idle, a call goes out at once).

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

On a Redis Cluster (the shared client a ``RedisCluster``) there is one such connection per
master, and each call goes to the master of its first key's slot, from the cluster client's
slot map. A ``MOVED`` answer (the slot has a new master: a failover or a resharding) updates
that map and sends the call again, an ``ASK`` sends it once to the node importing the slot
(after ``ASKING``), ``TRYAGAIN`` and ``CLUSTERDOWN`` wait a little and retry: none of these
ran the script, so a retry cannot apply it twice. A lost connection or an unreachable master
fails the call (the mover hears ``busy`` and resends; the script is idempotent by action id)
and has the slot map refreshed, so that calls after a failover go to the new master.

``durable_ms`` makes every call wait for a replica: ``WAIT 1 durable_ms`` is pipelined right
after the script on the same connection, and the answer is handed over (``on_reply`` called,
the call returned) only once the replica count is at least one; with none in time the call
fails with ``TimeoutError`` (the mover hears ``busy``; the script's writes stay, and a
resend is answered as a duplicate, after its own ``WAIT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import SSLConnection
from redis.commands.core import AsyncScript
from redis.crc import key_slot
from redis.exceptions import (
    AskError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    ResponseError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
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

    #: One batch written at a time: commands that come while one waits for its answers are
    #: written together once they are in.
    batch_in_flight = True

    def __init__(self) -> None:
        self.reader = hiredis.Reader(encoding="utf-8", replyError=ResponseError)
        self.waiting: deque[tuple[asyncio.Future[Any], OnReply | None]] = deque()
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None
        #: Commands not written yet: those of this turn of the event loop, or (with
        #: :attr:`batch_in_flight`) those that came while a batch waited for its answers.
        self.out: list[bytes] = []
        #: Commands written and not answered yet.
        self.flying = 0
        self.scheduled = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            reply = self.reader.gets()
            if reply is False:
                if self.flying == 0 and self.out and not self.scheduled:
                    self._write()  # the batch in flight is answered: the next goes out
                return
            self.flying -= 1
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
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.waiting.append((future, on_reply))
        # The moves read in one turn of the loop (many sockets ready at once under load)
        # go out in one system call, at the end of the turn, rather than one call each;
        # while a batch waits for its answers, the next one gathers (written when they come).
        if not self.out and not self.scheduled and not (self.batch_in_flight and self.flying):
            self.scheduled = True
            loop.call_soon(self._write)
        self.out.append(command)
        return future

    def _write(self) -> None:
        self.scheduled = False
        out, self.out = self.out, []
        self.flying += len(out)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(out))
        # Else the connection is lost: its waiting commands have failed (connection_lost).


def _expire(future: asyncio.Future[Any], timeout: float) -> None:
    """Fail a call Redis has not answered in time (its answer, if it comes, is dropped)."""
    if not future.done():
        future.set_exception(RedisTimeoutError(f"Redis did not answer within {timeout} s"))


#: Answers of a cluster node that mean the script did not run there: send it again.
_REDIRECTS = ("MOVED ", "ASK ", "TRYAGAIN", "CLUSTERDOWN")


def _ignore(future: asyncio.Future[Any]) -> None:
    # The answer of a command whose result nobody reads (ASKING): retrieve its exception.
    if not future.cancelled():
        future.exception()


class _Link:
    """The pipelined connection to one Redis server (or cluster node), opened on demand.

    Args:
        settings: ``host``/``port`` or ``path``, ``username``, ``password``, ``db``.
        timeout: seconds connecting may take.
        tls: makes the TLS context, or None for plain TCP.
        on_lost: called when connecting fails or the connection is lost.
        make_pipe: makes the protocol of a new connection (a pub/sub reader's, say).
    """

    def __init__(
        self,
        settings: dict[str, Any],
        timeout: float,
        tls: Callable[[], Any] | None,
        on_lost: Callable[[], None],
        make_pipe: Callable[[], _Pipe] = _Pipe,
    ) -> None:
        self.settings = settings
        self.timeout = timeout
        self.tls = tls
        self.on_lost = on_lost
        self.make_pipe = make_pipe
        self.pipe: _Pipe | None = None
        self._connecting: asyncio.Future[_Pipe] | None = None

    async def get(self) -> _Pipe:
        """The open connection, or a new one."""
        pipe = self.pipe
        if pipe is not None and pipe.transport is not None:
            return pipe
        # One connecting task, shared by every call that finds no connection, and not tied
        # to any of them: a cancelled caller does not fail the others.
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._connected)
        try:
            return await asyncio.shield(self._connecting)
        except (TimeoutError, OSError) as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc!r}") from exc

    def lost(self, pipe: _Pipe | None) -> None:
        """The connection ``pipe`` failed: close it (not a newer one)."""
        if pipe is not None and pipe is self.pipe:
            self.pipe = None
            if pipe.transport is not None:
                pipe.transport.close()
        self.on_lost()

    def close(self) -> None:
        """Close the connection."""
        pipe, self.pipe = self.pipe, None
        if pipe is not None and pipe.transport is not None:
            pipe.transport.close()

    def _connected(self, task: asyncio.Future[_Pipe]) -> None:
        self._connecting = None
        if task.cancelled():
            return
        if task.exception() is None:
            self.pipe = task.result()
        else:
            self.lost(None)

    async def _open(self) -> _Pipe:
        loop = asyncio.get_running_loop()
        s = self.settings
        pipe = self.make_pipe()
        if s.get("path"):
            opening = loop.create_unix_connection(lambda: pipe, s["path"])
        elif self.tls is not None:
            context = self.tls()
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
            reply = await asyncio.wait_for(pipe.send(command), self.timeout)
            if isinstance(reply, ResponseError):
                if pipe.transport is not None:
                    pipe.transport.close()
                raise reply
        return pipe


def link_settings(redis: aioredis.Redis) -> tuple[dict[str, Any], Callable[[], Any] | None]:
    """The settings of a connection of its own to the server of ``redis``: its pool's
    (address, database, credentials) and, for ``rediss://``, what makes its TLS context."""
    pool = redis.connection_pool
    tls = None
    if issubclass(pool.connection_class, SSLConnection):
        # The same TLS settings as the shared client's (``rediss://``, ssl_* query).
        tls = pool.connection_class(**pool.connection_kwargs).ssl_context.get
    return dict(pool.connection_kwargs), tls


def cluster_link_settings(
    cluster: RedisCluster,
) -> tuple[dict[str, Any], Callable[[], Any] | None]:
    """:func:`link_settings` of a Redis Cluster's nodes: the cluster client's connection
    settings (credentials, timeouts; each link adds its node's address) and, for a
    ``rediss://`` seed, what makes the TLS context every node is reached with."""
    settings = dict(cluster.nodes_manager.connection_kwargs)
    connection_class = settings.pop("connection_class", None)
    tls = None
    if isinstance(connection_class, type) and issubclass(connection_class, SSLConnection):
        # A node's own connection settings hold the ssl_* query of the seed's URL (the seed
        # is a node before the client has learnt the others).
        nodes = cluster.get_nodes() or list(cluster.nodes_manager.startup_nodes.values())
        tls = connection_class(**nodes[0].connection_kwargs).ssl_context.get
    return settings, tls


class ScriptBatcher:
    """Pipelined calls of one registered script on connections of its own.

    Args:
        redis: the client whose server and settings (host and port or Unix socket, TLS for
            ``rediss://``, database, credentials) the connection uses; its pool is not used.
            A ``RedisCluster``: one connection per master, each call routed by its slot.
        script: the script, from ``redis.register_script``.
        timeout: seconds a call (or connecting) may take before it fails with a
            ``TimeoutError``; its answer, if it comes later, is read and dropped.
        durable_ms: when above 0, a call's answer counts only once a replica has its writes
            (``WAIT 1 durable_ms``); none in time: ``TimeoutError``.
    """

    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
        script: AsyncScript,
        timeout: float = 10.0,
        durable_ms: int = 0,
    ) -> None:
        self.timeout = timeout
        self.script = script
        self.durable_ms = durable_ms
        self._links: dict[str, _Link] = {}
        self._refreshing: asyncio.Task[None] | None = None
        self._refreshed = 0.0
        if isinstance(redis, RedisCluster):
            self._cluster: RedisCluster | None = redis
            self._shared: Any = None
            self._settings, self._tls = cluster_link_settings(redis)
        else:
            self._cluster = None
            self._shared = redis.connection_pool
            self._settings, self._tls = link_settings(redis)
            self._links[""] = _Link(self._settings, timeout, self._tls, self._lost_plain)

    async def __call__(
        self, keys: list[Any], args: list[Any], on_reply: OnReply | None = None
    ) -> Any:
        """Run the script with ``keys`` and ``args``; returns its answer.

        Args:
            keys: the script's KEYS (on a cluster, of one slot).
            args: its ARGV.
            on_reply: called with the answer in the callback that reads it, before this call
                returns (so that, say, an acknowledgement leaves a loop turn sooner).

        Raises:
            RedisError: the call failed (the script's own errors included);
                ``TimeoutError`` when Redis did not answer in time (the script may still
                run: a caller retries with the same idempotent arguments), or, with
                ``durable_ms``, when no replica confirmed the writes in time.
        """
        give_up = time.monotonic() + self.timeout
        asking: tuple[str, int] | None = None
        while True:
            link = self._link(keys[0], asking)
            pipe = await link.get()
            try:
                reply = await self._run(pipe, keys, args, on_reply, asking is not None)
            except RedisConnectionError:
                link.lost(pipe)
                raise
            text = str(reply) if isinstance(reply, ResponseError) else ""
            if not text:
                return reply
            if self._cluster is None or not text.startswith(_REDIRECTS):
                raise reply
            if time.monotonic() > give_up:
                raise RedisTimeoutError(f"the cluster kept redirecting: {text}")
            asking = None
            if text.startswith("MOVED "):  # a new master for the slot: note it, go there
                await self._cluster.nodes_manager.move_slot(MovedError(text[6:]))
            elif text.startswith("ASK "):  # the slot is migrating: this call goes there once
                moved = AskError(text[4:])
                asking = (moved.host, moved.port)
            else:  # a failover or a resharding is under way
                self._refresh()
                await asyncio.sleep(0.05)

    async def _run(
        self, pipe: _Pipe, keys: list[Any], args: list[Any], on_reply: OnReply | None, asking: bool
    ) -> Any:
        """One call on one connection: the script (again with its source after NOSCRIPT),
        and with ``durable_ms`` the ``WAIT`` that confirms it."""
        if asking:
            pipe.send(pack("ASKING")).add_done_callback(_ignore)
        command = pack("EVALSHA", self.script.sha, len(keys), *keys, *args)
        reply = await self._confirmed(pipe, command, on_reply)
        if isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT"):
            # Redis lost its script cache (a restart, a promoted replica): EVAL sends the
            # source, which loads it again.
            if asking:
                pipe.send(pack("ASKING")).add_done_callback(_ignore)
            source = self.script.script
            command = pack("EVAL", source, len(keys), *keys, *args)
            reply = await self._confirmed(pipe, command, on_reply)
            if isinstance(reply, ResponseError) and "NOSCRIPT" in str(reply):
                raise NoScriptError(str(reply))
        return reply

    async def _confirmed(self, pipe: _Pipe, command: bytes, on_reply: OnReply | None) -> Any:
        """The answer of ``command``; with ``durable_ms`` only once a replica has its writes."""
        if not self.durable_ms:
            return await self._answer(pipe.send(command, on_reply))
        sent = pipe.send(command)

        def on_wait(replicas: Any) -> None:
            # The script's answer was read just before (one connection answers in order).
            if on_reply is None or not sent.done() or sent.cancelled():
                return
            reply = sent.result()
            if int(replicas) >= 1 and not isinstance(reply, ResponseError):
                on_reply(reply)

        waited = pipe.send(pack("WAIT", 1, self.durable_ms), on_wait)
        reply = await self._answer(sent)
        replicas = await self._answer(waited)
        if isinstance(reply, ResponseError):
            return reply
        if isinstance(replicas, ResponseError) or int(replicas) < 1:
            raise RedisTimeoutError(f"no replica confirmed the write within {self.durable_ms} ms")
        return reply

    async def _answer(self, future: asyncio.Future[Any]) -> Any:
        # The answers of one connection come in order: a call that gave up leaves its place
        # in the queue, and its answer, if it ever comes, is read and dropped there.
        # A timer that fails the future, not asyncio.wait_for: this runs for every move, and
        # wait_for's extra future and callbacks cost as much again as the wait itself.
        timer = asyncio.get_running_loop().call_later(self.timeout, _expire, future, self.timeout)
        try:
            return await future
        finally:
            timer.cancel()

    async def aclose(self) -> None:
        """Close the connections."""
        for link in self._links.values():
            link.close()
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(BaseException):
                await self._refreshing

    def _link(self, key: Any, asking: tuple[str, int] | None) -> _Link:
        """The connection a call goes to: the only one, or that of its slot's master."""
        if self._cluster is None:
            return self._links[""]
        if asking is not None:
            host, port = asking
        else:
            slot = key_slot(key.encode() if isinstance(key, str) else key)
            try:
                node = self._cluster.nodes_manager.get_node_from_slot(slot)
            except RedisClusterException as exc:  # the slot has no master right now
                self._refresh()
                raise RedisConnectionError(f"no master for slot {slot}: {exc}") from exc
            host, port = node.host, int(node.port)
        name = f"{host}:{port}"
        link = self._links.get(name)
        if link is None:
            settings = {**self._settings, "host": host, "port": port, "db": 0}
            link = self._links[name] = _Link(settings, self.timeout, self._tls, self._refresh)
        return link

    def _lost_plain(self) -> None:
        # Redis went away: the shared pool's idle connections are dead too. Drop them, so
        # that the next commands there connect afresh instead of failing once each.
        task = asyncio.get_running_loop().create_task(
            self._shared.disconnect(inuse_connections=False)
        )
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def _refresh(self) -> None:
        """Read the cluster's slot map again, soon (once at a time, at most 5 times a
        second): a master may have died and its replica taken over."""
        if self._cluster is None or self._refreshing is not None:
            return
        if time.monotonic() - self._refreshed < 0.2:
            return
        self._refreshing = asyncio.get_running_loop().create_task(self._reload())

    async def _reload(self) -> None:
        try:
            assert self._cluster is not None
            await self._cluster.nodes_manager.initialize()
        except Exception:  # the cluster is still electing: the next failure asks again
            log.debug("refreshing the cluster's slot map failed", exc_info=True)
        finally:
            self._refreshed = time.monotonic()
            self._refreshing = None
