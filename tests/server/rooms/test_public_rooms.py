"""Public rooms and the Watch list (``GET /api/rooms/live``) on a real server process, real
Redis and real sockets: a public room is listed with its racers' progress and never with its
code or a board; private rooms never are; a public room never shows the boards live; a room
whose race is over leaves the list (and comes back with a rematch); the index is bounded."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from server.store.listing import MAX_LISTED, list_room
from server.store.store import Store
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, redis_url
from tests.helpers.waits import API_STEP, until

#: A card name standing alone (a board or a line would show some).
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def move(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def live(srv: ServerProc, check: Callable[[dict[str, dict[str, Any]]], bool]) -> str:
    """The body of ``/api/rooms/live`` once ``check(rooms by id)`` holds (answers are kept a
    second per instance, so a change shows within about that)."""

    def matched() -> str:
        status, data = srv.get_json("/api/rooms/live")
        assert status == 200, data
        return json.dumps(data) if check({r["room_id"]: r for r in data["rooms"]}) else ""

    return await until(matched, what="the live list matching", step=API_STEP)


async def create(url: str, name: str, **fields: Any) -> tuple[WsClient, dict[str, Any]]:
    host = await WsClient.connect(url, name)
    await host.send({"type": "create_room", **fields})
    return host, await host.expect("snapshot")


async def test_a_public_room_is_listed_with_progress_never_its_code_or_boards(
    race_server: ServerProc,
) -> None:
    url = race_server.ws_url
    ann, snap = await create(url, "Ann", cells=4, public=True)
    room = snap["room_id"]
    assert snap["public"] is True and snap["watch"] == "delayed"  # never live
    # Private rooms in every state: none is ever listed.
    bob, private = await create(url, "Bob")
    assert private["public"] is False and private["watch"] == "live"
    eve, typed = await create(url, "Eve", code="SH1-C4-AAAAAAC")
    await eve.send({"type": "start"})
    await eve.expect("started")
    cy = await WsClient.connect(url, "Cy")
    await cy.send({"type": "join", "room": room, "role": "player"})
    assert (await cy.expect("snapshot"))["public"] is True
    sam = await WsClient.connect(url, "Sam")
    await sam.send({"type": "join", "room": room, "role": "spectator"})
    await sam.expect("snapshot")

    body = await live(race_server, lambda rooms: room in rooms and rooms[room]["spectators"] == 1)
    data = json.loads(body)
    assert private["room_id"] not in body and typed["room_id"] not in body
    entry = next(r for r in data["rooms"] if r["room_id"] == room)
    assert entry["state"] == "lobby" and entry["cells"] == 4 and entry["starts_at"] is None
    assert entry["watch"] == "delayed" and entry["delay_s"] == 30
    assert sorted(r["name"] for r in entry["racers"]) == ["Ann", "Cy"]  # not the spectator
    assert all(r["moves"] == 0 and r["status"] == "waiting" for r in entry["racers"])

    # The race runs: the list shows each racer's progress, and nothing of the deal.
    await ann.send({"type": "start"})
    started = await ann.expect("started")
    code, line = started["code"], solve(Board.from_code(started["code"])).moves
    for i, text in enumerate(line[:6], 1):
        await ann.send(move(text, i))
        await ann.expect("ack", id=i)
    delta = [m for m in ann.messages if m["type"] == "delta"][-1]

    def progressed(rooms: dict[str, dict[str, Any]]) -> bool:
        return room in rooms and any(r["moves"] == 6 for r in rooms[room]["racers"])

    body = await live(race_server, progressed)
    entry = next(r for r in json.loads(body)["rooms"] if r["room_id"] == room)
    assert entry["state"] == "racing" and entry["starts_at"] == started["started_at"]
    ann_row = next(r for r in entry["racers"] if r["name"] == "Ann")
    assert ann_row == {
        "player_id": ann.player_id,
        "name": "Ann",
        "status": "playing",
        "foundation_cards": delta["foundation_cards"],
        "moves": 6,
        "finished": False,
        "rating": None,  # never rated in 4 cells
        "provisional": True,  # a new player
    }
    assert code not in body and "board" not in body and "code" not in body
    assert not CARD.search(body), CARD.search(body)
    assert typed["room_id"] not in body  # a private race being raced is not listed either
    for c in (ann, bob, eve, cy, sam):
        await c.close()


async def test_a_public_room_never_shows_the_boards_live(race_server: ServerProc) -> None:
    url = race_server.ws_url
    ann, _ = await create(url, "Ann", public=True)
    await ann.send({"type": "watch_mode", "mode": "live"})
    refused = await ann.expect("error")
    assert refused["code"] == "public_room"
    await ann.send({"type": "watch_mode", "mode": "progress"})
    assert (await ann.expect("room", watch="progress"))["public"] is True
    await ann.send({"type": "watch_mode", "mode": "delayed", "delay_s": 60})
    await ann.expect("room", watch="delayed", delay_s=60)
    # An invite room's host may still choose live.
    bob, _ = await create(url, "Bob", public=False)
    await bob.send({"type": "watch_mode", "mode": "progress"})
    await bob.expect("room", watch="progress")
    await bob.send({"type": "watch_mode", "mode": "live"})
    await bob.expect("room", watch="live")
    assert bob.find("error") is None
    # Strangers race in a public room: not on a deal its host typed (and maybe studied).
    cy = await WsClient.connect(url, "Cy")
    await cy.send({"type": "create_room", "code": "SH1-C4-AAAAAAD", "public": True})
    assert (await cy.expect("error"))["code"] == "public_room"
    assert cy.find("snapshot") is None
    for c in (ann, bob, cy):
        await c.close()


@pytest.mark.slow
async def test_a_finished_room_leaves_the_list_and_a_rematch_brings_it_back(
    race_server: ServerProc,
) -> None:
    ann, snap = await create(race_server.ws_url, "Ann", public=True)
    room = snap["room_id"]
    await live(race_server, lambda rooms: room in rooms)
    await ann.send({"type": "start"})
    started = await ann.expect("started")
    for i, text in enumerate(solve(Board.from_code(started["code"])).moves, 1):
        await ann.send(move(text, i))
        await ann.expect("ack", id=i)
    await ann.expect("race_over")
    await live(race_server, lambda rooms: room not in rooms)
    await ann.send({"type": "rematch"})
    await ann.expect("room", state="lobby", round=2)
    body = await live(race_server, lambda rooms: room in rooms and rooms[room]["round"] == 2)
    entry = next(r for r in json.loads(body)["rooms"] if r["room_id"] == room)
    assert entry["racers"][0]["moves"] == 0  # the last round's progress is gone
    await ann.close()


async def test_a_private_room_in_the_index_is_still_never_listed(race_server: ServerProc) -> None:
    bob, snap = await create(race_server.ws_url, "Bob")
    room = snap["room_id"]
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        # Whatever put it there, the room's own field decides, and the read drops it.
        await r.zadd(RACE_KEYS.live_rooms(), {room: 10**13})
        body = await live(race_server, lambda rooms: True)
        assert room not in body

        async def dropped() -> bool:  # the next read (past the second an answer is kept)
            if await r.zscore(RACE_KEYS.live_rooms(), room) is None:
                return True
            assert room not in json.dumps(race_server.get_json("/api/rooms/live")[1])
            return False

        await until(dropped, what="the stray room dropped from the live index", step=API_STEP)
    finally:
        await r.aclose()
    await bob.close()


async def test_the_live_list_is_bounded(race_server: ServerProc, key_prefix: str) -> None:
    status, data = race_server.get_json("/api/rooms/live?limit=51")
    assert status == 400 and data["error"] == "bad_limit"
    status, data = race_server.get_json("/api/rooms/live?limit=2")
    assert status == 200 and len(data["rooms"]) <= 2
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        store = Store(r, Keys(key_prefix), ttl=60)
        for n in range(MAX_LISTED + 20):
            await list_room(store, f"R{secrets.token_hex(3).upper()}{n}", n)
        key = Keys(key_prefix).lobby_rooms()  # listed lobbies, until their start
        assert await r.zcard(key) == MAX_LISTED  # the most recent ones
        assert 0 < await r.ttl(key) <= 60
    finally:
        await r.aclose()
