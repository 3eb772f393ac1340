"""Sharded pub/sub on a Redis Cluster: room channels followed on the master of their slot.

The room scripts publish with ``SPUBLISH`` (:mod:`server.store.scripts`), which a cluster
delivers only to the clients of the shard that owns the channel's slot (the room's hash
tag ``{R}``), so a room's traffic stays on its shard. A subscriber must therefore listen on
that shard's master: :class:`ShardSubscriber` keeps one pub/sub connection per master that
holds a followed room, with a reader task each (so that a quiet node never delays another's
events), and routes each ``SSUBSCRIBE`` by the cluster client's slot map.

When a master goes (its connection fails) or gives a slot away (Redis sends
``sunsubscribe`` for the channels of a slot it lost, after a failover or a resharding), the
channels it carried are subscribed again at their slot's current master, once the slot map
is read again; retried with backoff while the cluster elects a new master. Every channel
subscribed again is reported (``on_again``), so that the caller fetches from the room's
stored events what was published meanwhile: reported as its master confirms it, before
the new subscription's first message (a round waits for several channels' confirmations;
reported at the round's end, a room's catch-up would start after the messages that came
meanwhile and skip what was published while it was not followed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final, cast

from redis.asyncio.cluster import RedisCluster

from .batch import _Link, cluster_link_settings, pack
from .feed import FeedPipe, watch

log = logging.getLogger(__name__)


class _Node:
    """The pub/sub connection to one master and the channels it carries. Its messages are
    parsed in the protocol's data callback (:class:`server.transport.feed.FeedPipe`)."""

    def __init__(
        self,
        name: str,
        settings: dict[str, Any],
        timeout: float,
        tls: Callable[[], Any] | None,
        on_push: Callable[[_Node, list[Any]], None],
    ) -> None:
        self.name = name
        self.link = _Link(settings, timeout, tls, lambda: None, lambda: FeedPipe(self._pushed))
        self.on_push = on_push
        self.channels: set[str] = set()
        self.task: asyncio.Task[None] | None = None

    def _pushed(self, reply: list[Any]) -> None:
        self.on_push(self, reply)

    def send(self, *command: str) -> None:
        """Write a command (``SSUBSCRIBE``, ``SUNSUBSCRIBE``); its answer is pushed.

        Raises:
            ConnectionError: the connection is not open.
        """
        pipe = self.link.pipe
        if pipe is None or pipe.transport is None or pipe.transport.is_closing():
            raise ConnectionError(f"no pub/sub connection to {self.name}")
        pipe.transport.write(pack(*command))

    async def aclose(self) -> None:
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        self.link.close()


#: Seconds a channel subscribed again waits for its master's confirmation, at least.
MEND_CONFIRM_S: Final = 1.0


