"""A room's rounds decided on its instance's narrow view (:class:`server.rooms.host.Host`),
on a real Redis, with no server: who may start a countdown and pick the watch, what a
start leaves durable (the begin deadline, the raced deal's mark), and what a paired room
nobody came to becomes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.clock import now_ms
from server.context import Context
from server.rooms import rounds
from server.rooms.host import Host
from server.rooms.records import RoomPhase
from server.store.status import Status
from tests.helpers.fakes_http import on_redis
from tests.helpers.inproc import settings
from tests.helpers.store_rooms import CODE, made


@pytest.fixture
async def ctx(key_prefix: str) -> AsyncIterator[Context]:
    """An instance's context on the machine's Redis under the test's own prefix."""
    async with on_redis(
        settings(["--countdown-ms", "60000"], {"SEAHAVEN_KEY_PREFIX": key_prefix})
    ) as made_ctx:
        yield made_ctx


async def deadlines(ctx: Context) -> list[tuple[dict[str, Any], float]]:
    """Every deadline noted, decoded, with when it falls due (ms)."""
    raw = await ctx.redis.zrange(ctx.keys.deadlines(), 0, -1, withscores=True)
    return [(json.loads(str(pair[0])), float(pair[1])) for pair in raw]


async def test_only_the_host_starts_and_the_start_leaves_its_deadline_and_the_deals_mark(
    ctx: Context,
) -> None:
    host: Host = ctx
    await made(ctx.store, "ROOMAAAA", ("ann", "bob"), start=False)
    assert await rounds.start(host, "ROOMAAAA", "bob") is Status.NOT_HOST
    assert await ctx.store.room_fields("ROOMAAAA") != {}
    assert (await ctx.store.room_fields("ROOMAAAA"))["state"] == RoomPhase.LOBBY
    before = now_ms()
    assert await rounds.start(host, "ROOMAAAA", "ann") is Status.OK
    fields = await ctx.store.room_fields("ROOMAAAA")
    assert fields["state"] == RoomPhase.COUNTDOWN
    # Every board opens at one server time, a countdown from now.
    assert before + 60_000 <= int(fields["starts_at"]) <= now_ms() + 60_000
    assert await deadlines(ctx) == [
        ({"kind": "begin", "room": "ROOMAAAA"}, float(fields["starts_at"]))
    ]
    # The deal is marked as raced: no hint for it anywhere meanwhile.
    assert await ctx.store.is_racing(CODE, now_ms())
    # A second start is refused: the countdown runs already.
    assert await rounds.start(host, "ROOMAAAA", "ann") is Status.WRONG_STATE


async def test_the_watch_is_picked_by_the_host_in_the_lobby_and_never_live_in_a_public_room(
    ctx: Context,
) -> None:
    await made(ctx.store, "ROOMPRIV", ("ann", "bob"), start=False)
    assert await rounds.set_watch(ctx, "ROOMPRIV", "bob", "live", 0) is Status.NOT_HOST
    assert await rounds.set_watch(ctx, "ROOMPRIV", "ann", "delayed", 30) is Status.OK
    fields = await ctx.store.room_fields("ROOMPRIV")
    assert (fields["watch"], fields["delay_s"]) == ("delayed", "30")
    await made(ctx.store, "ROOMPUBL", ("cy", "dee"), public=True, start=False)
    assert await rounds.set_watch(ctx, "ROOMPUBL", "cy", "live", 0) is Status.PUBLIC_ROOM
    assert await rounds.start(ctx, "ROOMPRIV", "ann") is Status.OK
    assert await rounds.set_watch(ctx, "ROOMPRIV", "ann", "progress", 0) is Status.WRONG_STATE


async def test_the_countdown_ends_once_and_a_race_gets_its_time_limit(ctx: Context) -> None:
    await made(ctx.store, "ROOMBEGN", ("ann", "bob"), start=False)
    await rounds.begin(ctx, "ROOMBEGN")  # in the lobby: nothing to end
    assert (await ctx.store.room_fields("ROOMBEGN"))["state"] == RoomPhase.LOBBY
    assert await rounds.start(ctx, "ROOMBEGN", "ann") is Status.OK
    await rounds.begin(ctx, "ROOMBEGN")  # not due yet: the countdown goes on
    assert (await ctx.store.room_fields("ROOMBEGN"))["state"] == RoomPhase.COUNTDOWN
    await ctx.redis.hset(ctx.keys.room("ROOMBEGN"), "starts_at", now_ms() - 1)
    await rounds.begin(ctx, "ROOMBEGN")
    fields = await ctx.store.room_fields("ROOMBEGN")
    assert fields["state"] == RoomPhase.RACING
    limits = [(d, due) for d, due in await deadlines(ctx) if d["kind"] == "race_limit"]
    assert limits == [
        (
            {"kind": "race_limit", "room": "ROOMBEGN", "round": 1},
            int(fields["starts_at"]) + ctx.settings.race_limit_s * 1000,
        )
    ]
    await rounds.begin(ctx, "ROOMBEGN")  # a second instance's begin adds nothing
    assert sum(d["kind"] == "race_limit" for d, _due in await deadlines(ctx)) == 1


async def test_a_paired_room_nobody_came_to_is_closed_and_unlisted(ctx: Context) -> None:
    # As the quick race's pairing makes it: public, no host, its racers yet to come.
    fields: dict[str, str | int] = {"room_id": "ROOMPAIR", "code": CODE, "cells": 4}
    fields |= {"mode": "race", "state": "lobby", "round": 1, "host": "", "seq": 0, "np": 0}
    fields |= {"ns": 0, "typed": 0, "watch": "progress", "delay_s": 0, "public": 1}
    fields |= {"rated": 1, "paired": 1, "playing": 0, "finishers": 0, "starts_at": ""}
    assert await ctx.store.create("ROOMPAIR", fields)
    await ctx.redis.zadd(ctx.keys.lobby_rooms(), {"ROOMPAIR": now_ms()})
    status = await rounds.start_paired(ctx, "ROOMPAIR")
    assert status is Status.EMPTY
    assert await ctx.redis.zscore(ctx.keys.lobby_rooms(), "ROOMPAIR") is None
    # Closed for good: a racer who comes later is told it is too late; a second look (any
    # instance) answers the same and changes nothing.
    assert (await ctx.store.room_fields("ROOMPAIR"))["closed"] == "1"
    assert await rounds.start_paired(ctx, "ROOMPAIR") is Status.EMPTY
    assert (await ctx.store.room_fields("ROOMPAIR"))["state"] == RoomPhase.LOBBY
