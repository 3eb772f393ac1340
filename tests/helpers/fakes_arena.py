"""Small fakes of the narrow protocols the quick race and the arenas depend on
(:mod:`server.quick.rooms`, :mod:`server.arena.host`), to test their decisions without a
server: an instance (:class:`FakeHost`, on the machine's Redis under the test's prefix),
sockets (:class:`FakeConn`) and the rooms of paired races (:class:`FakeRooms`), which keep
in Redis only the room fields the concerns read (its phase, racers, results and logs) and
write down what they were asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis

from server import clock
from server.arena import standings
from server.arena.standings import KNOWN
from server.clock import now_ms
from server.context import Kept
from server.engine.codes import format_code
from server.settings import Settings
from server.store.keys import Keys
from server.store.reviews import Reviews
from server.store.status import Status
from server.store.store import RoomRead, Store
from server.whereabouts import Whereabouts
from tests.helpers.inproc import settings as serve_settings
from tests.helpers.serverproc import FAST, REVIEW_OFF

T = TypeVar("T")

#: An arena of seconds, as the server tests play one (an arena minute is a second).
ARENA_ARGS = [
    *FAST,
    *REVIEW_OFF,
    *("--provisional-games", "0", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "800"),
]


def settings(*args: str) -> Settings:
    """The settings of a test server (:data:`ARENA_ARGS`, then ``args``: later flags win)."""
    return serve_settings([*ARENA_ARGS, *args])


class FakeConn:
    """A socket as the rooms, the queue and the arenas see it (:class:`server.net.member.Member`):
    what it was sent, decoded, in :attr:`sent`."""

    _ids = itertools.count(1)

    def __init__(self, pid: str, name: str = "", address: str = "") -> None:
        self.cid = f"fake.{next(self._ids)}"
        self.pid: str | None = pid
        self.name = name or pid.title()
        self.token = ""
        self.address = address or f"198.51.100.{next(self._ids) % 250}"
        self.room: str | None = None
        self.role = "spectator"
        self.syncing: list[tuple[int, str, int]] | None = None
        self.open = True
        self.sent: list[dict[str, Any]] = []

    def queue(self, text: str) -> None:
        """Send a frame (kept, decoded)."""
        self.sent.append(json.loads(text))

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        """Forward a room event."""
        self.queue(text)

    def release_held(self) -> None:
        """Nothing is held."""

    def drop_held(self) -> None:
        """Nothing is held."""

    def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""
        self.sent.append({"type": "error", "code": code, "message": message})

    def is_open(self) -> bool:
        """Whether the socket is open (:attr:`open`)."""
        return self.open

    def of(self, kind: str) -> list[dict[str, Any]]:
        """The messages of one type it was sent, in order."""
        return [m for m in self.sent if m["type"] == kind]

    def last(self, kind: str) -> dict[str, Any] | None:
        """The last message of one type it was sent, or None."""
        found = self.of(kind)
        return found[-1] if found else None


@dataclass
class FakeHost:
    """An instance as the quick race and the arenas use it (:class:`server.arena.host.Host`):
    real settings, store and review outcomes on the machine's Redis; background work kept to
    be awaited (:meth:`settle`)."""

    settings: Settings
    store: Store
    reviews: Reviews
    whereabouts: Whereabouts = field(default_factory=Whereabouts)
    instance_id: str = "i1"
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    _kept: dict[Kept[Any], Any] = field(default_factory=dict)

    @classmethod
    def on(cls, redis: aioredis.Redis, prefix: str, config: Settings) -> FakeHost:
        """A host on ``redis`` under the test's ``prefix``."""
        keys = Keys(prefix)
        return cls(config, Store(redis, keys, 600), Reviews(redis, keys, 3600))

    def kept(self, key: Kept[T]) -> T:
        """What a concern keeps on this instance (made on first use)."""
        if key not in self._kept:
            self._kept[key] = key.make()
        return cast(T, self._kept[key])

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background (awaited by :meth:`settle`)."""
        self.tasks.append(asyncio.ensure_future(coro))

    async def settle(self) -> None:
        """Wait for the background work spawned so far (and what it spawns)."""
        while self.tasks:
            tasks, self.tasks = self.tasks, []
            await asyncio.gather(*tasks)

    def known(self, arena: str) -> standings.Known:
        """What this instance knows of an arena (it must know it)."""
        return self.kept(KNOWN)[arena]


@dataclass
class FakeRooms:
    """The rooms of paired races (:class:`server.arena.host.Races`): a room is a Redis hash
    with the fields the concerns read; every request is written down in :attr:`asked`.

    Attributes:
        refuse: the status :meth:`enter` answers instead of ``ok`` (a room too late).
        asked: each request as (operation, arguments).
    """

    store: Store
    refuse: Status | None = None
    asked: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def calls(self, operation: str) -> list[tuple[Any, ...]]:
        """The arguments of each request of one operation."""
        return [args for op, args in self.asked if op == operation]

    @property
    def redis(self) -> Any:
        return self.store.redis

    async def open(self, cells: int, arena: str = "", household: bool = False) -> str:
        """A room in its lobby, nobody in it."""
        room = f"FAKE{next(self._ids):04d}"
        self.asked.append(("open", (cells, arena, household)))
        fields = {"state": "lobby", "round": 1, "cells": cells, "created": now_ms(), "np": 0}
        await self.redis.hset(self.store.keys.room(room), mapping={**fields, "arena": arena})
        return room

    def start_when_in(self, room: str, racers: int) -> None:
        self.asked.append(("start_when_in", (room, racers)))

    async def start(self, room: str) -> Status:
        self.asked.append(("start", (room,)))
        await self.phase(room, "countdown")
        return Status.OK

    async def enter(self, conn: Any, room: str) -> Status:
        self.asked.append(("enter", (conn.pid, room)))
        if self.refuse is not None:
            return self.refuse
        conn.room, conn.role = room, "player"
        key = self.store.keys.room(room)
        await self.redis.hset(key, f"st:{conn.pid}", "playing")
        await self.redis.hincrby(key, "np", 1)
        return Status.OK

    async def leave(self, conn: Any, room: str) -> None:
        self.asked.append(("leave", (conn.pid, room)))
        conn.room = None

    async def time_up(self, room: str, round_: int) -> None:
        self.asked.append(("time_up", (room, round_)))

    def review(
        self, arena: str, room: str, round_: int, standing: dict[str, Any], read: RoomRead
    ) -> None:
        self.asked.append(("review", (arena, room, round_)))

    async def phase(self, room: str, state: str) -> None:
        """Set a room's phase."""
        await self.redis.hset(self.store.keys.room(room), "state", state)

    async def finish(
        self,
        room: str,
        places: Sequence[str | None],
        pids: Sequence[str],
        undid: Sequence[str] = (),
        marks: dict[str, str] | None = None,
    ) -> None:
        """End a room's race: ``places[i]`` is ``pids[i]``'s result (``"1"``, ``"2"``, ...
        finished in that place; None: gave up); the racers in ``undid`` took a move back.
        ``marks``: each racer's address mark (one for two racers: a household)."""
        keys, at = self.store.keys, now_ms()
        meta: dict[str, Any] = {
            "state": "done",
            "code": format_code(1, 4),
            "starts_at": at - 60_000,
        }
        results: dict[str, Any] = {}
        for pid, place in zip(pids, places, strict=True):
            meta[f"st:{pid}"] = "finished" if place else "gave_up"
            mine: dict[str, Any] = {"name": pid.title()}
            if place:
                mine |= {"status": "finished", "time_ms": 30_000 + 1000 * int(place)}
                results[f"rank:{pid}"] = place
            else:
                mine |= {"status": "gave_up"}
            results[pid] = json.dumps(mine)
            log = [f"{at - 50_000}\t0\tundo"] if pid in undid else []
            if log:
                await self.redis.rpush(keys.log(room, 1, pid), *log)
        for pid, mark in (marks or {}).items():
            meta[f"ad:{pid}"] = mark
        await self.redis.hset(keys.room(room), mapping=meta)
        await self.redis.hset(keys.results(room, 1), mapping=results)


@contextlib.contextmanager
def moved_clock() -> Iterator[clock.ShiftedClock]:
    """The server's clock (:func:`server.clock.now_ms`) as the test moves it
    (:meth:`server.clock.ShiftedClock.advance`), until the block ends."""
    moved = clock.ShiftedClock()
    with clock.use(moved):
        yield moved