class ShardSubscriber:
    """The shard channels one instance follows, each on its slot's master.

    Args:
        cluster: the instance's cluster client (its slot map and connection settings).
        on_message: called with (channel, data) for every message.
        on_again: called with a channel subscribed again after a failure or a move: what
            it published meanwhile reached nobody here.
        on_failure: called when a node's connection fails (for the error metric).
    """

    def __init__(
        self,
        cluster: RedisCluster,
        on_message: Callable[[str, str], None],
        on_again: Callable[[str], None],
        on_failure: Callable[[], None],
    ) -> None:
        self.cluster = cluster
        self.on_message = on_message
        self.on_again = on_again
        self.on_failure = on_failure
        self.nodes: dict[str, _Node] = {}
        #: The channels followed, and the node each is subscribed on (if it is now).
        self.wanted: set[str] = set()
        self.where: dict[str, str] = {}
        self._confirm: dict[str, asyncio.Future[None]] = {}
        self._orphans: set[str] = set()
        #: The channels a mending round is subscribing again: reported at their
        #: confirmation, before any message of the new subscription (see ``_push``).
        self._again: set[str] = set()
        self._mending: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()

    async def subscribe(self, channel: str, timeout: float = 5.0) -> None:
        """Follow a channel; returns once its master confirmed the subscription.

        Raises:
            RedisError, TimeoutError: it could not be subscribed now (it will be, as soon
                as the cluster answers: ``on_again`` says so then).
        """
        self.wanted.add(channel)
        try:
            await self._subscribe_confirmed(channel, timeout)
        except BaseException:
            self._orphan({channel})
            raise

    async def unsubscribe(self, channel: str) -> None:
        """Stop following a channel."""
        self.wanted.discard(channel)
        self._orphans.discard(channel)
        node = self.nodes.get(self.where.pop(channel, ""))
        if node is not None:
            node.channels.discard(channel)
            with contextlib.suppress(Exception):
                node.send("SUNSUBSCRIBE", channel)

    async def close(self) -> None:
        """Stop every reader and close every connection."""
        self.wanted.clear()
        if self._mending is not None:
            self._mending.cancel()
            with contextlib.suppress(BaseException):
                await self._mending
        for node in list(self.nodes.values()):
            await node.aclose()
        self.nodes.clear()

    async def _subscribe_at_owner(self, channel: str) -> None:
        """``SSUBSCRIBE`` on the master of the channel's slot (from the slot map)."""
        owner = self.cluster.get_node_from_key(channel)
        if owner is None:
            raise ConnectionError(f"no master for {channel}")
        node = self._node(owner.host, int(owner.port))
        self.where[channel] = node.name
        node.channels.add(channel)
        try:
            pipe = await node.link.get()
            node.send("SSUBSCRIBE", channel)
        except BaseException:
            node.channels.discard(channel)
            if self.where.get(channel) == node.name:
                del self.where[channel]
            if not node.channels:
                self._drop(node)
            raise
        if node.task is None:
            node.task = asyncio.create_task(self._watch(node, cast(FeedPipe, pipe)))

    def _node(self, host: str, port: int) -> _Node:
        name = f"{host}:{port}"
        node = self.nodes.get(name)
        if node is None:
            s, tls = cluster_link_settings(self.cluster)
            settings = {
                "host": host,
                "port": port,
                "username": s.get("username"),
                "password": s.get("password"),
            }
            timeout = s.get("socket_connect_timeout") or 5.0
            node = self.nodes[name] = _Node(name, settings, timeout, tls, self._push)
        return node

    async def _watch(self, node: _Node, pipe: FeedPipe) -> None:
        """Wait for a node's connection to end: its channels move elsewhere."""
        await watch(pipe, node.link.timeout)
        if self.nodes.get(node.name) is node:  # not one closed on purpose
            self.on_failure()
            log.warning("shard pub/sub on %s failed", node.name)
            self._drop(node)

    def _push(self, node: _Node, reply: list[Any]) -> None:
        kind, channel = reply[0], reply[1]
        if kind == "smessage":
            self.on_message(channel, reply[2])
        elif kind == "ssubscribe":
            # Reported here, in the order of the connection's replies: the messages of the
            # new subscription come after this one, and a catch-up from the last seq
            # forwarded must start before the first of them is forwarded (reported later,
            # it would skip what the channel published while it was not followed).
            waiter = self._confirm.get(channel)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
                if channel in self._again:
                    self._again.discard(channel)
                    self.on_again(channel)
            elif waiter is None:  # confirmed after its wait ended: caught up all the same
                self.on_again(channel)
        elif kind == "sunsubscribe" and self.where.get(channel) == node.name:
            # Not asked for (ours drop the channel first): the node gave its slot away.
            del self.where[channel]
            node.channels.discard(channel)
            self._orphan({channel})

    def _drop(self, node: _Node) -> None:
        """Forget a failed node; its channels are subscribed again elsewhere."""
        if self.nodes.get(node.name) is node:
            del self.nodes[node.name]
        lost = {ch for ch in node.channels if self.where.get(ch) == node.name}
        for ch in lost:
            del self.where[ch]
        node.channels.clear()
        task = asyncio.get_running_loop().create_task(node.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        self._orphan(lost)

    def _orphan(self, channels: set[str]) -> None:
        self._orphans |= channels & self.wanted
        if self._orphans and self._mending is None:
            self._mending = asyncio.get_running_loop().create_task(self._mend())

    async def _mend(self) -> None:
        """Subscribe the orphaned channels at their slots' current masters, reading the
        slot map again before each round (a failover takes the cluster a few seconds).
        A round asks for every channel at once and waits for their confirmations together:
        one that does not come costs the round a second, not each room."""
        delay = 0.05
        try:
            while self._orphans:
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                with contextlib.suppress(Exception):
                    await self.cluster.nodes_manager.initialize()
                done = {ch for ch in self._orphans if ch not in self.wanted or ch in self.where}
                self._orphans -= done
                channels = list(self._orphans)
                timeout = max(MEND_CONFIRM_S, delay)
                self._again.update(channels)  # each reported at its confirmation
                try:
                    results = await asyncio.gather(
                        *(self._subscribe_confirmed(ch, timeout) for ch in channels),
                        return_exceptions=True,
                    )
                finally:
                    self._again.difference_update(channels)
                for channel, result in zip(channels, results, strict=True):
                    if isinstance(result, BaseException):
                        continue  # the next round, on a fresher slot map
                    self._orphans.discard(channel)
        finally:
            self._mending = None

    async def _subscribe_confirmed(self, channel: str, timeout: float) -> None:
        """Subscribe a channel at its slot's master and wait for the confirmation.

        A slot map read while a slot moves can still name the master that gave it away:
        that one answers ``MOVED``, an error that no one waits for on a subscribed
        connection. Counted as subscribed, the channel would never hear a message again (a
        spectator's board stopped in mid-race, seen under load); unconfirmed, it is
        forgotten here and its caller orphans it, for a round on a fresher slot map.

        Raises:
            RedisError, TimeoutError: no confirmation.
        """
        waiter = asyncio.get_running_loop().create_future()
        self._confirm[channel] = waiter
        try:
            await self._subscribe_at_owner(channel)
            await asyncio.wait_for(waiter, timeout)
        except BaseException:
            node = self.nodes.get(self.where.pop(channel, ""))
            if node is not None:
                node.channels.discard(channel)
                if not node.channels:
                    self._drop(node)
            raise
        finally:
            self._confirm.pop(channel, None)
