"""The Watch list (``GET /api/rooms/live``) reads every state a public room can be in.

A racer who finishes with "Send all home" commits several actions in one request, and the
move script keeps each one's progress, a line each, in the room's progress field: the list
once read that field as one JSON object and answered 500 to every visitor while such a race
ran. One room it cannot read never fails the whole list either.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.race_keys import RACE_PREFIX
from tests.helpers.serverproc import ServerProc, WsClient, redis_url


def line_to_send_home(code: str) -> list[str]:
    """The solver's line up to the first board where every card left can go home."""
    board = Board.from_code(code)
    played: list[str] = []
    for text in solve(Board.from_code(code)).moves:
        if board.can_send_home():
            return played
        board.play(parse_action(text))
        played.append(text)
    raise AssertionError("the line never reaches a send home")


async def listed(srv: ServerProc, room: str) -> dict[str, Any]:
    """The room's entry of the live list, once the list (200) shows it finished by Ann."""
    last: Any = None
    for _ in range(100):
        status, data = srv.get_json("/api/rooms/live")
        assert status == 200, data  # never a 500, whatever a room holds
        last = next((r for r in data["rooms"] if r["room_id"] == room), None)
        if last is not None and any(x["finished"] for x in last["racers"]):
            return dict(last)
        await asyncio.sleep(0.1)
    raise AssertionError(f"the room never showed a finisher: {last}")


async def test_a_send_home_finish_while_a_rival_races_keeps_the_list_answering(
    race_server: ServerProc,
) -> None:
    ann = await WsClient.connect(race_server.ws_url, "Ann")
    # A public room races a drawn deal: its code is told at the start.
    await ann.send({"type": "create_room", "public": True})
    room = str((await ann.expect("snapshot"))["room_id"])
    bob = await WsClient.connect(race_server.ws_url, "Bob")
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "start"})
    started = await ann.expect("started", timeout=10)
    line = line_to_send_home(str(started["code"]))
    for i, text in enumerate(line, 1):
        await ann.send(action_message(text, i))
        await ann.expect("ack", id=i)
    await ann.send({"type": "send_home", "id": 9000})
    await ann.expect("finished", player_id=ann.player_id)
    # Bob still races: the room is live, Ann's progress is that of several actions at once.
    entry = await listed(race_server, room)
    mine = next(r for r in entry["racers"] if r["name"] == "Ann")
    assert mine["finished"] and mine["foundation_cards"] == 52
    assert mine["moves"] > len(line)  # the taps the send home stood for count as moves
    await ann.close()
    await bob.close()


async def test_one_room_the_list_cannot_read_is_left_out_not_the_list(
    race_server: ServerProc,
) -> None:
    good = await WsClient.connect(race_server.ws_url, "Gus")
    await good.send({"type": "create_room", "public": True})
    good_room = str((await good.expect("snapshot"))["room_id"])
    bad = await WsClient.connect(race_server.ws_url, "Bea")
    await bad.send({"type": "create_room", "public": True})
    bad_room = str((await bad.expect("snapshot"))["room_id"])
    keys = Keys(RACE_PREFIX)
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        pid = bad.player_id
        await r.hset(keys.room(bad_room), f"pg:{pid}", "not json at all")
        await r.hset(keys.room(bad_room), "round", "1")
        for _ in range(100):
            status, data = race_server.get_json("/api/rooms/live")
            assert status == 200, data
            ids = {x["room_id"] for x in data["rooms"]}
            if good_room in ids:
                break
            await asyncio.sleep(0.1)
        assert good_room in ids and bad_room not in ids
        assert json.dumps(data).count(good_room) == 1
    finally:
        await r.aclose()
        await good.close()
        await bad.close()
