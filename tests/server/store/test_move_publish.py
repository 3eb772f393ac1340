"""A move's delta goes on the room's channel only while an instance other than the mover's
follows the room: the mover's instance fans it out from the script's answer (``here``: Redis
holds its subscription, so a count of one is that one alone). The event is stored the same
either way, and the answer carries the WATCH it was stored with; a finish and the end of the
race go on the channel whoever follows it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

from server.engine import Board, parse_action
from server.net import wire
from server.store.commit import MoveCommit
from server.store.events import RoomEvent
from server.store.keys import Keys
from server.store.status import Status
from server.store.store import Store
from tests.helpers.serverproc import redis_url

CODE = "SH1-C4-AAAAAAB"


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=60)
    yield store
    await store.aclose()
    await client.aclose()


def commit(room: str, pid: str, now: int, finishing: bool) -> MoveCommit:
    """A racer's first action (its board's first foundation move) to commit."""
    board = Board.from_code(CODE)
    action = "col4 found"
    delta = board.play(parse_action(action))
    return MoveCommit(
        room=room,
        round=1,
        pid=pid,
        action_id=1,
        version=0,
        log_entries=(f"{now}\t1\t{action}",),
        delta_bodies=(wire.delta_body(pid, 1, action, delta, board, 10),),
        progress_bodies=(wire.progress_body(pid, 1, board),),
        legal=(wire.legal(board),),
        finishing=finishing,
        time_ms=10,
        moves=board.moves,
        result=wire.result(pid, pid, "finished", 10, board.moves) if finishing else "",
        origin=f"c-{pid}",
        now=now,
    )


async def racing(store: Store, room: str, now: int) -> None:
    """A room of two racers (pA, pB) whose race has begun, watched delayed by 45 s."""
    fields: dict[str, str | int] = {"room_id": room, "code": CODE, "cells": 4, "mode": "race"}
    fields |= {"state": "lobby", "round": 1, "host": "", "seq": 0, "np": 0, "ns": 0}
    fields |= {"typed": 0, "watch": "live", "delay_s": 30, "public": 0, "rated": 0}
    fields |= {"paired": 0, "playing": 0, "finishers": 0, "starts_at": ""}
    assert await store.create(room, fields)
    for pid in ("pA", "pB"):
        out = await store.join(room, pid, "player", wire.member(pid, pid, "player"), 4, "c0")
        assert out.status is Status.OK
    assert (await store.set_watch(room, "pA", "delayed", 45, "c0")).status is Status.OK
    assert (await store.start(room, "pA", now, now, "c0")).status is Status.OK
    assert (await store.begin(room, 1, "c0", now)).status is Status.OK


async def heard(pubsub: PubSub) -> list[str]:
    """What a subscriber read of the channel until it went quiet."""
    out: list[str] = []
    while True:
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.3)
        if message is None:
            return out
        out.append(message["data"])


async def test_a_move_only_its_instance_follows_is_stored_not_published(store: Store) -> None:
    room, now = "PUBLISHRM", 1_800_000_000_000
    await racing(store, room, now)
    mine = store.redis.pubsub()  # the mover's instance
    await mine.subscribe(store.keys.channel(room))
    await heard(mine)
    try:
        alone = await store.move(dataclasses.replace(commit(room, "pA", now, False), here=True))
        assert alone.status is Status.OK and alone.watch == "delayed:45"
        assert not alone.published
        assert await heard(mine) == []
        stored = await store.redis.lrange(store.keys.events(room), -1, -1)
        event = RoomEvent.parse(stored[0])
        expected = (alone.seq, "pA", "delayed", 45_000)
        assert (event.seq, event.pid, event.watch, event.delay_ms) == expected
        # Not told that its subscription holds: published, as to another instance.
        told = await store.move(commit(room, "pB", now, False))
        assert told.published
        assert [RoomEvent.parse_published(d).seq for d in await heard(mine)] == [told.seq]
        # Another instance follows the room: published.
        other = store.redis.pubsub()
        await other.subscribe(store.keys.channel(room))
        await heard(other)
        try:
            again = dataclasses.replace(commit(room, "pA", now, True), here=True)
            again = dataclasses.replace(again, action_id=2, version=1)
            won = await store.move(again)
            assert won.status is Status.OK and won.published
            got = [RoomEvent.parse_published(d) for d in await heard(other)]
            assert [(e.seq, e.kind) for e in got] == [(won.seq, ""), (won.seq + 1, "finished")]
        finally:
            await other.aclose()
    finally:
        await mine.aclose()


async def test_a_finish_goes_on_the_channel_whoever_follows_it(store: Store) -> None:
    room, now = "PUBLISHFIN", 1_800_000_000_000
    await racing(store, room, now)
    mine = store.redis.pubsub()
    await mine.subscribe(store.keys.channel(room))
    await heard(mine)
    try:
        won = await store.move(dataclasses.replace(commit(room, "pB", now, True), here=True))
        assert won.status is Status.OK and won.rank == 1
        kinds = [RoomEvent.parse_published(d).kind for d in await heard(mine)]
        assert kinds == ["finished"]  # the delta is the mover's instance's to fan out
    finally:
        await mine.aclose()
