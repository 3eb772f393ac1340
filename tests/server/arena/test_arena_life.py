"""An arena's life decided without a server: small fakes of its instance, sockets and race
rooms (:mod:`tests.helpers.fakes_arena`) on a real Redis, the server's clock moved by the
test. Paired after the wait for more, brought into the race, recorded and back in the pool;
the podium at the end, pushed to seats and watchers, the seats out; the grace for the last
races and the cut-off (a race in its countdown begins first); a racer's bound of races; a
race nobody contested, a held or voided finish, a review its instance did not live to
finish (asked again, or held as unreviewed), a broken pledge, a household; racers out of
their race, or too late for it, back in the pool; the pushes at most once per
``arena_push_ms``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.arena import loop, races, seating, standings
from server.clock import ShiftedClock, now_ms
from server.quick import pairing
from server.records.replays import replay_id
from server.store import arenas
from server.store.status import Status
from tests.helpers.fakes_arena import FakeConn, FakeHost, FakeRooms, moved_clock, settings

GRACE_MS = 2_000
#: The contest rule as shipped (the tests' shared flags turn it off).
CONTEST = ["--contest-min-tables", "20", "--contest-min-home", "8", "--contest-min-s", "60"]


@dataclass
class World:
    host: FakeHost
    rooms: FakeRooms
    clock: ShiftedClock

    async def tick(self, ms: int = 0) -> None:
        """Move the clock ``ms`` on, run one arena pass and what it spawned."""
        self.clock.advance(ms)
        await loop.tick(self.host, self.rooms)
        await self.host.settle()

    async def at(self, arena: str, past_end_ms: int) -> None:
        """Move the clock to ``past_end_ms`` after the arena's end; run one pass, whose
        sweep of its races is due (every 2 s of the instance's own time)."""
        entry = self.host.known(arena)
        entry.swept = 0.0
        self.clock.advance(max(0, int(entry.fields["ends_at"]) + past_end_ms - now_ms()))
        await self.tick()


@pytest.fixture
def clock() -> Iterator[ShiftedClock]:
    with moved_clock() as moved:
        yield moved


def world_of(redis: aioredis.Redis, prefix: str, clock: ShiftedClock, *args: str) -> World:
    host = FakeHost.on(redis, prefix, settings("--arena-grace-ms", str(GRACE_MS), *args))
    return World(host, FakeRooms(host.store), clock)


@pytest.fixture
async def world(
    redis_client: aioredis.Redis, key_prefix: str, clock: ShiftedClock
) -> AsyncIterator[World]:
    yield world_of(redis_client, key_prefix, clock)


async def open_arena(w: World, host: FakeConn, others: list[FakeConn], minutes: int) -> str:
    """``host`` makes a private arena starting now; the ``others`` join it; its id."""
    assert await seating.create_private(w.host, host, 4, minutes, 0) is Status.OK
    arena = str(host.of("arena")[0]["arena"]["arena_id"])
    for c in others:
        assert await seating.join(w.host, c, arena) is Status.OK
    return arena


async def race(w: World, racers: list[FakeConn]) -> str:
    """The next pass pairs the racers (once the wait for more is over) into one race and
    brings them in; its room."""
    await w.tick(w.host.settings.arena_pair_ms + 100)
    await w.tick()  # this instance's seats: into their race
    rooms = {c.room for c in racers}
    assert len(rooms) == 1 and None not in rooms, rooms
    return str(rooms.pop())


async def recorded(w: World, arena: str) -> list[dict[str, Any]]:
    raw = await w.host.store.redis.lrange(w.host.store.keys.arena_results(arena), 0, -1)
    return [json.loads(x) for x in raw]


async def test_an_arena_pairs_records_and_ends_with_its_podium(world: World) -> None:
    w = world
    ann, bob, dee = FakeConn("ann"), FakeConn("bob"), FakeConn("dee")
    arena = await open_arena(w, ann, [bob], minutes=10)
    assert ann.of("arena")[0]["invite"] == f"/#/arena/{arena}"
    assert await seating.watch(w.host, dee, arena) is Status.OK
    assert dee.last("arena")["seat"] == "out"  # type: ignore[index]

    # Two in the pool: not paired before the wait for more, then paired into one race.
    await w.tick(100)
    assert w.rooms.calls("open") == []
    room = await race(w, [ann, bob])
    assert w.rooms.calls("open") == [(4, arena, False)]
    assert w.rooms.calls("start_when_in") == [(room, 2)]
    assert sorted(p for p, _ in w.rooms.calls("enter")) == ["ann", "bob"]

    # Ann wins, Bob gives up: recorded once, its review asked for, both back in the pool.
    await w.rooms.finish(room, ["1", None], ["ann", "bob"])
    await loop.race_ended(w.host, w.rooms, room)
    await loop.race_ended(w.host, w.rooms, room)  # both instances saw the end
    [record] = await recorded(w, arena)
    assert [(r["pid"], r["place"]) for r in record["racers"]] == [("ann", 1), ("bob", None)]
    # Counted as it stands, its review left to run apart (it may wait long on a busy host).
    assert w.rooms.calls("review") == [(arena, room, 1)]
    for c in (ann, bob):
        assert c.last("arena")["seat"] == "pool"  # type: ignore[index]
    entry = await standings.known(w.host, arena)
    assert entry is not None
    lines = {x.pid: x.points for x in entry.running.top()}
    assert lines == {"ann": 2, "bob": 0}

    # The end: no new race, the podium to seats and watcher (none without a point), the
    # seats out, the arena over.
    await w.tick(10_000)
    assert len(w.rooms.calls("open")) == 1 or w.rooms.calls("open")[1:] == []
    for c in (ann, bob, dee):
        over = c.last("arena_over")
        assert over is not None
        assert [(x["player_id"], x["points"]) for x in over["podium"]] == [("ann", 2)]
    assert ann.last("arena_over")["you"]["points"] == 2  # type: ignore[index]
    assert dee.last("arena_over")["you"] is None  # type: ignore[index]
    for c in (ann, bob):
        assert c.last("arena_left")["reason"] == "over"  # type: ignore[index]
    assert w.host.whereabouts.seats == {}
    table = await standings.table(w.host, arena)
    assert table is not None and table["arena"]["phase"] == "over" and table["races"] == 1
    assert [x["player_id"] for x in table["podium"]] == ["ann"]


async def test_the_last_race_has_its_grace_then_is_cut_off(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=5)
    made = ann.of("arena")[0]["arena"]
    assert made["closes_at"] == made["ends_at"] + GRACE_MS  # the rule, told to the page
    room = await race(w, [ann, bob])
    await w.rooms.phase(room, "racing")
    # The arena's end: its race runs on through the grace; the arena waits for it.
    await w.at(arena, 100)
    await w.at(arena, GRACE_MS - 700)
    assert w.rooms.calls("time_up") == [] and ann.last("arena_over") is None
    # The grace over: the race is ended by the arena's rule (the server gives up for those
    # still playing) and, once over, recorded; the arena closes with its podium.
    await w.at(arena, GRACE_MS + 100)
    assert w.rooms.calls("time_up") == [(room, 1)]
    assert ann.last("arena_over") is None
    await w.rooms.finish(room, ["1", None], ["ann", "bob"])
    await w.at(arena, GRACE_MS + 200)
    assert [r["race"] for r in await recorded(w, arena)] == [f"{room}/1"]
    over = bob.last("arena_over")
    assert over is not None and [x["player_id"] for x in over["podium"]] == ["ann"]
    table = await standings.table(w.host, arena)
    assert table is not None and table["arena"]["phase"] == "over" and table["races"] == 1


async def test_a_race_in_its_countdown_at_the_cut_off_begins_then_is_ended(
    world: World,
) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=5)
    room = await race(w, [ann, bob])
    await w.rooms.phase(room, "countdown")
    await w.at(arena, GRACE_MS + 500)
    # Not recorded as no race while its racers are about to race it; the arena waits.
    assert await recorded(w, arena) == []
    assert await w.host.store.redis.hget(w.host.store.keys.arena_racing(arena), "ann") == room
    assert ann.last("arena_over") is None and w.rooms.calls("time_up") == []
    await w.rooms.phase(room, "racing")
    await w.at(arena, GRACE_MS + 600)
    assert w.rooms.calls("time_up") == [(room, 1)]


