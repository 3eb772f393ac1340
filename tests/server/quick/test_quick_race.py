"""The quick race and ratings on real server processes, a real Redis and real sockets:
four players queueing on two instances are paired into one public, rated race, listed and
featured while it runs; their new ratings are openskill's for the order they finished in,
applied once although both instances see the end; a queued socket that closes leaves the
queue; a lone player is offered a bot and races it; invite rooms change ratings only when
their host said so; a too-fast finisher is held for review, everyone's ratings waiting, and
keeps their rating once an operator voids the finish; racers who played too few actions
keep their ratings, and a race nobody finished rates nobody; hostile inputs change
nothing; two identities of one address alone race as a household, rated by nobody; a paired
room starts although the instance that made it died. The pairing's decisions one by one,
without a server: test_pairing_life.py and test_pairing_queue.py."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce

from server.ranked.ratings import shown
from server.store.keys import Keys
from tests.helpers.inproc import Served, serving_two, settings
from tests.helpers.quick_race import (
    ESTABLISHED,
    MIN_ACTIONS,
    PACE_OFF,
    play_some,
    play_to_win,
    stopped,
)
from tests.helpers.serverproc import FAST, ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import API_STEP, until


@pytest.fixture
async def pair(key_prefix: str) -> AsyncIterator[tuple[Served, Served]]:
    """Two instances on one Redis under the test's prefix, pace rule off, every player
    established from the start (listed at once; provisional players have tests of their
    own); in the test's process (:mod:`tests.helpers.inproc`)."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *PACE_OFF, *ESTABLISHED, "--bot-offer-ms", "60000"]
    async with serving_two(settings(args, env)) as both:
        yield both


