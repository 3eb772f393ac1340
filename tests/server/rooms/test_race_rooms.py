"""Room life: leaving, host hand-over, rematch on a new deal, solo clock, hints, lost."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.serverproc import QUICK, ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import until


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def room_of(
    url: str, *names: str, spectators: tuple[str, ...] = ()
) -> tuple[str, list[WsClient], list[WsClient]]:
    """The first name creates a room on SH1-C4-AAAAAAB, the others join it as racers,
    ``spectators`` as spectators; returns (room id, racers' sockets, spectators' sockets)."""
    first = await WsClient.connect(url, names[0])
    await first.send({"type": "create_room", "code": "SH1-C4-AAAAAAB"})
    room = (await first.expect("snapshot"))["room_id"]
    racers: list[WsClient] = [first]
    watchers: list[WsClient] = []
    for name, role, into in [(n, "player", racers) for n in names[1:]] + [
        (n, "spectator", watchers) for n in spectators
    ]:
        c = await WsClient.connect(url, name)
        await c.send({"type": "join", "room": room, "role": role})
        await c.expect("snapshot")
        into.append(c)
    return room, racers, watchers


async def test_leave_hands_over_the_host_and_rematch(race_server: ServerProc) -> None:
    room, (ann, bob, cat), _ = await room_of(race_server.ws_url, "ann", "bob", "cat")
    await ann.send({"type": "leave"})
    assert (await ann.expect("left"))["room_id"] == room
    info = await bob.expect("room", host=bob.player_id)
    assert ann.player_id not in {p["player_id"] for p in info["players"]}
    # A socket closed in the lobby leaves the room too.
    await cat.close()
    info = await bob.expect("room", spectators=0)
    while cat.player_id in {p["player_id"] for p in info["players"]}:
        info = await bob.expect("room")
    await bob.send({"type": "start"})
    await bob.expect("started")
    await bob.send({"type": "rematch"})
    assert (await bob.expect("error"))["code"] == "wrong_state"
    await bob.send({"type": "give_up"})
    await bob.expect("race_over")
    await bob.send({"type": "rematch"})
    again = await bob.expect("room", round=2)
    assert again["state"] == "lobby"
    await bob.send({"type": "start"})
    started = await bob.expect("started", round=2)
    line = solve(Board.from_code(started["code"]), timeout=10).moves
    await bob.send(wire(line[0], 1))  # ids are per board: round 2 is a new board
    await bob.expect("ack", id=1)
    await ann.close()
    await bob.close()


async def test_a_host_who_turns_spectator_hands_the_room_on(race_server: ServerProc) -> None:
    room, (ann, bob), _ = await room_of(race_server.ws_url, "ann", "bob")
    # Ann, from a second tab with her token, joins her own room as a spectator.
    tab = await WsClient.connect(race_server.ws_url, "ann", token=ann.token)
    await tab.send({"type": "join", "room": room, "role": "spectator"})
    info = await bob.expect("room", host=bob.player_id)
    # Ann is no racer now: the room lists racers only, and counts her among the spectators.
    assert [p["player_id"] for p in info["players"]] == [bob.player_id]
    assert info["spectators"] == 1
    await tab.send({"type": "start"})
    assert (await tab.expect("error"))["code"] == "not_host"
    await bob.send({"type": "start"})
    await bob.expect("started")
    await bob.send({"type": "give_up"})  # over: its deal is no longer being raced
    await bob.expect("race_over")
    for c in (ann, tab, bob):
        await c.close()


async def test_solo_clock_starts_with_the_first_move(race_server: ServerProc) -> None:
    import asyncio

    c = await WsClient.connect(race_server.ws_url, "solo")
    await c.send({"type": "solo", "code": "sh1-c4-aaaaaab "})
    snap = await c.expect("snapshot")
    assert snap["mode"] == "solo" and snap["state"] == "racing"
    assert snap["code"] == "SH1-C4-AAAAAAB"
    line = solve(Board.from_code(snap["code"]), timeout=10).moves
    await asyncio.sleep(0.6)  # thinking before the first move is free
    loop = asyncio.get_running_loop()
    first = loop.time()
    for i, text in enumerate(line):
        await c.send(wire(text, i))
        await c.expect("ack", id=i)
    fin = await c.expect("finished")
    played_ms = (loop.time() - first) * 1000
    # The clock ran only from the first move: no more than the playing took (a clock from
    # the snapshot would add the 600 ms of thinking), however slow a busy host plays.
    assert fin["rank"] == 1 and fin["time_ms"] <= played_ms + 20, (fin, played_ms)
    await c.expect("race_over")
    await c.close()


async def test_hint_and_lost(race_server: ServerProc) -> None:
    c = await WsClient.connect(race_server.ws_url, "hinted")
    await c.send({"type": "solo", "code": "SH1-C4-AAAAAAB"})
    await c.expect("snapshot")
    await c.send({"type": "hint", "id": 7})
    hint = await c.expect("hint", id=7)
    assert hint["status"] == "move"
    board = Board.from_code("SH1-C4-AAAAAAB")
    board.play(parse_action(hint["move"]))  # the hint is a legal action
    spy = await WsClient.connect(race_server.ws_url, "spy")
    await spy.send({"type": "hint", "id": 1})
    assert (await spy.expect("error"))["code"] == "not_racing"
    await c.close()
    await spy.close()


async def test_no_hints_in_a_race_until_it_is_over(race_server: ServerProc) -> None:
    ann = await WsClient.connect(race_server.ws_url, "ann")
    bob = await WsClient.connect(race_server.ws_url, "bob")
    await ann.send({"type": "create_room", "code": "SH1-C4-AAAAAAB"})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "hint", "id": 3})  # in the lobby: the deal is the race's
    assert (await ann.expect("reject", id=3))["reason"] == "hints_off"
    await ann.send({"type": "start"})
    await ann.expect("started")
    await ann.send({"type": "hint", "id": 4})
    refused = await ann.expect("reject", id=4)
    assert refused["reason"] == "hints_off" and "race" in refused["message"]
    assert ann.find("hint") is None
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    await ann.expect("race_over")
    await ann.send({"type": "hint", "id": 5})  # once the race is over, the solver may help
    assert (await ann.expect("hint", id=5))["status"] in ("move", "lost", "unknown")
    await ann.close()
    await bob.close()


async def test_a_lost_position_is_announced(race_server: ServerProc) -> None:
    import random

    code = "SH1-C1-AAAAAAB"
    board, line, rng = Board.from_code(code), [], random.Random(0)
    while not board.is_lost():
        move = rng.choice(board.useful_moves())
        board.push(move)
        line.append(str(move))
    c = await WsClient.connect(race_server.ws_url, "unlucky")
    await c.send({"type": "solo", "code": code})
    await c.expect("snapshot")
    for i, text in enumerate(line):
        await c.send(wire(text, i))
        await c.expect("ack", id=i)
    await c.expect("lost", player_id=c.player_id)
    assert sum(1 for m in c.messages if m["type"] == "lost") == 1
    delta = await c.expect("delta", moves=len(line))
    assert delta["lost"] is True
    await c.close()


async def _gone(r: aioredis.Redis, key: str) -> bool:
    return not await r.exists(key)


async def test_idle_rooms_expire() -> None:

    from tests.helpers.serverproc import redis_url, running_server

    with running_server(redis_url(), args=["--room-ttl", "1"]) as srv:
        c = await WsClient.connect(srv.ws_url, "idle")
        await c.send({"type": "create_room", "cells": 4})
        room = (await c.expect("snapshot"))["room_id"]
        await c.close()
        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        try:  # gone once its second without a visit is over (this server's prefix is "")
            await until(lambda: _gone(r, Keys().room(room)), timeout=10, what="the room expired")
        finally:
            await r.aclose()
        d = await WsClient.connect(srv.ws_url, "late")
        await d.send({"type": "join", "room": room, "role": "spectator"})
        assert (await d.expect("error"))["code"] == "room_not_found"
        await d.close()


async def test_racers_who_left_are_not_in_the_next_round(race_server: ServerProc) -> None:
    room, (ann, bob), _ = await room_of(race_server.ws_url, "ann", "bob")
    await ann.send({"type": "start"})
    await ann.expect("started")
    await bob.send({"type": "leave"})  # leaving a race gives up
    await ann.expect("gave_up", player_id=bob.player_id)
    await ann.send({"type": "give_up"})
    over = await ann.expect("race_over")
    assert {r["status"] for r in over["results"]} == {"gave_up"}
    await ann.send({"type": "rematch"})
    await ann.expect("room", round=2)
    await ann.send({"type": "start"})
    started = await ann.expect("started", round=2)
    assert started["players"] == [ann.player_id]
    watcher = await WsClient.connect(race_server.ws_url, "w")
    await watcher.send({"type": "join", "room": room, "role": "spectator"})
    snap = await watcher.expect("snapshot")
    assert [p["player_id"] for p in snap["players"]] == [ann.player_id]
    for c in (ann, bob, watcher):
        await c.close()


async def test_a_race_everyone_left_during_the_countdown_is_over(race_server: ServerProc) -> None:
    _, (ann,), (spy,) = await room_of(race_server.ws_url, "ann", spectators=("spy",))
    await ann.send({"type": "start"})
    await ann.expect("countdown")
    await ann.send({"type": "leave"})
    await ann.expect("left")
    await spy.expect("started")
    over = await spy.expect("race_over")
    assert over["results"][0]["status"] == "gave_up"
    await ann.close()
    await spy.close()


async def test_a_racer_who_never_comes_back_gives_up_so_the_race_ends() -> None:
    args = ["--countdown-ms", "200", *QUICK, "--away-grace-ms", "700"]
    with running_server(redis_url(), args=args) as srv:
        room, (ann, bob, cat), _ = await room_of(srv.ws_url, "ann", "bob", "cat")
        await ann.send({"type": "start"})
        for c in (ann, bob, cat):
            await c.expect("started")
        # Bob's tab closes for good; Cat's drops too but she resumes within the grace.
        await bob.close()
        cat_token, last = cat.token, cat.messages[-1].get("seq", 0)
        await cat.close()
        cat = await WsClient.connect(srv.ws_url)
        await cat.send({"type": "resume", "room": room, "token": cat_token, "last_seq": last})
        await cat.expect("welcome")
        gone = await ann.expect("gave_up", player_id=bob.player_id, timeout=5)
        assert gone["round"] == 1
        # Cat dropped a moment after Bob, so her grace ends a moment after his: past it too,
        # she came back, so she plays on.
        await asyncio.sleep(0.3)
        line = solve(Board.from_code("SH1-C4-AAAAAAB"), timeout=10).moves
        await cat.send(wire(line[0], 1))
        await cat.expect("ack", id=1)
        assert ann.find("gave_up", player_id=cat.player_id) is None
        await ann.send({"type": "give_up"})
        await cat.send({"type": "give_up"})
        await ann.expect("race_over", timeout=5)
        await ann.close()
        await cat.close()
