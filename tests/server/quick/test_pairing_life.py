"""The quick race's pairing decided without a server: small fakes of its instance, sockets
and rooms (:mod:`tests.helpers.fakes_arena`) on a real Redis, the server's clock moved by the
test. Queued with a rating and a dodger's penalty; refused when queued or seated elsewhere;
paired after the wait for a fourth into one room, brought in; a household's room says so;
each waiting socket told when it will be paired, once; a bot offered once after the wait;
a pairing lost on the way, or a room too late, and the player waits again in place."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
import redis.asyncio as aioredis

from server.arena import seating
from server.clock import ShiftedClock
from server.quick import pairing
from server.store import queue
from server.store.status import Status
from tests.helpers.fakes_arena import FakeConn, FakeHost, FakeRooms, moved_clock, settings

FOURTH_MS = 1_000


@dataclass
class World:
    host: FakeHost
    rooms: FakeRooms
    clock: ShiftedClock

    async def tick(self, ms: int = 0) -> None:
        """Move the clock ``ms`` on, run one pairing pass and what it spawned."""
        self.clock.advance(ms)
        await pairing.tick(self.host, self.rooms)
        await self.host.settle()


@pytest.fixture
def clock() -> Iterator[ShiftedClock]:
    with moved_clock() as moved:
        yield moved


@pytest.fixture
async def world(
    redis_client: aioredis.Redis, key_prefix: str, clock: ShiftedClock
) -> AsyncIterator[World]:
    config = settings("--pair-fourth-ms", str(FOURTH_MS), "--bot-offer-ms", "5000")
    host = FakeHost.on(redis_client, key_prefix, config)
    yield World(host, FakeRooms(host.store), clock)


async def queued(w: World, *conns: FakeConn, cells: int = 4) -> None:
    for c in conns:
        assert await pairing.enqueue(w.host, c, cells) is Status.OK


async def test_queueing_says_the_rating_and_holds_a_dodger_back(world: World) -> None:
    w = world
    ann, dodger = FakeConn("ann"), FakeConn("dodger")
    await queued(w, ann)
    got = ann.last("queued")
    assert got is not None and (got["cells"], got["rating"], got["penalty_s"]) == (4, 1000, 0)
    assert await pairing.enqueue(w.host, ann, 2) is Status.ALREADY_QUEUED
    await queue.note_dodge(w.host.store, "dodger")
    await queued(w, dodger)
    assert dodger.last("queued")["penalty_s"] == 15  # type: ignore[index]
    # The same player on another socket (another instance's, say): refused too.
    assert await pairing.enqueue(w.host, FakeConn("ann"), 4) is Status.ALREADY_QUEUED
    # A socket in a room, or seated in an arena, never queues.
    inside = FakeConn("cy")
    inside.room = "R1"
    assert await pairing.enqueue(w.host, inside, 4) is Status.ALREADY_IN_ROOM
    dee = FakeConn("dee")
    assert await seating.create_private(w.host, dee, 4, 10, 60) is Status.OK
    assert await pairing.enqueue(w.host, dee, 4) is Status.IN_ARENA
    assert await pairing.enqueue(w.host, FakeConn("dee"), 4) is Status.IN_ARENA


async def test_two_waiting_are_told_when_then_paired_and_brought_in(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    await queued(w, ann, bob)
    await w.tick(100)
    await w.tick(100)
    assert w.rooms.calls("open") == []
    for c in (ann, bob):
        [told] = c.of("pairing")  # told once, however many passes
        assert told["racers"] == 2
    await w.tick(FOURTH_MS)
    [(cells, arena, household)] = w.rooms.calls("open")
    assert (cells, arena, household) == (4, "", False)
    [(room, racers)] = w.rooms.calls("start_when_in")
    assert racers == 2 and ann.room == bob.room == room
    assert w.host.whereabouts.waiting == {}
    assert await w.host.store.redis.zcard(w.host.store.keys.queue_wait(4)) == 0


async def test_a_household_alone_races_in_a_room_that_says_so(world: World) -> None:
    w = world
    mum, kid = FakeConn("mum", address="203.0.113.9"), FakeConn("kid", address="203.0.113.9")
    await queued(w, mum, kid)
    await w.tick(FOURTH_MS + 100)
    assert w.rooms.calls("open") == [(4, "", True)]
    assert mum.room == kid.room is not None


async def test_a_lone_player_is_offered_a_bot_once(world: World) -> None:
    w = world
    ann = FakeConn("ann")
    await queued(w, ann)
    await w.tick(4_000)
    assert ann.of("bot_offer") == []
    await w.tick(1_500)
    await w.tick(1_000)
    [offer] = ann.of("bot_offer")
    assert offer["cells"] == 4 and offer["bot"]["rating"] == 1000
    assert offer["bot"]["name"] == pairing.bot_name("ann")


async def test_a_pairing_lost_on_the_way_waits_again_in_place(world: World) -> None:
    w = world
    ann = FakeConn("ann")
    await queued(w, ann)
    since = w.host.whereabouts.waiting["ann"].since
    await queue.remove(w.host.store, 4, "ann")  # the instance that took it died
    await w.tick(100)
    await w.tick(pairing.LOST_MS - 500)
    assert await w.host.store.redis.zscore(w.host.store.keys.queue_wait(4), "ann") is None
    await w.tick(600)
    assert await w.host.store.redis.zscore(w.host.store.keys.queue_wait(4), "ann") is not None
    assert w.host.whereabouts.waiting["ann"].since == since


async def test_a_room_too_late_and_the_player_waits_again_in_place(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    await queued(w, ann, bob)
    since = w.host.whereabouts.waiting["ann"].since
    w.rooms.refuse = Status.RACE_IN_PROGRESS
    bob.open = False  # gone meanwhile: not back in the queue
    await w.tick(FOURTH_MS + 100)
    assert [p for p, _r in w.rooms.calls("enter")] == ["ann"]
    assert ann.of("error") == [] and ann.room is None
    assert w.host.whereabouts.waiting["ann"].since == since
    wait = w.host.store.keys.queue_wait(4)
    assert await w.host.store.redis.zscore(wait, "ann") is not None
    assert await w.host.store.redis.zscore(wait, "bob") is None
    # The next player: paired at once (Ann waited longer than the wait for a fourth).
    w.rooms.refuse = None
    cy = FakeConn("cy")
    await queued(w, cy)
    await w.tick(100)
    assert ann.room == cy.room is not None