async def test_four_players_on_two_instances_race_a_rated_paired_race(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    keys = Keys(key_prefix)
    ann = await WsClient.connect(one.ws_url, "Ann")
    bob = await WsClient.connect(two.ws_url, "Bob")
    cy = await WsClient.connect(one.ws_url, "Cy")
    dee = await WsClient.connect(two.ws_url, "Dee")
    racers = (ann, bob, cy, dee)
    for c in racers:
        await c.send({"type": "queue", "cells": 4})
        queued = await c.expect("queued")
        assert queued["cells"] == 4 and queued["rating"] == 1000 and queued["penalty_s"] == 0
    snaps = [await c.expect("snapshot", timeout=8) for c in racers]
    room = snaps[0]["room_id"]
    for snap in snaps:
        assert snap["room_id"] == room  # one room, whichever instance each player is on
        assert snap["public"] and snap["rated"] and snap["paired"] and snap["host"] is None
        assert snap["watch"] == "delayed" and snap["code"] is None
    started = [await c.expect("started", timeout=8) for c in racers]
    code = started[0]["code"]
    assert sorted(started[0]["players"]) == sorted(c.player_id for c in racers)
    assert await redis_client.zcard(keys.queue_wait(4)) == 0

    # Listed and featured while it runs (names and progress, no code, no board).
    status, live = await one.get("/api/rooms/live")
    assert status == 200 and live["featured"]["room_id"] == room
    assert code not in json.dumps(live)
    assert {r["rating"] for r in live["featured"]["racers"]} == {None}

    await play_to_win(ann, code)
    await play_to_win(bob, code)
    await cy.send({"type": "give_up"})
    await dee.send({"type": "leave"})
    over = await ann.expect("race_over", timeout=8)
    assert [r["player_id"] for r in over["results"][:2]] == [ann.player_id, bob.player_id]
    ratings = await cy.expect("ratings", timeout=8)

    # openskill's Plackett-Luce for Ann 1st, Bob 2nd; Cy and Dee, who played no action,
    # keep their ratings (a race given up at once buys nothing).
    model = PlackettLuce()
    order = [ann, bob]
    new = model.rate([[model.rating()] for _ in order], ranks=[1, 2])
    expected = {c.player_id: (t[0].mu, t[0].sigma) for c, t in zip(order, new, strict=True)}
    lines = {x["player_id"]: x for x in ratings["changes"]}
    assert set(lines) == {c.player_id for c in racers}
    for c in (cy, dee):
        line = lines[c.player_id]
        assert line["unrated_reason"] == "too_few_actions"
        assert line["change"] == 0 and line["games"] == 0
    for pid, (mu, sigma) in expected.items():
        assert lines[pid]["rating"] == shown(mu, sigma)
        assert lines[pid]["change"] == shown(mu, sigma) - 1000 and lines[pid]["games"] == 1

        async def applied(key: str = keys.rating(pid, 4)) -> bool:
            return bool(await redis_client.hexists(key, "mu"))

        await until(applied)  # the `ratings` event comes first, then each player's update
        held = await redis_client.hgetall(keys.rating(pid, 4))
        assert float(held["mu"]) == pytest.approx(mu)
        assert float(held["sigma"]) == pytest.approx(sigma)
    # Both instances saw the end; the race counted once.
    await asyncio.sleep(1.0)
    for c in (ann, bob):
        assert await redis_client.hget(keys.rating(c.player_id, 4), "games") == "1"
        assert await redis_client.llen(keys.rating_history(c.player_id, 4)) == 1
    for c in (cy, dee):
        assert await redis_client.exists(keys.rating(c.player_id, 4)) == 0
    assert len([m for m in bob.messages if m["type"] == "ratings"]) == 1

    status, top = await two.get("/api/ratings?cells=4&limit=10")
    assert status == 200 and top["players"][0]["player_id"] == ann.player_id
    assert [p["rating"] for p in top["players"]] == sorted(
        (lines[c.player_id]["rating"] for c in (ann, bob)), reverse=True
    )
    status, profile = await one.get(f"/api/player/{ann.player_id}")
    assert status == 200
    assert profile["ratings"]["4"]["rating"] == lines[ann.player_id]["rating"]
    assert len(profile["ratings"]["4"]["history"]) == 1
    assert profile["public_races"][0]["rank"] == 1 and profile["public_races"][0]["racers"] == 4
    assert "room" not in json.dumps(profile["public_races"])
    # Over: off the live list, and no longer featured.

    async def unlisted() -> Any:
        status, live = await one.get("/api/rooms/live")
        return live if status == 200 and room not in json.dumps(live) else None

    live = await until(unlisted, what="the race off the live list", step=API_STEP)
    assert live["featured"] is None
    for c in racers:
        await c.close()


async def test_a_queued_socket_that_closes_leaves_the_queue(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, _two = pair
    keys = Keys(key_prefix)
    ann = await WsClient.connect(one.ws_url, "Ann")
    await ann.send({"type": "queue", "cells": 2})
    await ann.expect("queued")
    assert await redis_client.zscore(keys.queue_wait(2), ann.player_id) is not None
    await ann.close()

    async def gone() -> bool:
        return await redis_client.zscore(keys.queue_wait(2), ann.player_id) is None

    await until(gone)
    assert await redis_client.hget(keys.queue_info(2), ann.player_id) is None
    # A socket that queued, then says hello as a new player, still takes its wait along.
    bob = await WsClient.connect(one.ws_url, "Bob")
    await bob.send({"type": "queue", "cells": 2})
    await bob.expect("queued")
    await bob.send({"type": "hello", "name": "Notbob"})
    await bob.expect("welcome")
    await bob.send({"type": "unqueue"})
    assert (await bob.expect("unqueued"))["reason"] == "asked"
    assert await redis_client.zcard(keys.queue_wait(2)) == 0
    await bob.send({"type": "queue", "cells": 2})
    await bob.expect("queued")
    await bob.send({"type": "hello", "name": "Bob again"})
    await bob.expect("welcome")
    await bob.close()

    async def empty() -> bool:
        return await redis_client.zcard(keys.queue_wait(2)) == 0

    await until(empty)


async def test_hostile_inputs_get_clear_errors_and_change_nothing(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    keys = Keys(key_prefix)
    ann = await WsClient.connect(one.ws_url, "Ann")
    await ann.send({"type": "unqueue"})
    assert (await ann.expect("error"))["code"] == "not_queued"
    await ann.send({"type": "accept_bot"})
    assert (await ann.expect("error"))["code"] == "no_bot_offer"
    for bad in ({"cells": 3}, {"cells": "4"}, {"cells": 4, "rated": True}):
        await ann.send({"type": "queue", **bad})
        assert (await ann.expect("error"))["code"] == "invalid_message"
    await ann.send({"type": "queue", "cells": 1})
    await ann.expect("queued")
    await ann.send({"type": "queue", "cells": 1})
    assert (await ann.expect("error"))["code"] == "already_queued"
    # The same identity from another socket, on the other instance, in another variant.
    ann2 = await WsClient.connect(two.ws_url, "Ann", token=ann.token)
    await ann2.send({"type": "queue", "cells": 4})
    assert (await ann2.expect("error"))["code"] == "already_queued"
    assert await redis_client.zcard(keys.queue_wait(1)) == 1
    assert await redis_client.zcard(keys.queue_wait(4)) == 0
    await ann.send({"type": "accept_bot"})
    assert (await ann.expect("error"))["code"] == "no_bot_offer"  # none offered yet
    # Entering a room takes the player out of the queue first.
    await ann.send({"type": "create_room", "cells": 4})
    assert (await ann.expect("unqueued"))["reason"] == "room"
    snap = await ann.expect("snapshot")
    assert await redis_client.zcard(keys.queue_wait(1)) == 0
    await ann.send({"type": "queue", "cells": 4})
    assert (await ann.expect("error"))["code"] == "already_in_room"
    assert await redis_client.zcard(keys.queue_wait(4)) == 0
    # `rated`: the host of an invite room only, in the lobby; never unrating a public room.
    bob = await WsClient.connect(one.ws_url, "Bob")
    await bob.send({"type": "rated", "rated": True})
    assert (await bob.expect("error"))["code"] == "not_in_room"
    await bob.send({"type": "join", "room": snap["room_id"], "role": "player"})
    await bob.expect("snapshot")
    await bob.send({"type": "rated", "rated": True})
    assert (await bob.expect("error"))["code"] == "not_host"
    await ann.send({"type": "rated", "rated": "yes"})
    assert (await ann.expect("error"))["code"] == "invalid_message"
    assert await redis_client.hget(keys.room(snap["room_id"]), "rated") == "0"
    eve = await WsClient.connect(one.ws_url, "Eve")
    await eve.send({"type": "create_room", "public": True})
    public = await eve.expect("snapshot")
    assert public["rated"] is True
    await eve.send({"type": "rated", "rated": False})
    assert (await eve.expect("error"))["code"] == "public_room"
    assert await redis_client.hget(keys.room(public["room_id"]), "rated") == "1"
    await ann.send({"type": "start"})
    await ann.expect("started")
    await ann.send({"type": "rated", "rated": True})
    assert (await ann.expect("error"))["code"] == "wrong_state"
    for c in (ann, ann2, bob, eve):
        await c.close()


async def queue_reply(client: WsClient) -> dict[str, Any]:
    """The answer to a ``queue``: ``queued`` or an ``error``, whichever comes."""
    found: list[dict[str, Any]] = []

    async def answered() -> bool:
        reply = client.find("queued") or client.find("error")
        if reply is not None:
            found.append(reply)
        return bool(found)

    await until(answered)
    return found[0]


async def test_two_sockets_of_one_player_never_wait_in_two_queues(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Two tabs of one identity, on two instances, ask for two variants at the same moment:
    one waits, the other hears ``already_queued`` (the queues are checked and joined in one
    script), never both waiting to be paired twice."""
    one, two = pair
    keys = Keys(key_prefix)
    ann = await WsClient.connect(one.ws_url, "Ann")
    ann2 = await WsClient.connect(two.ws_url, "Ann", token=ann.token)
    for _ in range(10):
        await asyncio.gather(
            ann.send({"type": "queue", "cells": 4}), ann2.send({"type": "queue", "cells": 2})
        )
        replies = [await queue_reply(ann), await queue_reply(ann2)]
        kinds = sorted(r["type"] for r in replies)
        assert kinds == ["error", "queued"], replies
        assert [r["code"] for r in replies if r["type"] == "error"] == ["already_queued"]
        waiting = [await redis_client.zcard(keys.queue_wait(cells)) for cells in (4, 2)]
        assert sorted(waiting) == [0, 1]
        queued = ann if replies[0]["type"] == "queued" else ann2
        await queued.send({"type": "unqueue"})
        await queued.expect("unqueued")
        assert [await redis_client.zcard(keys.queue_wait(c)) for c in (4, 2)] == [0, 0]
    for c in (ann, ann2):
        await c.close()


async def race_invite(url: str, rated: bool) -> tuple[WsClient, WsClient, dict[str, Any]]:
    """Ann hosts an invite room (rated or not), Bob joins, Ann wins, Bob gives up."""
    ann = await WsClient.connect(url, "Ann")
    bob = await WsClient.connect(url, "Bob")
    await ann.send({"type": "create_room", "cells": 4})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    if rated:
        await ann.send({"type": "rated", "rated": True})
        # Every racer sees it in the lobby, before the start.
        for c in (ann, bob):
            await c.expect("room", rated=True, state="lobby")
    await ann.send({"type": "start"})
    started = await ann.expect("started")
    await play_some(bob, started["code"], MIN_ACTIONS)  # enough to count
    await play_to_win(ann, started["code"])
    await bob.send({"type": "give_up"})
    over = await bob.expect("race_over")
    return ann, bob, over


async def test_invite_rooms_are_unrated_unless_their_host_says_so(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, _two = pair
    keys = Keys(key_prefix)
    ann, bob, _over = await race_invite(one.ws_url, rated=False)
    await asyncio.sleep(1.0)
    assert not [m for m in ann.messages + bob.messages if m["type"] == "ratings"]
    for c in (ann, bob):
        assert await redis_client.exists(keys.rating(c.player_id, 4)) == 0
    ann, bob, _over = await race_invite(one.ws_url, rated=True)
    ratings = await ann.expect("ratings")
    model = PlackettLuce()
    new = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    lines = {x["player_id"]: x for x in ratings["changes"]}
    assert lines[ann.player_id]["rating"] == shown(new[0][0].mu, new[0][0].sigma)
    assert lines[bob.player_id]["rating"] == shown(new[1][0].mu, new[1][0].sigma)
    assert lines[ann.player_id]["change"] > 0 > lines[bob.player_id]["change"]


async def late_snapshot(url: str, host: WsClient) -> dict[str, Any]:
    """The snapshot a newcomer gets of ``host``'s room after its race (a reload would)."""
    room = next(m for m in host.messages if m["type"] == "snapshot")["room_id"]
    sam = await WsClient.connect(url, "Sam")
    await sam.send({"type": "join", "room": room, "role": "spectator"})
    snap = await sam.expect("snapshot")
    await sam.close()
    return snap


async def test_a_settled_rated_round_keeps_its_changes_in_the_snapshot(
    pair: tuple[Served, Served],
) -> None:
    one, two = pair
    ann, bob, _over = await race_invite(one.ws_url, rated=False)
    await asyncio.sleep(0.5)
    snap = await late_snapshot(two.ws_url, ann)
    assert snap["state"] == "done" and "ratings" not in snap  # unrated: nothing to show
    ann, bob, _over = await race_invite(one.ws_url, rated=True)
    ratings = await bob.expect("ratings")
    # On the other instance too: the lines are the room's, as the event gave them.
    snap = await late_snapshot(two.ws_url, ann)
    assert snap["state"] == "done" and snap["ratings"] == ratings["changes"]
    for c in (ann, bob):
        await c.close()


@pytest.mark.slow
async def test_a_lone_player_is_offered_a_bot_and_races_it(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, "--bot-offer-ms", "500"]
    with running_server(redis_url(), args=args, env=env) as srv:
        ann = await WsClient.connect(srv.ws_url, "Ann")
        await ann.send({"type": "queue", "cells": 4})
        await ann.expect("queued")
        offer = await ann.expect("bot_offer", timeout=5)
        assert offer["cells"] == 4 and offer["bot"]["rating"] == 1000
        await ann.send({"type": "accept_bot"})
        assert (await ann.expect("unqueued"))["reason"] == "room"
        snap = await ann.expect("snapshot")
        assert snap["paired"] and not snap["public"] and not snap["rated"]
        room = await ann.expect("room", timeout=10, state="lobby")
        while len(room["players"]) < 2:
            room = await ann.expect("room", timeout=10)
        bot = next(p for p in room["players"] if p["player_id"] != ann.player_id)
        assert bot["name"] == offer["bot"]["name"]
        started = await ann.expect("started", timeout=10)
        assert bot["player_id"] in started["players"]
        # The bot plays through the move path: Ann sees its progress, never its board.
        await ann.expect("progress", timeout=10, player_id=bot["player_id"], moves=2)
        assert not [
            m for m in ann.messages if m["type"] == "delta" and m["player_id"] != ann.player_id
        ]
        assert await redis_client.zcard(Keys(key_prefix).queue_wait(4)) == 0
        await ann.close()


@pytest.mark.parametrize("decision", ["void", "clear"])
@pytest.mark.slow
async def test_a_too_fast_finisher_is_held_and_the_ratings_wait_for_the_operator(
    key_prefix: str, redis_client: aioredis.Redis, decision: str
) -> None:
    # Before: a finisher at a script's pace was refused by the pace rules at once. Now the
    # review holds them, everyone's ratings wait, and the operator's decision settles the
    # race: voided, the finisher keeps their rating; cleared, the race counts as finished.
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    token = "admin-" + "t" * 20
    args = [*FAST, "--pair-fourth-ms", "300", "--bot-offer-ms", "60000", "--admin-token", token]
    args += ESTABLISHED  # the model's full changes (provisional rivals soften everyone's)
    with running_server(redis_url(), args=args, env=env) as srv:
        clients = [await WsClient.connect(srv.ws_url, n) for n in ("Ann", "Bob", "Cy")]
        ann, bob, cy = clients
        for c in clients:
            await c.send({"type": "queue", "cells": 4})
        started = [await c.expect("started", timeout=10) for c in clients]
        code = started[0]["code"]
        await play_to_win(ann, code)  # a script's pace
        for c in (bob, cy):  # enough actions to be rated (--rated-min-actions), not a win
            await play_some(c, code, MIN_ACTIONS)
            await c.send({"type": "give_up"})
        # The review runs at the lowest priority: a loaded host delays it.
        held: list[dict[str, Any]] = await until(
            lambda: admin_json(srv, "GET", "/api/admin/held", token)["held"],
            60,
            "a held finish",
            step=API_STEP,
        )
        assert [h["player_id"] for h in held] == [ann.player_id]
        assert held[0]["kind"] == "race" and held[0]["score"]["held"] is True
        with pytest.raises(AssertionError):
            await ann.expect("ratings", timeout=1.5)  # nobody's rating moves meanwhile
        keys = Keys(key_prefix)
        assert await redis_client.exists(keys.rating(bob.player_id, 4)) == 0
        done = admin_json(srv, "POST", f"/api/admin/{decision}/{held[0]['result']}", token)
        assert done["status"] == {"void": "voided", "clear": "cleared"}[decision]
        model = PlackettLuce()
        if decision == "void":
            # The only finisher voided, nobody counted finished: a race nobody finished rates
            # nobody (the honest-rating rule), so no ratings come and none is written.
            await until(
                lambda: not admin_json(srv, "GET", "/api/admin/held", token)["held"], step=API_STEP
            )
            with pytest.raises(AssertionError):
                await ann.expect("ratings", timeout=2)
            for c in clients:
                assert await redis_client.exists(keys.rating(c.player_id, 4)) == 0
        else:
            ratings = await ann.expect("ratings", timeout=8)
            lines = {x["player_id"]: x for x in ratings["changes"]}
            three = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 2])
            assert lines[ann.player_id]["unrated_reason"] is None
            assert lines[ann.player_id]["games"] == 1
            assert lines[ann.player_id]["rating"] == shown(three[0][0].mu, three[0][0].sigma)
            assert lines[bob.player_id]["rating"] == shown(three[1][0].mu, three[1][0].sigma)
            assert lines[bob.player_id]["games"] == 1
        for c in clients:
            await c.close()


async def test_leaving_paired_races_before_the_start_holds_a_player_back(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    keys = Keys(key_prefix)
    dodger = await WsClient.connect(one.ws_url, "Dodger")
    others = [await WsClient.connect(two.ws_url, n) for n in ("Bob", "Cy", "Dee")]
    for c in (dodger, *others):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    await dodger.expect("snapshot", timeout=8)
    await dodger.send({"type": "leave"})  # before the countdown ends: a dodge
    await dodger.expect("left")

    async def counted() -> bool:
        return await redis_client.get(keys.dodges(dodger.player_id)) == "1"

    await until(counted, step=API_STEP)
    await dodger.send({"type": "queue", "cells": 4})
    assert (await dodger.expect("queued"))["penalty_s"] == 15  # from the first on
    await dodger.send({"type": "unqueue"})
    assert (await dodger.expect("unqueued"))["reason"] == "asked"
    await redis_client.set(keys.dodges(dodger.player_id), 3, ex=60)
    await dodger.send({"type": "queue", "cells": 4})
    assert (await dodger.expect("queued"))["penalty_s"] == 60
    for c in (dodger, *others):
        await c.close()


async def test_a_rated_race_nobody_finished_changes_no_rating(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Two identities start a rated race and both leave at once (rating farming by walking out: this
    raised both ratings, every time): the race ends and settles, and rates nobody."""
    one, two = pair
    keys = Keys(key_prefix)
    ann = await WsClient.connect(one.ws_url, "Ann")
    bob = await WsClient.connect(two.ws_url, "Bob")
    await ann.send({"type": "create_room", "cells": 2})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "rated", "rated": True})
    await bob.expect("room", rated=True)
    await ann.send({"type": "start"})
    started = await bob.expect("started")
    # Enough actions each to count, then both leave: the last leave ends the race.
    await play_some(ann, started["code"], MIN_ACTIONS)
    await play_some(bob, started["code"], MIN_ACTIONS)
    await ann.send({"type": "leave"})
    await ann.expect("left")
    await bob.send({"type": "leave"})
    await bob.expect("left")

    async def settled() -> bool:
        return bool(await redis_client.exists(keys.room_rated(room, 1)))

    await until(settled)
    marker = json.loads(await redis_client.get(keys.room_rated(room, 1)) or "{}")
    assert marker["rated"] is False
    await asyncio.sleep(0.5)
    for c in (ann, bob):
        assert await redis_client.exists(keys.rating(c.player_id, 2)) == 0


def admin_json(srv: ServerProc, method: str, path: str, token: str) -> dict[str, Any]:
    """An operator's request (``Authorization: Bearer TOKEN``), its JSON answer."""
    request = urllib.request.Request(srv.http_url + path, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=5) as res:
        data: dict[str, Any] = json.load(res)
        return data


async def test_two_identities_of_one_address_race_each_other_when_nobody_else_waits(
    pair: tuple[Served, Served], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # A household (a family, an office, a carrier's NAT) is no cheat: paired together when
    # nobody else waits, their room says so before the race, and it rates nobody.
    one, two = pair
    home = {"X-Forwarded-For": "198.18.250.6"}
    mum = await WsClient.connect(one.ws_url, "Mum", additional_headers=home)
    kid = await WsClient.connect(two.ws_url, "Kid", additional_headers=home)
    for c in (mum, kid):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    snaps = [await c.expect("snapshot", timeout=10) for c in (mum, kid)]
    assert snaps[0]["room_id"] == snaps[1]["room_id"]
    # Before the race: the second one in may already see the countdown its coming began.
    assert all(s["household"] is True and s["state"] in ("lobby", "countdown") for s in snaps)
    started = [await c.expect("started", timeout=10) for c in (mum, kid)]
    code = started[0]["code"]
    await play_some(kid, code, MIN_ACTIONS)
    await kid.send({"type": "give_up"})
    await play_to_win(mum, code)
    await mum.expect("race_over", timeout=10)
    await asyncio.sleep(0.5)
    assert mum.find("ratings") is None
    keys = Keys(key_prefix)
    for c in (mum, kid):
        assert await redis_client.exists(keys.rating(c.player_id, 4)) == 0
    for c in (mum, kid):
        await c.close()


@pytest.mark.slow
async def test_a_paired_room_starts_although_the_instance_that_made_it_died(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Two players wait on the keeper; the maker pairs them (the keeper is stopped meanwhile,
    # so only the maker runs pairing passes) and is killed before their sockets can come in
    # and it could start the room. The end of the wait is a deadline in Redis: the keeper
    # starts the race with them.
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *PACE_OFF, "--bot-offer-ms", "60000", "--pair-join-ms", "1500"]
    paired_key = Keys(key_prefix).queue_paired(4)
    with (
        running_server(redis_url(), args=args, env=env) as maker,
        running_server(redis_url(), args=args, env=env) as keeper,
    ):
        ann = await WsClient.connect(keeper.ws_url, "Ann")
        bob = await WsClient.connect(keeper.ws_url, "Bob")
        for c in (ann, bob):
            await c.send({"type": "queue", "cells": 4})
            await c.expect("queued")
        with stopped(keeper):

            async def paired() -> bool:
                return await redis_client.hget(paired_key, ann.player_id) is not None

            await until(paired, timeout=10)
            maker.proc.kill()
            maker.proc.wait(timeout=10)
            room = await redis_client.hget(paired_key, bob.player_id)
        for c in (ann, bob):
            snap = await c.expect("snapshot", timeout=8)
            assert snap["room_id"] == room and snap["paired"] and snap["host"] is None
        started = [await c.expect("started", timeout=10) for c in (ann, bob)]
        assert sorted(started[0]["players"]) == sorted((ann.player_id, bob.player_id))
        for c in (ann, bob):
            await c.close()