async def test_a_lobby_nobody_came_to_is_no_race_and_one_with_racers_starts(
    world: World,
) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=60)
    w.rooms.refuse = Status.ROOM_NOT_FOUND  # nobody gets in
    await w.tick(w.host.settings.arena_pair_ms + 100)
    await w.tick()
    [room] = [r for r, _n in w.rooms.calls("start_when_in")]
    # Too late for it: back in the pool, no error.
    for c in (ann, bob):
        assert c.last("arena")["seat"] == "pool"  # type: ignore[index]
        assert c.of("error") == []
    # The sweep after twice the wait for racers: nobody came, no race (never started).
    w.host.known(arena).swept = 0.0
    await w.tick(2 * w.host.settings.pair_join_ms + 100)
    assert w.rooms.calls("start") == [] and await recorded(w, arena) == []
    # A lobby whose racers came after the wait: started with them rather than never.
    w.rooms.refuse = None
    second = await race(w, [ann, bob])
    assert second != room
    w.host.known(arena).swept = 0.0
    await w.tick(2 * w.host.settings.pair_join_ms + 100)
    assert w.rooms.calls("start") == [(second,)]


async def test_a_seat_out_of_its_race_goes_back_to_the_pool(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    await open_arena(w, ann, [bob], minutes=60)
    room = await race(w, [ann, bob])
    bob.room = None  # left the race's room

    def pooled(c: FakeConn) -> int:
        return sum(1 for m in c.of("arena") if m["seat"] == "pool")

    await w.tick(100)
    await w.tick(loop.LEFT_MS - 500)
    assert pooled(bob) == 1  # as it joined
    await w.tick(600)
    assert pooled(bob) == 2 and pooled(ann) == 1
    assert ann.room == room and w.host.whereabouts.seats["ann"].room == room


async def test_a_replaced_socket_joins_again_into_its_own_race(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=60)
    room = await race(w, [ann, bob])
    # Bob's socket closes (the next pass takes its seat); a new one resumed the race.
    bob.open = False
    await w.tick(100)
    assert "bob" not in w.host.whereabouts.seats
    again = FakeConn("bob")
    again.room = room
    assert await seating.join(w.host, again, arena) is Status.OK
    seat = again.last("arena")
    assert seat is not None and (seat["seat"], seat["room"]) == ("racing", room)
    assert again.of("error") == []
    # The race ends: back in the pool from it, then in the next race with Ann.
    await w.rooms.finish(room, ["1", None], ["ann", "bob"])
    await loop.race_ended(w.host, w.rooms, room)
    assert again.last("arena")["seat"] == "pool"  # type: ignore[index]
    assert await race(w, [ann, again]) != room


async def test_a_racer_past_their_bound_of_races_is_out(
    redis_client: aioredis.Redis, key_prefix: str, clock: ShiftedClock
) -> None:
    w = world_of(redis_client, key_prefix, clock, "--arena-races-per-player", "1")
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=60)
    room = await race(w, [ann, bob])
    await w.rooms.finish(room, ["1", "2"], ["ann", "bob"])
    await loop.race_ended(w.host, w.rooms, room)
    for c in (ann, bob):
        refused = c.last("error")
        assert refused is not None and refused["code"] == "slow_down"
        assert 0 < refused["retry_s"] <= 3600
        assert c.last("arena_left")["reason"] == "over"  # type: ignore[index]
    assert w.host.whereabouts.seats == {}
    [record] = await recorded(w, arena)  # the race they had counts
    assert [r["place"] for r in record["racers"]] == [1, 2]


