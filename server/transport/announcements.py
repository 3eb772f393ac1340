"""A pattern subscription read in the background: the channels a message came on, handed on.

The leaderboards announce each change on a channel of their own (``daily:DATE:KIND:ch``);
an instance with watchers follows them all with one ``PSUBSCRIBE``. A player who signs out
everywhere is announced the same way (``signout:PID``), so that every instance tells that
player's open sockets at once. The messages are few (one per ranked finish or sign-out),
so redis-py's own pub/sub reader does here (the rooms' channels, many messages a second,
have a reader of their own: :mod:`.feed`).

When Redis goes away, reading is retried every half second on a fresh subscription: on a
Redis Cluster the node it listened on may be gone for good, and a ``PUBLISH`` reaches every
node, so any other will do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

#: Seconds between two tries after a failure.
RETRY_S = 0.5
#: At most one line of the log about failures in this many seconds (while Redis is gone,
#: every try fails the same way).
QUIET_S = 60.0


class Announcements:
    """Follow every channel of ``pattern`` on ``redis``, calling ``on_channel`` with the
    channel of each message, until :meth:`close`.

    Args:
        redis: the instance's shared client (a pub/sub connection is taken from it).
        pattern: the channels to follow (a ``PSUBSCRIBE`` pattern).
        on_channel: what to do with a message's channel (its failures are logged, the
            reading goes on).
    """

    def __init__(
        self, redis: Any, pattern: str, on_channel: Callable[[str], Awaitable[None]]
    ) -> None:
        self.redis = redis
        self.pattern = pattern
        self.on_channel = on_channel
        self.task: asyncio.Task[None] | None = None
        self._said = -QUIET_S

    def _failed(self, what: str) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._said >= QUIET_S:
            self._said = now
            log.warning("%s (said at most once a minute)", what, exc_info=True)

    async def start(self) -> None:
        """Subscribe (raising if Redis does not answer), then read in the background."""
        pubsub = self.redis.pubsub()
        await pubsub.psubscribe(self.pattern)
        self.task = asyncio.create_task(self._read(pubsub))

    async def close(self) -> None:
        """Stop reading."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _read(self, pubsub: Any) -> None:
        try:
            while True:
                try:
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                except asyncio.CancelledError:
                    raise
                except Exception:  # Redis went away: retry; the next change pushes again
                    self._failed(f"reading the announcements of {self.pattern} failed")
                    await asyncio.sleep(RETRY_S)
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                    pubsub = self.redis.pubsub()
                    with contextlib.suppress(Exception):
                        await pubsub.psubscribe(self.pattern)
                    continue
                if msg is None or msg.get("type") != "pmessage":
                    continue
                try:
                    await self.on_channel(str(msg["channel"]))
                except Exception:
                    self._failed(f"acting on an announcement of {self.pattern} failed")
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
