"""The room operations that are about time: what falls due later (deadlines), whose
absence from a race counts (away marks, and the heartbeats that say an instance still
runs), and which deals are being raced now (racing marks, leases that lapse by themselves).

Apart from :class:`server.store.store.Store` (which they are part of) so that each file
stays readable; they need only the client, the key names and atomic batches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Final

from ..transport import atomic
from .keys import Keys
from .scripts import script

#: How long the instances' counts are kept past the last heartbeat that wrote them.
PRESENCE_KEEP_S: Final = 60


class RoomClocks(ABC):
    """Deadlines, absences, heartbeats and racing marks (a part of the store)."""

    redis: Any
    keys: Keys

    @abstractmethod
    def batch(self) -> atomic.Batch:
        """A batch of commands on one slot, to run as one atomic step (the store's)."""

    # -- deals being raced ----------------------------------------------------------------

    async def mark_racing(self, code: str, room: str, now: int, lease_ms: int) -> None:
        """Note that ``room`` races deal ``code`` for at least ``lease_ms`` more.

        The mark is renewed while an instance serves the room and removed at the race's end;
        if every instance serving it dies, it lapses by itself after the lease.
        """
        key = self.keys.racing(code)
        batch = self.batch().zremrangebyscore(key, "-inf", now)
        await batch.zadd(key, {room: now + lease_ms}).pexpire(key, lease_ms).execute()

    async def unmark_racing(self, code: str, room: str) -> None:
        """The race of ``room`` on ``code`` is over."""
        await self.redis.zrem(self.keys.racing(code), room)

    async def is_racing(self, code: str, now: int) -> bool:
        """Whether deal ``code`` is being raced in some room now.

        A mark only names a candidate: the room's own state (what its scripts wrote
        atomically) decides, so a mark left behind by a race that just ended refuses nothing.
        """
        rooms = await self.redis.zrangebyscore(self.keys.racing(code), now, "+inf")
        for room in rooms:
            state, raced = await self.redis.hmget(self.keys.room(room), "state", "code")
            if raced == code and state in ("countdown", "racing"):
                return True
        return False

    # -- absences -------------------------------------------------------------------------

    async def mark_away(self, room: str, pid: str, nonce: str, seconds: int) -> None:
        """Note that a racer's socket closed mid-race (``nonce`` names this absence)."""
        await self.redis.set(self.keys.away(room, pid), nonce, ex=max(seconds, 1))

    async def clear_away(self, room: str, pid: str) -> None:
        """The racer is back (a resume or a join)."""
        await self.redis.delete(self.keys.away(room, pid))

    async def still_away(self, room: str, pid: str, nonce: str) -> bool:
        """Whether the absence ``nonce`` has lasted until now: no return since, and no socket
        of the player in the room on a running instance (a return may have come before the
        absence was marked)."""
        k = self.keys
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(k.away(room, pid))
            pipe.hgetall(k.here(room))
            mark, here = await pipe.execute()
        if mark != nonce:
            return False
        instances = {cid.split(".", 1)[0] for cid, who in here.items() if who == pid}
        for instance in instances:
            if await self.redis.exists(k.instance(instance)):
                return False
        return True

    async def heartbeat(self, instance_id: str, seconds: int) -> None:
        """Say that an instance runs, for ``seconds``."""
        await self.redis.set(self.keys.instance(instance_id), 1, ex=seconds)

    async def note_presence(self, instance_id: str, online: int, racing: int, at_ms: int) -> None:
        """Note an instance's counts of open sockets and of sockets in a race (the
        quick-race page's "players online"), with its heartbeat. The key lives a minute past
        the last heartbeat of any instance: a deployment that stops leaves nothing behind."""
        key = self.keys.presence()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, instance_id, f"{online}:{racing}:{at_ms}")
            pipe.expire(key, PRESENCE_KEEP_S)
            await pipe.execute()

    async def presence(self, now_ms: int, fresh_ms: int) -> tuple[int, int]:
        """The counts (online, racing) of the instances heard from within ``fresh_ms``; an
        instance not heard from for longer is dropped (stopped, or cut off)."""
        found = await self.redis.hgetall(self.keys.presence())
        online = racing = 0
        stale = []
        for instance_id, value in found.items():
            parts = str(value).split(":")
            if (
                len(parts) != 3
                or not all(part.isdigit() for part in parts)
                or now_ms - int(parts[2]) > fresh_ms
            ):
                stale.append(instance_id)
                continue
            online += int(parts[0])
            racing += int(parts[1])
        if stale:
            await self.redis.hdel(self.keys.presence(), *stale)
        return online, racing

    # -- deadlines ------------------------------------------------------------------------

    async def add_deadline(self, member: str, due_ms: int) -> None:
        """Note that ``member`` (a deadline's JSON) falls due at ``due_ms``."""
        await self.redis.zadd(self.keys.deadlines(), {member: due_ms})

    async def claim_deadlines(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """The deadlines due by ``now_ms``, each leased to the caller for ``lease_ms``."""
        raw = await script(self.redis, "claim_deadlines")(
            keys=[self.keys.deadlines()], args=[now_ms, lease_ms, limit]
        )
        return [x if isinstance(x, str) else x.decode() for x in raw]

    async def drop_deadline(self, member: str) -> None:
        """A deadline acted on."""
        await self.redis.zrem(self.keys.deadlines(), member)