async def test_a_race_nobody_contested_is_no_race(
    redis_client: aioredis.Redis, key_prefix: str, clock: ShiftedClock
) -> None:
    w = world_of(redis_client, key_prefix, clock, *CONTEST)
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=60)
    room = await race(w, [ann, bob])
    await w.rooms.finish(room, [None, None], ["ann", "bob"])  # both give up at once
    await loop.race_ended(w.host, w.rooms, room)
    assert await recorded(w, arena) == []
    for c in (ann, bob):
        assert c.last("arena")["seat"] == "pool"  # type: ignore[index]
    entry = await standings.known(w.host, arena)
    assert entry is not None and standings.races_of(entry) == 0


async def test_a_held_finish_counts_as_not_finished_and_a_voided_one_never(
    world: World,
) -> None:
    w = world
    racers = [FakeConn(p) for p in ("ann", "bob", "cy")]
    arena = await open_arena(w, racers[0], racers[1:], minutes=60)
    room = await race(w, racers)
    await w.host.reviews.decide(replay_id(room, 1, "ann"), "held")
    await w.host.reviews.decide(replay_id(room, 1, "bob"), "voided")
    await w.rooms.finish(room, ["1", "2", "3"], ["ann", "bob", "cy"])
    await loop.race_ended(w.host, w.rooms, room)
    [record] = await recorded(w, arena)
    got = {r["pid"]: (r["place"], r.get("pending")) for r in record["racers"]}
    assert got == {
        "ann": (None, {"place": 1, "time_ms": 31_000}),
        "bob": (None, None),
        "cy": (3, None),
    }
    # An operator clears Ann: the record is amended, her place counts.
    await w.host.reviews.decide(replay_id(room, 1, "ann"), "cleared")
    await races.amend(w.host, arena, room, 1)
    last = (await recorded(w, arena))[-1]
    assert {r["pid"]: r["place"] for r in last["racers"]} == {"ann": 1, "bob": None, "cy": 3}


