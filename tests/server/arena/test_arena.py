"""Arenas on real server processes, a real Redis and real sockets: three players on two
instances play a private arena of seconds to its end, race after race, back to the pool
after each; the points, the fire, the pledge (kept and broken), a race running at the
arena's end that finishes and counts, the standings pushed at most once a second to a
watcher, the podium, and the table of ``GET /api/arena/ID`` equal to the one recomputed
from the races Redis recorded. The pairing script on its own: groups of four, never two
identities of one address, never last race's rivals while others wait. Refusals: an
arena player is never in the quick race or a second arena at once; bad arena ids."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store import arenas
from server.store.keys import Keys
from server.store.store import Store
from tests.helpers.arenas import (
    ARGS,
    line_of,
    next_race,
    play,
    private_arena,
    race_over,
    recomputed,
)
from tests.helpers.quick_race import action, stopped
from tests.helpers.serverproc import (
    FAST,
    REVIEW_OFF,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
)
from tests.helpers.waits import API_STEP, until


@pytest.fixture
def pair(key_prefix: str) -> Iterator[tuple[ServerProc, ServerProc]]:
    """Two instances on one Redis under the test's prefix."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with (
        running_server(redis_url(), args=ARGS, env=env) as one,
        running_server(redis_url(), args=ARGS, env=env) as two,
    ):
        yield one, two


