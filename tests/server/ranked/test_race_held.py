"""A rated race's held finisher on real servers, a real Redis and real sockets.

- Nobody but its player sees a held finisher's race: not on their player page (race
  history), not in the replay, until an operator clears it; voided, it never shows.
- A held arena finisher, once cleared, takes the points of their place.
- A server keeps the held list within its bound by itself.

What the ratings do once a held round's finishers are decided (as if at once, whatever the
room did since), and that two instances review a finisher once (a dead one's claim taken
over once it expires), is decided without a server in
:mod:`tests.server.ranked.test_held_races`.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.arena.points import race_points
from server.fairplay.holds import Holds
from server.records.replays import replay_id
from server.store.keys import Keys
from tests.helpers.arenas import private_arena
from tests.helpers.quick_race import ESTABLISHED, MIN_ACTIONS, play_some, play_to_win
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    http_request,
    redis_url,
    running_server,
)
from tests.helpers.waits import API_STEP, until

TOKEN = "admin-" + secrets.token_hex(12)
#: The review at its defaults (a script's pace is held), every player established; no
#: scheduled arena, and private ones of arena minutes of a second.
ARGS = [*FAST, *ESTABLISHED, "--bot-offer-ms", "60000", "--admin-token", TOKEN]
ARGS += ["--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "800"]


@pytest.fixture
def srv(key_prefix: str) -> Iterator[ServerProc]:
    with running_server(redis_url(), args=ARGS, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as s:
        yield s


def request(srv: ServerProc, method: str, path: str, token: str | None = None) -> tuple[int, Any]:
    """(status, JSON body) of a request, with ``Authorization: Bearer TOKEN`` if given."""
    return http_request(srv.http_url + path, method, token, timeout=5)


async def until_held(srv: ServerProc, pid: str, timeout: float = 60.0) -> dict[str, Any]:
    """The held record of ``pid``'s finish, once the review holds it."""

    def held() -> list[dict[str, Any]]:
        status, body = request(srv, "GET", "/api/admin/held?limit=500", TOKEN)
        assert status == 200, body
        return [dict(h) for h in body["held"] if h["player_id"] == pid]

    # The review runs at the lowest priority: a loaded host delays it.
    return (await until(held, timeout, what=f"a held finish of {pid}", step=API_STEP))[0]


async def rated_room(url: str, names: list[str]) -> tuple[list[WsClient], str, str]:
    """The first of ``names`` hosts a rated invite room, the others join; it starts.
    Returns the clients, the room and the deal's code."""
    clients = [await WsClient.connect(url, n) for n in names]
    host = clients[0]
    await host.send({"type": "create_room", "cells": 4})
    room = str((await host.expect("snapshot"))["room_id"])
    for c in clients[1:]:
        await c.send({"type": "join", "room": room, "role": "player"})
        await c.expect("snapshot")
    await host.send({"type": "rated", "rated": True})
    for c in clients:
        await c.expect("room", rated=True, state="lobby")
    await host.send({"type": "start"})
    code = str((await host.expect("started"))["code"])
    for c in clients[1:]:
        await c.expect("started")
    return clients, room, code


def page(srv: ServerProc, pid: str, token: str | None = None) -> dict[str, Any]:
    status, body = request(srv, "GET", f"/api/player/{pid}", token)
    assert status == 200, body
    return dict(body)


@pytest.mark.parametrize("decision", ["clear", "void"])
@pytest.mark.slow
async def test_a_held_finishers_race_shows_to_nobody_else_until_cleared(
    srv: ServerProc, decision: str
) -> None:
    (ann, bob), room, code = await rated_room(srv.ws_url, ["Ann", "Bob"])
    await play_some(bob, code, MIN_ACTIONS)
    await play_to_win(ann, code)  # a script's pace: held
    await bob.send({"type": "give_up"})
    await bob.expect("race_over")
    rid = replay_id(room, 1, ann.player_id)
    held = await until_held(srv, ann.player_id)
    assert held["result"] == rid and held["kind"] == "race"
    await asyncio.sleep(0.5)
    # Nobody else sees the race: no race on the player's page, no replay.
    mine = page(srv, ann.player_id)
    assert mine["races"]["finished"] == 0 and mine["races"]["played"] == 0
    assert mine["recent"] == [] and mine["public_races"] == []
    assert request(srv, "GET", f"/api/replay/{rid}")[0] == 404
    assert request(srv, "GET", f"/api/replay/{rid}", bob.token)[0] == 404
    # Its player may see their own replay, and so may the operator.
    assert request(srv, "GET", f"/api/replay/{rid}", ann.token)[0] == 200
    assert request(srv, "GET", f"/api/replay/{rid}", TOKEN)[0] == 200

    status, done = request(srv, "POST", f"/api/admin/{decision}/{rid}", TOKEN)
    assert status == 200, done
    if decision == "clear":
        await ann.expect("ratings", timeout=10)
        await until(lambda: _finished(srv, ann.player_id), step=API_STEP)
        mine = page(srv, ann.player_id)
        assert [(r["rank"], r["replay_id"]) for r in mine["recent"]] == [(1, rid)]
        assert mine["races"]["won"] == 1
        assert request(srv, "GET", f"/api/replay/{rid}")[0] == 200
    else:
        await asyncio.sleep(3)  # the resettle runs every 2 s
        mine = page(srv, ann.player_id)
        assert mine["races"]["finished"] == 0 and mine["recent"] == []
        assert request(srv, "GET", f"/api/replay/{rid}")[0] == 404
        assert request(srv, "GET", f"/api/replay/{rid}", ann.token)[0] == 200
    for c in (ann, bob):
        await c.close()