async def test_a_pledge_is_recorded_kept_or_broken(world: World) -> None:
    w = world
    ann, bob = FakeConn("ann"), FakeConn("bob")
    arena = await open_arena(w, ann, [bob], minutes=60)
    room = await race(w, [ann, bob])
    for c in (ann, bob):
        assert await seating.pledge(w.host, c) is Status.OK
        assert c.last("arena_pledged") == {"type": "arena_pledged", "room": room}
    await w.rooms.finish(room, ["1", "2"], ["ann", "bob"], undid=["bob"])
    await w.rooms.phase(room, "racing")
    assert await seating.pledge(w.host, ann) is Status.NO_PLEDGE  # racing: too late
    await w.rooms.phase(room, "done")
    await loop.race_ended(w.host, w.rooms, room)
    [record] = await recorded(w, arena)
    kept = {r["pid"]: (r["pledged"], r["kept"]) for r in record["racers"]}
    assert kept == {"ann": (True, True), "bob": (True, False)}
    entry = await standings.known(w.host, arena)
    assert entry is not None
    line = standings.table_line(entry, "ann")
    assert line is not None and line.points == 3  # a win of two (2) and its pledge kept (1)


async def test_a_household_is_told_alone_why_its_races_score_nothing(world: World) -> None:
    w = world
    mum, kid = FakeConn("mum", address="203.0.113.7"), FakeConn("kid", address="203.0.113.7")
    arena = await open_arena(w, mum, [kid], minutes=60)
    room = await race(w, [mum, kid])
    assert w.rooms.calls("open") == [(4, arena, True)]  # its room says so
    home = {"mum": "m1", "kid": "m1"}
    await w.rooms.finish(room, ["1", None], ["mum", "kid"], marks=home)
    await loop.race_ended(w.host, w.rooms, room)
    [record] = await recorded(w, arena)
    assert {r["pid"]: r["home"] for r in record["racers"]} == {"mum": 1, "kid": 1}
    w.host.known(arena).pushed_at = 0.0
    await w.tick(100)
    for c in (mum, kid):
        you = c.last("arena_standings")["you"]  # type: ignore[index]
        assert (you["household"], you["points"], you["races"], you["wins"]) == (1, 0, 1, 0)
    table = await standings.table(w.host, arena)
    assert table is not None and all("household" not in x for x in table["standings"])


async def test_standings_are_pushed_at_most_once_per_push_interval(world: World) -> None:
    w = world
    ann, dee = FakeConn("ann"), FakeConn("dee")
    arena = await open_arena(w, ann, [], minutes=60)
    await seating.watch(w.host, dee, arena)
    entry = w.host.known(arena)
    before = len(dee.of("arena_standings"))
    entry.pushed_at = 0.0
    standings.push(w.host, arena, entry, now_ms())
    assert len(dee.of("arena_standings")) == before + 1
    # A change a moment later waits for the interval.
    assert await seating.join(w.host, FakeConn("bob"), arena) is Status.OK
    assert await standings.known(w.host, arena) is entry
    standings.push(w.host, arena, entry, now_ms())
    assert len(dee.of("arena_standings")) == before + 1
    entry.pushed_at -= w.host.settings.arena_push_ms / 1000
    standings.push(w.host, arena, entry, now_ms())
    assert len(dee.of("arena_standings")) == before + 2
    # Nothing changed: nothing pushed, however long after.
    entry.pushed_at = 0.0
    standings.push(w.host, arena, entry, now_ms())
    assert len(dee.of("arena_standings")) == before + 2


