"""Rooms in Redis: key names and the atomic operations on them.

Redis is the truth. A room ``R`` is these keys, all sharing the hash tag ``{R}`` (one Redis
Cluster slot):

- ``room:{R}``: hash of room fields (``state``, ``round``, ``code``, ``cells``, ``mode``,
  ``host``, ``starts_at``, ``seq``, ``np``/``ns`` player and spectator counts, ``playing``,
  ``finishers``, and ``st:PID`` the status of each racer).
- ``room:{R}:members``: hash player id -> JSON ``{player_id, name, role}``.
- ``room:{R}:events``: list of the last events (``PID\\tFULL\\tRACER``), one per seq.
- ``room:{R}:log:N:PID``: list, the action log of PID's board in round N, one entry per
  accepted action: ``MS\\tID\\tACTION`` (server time in ms, client id, RULES.md notation).
  Its length is the board's version.
- ``room:{R}:ids:N:PID``: hash client action id -> seq (idempotent resends).
- ``room:{R}:res:N``: hash player id -> JSON result of round N.
- channel ``room:{R}:ch``: every event, prefixed with the origin connection.

Sessions are ``session:TOKEN`` hashes ``{pid, name}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis

from . import store_lua
from .batch import ScriptBatcher

#: Events kept per room for resume; an older last_seq gets a snapshot.
MAX_EVENTS: Final = 2000
SESSION_TTL: Final = 7 * 24 * 3600


def meta_key(room: str) -> str:
    """The room's field hash."""
    return f"room:{{{room}}}"


def away_key(room: str, pid: str) -> str:
    """Set while a racer's socket is gone mid-race (same hash slot as the room)."""
    return f"room:{{{room}}}:away:{pid}"


def members_key(room: str) -> str:
    """Player id -> member JSON."""
    return f"room:{{{room}}}:members"


def events_key(room: str) -> str:
    """The room's recent events."""
    return f"room:{{{room}}}:events"


def log_key(room: str, round_: int, pid: str) -> str:
    """One board's action log."""
    return f"room:{{{room}}}:log:{round_}:{pid}"


def ids_key(room: str, round_: int, pid: str) -> str:
    """One board's committed client ids."""
    return f"room:{{{room}}}:ids:{round_}:{pid}"


def results_key(room: str, round_: int) -> str:
    """A round's results."""
    return f"room:{{{room}}}:res:{round_}"


def channel(room: str) -> str:
    """The room's pub/sub channel."""
    return f"room:{{{room}}}:ch"


def room_of_channel(name: str) -> str:
    """The room id in a channel name."""
    return name[name.index("{") + 1 : name.index("}")]


def body(data: dict[str, Any]) -> str:
    """A JSON object without its opening brace, for the scripts to put the seq in front."""
    return json.dumps(data, separators=(",", ":"))[1:]


@dataclass(slots=True)
class Outcome:
    """What a script answered: a status word, the seq of its event and maybe a rank."""

    status: str
    seq: int = 0
    rank: int = 0


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _outcome(raw: Any) -> Outcome:
    items = list(raw)
    status = _text(items[0])
    seq = int(items[1]) if len(items) > 1 else 0
    rank = int(items[2]) if len(items) > 2 else 0
    return Outcome(status, seq, rank)