async def _finished(srv: ServerProc, pid: str) -> bool:
    return int(page(srv, pid)["races"]["finished"]) == 1


def arena_line(srv: ServerProc, arena: str, pid: str) -> dict[str, Any]:
    """A player's line of ``GET /api/arena/ID`` (none before their first race) and the
    races the table counted."""
    status, table = request(srv, "GET", f"/api/arena/{arena}")
    assert status == 200, table
    lines = [x for x in table["standings"] if x["player_id"] == pid]
    return {**(lines[0] if lines else {"wins": 0}), "counted": table["races"]}


@pytest.mark.slow
async def test_a_held_arena_finisher_once_cleared_takes_the_points_of_their_place(
    srv: ServerProc,
) -> None:
    # Ann wins an arena race at a script's pace: the race is recorded at once, then her
    # review holds her and the record is amended with her as not finished. The operator
    # clears her: the record is amended again, and the table gives her the win's points
    # (Bob, who gave up, keeps his nothing).
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    arena = await private_arena(ann, [bob], 180)
    room = str((await ann.expect("snapshot", timeout=15))["room_id"])
    code = str((await ann.expect("started", timeout=15))["code"])
    await bob.expect("started", timeout=10)
    await play_some(bob, code, MIN_ACTIONS)
    await play_to_win(ann, code)
    await bob.send({"type": "give_up"})
    await bob.expect("race_over")
    rid = replay_id(room, 1, ann.player_id)
    assert (await until_held(srv, ann.player_id))["result"] == rid

    async def recorded() -> bool:
        line = arena_line(srv, arena, ann.player_id)
        return int(line["counted"]) >= 1 and int(line["wins"]) == 0

    await until(recorded, step=API_STEP)
    held = arena_line(srv, arena, ann.player_id)
    assert (held["points"], held["wins"], held["races"], held["counted"]) == (0, 0, 1, 1)

    status, done = request(srv, "POST", f"/api/admin/clear/{rid}", TOKEN)
    assert status == 200, done

    async def counted() -> bool:
        return int(arena_line(srv, arena, ann.player_id)["wins"]) == 1

    await until(counted, step=API_STEP)
    cleared = arena_line(srv, arena, ann.player_id)
    assert (cleared["points"], cleared["races"], cleared["counted"]) == (race_points(1, 2), 1, 1)
    assert arena_line(srv, arena, bob.player_id)["points"] == 0
    for c in (ann, bob):
        await c.close()


async def test_a_server_keeps_the_held_list_within_its_bound(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """The bound's rules are :mod:`tests.server.ranked.test_held_bound`'s; here, that a
    server keeps it by itself, and that its route refuses a bad cursor."""
    holds = Holds.on(redis_client, Keys(key_prefix), 3600)
    args = [*FAST, "--admin-token", TOKEN, "--held-max", "1"]
    args += ["--api-rate", "1000", "--api-burst", "1000"]  # polled: never rate limited
    with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        for i in range(3):  # rooms long gone: settling them touches no rating
            result = f"GONE{i:02d}-1-p{i}"
            await holds.reviews.hold(
                {"result": result, "kind": "race", "player_id": f"p{i}", "score": {"held": True}}
                | {"room": f"GONE{i:02d}", "round": 1}
            )

        def at_cap() -> list[str] | None:
            status, body = request(srv, "GET", "/api/admin/held?limit=50", TOKEN)
            assert status == 200, body
            return [h["result"] for h in body["held"]] if body["total"] == 1 else None

        assert await until(at_cap, timeout=15, what="the held list at its cap") == ["GONE02-1-p2"]
        status, body = request(srv, "GET", "/api/admin/held?after=x", TOKEN)
        assert status == 400 and body["error"] == "bad_after"