async def test_an_arena_being_made_reads_as_not_made_yet(world: World) -> None:
    # Two instances make each scheduled arena; the loser reads it at once. Between the
    # winner's claim (its end alone) and its other fields, that read cached an arena with
    # no start, and the arena pass failed on it (KeyError 'starts_at', under load).
    store = world.host.store
    now = now_ms()
    fields = {"cells": 4, "minutes": 10, "starts_at": now, "ends_at": now + 600_000}
    await store.redis.hsetnx(store.keys.arena("AHALFMADE"), "ends_at", fields["ends_at"])
    assert await arenas.fields(store, "AHALFMADE") == {}
    assert await standings.known(world.host, "AHALFMADE") is None
    assert await arenas.create(store, "AWHOLE", {**fields, "private": 0})
    assert await arenas.fields(store, "AWHOLE") == {k: str(v) for k, v in fields.items()} | {
        "private": "0"
    }


async def test_seating_refusals(world: World) -> None:
    w = world
    ann = FakeConn("ann")
    assert await seating.join(w.host, ann, "ANOSUCHONE") is Status.ARENA_NOT_FOUND
    assert await seating.leave(w.host, ann) is Status.NOT_IN_ARENA
    assert await seating.pledge(w.host, ann) is Status.NO_PLEDGE
    # One private arena at a time per player, even once they left it.
    arena = await open_arena(w, ann, [], minutes=5)
    assert await seating.join(w.host, ann, arena) is Status.ALREADY_IN_ARENA
    assert await seating.leave(w.host, ann) is Status.OK
    assert ann.last("arena_left") == {"type": "arena_left", "arena_id": arena, "reason": "asked"}
    assert await seating.create_private(w.host, ann, 1, 5, 60) is Status.ARENA_LIMIT
    # Three private arenas at most an address makes (--private-arenas-per-address); the
    # one refused is not left counted as a maker.
    address = ann.address
    for pid in ("bob", "cy"):
        other = FakeConn(pid, address=address)
        assert await seating.create_private(w.host, other, 4, 5, 60) is Status.OK
    dee = FakeConn("dee", address=address)
    assert await seating.create_private(w.host, dee, 4, 5, 60) is Status.TOO_MANY_ARENAS
    assert not await w.host.store.redis.exists(w.host.store.keys.arena_made("dee"))
    # A player seated in one arena joins no other, on any socket.
    eve = FakeConn("eve")
    assert await seating.join(w.host, eve, arena) is Status.OK
    fay = FakeConn("fay")
    other_arena = await open_arena(w, fay, [], minutes=5)
    assert await seating.join(w.host, FakeConn("eve"), other_arena) is Status.ALREADY_IN_ARENA
    # Queued for a quick race: no arena.
    gus = FakeConn("gus")
    assert await pairing.enqueue(w.host, gus, 4) is Status.OK
    assert await seating.join(w.host, gus, arena) is Status.ALREADY_QUEUED
    # An arena over (or past its end) takes nobody.
    w.clock.advance(6_000)
    assert await seating.join(w.host, FakeConn("hal"), arena) is Status.ARENA_OVER