class Store:
    """The room operations of one server instance on a shared Redis.

    Args:
        redis: an asyncio client (``decode_responses=True``).
        ttl: seconds an idle room lives.
    """

    def __init__(self, redis: aioredis.Redis, ttl: int) -> None:
        # Any: the client decodes responses to str, which its type hints cannot express.
        self.redis: Any = redis
        self.ttl = ttl
        r = redis
        self._create = r.register_script(store_lua.CREATE)
        self._join = r.register_script(store_lua.JOIN)
        self._leave = r.register_script(store_lua.LEAVE)
        self._start = r.register_script(store_lua.START)
        self._begin = r.register_script(store_lua.BEGIN)
        self._move = ScriptBatcher(redis, r.register_script(store_lua.MOVE))
        self._give_up = r.register_script(store_lua.GIVE_UP)
        self._rematch = r.register_script(store_lua.REMATCH)
        self._events_after = r.register_script(store_lua.EVENTS_AFTER)

    async def aclose(self) -> None:
        """Close the connections of the move pipelines (the shared client is the caller's)."""
        await self._move.aclose()

    # -- sessions -------------------------------------------------------------------------

    async def save_session(self, token: str, pid: str, name: str) -> None:
        """Remember a token's player."""
        key = f"session:{token}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={"pid": pid, "name": name})
            pipe.expire(key, SESSION_TTL)
            await pipe.execute()

    async def load_session(self, token: str) -> tuple[str, str] | None:
        """The (player id, name) of a token, or None."""
        data = await self.redis.hgetall(f"session:{token}")
        if not data or "pid" not in data:
            return None
        return data["pid"], data.get("name", "player")

    # -- rooms ----------------------------------------------------------------------------

    async def create(self, room: str, fields: dict[str, str | int]) -> bool:
        """Create a room's field hash; False if the id is taken."""
        args: list[str | int] = [self.ttl]
        for k, v in fields.items():
            args += [k, v]
        created = await self._create(keys=[meta_key(room), members_key(room)], args=args)
        return bool(created)

    async def create_solo(
        self, room: str, fields: dict[str, str | int], pid: str, entry: str
    ) -> bool:
        """Create a room already racing with one player; False if the id is taken."""
        fields = {**fields, "host": pid, "np": 1, "ns": 0, "state": "racing", "playing": 1}
        fields[f"st:{pid}"] = "playing"
        if not await self.create(room, fields):
            return False
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(members_key(room), pid, entry)
            pipe.expire(members_key(room), self.ttl)
            await pipe.execute()
        return True

    async def join(
        self, room: str, pid: str, role: str, entry: str, max_players: int, origin: str
    ) -> Outcome:
        """Add a member (see ``JOIN``)."""
        raw = await self._join(
            keys=[meta_key(room), members_key(room), events_key(room)],
            args=[pid, role, entry, max_players, origin, MAX_EVENTS, self.ttl],
        )
        return _outcome(raw)

    async def leave(
        self, room: str, pid: str, origin: str, gave_up_body: str, result: str
    ) -> Outcome:
        """Remove a member; a racer in a running race gives up."""
        round_ = await self.redis.hget(meta_key(room), "round")
        raw = await self._leave(
            keys=[
                meta_key(room),
                members_key(room),
                events_key(room),
                results_key(room, int(round_ or 0)),
            ],
            args=[pid, origin, MAX_EVENTS, self.ttl, gave_up_body, result],
        )
        return _outcome(raw)

    async def start(self, room: str, pid: str, starts_at: int, now: int, origin: str) -> Outcome:
        """Host starts the countdown."""
        raw = await self._start(
            keys=[meta_key(room), members_key(room), events_key(room)],
            args=[pid, starts_at, now, origin, MAX_EVENTS, self.ttl],
        )
        return _outcome(raw)

    async def begin(
        self, room: str, round_: int, started_body: str, origin: str, now: int
    ) -> Outcome:
        """End the countdown (idempotent)."""
        raw = await self._begin(
            keys=[meta_key(room), members_key(room), events_key(room), results_key(room, round_)],
            args=[round_, started_body, origin, MAX_EVENTS, now],
        )
        return _outcome(raw)

    async def move(
        self,
        room: str,
        round_: int,
        pid: str,
        args: list[str | int],
        on_outcome: Callable[[Outcome], None] | None = None,
    ) -> Outcome:
        """Commit one action with a version check (see ``MOVE`` for ``args``).

        ``on_outcome`` is called with the outcome as soon as Redis's answer is read, a loop
        turn before this returns it.
        """
        on_reply = None if on_outcome is None else lambda raw: on_outcome(_outcome(raw))
        raw = await self._move(
            keys=[
                meta_key(room),
                log_key(room, round_, pid),
                ids_key(room, round_, pid),
                events_key(room),
                results_key(room, round_),
            ],
            args=args,
            on_reply=on_reply,
        )
        return _outcome(raw)

    async def give_up(
        self, room: str, round_: int, pid: str, gave_up_body: str, result: str, origin: str
    ) -> Outcome:
        """A racer gives up."""
        raw = await self._give_up(
            keys=[meta_key(room), events_key(room), results_key(room, round_)],
            args=[pid, round_, gave_up_body, result, origin, MAX_EVENTS, self.ttl],
        )
        return _outcome(raw)

    async def mark_away(self, room: str, pid: str, nonce: str, seconds: int) -> None:
        """Note that a racer's socket closed mid-race (``nonce`` names this absence)."""
        await self.redis.set(away_key(room, pid), nonce, ex=max(seconds, 1))

    async def clear_away(self, room: str, pid: str) -> None:
        """The racer is back (a resume or a join)."""
        await self.redis.delete(away_key(room, pid))

    async def still_away(self, room: str, pid: str, nonce: str) -> bool:
        """Whether the absence ``nonce`` has lasted until now (no return since)."""
        return bool(await self.redis.get(away_key(room, pid)) == nonce)

    async def rematch(self, room: str, pid: str, code: str, origin: str) -> Outcome:
        """A new round on a new deal."""
        raw = await self._rematch(
            keys=[meta_key(room), members_key(room), events_key(room)],
            args=[pid, code, origin, MAX_EVENTS, self.ttl],
        )
        return _outcome(raw)

    async def events_after(self, room: str, last_seq: int) -> tuple[int, list[str]] | None:
        """(current seq, events after ``last_seq``), or None if some were dropped."""
        raw = await self._events_after(keys=[meta_key(room), events_key(room)], args=[last_seq])
        items = list(raw)
        seq, first = int(items[0]), int(items[1])
        if last_seq + 1 < first or last_seq > seq:
            return None
        return seq, [_text(x) for x in items[2:]]

    async def read_room(
        self, room: str
    ) -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, list[str]]] | None:
        """The room at one instant: fields, members, results, and each racer's log.

        Returns None when the room does not exist.
        """
        meta = await self.redis.hgetall(meta_key(room))
        if not meta:
            return None
        round_ = int(meta["round"])
        racers = [k[3:] for k in meta if k.startswith("st:")]
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(meta_key(room))
            pipe.hgetall(members_key(room))
            pipe.hgetall(results_key(room, round_))
            for pid in racers:
                pipe.lrange(log_key(room, round_, pid), 0, -1)
            out = await pipe.execute()
        meta, members, results = out[0], out[1], out[2]
        if not meta or int(meta["round"]) != round_:
            return None if not meta else await self.read_room(room)
        logs = dict(zip(racers, out[3:], strict=True))
        return meta, members, results, logs

    async def read_log(self, room: str, round_: int, pid: str) -> list[str]:
        """One board's action log."""
        result: list[str] = await self.redis.lrange(log_key(room, round_, pid), 0, -1)
        return result

    async def check(
        self, room: str, round_: int, pid: str, action_id: int
    ) -> tuple[int | None, int]:
        """(the seq of a committed client id or None, the board's version in Redis)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(ids_key(room, round_, pid), str(action_id))
            pipe.llen(log_key(room, round_, pid))
            value, version = await pipe.execute()
        return (None if value is None else int(value)), int(version)

    async def room_fields(self, room: str) -> dict[str, str]:
        """The room's field hash (empty if gone)."""
        result: dict[str, str] = await self.redis.hgetall(meta_key(room))
        return result
