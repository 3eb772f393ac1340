"""Ratings that cannot be bought, on real server processes, a real Redis and real sockets
(none bought): identities of one address are not paired by the quick race; a race ends at
its time limit, the unfinished placed by progress; a rated room never shows the boards
live; a provisional player is rated but listed nowhere, and moves an established rival
less. Identities of one address farming nothing in a room together, and the same pair's
results counting once in a window, are decided without a server in
:mod:`tests.server.ranked.test_rating_decisions`.

Each server runs in the test's process (:mod:`tests.helpers.inproc`): the time limits are the
real ones, and a test lets them pass by moving the server's clock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce

from server.ranked.ratings import order, repeats, shown
from server.store.keys import Keys
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.quick_race import MIN_ACTIONS, PACE_OFF, play_some, play_to_win
from tests.helpers.serverproc import FAST, WsClient, redis_url
from tests.helpers.waits import API_STEP, until


def lab(address: str = "203.0.113.7") -> dict[str, Any]:
    """Connect options of a client behind ``address`` (one school lab, one office)."""
    return {"additional_headers": {"X-Forwarded-For": address}}


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    """One instance, pace rule off, the real time limits, a fourth waited for 0.5 s."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *PACE_OFF, "--bot-offer-ms", "60000", "--pair-fourth-ms", "500"]
    async with serving(settings(args, env)) as one:
        yield one


async def rated_room(
    url: str, ann_opts: dict[str, Any] | None = None, bob_opts: dict[str, Any] | None = None
) -> tuple[WsClient, WsClient, str]:
    """Ann makes a public (rated) room, Bob joins, Ann starts: (Ann, Bob, the code)."""
    ann = await WsClient.connect(url, "Ann", **(ann_opts or {}))
    bob = await WsClient.connect(url, "Bob", **(bob_opts or {}))
    await ann.send({"type": "create_room", "cells": 4, "public": True})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "start"})
    started = await bob.expect("started")
    await ann.expect("started")
    return ann, bob, started["code"]


async def settled(redis_client: aioredis.Redis, keys: Keys, client: WsClient) -> dict[str, Any]:
    """The settled marker of the room ``client`` raced in (round 1)."""
    room = next(m for m in client.messages if m["type"] == "snapshot")["room_id"]

    async def marked() -> bool:
        return bool(await redis_client.exists(keys.room_rated(room, 1)))

    await until(marked, timeout=10)
    return dict(json.loads(await redis_client.get(keys.room_rated(room, 1)) or "{}"))


