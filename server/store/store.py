"""The room operations of one server instance on a shared Redis.

Redis is the truth: every change of a room is one atomic script (``lua/``) that checks the
room's phase, makes the change, gives each event the room's next ``seq``, keeps it in the
room's event list and publishes it on the room's channel. Key names come from
:class:`~server.store.keys.Keys`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from ..transport import atomic
from ..transport.batch import ScriptBatcher
from . import scripts
from .clocks import RoomClocks
from .commit import MAX_EVENTS, MOVE_KEYS, BoardLimits, MoveCommit, move_keys
from .events import RoomEvent
from .keys import Keys
from .scripts import register_batch
from .status import Status, status_of

#: Seconds a session token lives after its last use.
SESSION_TTL: Final = 7 * 24 * 3600


@dataclass(slots=True)
class Outcome:
    """What a script answered (:data:`~server.store.status.ANSWER`): its status, the seq
    of its (last) event, maybe a rank, and the seq of its first event (the move script: its
    deltas run from ``first`` to ``seq``, stored with the room's ``watch`` field, and on the
    room's channel if ``published``)."""

    status: Status
    seq: int = 0
    rank: int = 0
    first: int = 0
    watch: str = ""
    published: bool = True


@dataclass(slots=True)
class RoomRead:
    """A room at one instant: its fields, members, the round's results and racers' logs."""

    meta: dict[str, str]
    members: dict[str, str]
    results: dict[str, dict[str, Any]]
    logs: dict[str, list[str]]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _outcome(raw: Any) -> Outcome:
    items = list(raw)
    status = status_of(items[0])
    seq = int(items[1]) if len(items) > 1 else 0
    rank = int(items[2]) if len(items) > 2 else 0
    first = int(items[3]) if len(items) > 3 else seq
    watch = _text(items[4]) if len(items) > 4 else ""
    published = int(items[5]) != 0 if len(items) > 5 else True
    return Outcome(status, seq, rank, first, watch, published)


def parse_results(raw: dict[str, str]) -> dict[str, dict[str, Any]]:
    """A round's results hash as player id -> result (its ``rank`` filled in)."""
    out: dict[str, dict[str, Any]] = {}
    for pid, text in raw.items():
        if not pid.startswith("rank:"):
            result = json.loads(text)
            rank = raw.get(f"rank:{pid}")
            result["rank"] = int(rank) if rank else None
            out[pid] = result
    return out


class Store(RoomClocks):
    """The room and session operations of one server instance.

    Args:
        redis: an asyncio client (``decode_responses=True``).
        keys: the key names (with the instance's prefix).
        ttl: seconds an idle room lives.
        timeout: seconds a move script may take before it fails (the mover hears ``busy``).
        limits: what one board may take.
        max_spectators: spectators one room takes at most.
        durable_ms: above 0, a move is acknowledged only once a replica has it (``WAIT``
            for at most that long, else ``busy``): ``--durable``.
    """

    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
        keys: Keys,
        ttl: int,
        timeout: float = 10.0,
        limits: BoardLimits | None = None,
        max_spectators: int = 100,
        durable_ms: int = 0,
    ) -> None:
        # Any: the client decodes responses to str, which its type hints cannot express.
        self.redis: Any = redis
        self.keys = keys
        self.ttl = ttl
        self.limits = limits or BoardLimits()
        self.max_spectators = max_spectators
        #: On a Redis Cluster: room events go out on sharded pub/sub (``SPUBLISH``).
        self.sharded = isinstance(redis, RedisCluster)

        def script(name: str) -> AsyncScript:
            return scripts.script(redis, name)

        self._create = script("create")
        self._join = script("join")
        self._leave = script("leave")
        self._start = script("start")
        self._begin = script("begin")
        self._move = ScriptBatcher(redis, script("move"), timeout, durable_ms)
        self._give_up = script("give_up")
        self._rematch = script("rematch")
        self._watch = script("watch")
        self._events_after = script("events_after")
        self._batch = register_batch(redis)
        # --durable: a resend found committed is acknowledged only once a replica has it.
        self._confirm = (
            ScriptBatcher(redis, script("confirm"), timeout, durable_ms) if durable_ms else None
        )

    def batch(self) -> atomic.Batch:
        """A batch of commands on one slot, to run as one atomic step."""
        return atomic.Batch(self._batch)

    async def aclose(self) -> None:
        """Close the move pipeline's connection (the shared client is the caller's)."""
        await self._move.aclose()
        if self._confirm is not None:
            await self._confirm.aclose()

    # -- sessions -------------------------------------------------------------------------

    async def save_session(self, token: str, pid: str, name: str) -> None:
        """Remember a token's player (for :data:`SESSION_TTL` after its last use)."""
        key = self.keys.session(token)
        await self.batch().hset(key, {"pid": pid, "name": name}).expire(key, SESSION_TTL).execute()
        # Indexed by player: "sign out everywhere" (server/store/accounts.py) ends each.
        tokens = self.keys.player_sessions(pid)
        await self.batch().sadd(tokens, token).expire(tokens, SESSION_TTL).execute()

    async def load_session(self, token: str) -> tuple[str, str] | None:
        """The (player id, name) of a token, or None."""
        data = await self.redis.hgetall(self.keys.session(token))
        if not data or "pid" not in data:
            return None
        return data["pid"], data.get("name", "player")

    # -- rooms ----------------------------------------------------------------------------

    async def create(self, room: str, fields: dict[str, str | int]) -> bool:
        """Create a room's field hash; False if the id is taken."""
        args: list[str | int] = [self.ttl]
        for k, v in fields.items():
            args += [k, v]
        return bool(await self._create(keys=[self.keys.room(room)], args=args))

    async def create_solo(
        self, room: str, fields: dict[str, str | int], pid: str, member: str
    ) -> bool:
        """Create a room already racing with one player; False if the id is taken."""
        fields = {**fields, "host": pid, "np": 1, "ns": 0, "state": "racing", "playing": 1}
        fields[f"st:{pid}"] = "playing"
        if not await self.create(room, fields):
            return False
        members = self.keys.members(room)
        await self.batch().hset(members, {pid: member}).expire(members, self.ttl).execute()
        return True

    def _room_keys(self, room: str) -> list[str]:
        k = self.keys
        return [k.room(room), k.members(room), k.events(room)]

    async def join(
        self,
        room: str,
        pid: str,
        role: str,
        member: str,
        max_players: int,
        origin: str,
        mark: str = "",
    ) -> Outcome:
        """Add a member or change a member's role (see ``lua/join.lua``); a racer's
        ``mark`` of their address is kept beside."""
        raw = await self._join(
            keys=self._room_keys(room),
            args=[
                *(pid, role, member, max_players, origin, MAX_EVENTS, self.ttl),
                self.max_spectators,
                mark,
            ],
        )
        return _outcome(raw)

    async def leave(
        self, room: str, pid: str, origin: str, gave_up_body: str, result: str
    ) -> Outcome:
        """Remove a member; a racer in a running race gives up (``lua/leave.lua``)."""
        round_ = int(await self.redis.hget(self.keys.room(room), "round") or 0)
        raw = await self._leave(
            keys=[*self._room_keys(room), self.keys.results(room, round_)],
            args=[pid, origin, MAX_EVENTS, self.ttl, gave_up_body, result],
        )
        return _outcome(raw)

    async def start(self, room: str, pid: str, starts_at: int, now: int, origin: str) -> Outcome:
        """The host starts the countdown."""
        raw = await self._start(
            keys=self._room_keys(room), args=[pid, starts_at, now, origin, MAX_EVENTS, self.ttl]
        )
        return _outcome(raw)

    async def begin(self, room: str, round_: int, origin: str, now: int) -> Outcome:
        """End the countdown (idempotent)."""
        raw = await self._begin(
            keys=[*self._room_keys(room), self.keys.results(room, round_)],
            args=[round_, origin, MAX_EVENTS, now],
        )
        return _outcome(raw)

    async def move(
        self, commit: MoveCommit, on_outcome: Callable[[Outcome], None] | None = None
    ) -> Outcome:
        """Commit one request (an action, or a send home's taps) with a version check
        (``lua/move.lua``).

        Args:
            commit: the actions and their events.
            on_outcome: called with the outcome as soon as Redis's answer is read, a loop
                turn before this returns it.
        """
        room, rnd, pid = commit.room, commit.round, commit.pid
        read: list[Outcome] = []  # the answer as read for on_outcome, not read twice

        def on_reply(raw: Any) -> None:
            read.append(_outcome(raw))
            if on_outcome is not None:
                on_outcome(read[0])

        named = move_keys(self.keys, room, rnd, pid)
        raw = await self._move(
            keys=[named[name] for name in MOVE_KEYS],
            args=commit.argv(self.ttl, self.limits),
            on_reply=on_reply,
        )
        return read[0] if read else _outcome(raw)

    async def give_up(
        self, room: str, round_: int, pid: str, gave_up_body: str, result: str, origin: str
    ) -> Outcome:
        """A racer gives up."""
        k = self.keys
        raw = await self._give_up(
            keys=[k.room(room), k.events(room), k.results(room, round_)],
            args=[pid, round_, gave_up_body, result, origin, MAX_EVENTS, self.ttl],
        )
        return _outcome(raw)

    async def rematch(
        self, room: str, pid: str, code: str, origin: str, par: Mapping[str, str | int]
    ) -> Outcome:
        """A new round on a new deal (``par``: its ``par`` and ``par_optimal`` fields)."""
        raw = await self._rematch(
            keys=self._room_keys(room),
            args=[pid, code, origin, MAX_EVENTS, self.ttl, par["par"], par["par_optimal"]],
        )
        return _outcome(raw)

    async def set_watch(
        self, room: str, pid: str, watch: str, delay_s: int, origin: str
    ) -> Outcome:
        """The host picks the watch mode in the lobby (``lua/watch.lua``)."""
        raw = await self._watch(
            keys=self._room_keys(room), args=[pid, watch, delay_s, origin, MAX_EVENTS, self.ttl]
        )
        return _outcome(raw)

    async def expire_room(self, room: str, seconds: int) -> None:
        """Let a room's keys go ``seconds`` from now (a lobby closed)."""
        for key in (*self._room_keys(room), self.keys.here(room)):
            await self.redis.expire(key, seconds)

    async def let_go_alone(self, room: str, round_: int, pid: str, seconds: int) -> bool:
        """A solo or daily game over with nobody else in it keeps its events, logs and
        fields ``seconds`` more at most (``lua/room_done_alone.lua``): its replay and the
        player's statistics are kept apart. True when shortened."""
        k = self.keys
        keys = [
            *self._room_keys(room),
            k.here(room),
            k.log(room, round_, pid),
            k.ids(room, round_, pid),
            k.results(room, round_),
            k.hinted(room, round_),
        ]
        out = await scripts.script(self.redis, "room_done_alone")(keys=keys, args=[seconds, pid])
        return bool(int(out))

    async def spectator_sockets(self, room: str, fields: dict[str, str]) -> int:
        """The sockets in a room (on every instance) of members who do not race it."""
        here: dict[str, str] = await self.redis.hgetall(self.keys.here(room))
        return sum(1 for pid in here.values() if f"st:{pid}" not in fields)

    async def present(self, room: str, pid: str) -> bool:
        """Whether a socket of player ``pid`` is in the room, on an instance that runs."""
        k = self.keys
        here = await self.redis.hgetall(k.here(room))
        instances = {cid.split(".", 1)[0] for cid, who in here.items() if who == pid}
        for instance in instances:
            if await self.redis.exists(k.instance(instance)):
                return True
        return False

    async def swap_open_solo(self, pid: str, room: str) -> str | None:
        """Note ``room`` as the player's solo game now; returns the one noted before."""
        old = await self.redis.set(self.keys.solo_open(pid), room, ex=self.ttl, get=True)
        return None if old is None else str(old)

    async def arrive(self, room: str, cid: str, pid: str) -> None:
        """A socket entered a room."""
        key = self.keys.here(room)
        await self.batch().hset(key, {cid: pid}).expire(key, self.ttl).execute()

    async def depart(self, room: str, cid: str) -> None:
        """A socket left a room."""
        await self.redis.hdel(self.keys.here(room), cid)

    # -- reading --------------------------------------------------------------------------

    async def events_after(self, room: str, last_seq: int) -> tuple[int, list[RoomEvent]] | None:
        """(current seq, events after ``last_seq``), or None if some were dropped.

        Raises:
            EventError: a stored event not of the form the scripts write.
        """
        raw = await self._events_after(
            keys=[self.keys.room(room), self.keys.events(room)], args=[last_seq]
        )
        items = list(raw)
        seq, first = int(items[0]), int(items[1])
        if last_seq + 1 < first or last_seq > seq:
            return None
        return seq, [RoomEvent.parse(_text(x)) for x in items[2:]]

    async def read_room(self, room: str) -> RoomRead | None:
        """The room at one instant, or None when it does not exist."""
        k = self.keys
        meta = await self.redis.hgetall(k.room(room))
        if not meta:
            return None
        round_ = int(meta["round"])
        racers = [f[3:] for f in meta if f.startswith("st:")]
        batch = self.batch().hgetall(k.room(room)).hgetall(k.members(room))
        batch.hgetall(k.results(room, round_))
        for pid in racers:
            batch.lrange(k.log(room, round_, pid), 0, -1)
        out = await batch.execute()
        meta, members, results = out[0], out[1], out[2]
        if not meta or int(meta["round"]) != round_:
            return None if not meta else await self.read_room(room)
        logs = dict(zip(racers, out[3:], strict=True))
        return RoomRead(meta, members, parse_results(results), logs)

    async def read_ids(self, room: str, round_: int, pids: list[str]) -> dict[str, dict[str, int]]:
        """Each board's client action ids -> the seq of their event."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in pids:
                pipe.hgetall(self.keys.ids(room, round_, pid))
            found = await pipe.execute()
        return {
            pid: {k: int(v) for k, v in ids.items()} for pid, ids in zip(pids, found, strict=True)
        }

    async def read_log(self, room: str, round_: int, pid: str) -> list[str]:
        """One board's action log."""
        result: list[str] = await self.redis.lrange(self.keys.log(room, round_, pid), 0, -1)
        return result

    async def check(
        self, room: str, round_: int, pid: str, action_id: int
    ) -> tuple[int | None, int]:
        """(the seq of a committed client id or None, the board's version in Redis).

        With ``--durable`` a committed id counts only once a replica has it (``confirm.lua``
        and ``WAIT``: the answer acknowledges a resend).
        """
        k = self.keys
        if self._confirm is not None:
            keys = [k.ids(room, round_, pid), k.log(room, round_, pid)]
            found, length = await self._confirm(keys, [action_id, self.ttl])
            return (None if int(found) < 0 else int(found)), int(length)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(k.ids(room, round_, pid), str(action_id))
            pipe.llen(k.log(room, round_, pid))
            value, version = await pipe.execute()
        return (None if value is None else int(value)), int(version)

    async def room_fields(self, room: str) -> dict[str, str]:
        """The room's field hash (empty if gone)."""
        result: dict[str, str] = await self.redis.hgetall(self.keys.room(room))
        return result

    async def members(self, room: str) -> dict[str, dict[str, Any]]:
        """Every member of the room (player id -> ``{player_id, name, role}``)."""
        found = await self.redis.hgetall(self.keys.members(room))
        return {str(pid): dict(json.loads(text)) for pid, text in found.items()}

    async def member(self, room: str, pid: str) -> dict[str, Any] | None:
        """A member's entry ``{player_id, name, role}``, or None."""
        text = await self.redis.hget(self.keys.members(room), pid)
        return None if text is None else dict(json.loads(text))

    async def finished_board(
        self, room: str, round_: int, pid: str
    ) -> tuple[dict[str, str], dict[str, Any] | None, dict[str, Any] | None, list[str]]:
        """What a board's replay is made of: the room's fields, the member, the result and
        the action log, read at one instant."""
        k = self.keys
        batch = self.batch().hgetall(k.room(room)).hget(k.members(room), pid)
        batch.hgetall(k.results(room, round_)).lrange(k.log(room, round_, pid), 0, -1)
        meta, member, results, entries = await batch.execute()
        result = parse_results(results).get(pid)
        return meta, (json.loads(member) if member else None), result, entries

    async def result_of(self, room: str, round_: int, pid: str) -> dict[str, Any] | None:
        """One player's result of a round (``status``, ``time_ms``, ``moves``...), or None."""
        text = await self.redis.hget(self.keys.results(room, round_), pid)
        return None if text is None else dict(json.loads(text))

    async def mark_hinted(self, room: str, round_: int, pid: str) -> None:
        """Note that ``pid`` was sent a hint in the round: a win there is not perfect."""
        key = self.keys.hinted(room, round_)
        await self.batch().sadd(key, pid).expire(key, self.ttl).execute()

    async def was_hinted(self, room: str, round_: int, pid: str) -> bool:
        """Whether ``pid`` was sent a hint in the round (:meth:`mark_hinted`)."""
        return bool(await self.redis.sismember(self.keys.hinted(room, round_), pid))

    async def set_daily(self, room: str, note: dict[str, Any]) -> None:
        """Write the note of a daily game's room (kept as long as the room, and longer).

        The note is the snapshot's ``daily`` object: ``{date, kind, attempt, ranked, rank,
        unranked_reason}`` and, once won, ``replay_id`` (``protocol.models.DailyGame``).
        """
        value = json.dumps(note, separators=(",", ":"))
        await self.redis.set(self.keys.daily_room(room), value, ex=max(self.ttl, 86_400) * 2)

    async def daily_note(self, room: str) -> dict[str, Any] | None:
        """The note of a daily game's room, or None."""
        text = await self.redis.get(self.keys.daily_room(room))
        return None if text is None else dict(json.loads(text))

    async def amend_daily(self, room: str, change: dict[str, Any]) -> None:
        """Change fields of a daily game's room note while it lives (its lifetime kept)."""
        key = self.keys.daily_room(room)
        text = await self.redis.get(key)
        if text is None:
            return
        note = json.loads(text)
        note.update(change)
        await self.redis.set(key, json.dumps(note, separators=(",", ":")), keepttl=True)

    async def daily_of(self, room: str) -> tuple[str, str] | None:
        """The (date, kind) of a daily game's room, or None."""
        note = await self.daily_note(room)
        return None if note is None else (note["date"], note["kind"])

    async def discard(self, room: str) -> None:
        """Delete a room nobody has entered (made, then not needed)."""
        await self.redis.delete(self.keys.room(room), self.keys.members(room))
