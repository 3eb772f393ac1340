"""The play messages' decisions without a server: a socket that keeps what it was sent, a
solver that answers as the test tells it, and the instance a handler needs, its stores real
on the machine's Redis under a prefix of the test's own.

Each fake is of a narrow Protocol of :mod:`server.play` (``Asker``, ``Searcher``,
``Hinting``; ``Maker``, ``Counted``; ``Following``, ``Follower``; ``Identifying``,
``Player``); :func:`views` is mypy's proof that the server's own context and socket have
every one of them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from server.cache import BoardCache, RoomCache
from server.context import Context, Kept
from server.daily.services import Daily
from server.engine import Board, parse_code
from server.engine.solver import Hint
from server.metrics import Metrics
from server.net.limits import TokenBuckets
from server.net.session import Conn
from server.play.devices import Player
from server.play.friends import Follower, Following
from server.play.hints import Asker, Hinting, Searcher
from server.play.identity import Identifying
from server.play.rooms import Counted, Maker
from server.records.perfect import Perfects
from server.settings import Settings
from server.store.keys import Keys
from server.store.reviews import Reviews
from server.store.store import Store
from server.transport.clients import Client
from tests.helpers.dailies import daily_deal
from tests.helpers.inproc import settings as settings_of
from tests.helpers.serverproc import FAST

T = TypeVar("T")


def views(
    ctx: Context, conn: Conn
) -> tuple[Hinting, Asker, Searcher, Counted, Maker, Following, Follower, Identifying, Player]:
    """The server's context and socket as each narrow view (a type check, never called)."""
    return ctx, conn, ctx.solver, ctx, conn, ctx, conn, ctx, conn


@dataclass(eq=False)
class Socket:
    """A client's socket as the handlers see it (:class:`server.play.devices.Player` and
    the narrower views): who it is, where, and what it was sent.

    Attributes:
        sent: every message queued to it, decoded, in order.
    """

    pid: str | None = "pann"
    room: str | None = None
    role: str = "player"
    address: str = "198.51.100.7"
    name: str = ""
    token: str = ""
    cid: str = "fake.0"
    signed_out: bool = False
    syncing: list[tuple[int, str, int]] | None = None
    sent: list[dict[str, Any]] = field(default_factory=list)

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        """A room event, kept as any frame."""
        self.queue(text)

    def release_held(self) -> None:
        """Nothing is held back here."""

    def drop_held(self) -> None:
        """Nothing is held back here."""

    def is_open(self) -> bool:
        """Always open."""
        return True

    def queue(self, text: str) -> None:
        """Keep a frame."""
        self.sent.append(json.loads(text))

    def error(self, code: str, message: str | None = None) -> None:
        """``error``, as the server's socket words it."""
        self.sent.append({"type": "error", "code": code, "message": message})

    def reject(self, action_id: int, reason: str, message: str | None = None) -> None:
        """``reject``, as the server's socket words it."""
        self.sent.append({"type": "reject", "id": action_id, "reason": reason, "message": message})

    def kinds(self) -> list[str]:
        """What it was sent, each message's type (and code or reason)."""
        return [
            ":".join(str(m[k]) for k in ("type", "code", "reason", "status") if k in m)
            for m in self.sent
        ]


@dataclass
class Solver:
    """The solver's processes (:class:`server.play.hints.Searcher`), as the test says.

    Attributes:
        free: whether a job of the player's would be taken.
        full: whether the queue refuses the job (it filled meanwhile).
        answer: what a search finds (an exception: the search failed).
        asked: the boards searched, in order.
        seconds: the time each search was given to prove a shortest line (-1: none said).
    """

    free: bool = True
    full: bool = False
    answer: Hint | BaseException = field(default_factory=lambda: Hint("unknown"))
    asked: list[Board] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def has_room(self, player: str) -> bool:
        """Whether a job would be taken."""
        return self.free

    def submit_hint(
        self, player: str, board: Board, timeout: float = -1.0
    ) -> asyncio.Future[Hint] | None:
        """A search of ``board``, answered at once with what the test said."""
        if self.full:
            return None
        self.asked.append(board.copy())
        self.seconds.append(timeout)
        done: asyncio.Future[Hint] = asyncio.get_running_loop().create_future()
        if isinstance(self.answer, BaseException):
            done.set_exception(self.answer)
        else:
            done.set_result(self.answer)
        return done


@dataclass
class Instance:
    """What a play handler needs of an instance (:class:`server.play.hints.Hinting`,
    :class:`server.play.rooms.Counted`, :class:`server.play.friends.Following`,
    :class:`server.play.identity.Identifying`)."""

    settings: Settings
    metrics: Metrics
    solver: Solver
    store: Store
    rooms: RoomCache
    boards: BoardCache
    daily: Daily
    reviews: Reviews
    identities: TokenBuckets | None = None
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    _kept: dict[Kept[Any], Any] = field(default_factory=dict)

    def kept(self, key: Kept[T]) -> T:
        """What a concern keeps here (made on first use)."""
        if key not in self._kept:
            self._kept[key] = key.make()
        return cast(T, self._kept[key])

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run it; :meth:`settle` waits for it."""
        self.tasks.append(asyncio.ensure_future(coro))

    async def settle(self) -> None:
        """Wait for what was spawned."""
        while self.tasks:
            await self.tasks.pop()


async def instance(
    redis: Client,
    prefix: str,
    *dates: str,
    env: dict[str, str] | None = None,
    args: Sequence[str] = FAST,
) -> Instance:
    """The stores on ``redis`` under ``prefix``, the deals of ``dates`` certified; the
    settings of a test server started with ``args`` and ``env``."""
    config = settings_of(args, {"SEAHAVEN_KEY_PREFIX": prefix, **(env or {})})
    keys = Keys(prefix)
    store = Store(redis, keys, ttl=600)
    boards = BoardCache(store)
    keep_s = config.history_s
    perfect = Perfects(redis, keys, keep_s)
    daily = Daily.build(redis, keys, 0, keep_s, perfect, config.daily_key)
    for date in dates:
        for kind in ("daily", "hard"):
            await daily.deals.store(daily_deal(date, kind))
    return Instance(
        settings=config,
        metrics=Metrics(),
        solver=Solver(),
        store=store,
        rooms=RoomCache(store, boards),
        boards=boards,
        daily=daily,
        reviews=Reviews(redis, keys, keep_s),
    )


async def room(
    ctx: Instance, name: str, code: str, mode: str = "solo", phase: str = "racing"
) -> str:
    """A room on ``code`` in Redis as the rooms' scripts leave it (its first round)."""
    fields = {
        "code": code,
        "cells": str(parse_code(code).cells),
        "round": "1",
        "state": phase,
        "mode": mode,
        "starts_at": "1",
    }
    await ctx.store.redis.hset(ctx.store.keys.room(name), mapping=cast(Any, fields))
    return name
