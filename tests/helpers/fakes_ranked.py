"""A ranked finish without a server: the instance a finish needs
(:class:`server.ranked.finish.Finishing`), its stores real on the machine's Redis under a
prefix of the test's own, its one-game review a small fake the test tells what to say.

A won daily board is written where the move path leaves one (the room's fields, its member,
the round's result, the action log, the room's daily note), so that
:func:`server.ranked.finish.record_finish` builds its replay from Redis as it does on a
server. :func:`views` is mypy's proof that the server's own context has each narrow view.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from server.clock import now_ms
from server.context import Context
from server.daily.deal import day_bounds, today
from server.daily.deals import DailyDeals
from server.daily.services import Daily
from server.engine import parse_code
from server.fairplay.evidence import Weighing
from server.fairplay.race_review import Reviewing
from server.fairplay.standing import Reviewed
from server.ranked.finish import Finishing
from server.ranked.ratings import Rating, address_mark
from server.ranked.today import Days
from server.records.perfect import Perfects
from server.records.replays import Replay
from server.records.services import Records
from server.settings import Settings
from server.store.keys import Keys
from server.store.ratings import Bar
from server.store.reviews import Reviews
from server.store.store import RoomRead, Store
from server.transport.clients import Client
from tests.helpers.dailies import daily_deal
from tests.helpers.inproc import settings as settings_of
from tests.helpers.leaderboards import code_of, play
from tests.helpers.replay_support import solution


def views(ctx: Context) -> tuple[Finishing, Weighing, Reviewed, Reviewing, Rating, Days]:
    """The server's context as each narrow view of the ranked concerns (a type check,
    never called)."""
    return ctx, ctx, ctx, ctx, ctx, ctx


#: A moment of a race made by hand (ms since the epoch).
T0 = 1_780_000_000_000

#: What a one-game review that finds nothing unusual says.
PASSED: dict[str, Any] = {
    "held": False,
    "reason": "ok",
    "message": "a person's pace",
    "agreement": 0.4,
    "scored": 12,
}
#: What a one-game review that holds a finish says (the operator's alone).
HELD: dict[str, Any] = {
    "held": True,
    "reason": "solver_like",
    "message": "agrees with the solver at every decision",
    "agreement": 1.0,
    "scored": 40,
}


@dataclass
class Review:
    """The one-game review (:class:`server.fairplay.evidence.Scorer`), as the test tells it.

    Attributes:
        says: the score it returns.
        says_for: the score it returns for a player of these (else ``says``).
        fails: raised instead, when set (the review failed).
        gate: when set, the review waits for it (a solver busy elsewhere).
        asked: the players it reviewed, in order.
        started: set once a review has begun.
    """

    says: dict[str, Any] = field(default_factory=lambda: dict(PASSED))
    says_for: dict[str, dict[str, Any]] = field(default_factory=dict)
    fails: BaseException | None = None
    gate: asyncio.Event | None = None
    asked: list[str] = field(default_factory=list)
    started: asyncio.Event = field(default_factory=asyncio.Event)

    async def score(
        self,
        player: str,
        code: str,
        started_at: int,
        actions: list[str],
        times: list[int],
        practised: list[list[str]] | None = None,
        field_ms: int | None = None,
    ) -> dict[str, Any]:
        """What the test said, once the gate (if any) opens."""
        self.asked.append(player)
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fails is not None:
            raise self.fails
        return dict(self.says_for.get(player, self.says))


@dataclass
class Instance:
    """What a finish, a race's review and its ratings need of an instance
    (:class:`server.ranked.finish.Finishing`, :class:`server.ranked.ratings.Rating`)."""

    settings: Settings
    redis: Client
    keys: Keys
    store: Store
    daily: Daily
    records: Records
    reviews: Reviews
    reviewer: Review
    instance_id: str = "fake"


async def instance(
    redis: Client,
    prefix: str,
    *dates: str,
    review: Review | None = None,
    floor_ms: int = 0,
    env: dict[str, str] | None = None,
) -> Instance:
    """The stores on ``redis`` under ``prefix``, the deals of ``dates`` certified, the
    physical floor ``floor_ms`` a move (none: the review alone decides), the settings of
    ``env`` (``SEAHAVEN_*``) over a test server's; every finisher established unless
    ``env`` sets a bar (``SEAHAVEN_PROVISIONAL_GAMES``)."""
    config = settings_of(env={"SEAHAVEN_KEY_PREFIX": prefix, **(env or {})})
    keys = Keys(prefix)
    keep_s = config.history_s
    records = Records.build(redis, keys, config.replay_ttl, keep_s)
    bar = None
    if env and "SEAHAVEN_PROVISIONAL_GAMES" in env:
        bar = Bar(config.provisional_games, config.provisional_days, config.established_rivals)
    perfect = Perfects(redis, keys, keep_s)
    daily = Daily.build(redis, keys, floor_ms, keep_s, perfect, config.daily_key, bar)
    deals = DailyDeals(redis, keys, config.daily_key, keep_s)
    for date in dates:
        for kind in ("daily", "hard"):
            await deals.store(daily_deal(date, kind))
    return Instance(
        settings=config,
        redis=redis,
        keys=keys,
        store=Store(redis, keys, ttl=600),
        daily=daily,
        records=records,
        reviews=Reviews(redis, keys, keep_s),
        reviewer=review or Review(),
    )


async def won_daily_board(ctx: Instance, replay: Replay, round_: int = 1) -> None:
    """Leave ``replay``'s daily game in Redis as the move path leaves a won board: the
    room (mode, code, round, its reveal), the member, the round's result, the action log
    and the room's daily note, its attempt claimed as the day's ranked one."""
    assert replay.room and replay.daily_date and replay.daily_kind
    assert replay.result.time_ms is not None
    keys, room, pid = ctx.keys, replay.room, replay.player_id
    fields: dict[Any, Any] = {
        "mode": "daily",
        "code": replay.code,
        "round": str(round_),
        "starts_at": str(replay.started_at),
    }
    result = {"status": "finished", "time_ms": replay.result.time_ms, "moves": replay.result.moves}
    timed = enumerate(zip(replay.times_ms, replay.actions, strict=True))
    log = [f"{ms}\t{n}\t{text}" for n, (ms, text) in timed]
    member = {"player_id": pid, "name": replay.name, "role": "player"}
    batch = ctx.redis.pipeline(transaction=False)
    batch.hset(keys.room(room), mapping=fields)
    batch.hset(keys.members(room), pid, json.dumps(member))
    batch.hset(keys.results(room, round_), pid, json.dumps(result))
    batch.rpush(keys.log(room, round_, pid), *log)
    await batch.execute()
    note = {"date": replay.daily_date, "kind": replay.daily_kind, "attempt": "ranked"}
    await ctx.store.set_daily(room, {**note, "ranked": False, "rank": None})
    await ctx.daily.leaderboard.claim_attempt(replay.daily_date, replay.daily_kind, pid, room)


def won_today(pid: str, date: str | None = None, step: int = 40) -> Replay:
    """An honest win of today's daily (or the deal of ``date``) that ended a moment ago,
    ``step`` ms a move."""
    date = date or today().isoformat()
    length = len(solution(code_of(date)))
    start = max(day_bounds(today().isoformat())[0] + 1, now_ms() - step * length - 1000)
    return play(pid, date=date, step_ms=step, start=start)


async def race_room(ctx: Instance, room: str, read: RoomRead) -> None:
    """Leave a race that is over in Redis as the rooms' scripts leave one: the room's
    fields (each racer's ``st:PID``), the round's results with their ranks, the racers'
    logs; ``read`` is what :meth:`server.store.store.Store.read_room` then reads back."""
    keys, round_ = ctx.keys, int(read.meta["round"])
    fields: dict[Any, Any] = {**read.meta, **{f"st:{pid}": "1" for pid in read.results}}
    results: dict[Any, Any] = {}
    for pid, result in read.results.items():
        results[pid] = json.dumps({k: v for k, v in result.items() if k != "rank"})
        if result.get("rank"):
            results[f"rank:{pid}"] = str(result["rank"])
    batch = ctx.redis.pipeline(transaction=False)
    batch.hset(keys.room(room), mapping=fields)
    batch.hset(keys.results(room, round_), mapping=results)
    for pid, lines in read.logs.items():
        if lines:
            batch.rpush(keys.log(room, round_, pid), *lines)
    await batch.execute()


@dataclass(frozen=True)
class Racer:
    """One racer of a race made by hand: ``played`` actions of the deal's winning line
    (None: all of it, a finish), ``step_ms`` apart, from ``address``."""

    pid: str
    played: int | None = None
    step_ms: int = 50
    address: str = "198.51.100.1"


def race_read(code: str, racers: list[Racer], *, round_: int = 1, t0: int = T0) -> RoomRead:
    """A rated race on ``code`` that is over, as :meth:`Store.read_room` reads it: the
    finishers ranked by their time, the others given up."""
    line = solution(code)
    logs: dict[str, list[str]] = {}
    results: dict[str, dict[str, Any]] = {}
    times: dict[str, int] = {}
    for r in racers:
        actions = line if r.played is None else line[: r.played]
        logs[r.pid] = [f"{t0 + (i + 1) * r.step_ms}\t{i}\t{a}" for i, a in enumerate(actions)]
        name = r.pid.removeprefix("p").title()
        results[r.pid] = {"status": "gave_up", "moves": len(actions), "name": name}
        if r.played is None:
            times[r.pid] = len(line) * r.step_ms
            results[r.pid] |= {"status": "finished", "time_ms": times[r.pid]}
    for rank, (_ms, pid) in enumerate(sorted((ms, pid) for pid, ms in times.items()), 1):
        results[pid]["rank"] = rank
    meta = {"code": code, "cells": str(parse_code(code).cells), "round": str(round_)}
    meta |= {"state": "done", "mode": "race", "rated": "1", "starts_at": str(t0)}
    meta |= {f"ad:{r.pid}": address_mark(r.address) for r in racers}
    return RoomRead(meta=meta, members={}, results=results, logs=logs)