async def test_the_quick_race_pairs_two_identities_of_one_address_only_as_a_household(
    srv: Served, key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Route 2: two identities of one address queue (once: paired every time as
    rivals; then: never). A stranger queued with them races one of them; alone
    together they race as a household, the room says so, and it rates nobody between
    them (tests/server/quick/test_quick_race.py)."""
    ann = await WsClient.connect(srv.ws_url, "Ann", **lab())
    ann2 = await WsClient.connect(srv.ws_url, "Ann2", **lab())
    cy = await WsClient.connect(srv.ws_url, "Cy")
    for c in (ann, ann2, cy):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    snap = await cy.expect("snapshot", timeout=8)
    racers = {p["player_id"] for p in snap["players"]}
    assert cy.player_id in racers and len(racers & {ann.player_id, ann2.player_id}) == 1
    assert not snap.get("household")
    for c in (ann, ann2, cy):
        await c.close()


async def test_a_race_ends_at_its_time_limit_and_ranks_by_progress(
    srv: Served, key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Route 3: a losing racer stays connected and idle (before: no race_over, ever)."""
    ann, bob, code = await rated_room(srv.ws_url)
    await play_some(bob, code, MIN_ACTIONS)
    await play_to_win(ann, code)
    # Bob idles (pings only) for most of the 3 minutes after Ann's finish: racing still.
    for _ in range(3):
        srv.clock.advance(59_000)
        await bob.send({"type": "ping"})
        await bob.expect("pong")
    await asyncio.sleep(0.3)
    assert bob.find("race_over") is None
    # At 3 minutes the server gives up for him.
    srv.clock.advance(4_000)
    over = await bob.expect("race_over", timeout=5)
    assert [r["status"] for r in over["results"]] == ["finished", "gave_up"]
    ratings = await bob.expect("ratings", timeout=5)
    lines = {x["player_id"]: x for x in ratings["changes"]}
    assert lines[ann.player_id]["change"] > 0 > lines[bob.player_id]["change"]
    # Nobody finishes: the race ends at its limit (15 minutes after the start) and rates
    # nobody.
    cy, dee, code = await rated_room(srv.ws_url)
    await play_some(cy, code, MIN_ACTIONS)
    await play_some(dee, code, MIN_ACTIONS)
    srv.clock.advance(14 * 60_000)
    await asyncio.sleep(0.3)
    assert cy.find("race_over") is None
    srv.clock.advance(61_000)
    over = await cy.expect("race_over", timeout=10)
    assert {r["status"] for r in over["results"]} == {"gave_up"}
    marker = await settled(redis_client, Keys(key_prefix), cy)
    assert marker["rated"] is False


def test_the_unfinished_are_placed_by_cards_home() -> None:
    results: dict[str, dict[str, Any]] = {
        "a": {"status": "gave_up"},
        "b": {"status": "finished", "rank": 1},
        "c": {"status": "gave_up"},
        "d": {"status": "gave_up"},
    }
    assert order(results, {"a": 10, "c": 30, "d": 10}) == [("b", 1), ("c", 2), ("a", 3), ("d", 3)]
    assert order(results) == [("b", 1), ("a", 2), ("c", 2), ("d", 2)]


def test_a_repeated_pair_drops_the_lower_placed() -> None:
    met = {frozenset(("a", "b"))}
    assert repeats([("a", 1), ("b", 2), ("c", 3)], met) == {"b": "repeat_pair"}
    assert repeats([("b", 1), ("a", 2)], met) == {"a": "repeat_pair"}
    assert repeats([("a", 1), ("c", 2)], met) == {}


async def test_a_rated_room_never_shows_the_boards_live(srv: Served) -> None:
    """A spectator tab of a friend must not see a rival's board in a race that counts: an
    invite room (live) made rated falls back to delayed, and live is refused in it."""
    ann = await WsClient.connect(srv.ws_url, "Ann")
    await ann.send({"type": "create_room", "cells": 4})
    snap = await ann.expect("snapshot")
    assert snap["watch"] == "live"
    await ann.send({"type": "rated", "rated": True})
    room = await ann.expect("room", rated=True)
    assert room["watch"] == "delayed"
    await ann.send({"type": "watch_mode", "mode": "live"})
    assert (await ann.expect("error"))["code"] == "rated_room"
    await ann.send({"type": "watch_mode", "mode": "progress"})
    assert (await ann.expect("room", rated=True, watch="progress"))["rated"] is True
    await ann.close()


@pytest.fixture
async def provisional_srv(key_prefix: str) -> AsyncIterator[Served]:
    """One instance where two rated races make a player established."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *PACE_OFF, "--provisional-games", "2", "--rated-pair-window-s", "0"]
    args += [
        "--rated-min-actions",
        "0",
        "--provisional-weight",
        "0.25",
        "--established-rivals",
        "0",
    ]
    async with serving(settings(args, env)) as one:
        yield one


async def invite_race(srv: Served, winner: WsClient, loser: WsClient) -> dict[str, Any]:
    """A rated invite race of two; ``winner`` wins, ``loser`` gives up: its ``ratings``, once
    each player's rating has counted it (the updates are applied after the event)."""
    keys = Keys(srv.ctx.settings.key_prefix)
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)

    async def games() -> list[int]:
        return [
            int(await r.hget(keys.rating(c.player_id, 4), "games") or 0) for c in (winner, loser)
        ]

    before = await games()
    await winner.send({"type": "create_room", "cells": 4})
    room = (await winner.expect("snapshot"))["room_id"]
    await loser.send({"type": "join", "room": room, "role": "player"})
    await loser.expect("snapshot")
    await winner.send({"type": "rated", "rated": True})
    await loser.expect("room", rated=True)
    await winner.send({"type": "start"})
    code = (await loser.expect("started"))["code"]
    await winner.expect("started")
    await play_to_win(winner, code)
    await loser.send({"type": "give_up"})
    ratings = await winner.expect("ratings", timeout=8)

    async def counted() -> bool:
        return all(now > then for now, then in zip(await games(), before, strict=True))

    await until(counted, what="the race counted in both players' ratings")
    await r.aclose()
    for c in (winner, loser):
        await c.send({"type": "leave"})
        await c.expect("left")
    return ratings