async def test_scheduled_arenas_are_made_once_and_listed_running_and_next(
    redis_client: aioredis.Redis, key_prefix: str, clock: ShiftedClock
) -> None:
    # A 4-cell arena of 2 "minutes" every 3, and a 1-cell one of 1 every 4 (a minute: 3 s).
    minute = 3000
    w = world_of(
        redis_client, key_prefix, clock, "--arena-minute-ms", str(minute), "--arenas", "4:2:3,1:1:4"
    )
    # At the start of a slot of both: each entry's running arena and its next.
    clock.advance(12 * minute - now_ms() % (12 * minute) + 100)
    now = now_ms()
    await loop.ensure_scheduled(w.host, now)
    await loop.ensure_scheduled(w.host, now)  # made once, however often asked
    listed = await standings.listed(w.host)
    start_min = now // minute
    ids = sorted(a["arena_id"] for a in listed["running"])
    assert ids == [f"S1-1-{start_min}", f"S4-2-{start_min}"]
    running = next(a for a in listed["running"] if a["cells"] == 4)
    assert running["ends_at"] - running["starts_at"] == 2 * minute and not running["private"]
    upcoming = {a["cells"]: a["starts_at"] for a in listed["next"]}
    assert upcoming == {4: (start_min + 3) * minute, 1: (start_min + 4) * minute}
    # Anyone may join the running one; alone, never paired; at its end the (empty) podium
    # and out.
    ann = FakeConn("ann")
    assert await seating.join(w.host, ann, running["arena_id"]) is Status.OK
    assert ann.last("arena")["seat"] == "pool"  # type: ignore[index]
    assert await arenas.player_arena(w.host.store, "ann") == running["arena_id"]
    await w.tick(minute)
    await w.tick(minute + 100)
    assert w.rooms.calls("open") == []
    over = ann.last("arena_over")
    assert over is not None and over["podium"] == [] and over["you"] is None
    assert ann.last("arena_left")["reason"] == "over"  # type: ignore[index]
    assert await arenas.player_arena(w.host.store, "ann") is None


async def test_the_pairing_pass_keeps_addresses_apart_and_avoids_last_rivals(
    world: World,
) -> None:
    store = world.host.store
    arena, now = "ATESTPAIR", now_ms()
    end = now + 600_000
    await arenas.create(
        store, arena, {"cells": 4, "minutes": 10, "starts_at": now, "ends_at": end, "private": 1}
    )

    async def seat(pid: str, addr: str, score: float) -> None:
        info = {"name": pid, "addr": addr, "rating": 1000}
        assert await arenas.join(store, arena, pid, info, score, now, end) == "ok"

    # Two waiting: not paired before the wait for a fourth, then paired.
    await seat("a", "x1", 1)
    await seat("b", "x2", 2)
    assert await arenas.pair(store, arena, now + 100, 800, end) == []
    assert await arenas.pair(store, arena, now + 900, 800, end) == [["a", "b"]]
    # Six waiting, two of one address: a group of four at once, never the pair together.
    for i, addr in enumerate(["y1", "y1", "y2", "y3", "y4", "y5"]):
        await seat(f"p{i}", addr, i)
    groups = await arenas.pair(store, arena, now, 800, end)
    assert sorted(len(g) for g in groups) == [2, 4]
    assert not any({"p0", "p1"} <= set(g) for g in groups)
    # a and b raced each other last (their group above); c comes: a races c, b waits.
    await seat("a", "z1", 1)
    await seat("b", "z2", 2)
    await seat("c", "z3", 3)
    assert await arenas.pair(store, arena, now + 900, 800, end) == [["a", "c"]]
    # Once d comes, b races d.
    await seat("d", "z4", 4)
    assert await arenas.pair(store, arena, now + 900, 800, end) == [["b", "d"]]
    # Alone with their last rival, they race again.
    await seat("a", "z1", 1)
    await seat("c", "z3", 3)
    assert await arenas.pair(store, arena, now + 900, 800, end) == [["a", "c"]]


async def test_a_review_its_instance_did_not_live_to_finish_is_asked_for_again(
    world: World,
) -> None:
    # Ann's win is recorded at once and its review asked for; the instance dies before the
    # review amends the record (the fake's review never comes back). Two minutes on, any
    # instance asks for it again, while the room still holds the race's lines.
    w = world
    racers = [FakeConn(p) for p in ("ann", "bob")]
    arena = await open_arena(w, racers[0], racers[1:], minutes=60)
    room = await race(w, racers)
    await w.rooms.finish(room, ["1", None], ["ann", "bob"])
    await loop.race_ended(w.host, w.rooms, room)
    assert [a for a in w.rooms.asked if a[0] == "review"] == [("review", (arena, room, 1))]
    entry = races.awaiting(arena, room, 1)
    assert await arenas.overdue(w.host.store, now_ms(), 10) == [entry]
    assert await races.review_overdue(w.host, w.rooms, now_ms()) == 0  # not overdue yet
    w.clock.advance(races.REVIEW_AGAIN_MS + 1)
    assert await races.review_overdue(w.host, w.rooms, now_ms()) == 1
    assert [a for a in w.rooms.asked if a[0] == "review"] == [("review", (arena, room, 1))] * 2
    # Asked again just now: not again at the next look, and still waiting for its answer.
    assert await races.review_overdue(w.host, w.rooms, now_ms()) == 0
    assert await w.host.store.redis.zscore(w.host.store.keys.arenas_awaiting(), entry)