@pytest.mark.slow
async def test_three_players_on_two_instances_play_an_arena_to_its_podium(
    pair: tuple[ServerProc, ServerProc], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    ann = await WsClient.connect(one.ws_url, "Ann")
    bob = await WsClient.connect(two.ws_url, "Bob")
    cy = await WsClient.connect(one.ws_url, "Cy")
    dee = await WsClient.connect(two.ws_url, "Dee")  # watches only
    racers = [ann, bob, cy]

    await ann.send({"type": "create_arena", "cells": 4, "minutes": 30, "starts_in_s": 3})
    made = await ann.expect("arena")
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    def elapsed() -> float:
        return loop.time() - t0

    arena = made["arena"]["arena_id"]
    assert made["invite"] == f"/#/arena/{arena}" and made["arena"]["private"]
    assert made["arena"]["phase"] == "soon" and made["seat"] == "pool"
    ends_at = made["arena"]["ends_at"]
    for c in (bob, cy):
        await c.send({"type": "arena_join", "arena": arena})
        assert (await c.expect("arena"))["arena"]["arena_id"] == arena
    await dee.send({"type": "arena_watch", "arena": arena})
    assert (await dee.expect("arena"))["seat"] == "out"
    # A private arena is listed nowhere.
    status, listed = one.get_json("/api/arenas")
    assert status == 200 and arena not in json.dumps(listed)

    # A player of an arena is in no quick race and no second arena at once.
    await bob.send({"type": "queue", "cells": 4})
    assert (await bob.expect("error"))["code"] == "in_arena"
    await bob.send({"type": "arena_join", "arena": arena})
    assert (await bob.expect("error"))["code"] == "already_in_arena"

    # Race 1: Ann wins with her pledge kept (3 + 1), Bob second (1), Cy gives up (0).
    code = await next_race(racers, pledgers=(ann,))
    line = await line_of(code)
    await play(ann, line)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 2: Ann wins again (3): two wins in a row, she is on fire.
    code = await next_race(racers)
    line = await line_of(code)
    await play(ann, line)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 3: on fire, Ann pledges but takes a move back: 3 x 2, no extra point.
    code = await next_race(racers, pledgers=(ann,))
    line = await line_of(code)
    await ann.send(action(line[0], 0))
    await ann.expect("ack", id=0)
    await ann.send({"type": "undo", "id": 1})
    await ann.expect("ack", id=1)
    await play(ann, line, first_id=2)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 4 runs past the arena's end: it finishes and counts. Bob wins it (3); Ann,
    # second on fire, gets 1 x 2 and her fire goes out.
    code = await next_race(racers)
    line = await line_of(code)
    # Wait for the arena's end (by the server's clock, as the arena message gave it).
    await asyncio.sleep(max(0.0, (ends_at - made["now"]) / 1000 - elapsed()) + 0.5)
    await play(bob, line)
    await play(ann, line)
    await cy.send({"type": "give_up"})

    expected = [(ann.player_id, 15, 0, 4), (bob.player_id, 6, 1, 4), (cy.player_id, 0, 0, 4)]
    for c in (*racers, dee):
        over = await c.expect("arena_over", timeout=20)
        assert [(x["player_id"], x["points"]) for x in over["podium"]] == [
            (p, pts)
            for p, pts, _s, _r in expected
            if pts  # no podium without a point
        ]
    for c in racers:
        assert (await c.expect("arena_left", timeout=5))["reason"] == "over"

    # The table of the API, the one recomputed from Redis's records, and the expected one.
    status, table = one.get_json(f"/api/arena/{arena}")
    assert status == 200 and table["arena"]["phase"] == "over" and table["races"] == 4
    api = [(x["player_id"], x["points"], x["streak"], x["races"]) for x in table["standings"]]
    raw = await redis_client.lrange(Keys(key_prefix).arena_results(arena), 0, -1)
    records = [json.loads(x) for x in raw]
    assert api == recomputed(records) == expected
    assert [x["player_id"] for x in table["podium"]] == [p for p, pts, *_ in expected if pts]
    pledges = {(r["race"], x["pid"]): x for r in records for x in r["racers"] if x["pledged"]}
    assert sorted((x["kept"]) for x in pledges.values()) == [False, True]
    assert table["standings"][0]["fire"] is False and table["standings"][1]["streak"] == 1
    # The Watch page's read, the first lines only; a count out of bounds is refused.
    status, first = two.get_json(f"/api/arena/{arena}?top=2")
    assert status == 200 and first["standings"] == table["standings"][:2] and first["races"] == 4
    for bad in ("0", "1001", "x"):
        status, refused = one.get_json(f"/api/arena/{arena}?top={bad}")
        assert status == 400 and refused["error"] == "bad_top"

    # The watcher's pushes: never two within a second (server time), the last one final.
    pushes = [m for m in dee.messages if m["type"] == "arena_standings"]
    assert len(pushes) >= 3
    for a, b in itertools.pairwise(pushes[1:]):  # the first answers the watch
        assert b["now"] - a["now"] >= 900, (a["now"], b["now"])
    assert [(x["player_id"], x["points"]) for x in pushes[-1]["top"]] == [
        (p, pts) for p, pts, _s, _r in expected
    ]
    # The player page names no arena once it is over; joining an arena that is over fails.
    status, page = two.get_json(f"/api/player/{ann.player_id}")
    assert status == 200 and page["arena"] is None
    await dee.send({"type": "arena_join", "arena": arena})
    assert (await dee.expect("error"))["code"] == "arena_over"
    for c in (*racers, dee):
        await c.close()


@pytest.mark.slow
async def test_racers_who_come_after_their_race_closed_go_back_to_the_pool(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Ann and Bob's instance is stopped from before the arena's start: the other one pairs
    # them and waits for them in vain, and the race closes with nobody in. Back, their
    # instance is told it is too late: no error for them, back in the pool, and the next
    # race takes them both.
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*ARGS, "--pair-join-ms", "300"]
    keys = Keys(key_prefix)
    with (
        running_server(redis_url(), args=args, env=env) as _maker,
        running_server(redis_url(), args=args, env=env) as keeper,
    ):
        ann = await WsClient.connect(keeper.ws_url, "Ann")
        bob = await WsClient.connect(keeper.ws_url, "Bob")
        arena = await private_arena(ann, [bob], 60)
        with stopped(keeper):

            async def paired() -> bool:
                return await redis_client.hget(keys.arena_racing(arena), ann.player_id) is not None

            await until(paired, timeout=15)
            room = str(await redis_client.hget(keys.arena_racing(arena), ann.player_id))

            async def closed() -> bool:
                return await redis_client.hget(keys.room(room), "closed") == "1"

            await until(closed, timeout=10)
        snaps = [await c.expect("snapshot", timeout=30) for c in (ann, bob)]
        assert snaps[0]["room_id"] == snaps[1]["room_id"] != room
        for c in (ann, bob):
            await c.expect("started", timeout=10)
        assert [m for c in (ann, bob) for m in c.messages if m["type"] == "error"] == []
        for c in (ann, bob):
            await c.close()


async def test_bad_arena_requests_are_refused(
    pair: tuple[ServerProc, ServerProc], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    ann = await WsClient.connect(one.ws_url, "Ann")
    await ann.send({"type": "arena_join", "arena": "ANOSUCHONE"})
    assert (await ann.expect("error"))["code"] == "arena_not_found"
    await ann.send({"type": "arena_leave"})
    assert (await ann.expect("error"))["code"] == "not_in_arena"
    await ann.send({"type": "arena_pledge"})
    assert (await ann.expect("error"))["code"] == "no_pledge"
    await ann.send({"type": "arena_join", "arena": "../../x"})
    assert (await ann.expect("error"))["code"] == "invalid_message"
    status, _ = one.get_json("/api/arena/ANOSUCHONE")
    assert status == 404
    # One private arena at a time per player.
    await ann.send({"type": "create_arena", "cells": 1, "minutes": 5, "starts_in_s": 60})
    arena = (await ann.expect("arena"))["arena"]["arena_id"]
    await ann.send({"type": "arena_leave"})
    await ann.expect("arena_left", reason="asked")
    await ann.send({"type": "create_arena", "cells": 1, "minutes": 5, "starts_in_s": 60})
    assert (await ann.expect("error"))["code"] == "arena_limit"
    # Fresh identities of one address make three at most (--private-arenas-per-address),
    # on any instance; the one refused is not left counted as a maker.
    made = [arena]
    for name, srv in (("Bob", two), ("Cy", one), ("Dee", two)):
        same = {"X-Forwarded-For": ann.address}
        other = await WsClient.connect(srv.ws_url, name, additional_headers=same)
        await other.send({"type": "create_arena", "cells": 4, "minutes": 5, "starts_in_s": 60})
        if name == "Dee":
            assert (await other.expect("error"))["code"] == "too_many_arenas"
            assert not await redis_client.exists(Keys(key_prefix).arena_made(other.player_id))
        else:
            made.append((await other.expect("arena"))["arena"]["arena_id"])
        await other.close()
    assert len(set(made)) == 3
    # Queued for a quick race: no arena; in an arena: entering a room leaves it.
    await ann.send({"type": "queue", "cells": 4})
    await ann.expect("queued")
    await ann.send({"type": "arena_join", "arena": arena})
    assert (await ann.expect("error"))["code"] == "already_queued"
    await ann.send({"type": "unqueue"})
    await ann.expect("unqueued")
    await ann.send({"type": "arena_join", "arena": arena})
    await ann.expect("arena")
    await ann.send({"type": "create_room", "cells": 4})
    await ann.expect("arena_left", reason="room")
    await ann.expect("snapshot")
    await ann.close()


async def test_an_arena_being_made_reads_as_not_made_yet(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Two instances make each scheduled arena; the loser reads it at once. Between the
    # winner's claim (its end alone) and its other fields, that read cached an arena with
    # no start, and the arena pass failed on it (KeyError 'starts_at', under load).
    store = Store(redis_client, Keys(key_prefix), 60)
    now = int(time.time() * 1000)
    fields = {"cells": 4, "minutes": 10, "starts_at": now, "ends_at": now + 600_000}
    await redis_client.hsetnx(store.keys.arena("AHALFMADE"), "ends_at", fields["ends_at"])
    assert await arenas.fields(store, "AHALFMADE") == {}
    assert await arenas.create(store, "AWHOLE", {**fields, "private": 0})
    assert await arenas.fields(store, "AWHOLE") == {k: str(v) for k, v in fields.items()} | {
        "private": "0"
    }


async def test_the_pairing_pass_keeps_addresses_apart_and_avoids_last_rivals(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    store = Store(redis_client, Keys(key_prefix), 60)
    arena, now = "ATESTPAIR", int(time.time() * 1000)
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


async def test_scheduled_arenas_are_listed_running_and_next(key_prefix: str) -> None:
    # A 4-cell arena of 2 "minutes" every 3, and a 1-cell one of 1 every 4 (a minute: 3 s,
    # so that a loaded machine still joins the running one before it ends).
    minute = 3000
    args = [*FAST, *REVIEW_OFF, "--arena-minute-ms", str(minute), "--arenas", "4:2:3,1:1:4"]
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with running_server(redis_url(), args=args, env=env) as one:

        def joinable(a: dict[str, Any]) -> bool:  # running, with half its time still to go
            return bool(a["cells"] == 4 and a["ends_at"] - time.time() * 1000 > minute)

        def both_listed() -> dict[str, Any] | None:
            status, listed = one.get_json("/api/arenas")
            assert status == 200
            # (Each instance makes the next slot's arena within a second of a slot's start.)
            running = any(joinable(a) for a in listed["running"])
            return listed if running and {a["cells"] for a in listed["next"]} == {4, 1} else None

        listed = await until(
            both_listed, 20, "a joinable arena running and both next ones", step=API_STEP
        )
        running = next(a for a in listed["running"] if joinable(a))
        upcoming = [a for a in listed["next"] if a["cells"] == 4]
        assert upcoming and upcoming[0]["starts_at"] - running["starts_at"] == 3 * minute
        start_min = running["starts_at"] // minute
        assert running["arena_id"] == f"S4-2-{start_min}" and not running["private"]
        assert running["ends_at"] - running["starts_at"] == 2 * minute and start_min % 3 == 0
        assert {a["cells"] for a in listed["next"]} == {4, 1}
        # Anyone may join the running one; the player's page names it.
        ann = await WsClient.connect(one.ws_url, "Ann")
        await ann.send({"type": "arena_join", "arena": running["arena_id"]})
        got = await ann.expect("arena")
        assert got["arena"]["arena_id"] == running["arena_id"] and got["seat"] == "pool"
        status, page = one.get_json(f"/api/player/{ann.player_id}")
        assert status == 200 and page["arena"] == running["arena_id"]
        # Alone, she is never paired; at its end she hears the (empty) podium and is out.
        over = await ann.expect("arena_over", timeout=10)
        assert over["podium"] == [] and over["you"] is None
        assert (await ann.expect("arena_left"))["reason"] == "over"
        await ann.close()