@pytest.mark.slow
async def test_provisional_players_are_rated_but_listed_nowhere(
    provisional_srv: Served, key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Route 1, 2, 9: a fresh identity's results are its own (shown with "?"), on no public
    list, and move an established rival's rating by a quarter of a full rival's."""
    srv = provisional_srv
    keys = Keys(key_prefix)
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    first = await invite_race(srv, ann, bob)
    assert all(x["provisional"] for x in first["changes"])
    status, top = await srv.get("/api/ratings?cells=4&limit=10")
    assert status == 200 and top["players"] == []  # before: both listed, #1 and #2
    await invite_race(srv, bob, ann)
    # Two rated races each: established, on the list (once its one-second copy is past).

    async def on_the_list() -> set[str]:
        status, top = await srv.get("/api/ratings?cells=4&limit=10")
        assert status == 200, top
        players = {p["player_id"] for p in top["players"]}
        return players if len(players) >= 2 else set()  # both become established at once

    assert await until(on_the_list, what="the ratings list", step=API_STEP) == {
        ann.player_id,
        bob.player_id,
    }
    await ann.send({"type": "queue", "cells": 4})
    assert (await ann.expect("queued"))["provisional"] is False
    await ann.send({"type": "unqueue"})
    await ann.expect("unqueued")
    # A fresh identity beats Ann: Ann loses a quarter of what an established rival costs.
    eve = await WsClient.connect(srv.ws_url, "Eve")
    await eve.send({"type": "queue", "cells": 4})
    assert (await eve.expect("queued"))["provisional"] is True
    await eve.send({"type": "unqueue"})
    await eve.expect("unqueued")
    held = await redis_client.hgetall(keys.rating(ann.player_id, 4))
    mu, sigma = float(held["mu"]), float(held["sigma"])
    ratings = await invite_race(srv, eve, ann)
    lines = {x["player_id"]: x for x in ratings["changes"]}
    assert lines[eve.player_id]["provisional"] and not lines[ann.player_id]["provisional"]
    model = PlackettLuce()
    full = model.rate([[model.rating()], [model.rating(mu=mu, sigma=sigma)]], ranks=[1, 2])
    soft_mu = mu + 0.25 * (full[1][0].mu - mu)
    soft_sigma = sigma + 0.25 * (full[1][0].sigma - sigma)
    assert lines[ann.player_id]["rating"] == shown(soft_mu, soft_sigma)
    assert shown(soft_mu, soft_sigma) != shown(full[1][0].mu, full[1][0].sigma)
    status, top = await srv.get("/api/ratings?cells=4&limit=10")
    assert eve.player_id not in {p["player_id"] for p in top["players"]}
    status, profile = await srv.get(f"/api/player/{eve.player_id}")
    assert profile["ratings"]["4"]["provisional"] is True
    # A race with a provisional racer is never featured.
    await eve.send({"type": "create_room", "cells": 4, "public": True})
    room = (await eve.expect("snapshot"))["room_id"]
    await ann.send({"type": "join", "room": room, "role": "player"})
    await ann.expect("snapshot")
    await eve.send({"type": "start"})
    await eve.expect("started")
    await asyncio.sleep(1.1)  # past the list's one-second copy
    status, live = await srv.get("/api/rooms/live")
    listed = next(r for r in live["rooms"] if r["room_id"] == room)
    assert {r["provisional"] for r in listed["racers"]} == {True, False}
    assert live["featured"] is None
    for c in (ann, bob, eve):
        await c.close()


async def test_a_barred_players_settled_rating_does_not_put_them_back_on_the_list(
    redis_client: aioredis.Redis, key_prefix: str
) -> None:
    """A player barred mid-race: the race settles, their rating is kept in their record, but
    the public top list (``/api/ratings``) does not take them back."""
    from server.store import ratings as stored
    from server.store.store import Store

    keys = Keys(key_prefix)
    store = Store(redis_client, keys, ttl=60)
    line = {"mu": 27.0, "sigma": 7.0, "rating": 1100, "name": "Eve", "change": 100}
    race = {"cells": 4, "at": 1, "rank": 1, "status": "finished", "racers": 2}
    await stored.apply(store, "eve", 4, "R/1", 1, line, race, 60, listed=False)
    await stored.apply(store, "ann", 4, "R/1", 1, {**line, "name": "Ann"}, race, 60)
    assert await redis_client.zscore(keys.ratings_top(4), "eve") is None
    assert await redis_client.zscore(keys.ratings_top(4), "ann") == 1100
    assert await redis_client.exists(keys.rating("eve", 4)) == 1  # their own record stays