async def test_a_finish_whose_review_never_came_and_whose_room_is_gone_is_held(
    world: World,
) -> None:
    # The race's room has expired (or moved on) by the time the review is asked again:
    # there is no line to review, so Ann's win is held for an operator as unreviewed and
    # counts as not finished; cleared, it counts again.
    w = world
    racers = [FakeConn(p) for p in ("ann", "bob")]
    arena = await open_arena(w, racers[0], racers[1:], minutes=60)
    room = await race(w, racers)
    await w.rooms.finish(room, ["1", None], ["ann", "bob"])
    await loop.race_ended(w.host, w.rooms, room)
    [record] = await recorded(w, arena)
    assert {r["pid"]: r["place"] for r in record["racers"]} == {"ann": 1, "bob": None}
    await w.host.store.redis.delete(w.host.store.keys.room(room))
    w.clock.advance(races.REVIEW_AGAIN_MS + 1)
    assert await races.review_overdue(w.host, w.rooms, now_ms()) == 1
    rid = replay_id(room, 1, "ann")
    decided = await w.host.reviews.decided(rid)
    assert decided is not None and decided["status"] == "held"
    [held] = [h for h in (await w.host.reviews.held_page())["held"] if h["result"] == rid]
    assert (held["player_id"], held["score"]["reason"]) == ("ann", "unreviewed")
    last = (await recorded(w, arena))[-1]
    got = {r["pid"]: (r["place"], r.get("pending")) for r in last["racers"]}
    assert got == {"ann": (None, {"place": 1, "time_ms": 31_000}), "bob": (None, None)}
    assert await arenas.overdue(w.host.store, now_ms(), 10) == []
    await w.host.reviews.decide(rid, "cleared")
    await races.amend(w.host, arena, room, 1)
    last = (await recorded(w, arena))[-1]
    assert {r["pid"]: r["place"] for r in last["racers"]} == {"ann": 1, "bob": None}


async def test_two_amendments_at_once_leave_every_decision_in_the_last_record(
    world: World,
) -> None:
    # One instance reads the records to amend Ann's held win; meanwhile another amends the
    # race for Bob's void. The first one's append, onto records that have grown, is
    # refused: it reads again, and the last record has both decisions.
    w = world
    racers = [FakeConn(p) for p in ("ann", "bob", "cy")]
    arena = await open_arena(w, racers[0], racers[1:], minutes=60)
    room = await race(w, racers)
    await w.rooms.finish(room, ["1", "2", "3"], ["ann", "bob", "cy"])
    await loop.race_ended(w.host, w.rooms, room)
    records = await arenas.results(w.host.store, arena)
    await w.host.reviews.decide(replay_id(room, 1, "ann"), "held")
    stale = await races.amended(w.host, records, room, 1)  # the first instance's view
    assert stale is not None
    await w.host.reviews.decide(replay_id(room, 1, "bob"), "voided")
    await races.amend(w.host, arena, room, 1)  # the other instance's, first in
    assert await arenas.amend(w.host.store, arena, json.dumps(stale), len(records)) is False
    last = (await recorded(w, arena))[-1]
    got = {r["pid"]: (r["place"], r.get("pending")) for r in last["racers"]}
    assert got == {
        "ann": (None, {"place": 1, "time_ms": 31_000}),
        "bob": (None, None),
        "cy": (3, None),
    }
    # Records gone (an arena long over): nothing is appended to a new list.
    await w.host.store.redis.delete(w.host.store.keys.arena_results(arena))
    assert await arenas.amend(w.host.store, arena, json.dumps(stale), 0) is None
    assert await w.host.store.redis.exists(w.host.store.keys.arena_results(arena)) == 0
