"""Fair play in a race, attack by attack, on a real server process, real Redis and real sockets.

Each test is an attack that worked before the server refused it: reading the deal in the
lobby, a racer watching their own race from a second socket, the solver's hints on a deal
being raced, and a rival's finished line fetched mid-race. The watch modes decide what
spectators see while the race runs: every board live, the boards N seconds late, or
progress only.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.records.replays import replay_id
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, redis_url
from tests.helpers.waits import API_STEP, until

TYPED = "SH1-C4-AAAAAAK"


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def lobby(
    url: str, *names: str, code: str | None = None, spectators: tuple[str, ...] = ()
) -> tuple[str, list[WsClient], list[WsClient]]:
    """The first name creates a room (a drawn deal, or ``code`` typed), the others join it."""
    host = await WsClient.connect(url, names[0])
    create: dict[str, Any] = {"type": "create_room", "cells": 4}
    if code is not None:
        create["code"] = code
    await host.send(create)
    room = str((await host.expect("snapshot"))["room_id"])
    racers, watchers = [host], []
    for name in names[1:]:
        c = await WsClient.connect(url, name)
        await c.send({"type": "join", "room": room, "role": "player"})
        await c.expect("snapshot")
        racers.append(c)
    for name in spectators:
        c = await WsClient.connect(url, name)
        await c.send({"type": "join", "room": room, "role": "spectator"})
        await c.expect("snapshot")
        watchers.append(c)
    return room, racers, watchers


async def start(host: WsClient, *others: WsClient) -> dict[str, Any]:
    await host.send({"type": "start"})
    started = await host.expect("started")
    for c in others:
        await c.expect("started")
    return started


async def close(*clients: WsClient) -> None:
    for c in clients:
        await c.close()


def before_start(c: WsClient) -> list[dict[str, Any]]:
    """The messages a client received before ``started``."""
    out = []
    for m in c.messages:
        if m["type"] == "started":
            break
        out.append(m)
    return out


# -- 1. nothing of the deal before the start ----------------------------------------------


async def test_nobody_in_the_lobby_sees_the_deal(race_server: ServerProc) -> None:
    room, (ann, bob), (spy,) = await lobby(race_server.ws_url, "ann", "bob", spectators=("spy",))
    await ann.expect("room", spectators=1)
    await ann.send({"type": "start"})
    for c in (ann, bob, spy):
        await c.expect("countdown")
    # A spectator who comes in during the countdown learns no more.
    late = await WsClient.connect(race_server.ws_url, "late")
    await late.send({"type": "join", "room": room, "role": "spectator"})
    await late.expect("snapshot")
    started = [await c.expect("started") for c in (ann, bob, spy, late)]
    code = started[0]["code"]
    for c in (ann, bob, spy, late):
        for m in before_start(c):
            if m["type"] in ("snapshot", "room"):
                assert m["code"] is None and m["code_typed"] is False, m
            for p in m.get("players", []):
                assert p.get("board") is None, m
            assert code not in json.dumps(m), m
    assert all(s["code"] == code and s["board"] for s in started)
    await close(ann, bob, spy, late)


async def test_a_typed_deal_is_shown_and_said_to_be_typed(race_server: ServerProc) -> None:
    _room, (ann, bob), (spy,) = await lobby(
        race_server.ws_url, "ann", "bob", code="sh1-c4-aaaaaak", spectators=("spy",)
    )
    for c in (ann, bob, spy):
        snap = next(m for m in c.messages if m["type"] == "snapshot")
        assert snap["code"] == TYPED and snap["code_typed"] is True
        assert all(p.get("board") is None for p in snap["players"])  # boards come at the start
    info = await bob.expect("room", spectators=1)
    assert info["code"] == TYPED and info["code_typed"] is True
    await close(ann, bob, spy)


# -- 2. a racer cannot watch their own race -------------------------------------------------


async def test_a_racer_cannot_ghost_their_own_race(race_server: ServerProc) -> None:
    url = race_server.ws_url
    room, (ann, bob, cat), _ = await lobby(url, "ann", "bob", "cat")
    # In the lobby Ann turns spectator from a second socket, then takes her seat again from
    # a third: the second socket must not become a window on her rivals' boards.
    ghost = await WsClient.connect(url, "ann", token=ann.token)
    await ghost.send({"type": "join", "room": room, "role": "spectator"})
    await ghost.expect("snapshot")
    seat = await WsClient.connect(url, "ann", token=ann.token)
    await seat.send({"type": "join", "room": room, "role": "player"})
    await seat.expect("snapshot")
    await bob.expect("room", host=bob.player_id)  # Ann handed the room on when she turned
    started = await start(bob, ann, cat, ghost)
    assert ann.player_id in started["players"]
    line = solve(Board.from_code(started["code"]), timeout=10).moves
    await bob.send(wire(line[0], 1))
    await bob.expect("ack", id=1)
    await ghost.expect("progress", player_id=bob.player_id)
    assert ghost.find("delta", player_id=bob.player_id) is None

    # While the race runs, no socket of a racer's identity may join it as a spectator...
    tab = await WsClient.connect(url, "ann", token=ann.token)
    await tab.send({"type": "join", "room": room, "role": "spectator"})
    refused = await tab.expect("error")
    assert refused["code"] == "racing_here" and "watch" in refused["message"]
    # ... not even after leaving it (which gives up), and a resume follows the same rule.
    await cat.send({"type": "leave"})
    await cat.expect("left")
    await cat.send({"type": "join", "room": room, "role": "spectator"})
    assert (await cat.expect("error"))["code"] == "racing_here"
    again = await WsClient.connect(url)
    await again.send({"type": "resume", "room": room, "token": cat.token, "last_seq": 10**9})
    assert (await again.expect("error"))["code"] == "racing_here"
    assert again.find("snapshot") is None and again.find("delta") is None
    # Once the race is over, the racer who left may watch the room.
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    await bob.expect("race_over")
    await cat.send({"type": "join", "room": room, "role": "spectator"})
    assert (await cat.expect("snapshot"))["role"] == "spectator"
    await close(ann, bob, cat, ghost, seat, tab, again)


# -- 3. no hints for a deal being raced -----------------------------------------------------


async def test_no_hints_for_a_deal_being_raced_anywhere(race_server: ServerProc) -> None:
    url = race_server.ws_url
    room, (ann, bob), _ = await lobby(url, "ann", "bob", code=TYPED)
    await start(ann, bob)
    # Anyone (a stranger, or a racer from a second socket) opens the raced deal alone...
    eve = await WsClient.connect(url, "eve")
    tab = await WsClient.connect(url, "ann", token=ann.token)
    for i, c in enumerate((eve, tab)):
        await c.send({"type": "solo", "code": TYPED})
        await c.expect("snapshot")
        await c.send({"type": "hint", "id": 10 + i})
        refused = await c.expect("reject", id=10 + i)
        assert refused["reason"] == "hints_off"
        assert c.find("hint") is None
    # ... and once the race is over the solver helps again.
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    await ann.expect("race_over")
    await eve.send({"type": "hint", "id": 12})
    assert (await eve.expect("hint", id=12))["status"] == "move"
    await ann.send({"type": "hint", "id": 13})
    assert (await ann.expect("hint", id=13))["status"] in ("move", "lost", "unknown")
    _ = room
    await close(ann, bob, eve, tab)


# -- 4. finished lines and room ids --------------------------------------------------------


async def test_finished_lines_stay_hidden_until_the_race_is_over(race_server: ServerProc) -> None:
    url = race_server.ws_url
    room, (ann, bob), _ = await lobby(url, "ann", "bob")
    started = await start(ann, bob)
    line = solve(Board.from_code(started["code"]), timeout=10).moves
    for i, text in enumerate(line):
        await ann.send(wire(text, i))
        await ann.expect("ack", id=i)
    await ann.expect("finished", player_id=ann.player_id)
    # Bob, still racing, knows the room, the round and Ann's id: her replay's id.
    rid = replay_id(room, 1, ann.player_id)

    def in_history() -> Any:  # the finish is in Ann's history (the replay is kept with it)
        status, history = race_server.get_json(f"/api/player/{ann.player_id}")
        return history if status == 200 and history["races"]["played"] else None

    history = await until(in_history, what="the finish in Ann's history", step=API_STEP)
    assert history["recent"][0]["replay_id"] == rid
    assert race_server.get_json(f"/api/replay/{rid}")[0] == 404
    assert race_server.get_json(f"/api/replay/{rid}", ann.token)[0] == 404  # the racers too
    # Room ids are their owner's only.
    assert "room" not in history["recent"][0]
    theirs = race_server.get_json(f"/api/player/{ann.player_id}", bob.token)[1]
    assert "room" not in theirs["recent"][0]
    mine = race_server.get_json(f"/api/player/{ann.player_id}", ann.token)[1]
    assert mine["recent"][0]["room"] == room
    # Over: the line is everyone's.
    await bob.send({"type": "give_up"})
    await bob.expect("race_over")
    status, replay = race_server.get_json(f"/api/replay/{rid}")
    assert status == 200 and replay["actions"] == list(line)
    await close(ann, bob)


# -- 5. watch modes -------------------------------------------------------------------------


def test_public_rooms_never_watch_live() -> None:
    from server.rooms.records import WatchMode, default_watch, watch_modes

    assert default_watch(public=False) == WatchMode.LIVE
    assert WatchMode.LIVE not in watch_modes(public=True)
    assert default_watch(public=True) in watch_modes(public=True)
    assert set(watch_modes(public=False)) == set(WatchMode)


async def test_the_host_picks_the_watch_mode_in_the_lobby(race_server: ServerProc) -> None:
    room, (ann, bob), (spy,) = await lobby(race_server.ws_url, "ann", "bob", spectators=("spy",))
    snap = next(m for m in bob.messages if m["type"] == "snapshot")
    assert snap["watch"] == "live" and snap["delay_s"] is None
    await bob.send({"type": "watch_mode", "mode": "progress"})
    assert (await bob.expect("error"))["code"] == "not_host"
    await ann.send({"type": "watch_mode", "mode": "delayed", "delay_s": 9})
    assert (await ann.expect("error"))["code"] == "invalid_message"
    await ann.send({"type": "watch_mode", "mode": "delayed"})
    for c in (ann, bob, spy):  # every racer sees the mode before the start
        info = await c.expect("room", watch="delayed")
        assert info["delay_s"] == 30
    await ann.send({"type": "watch_mode", "mode": "delayed", "delay_s": 120})
    await bob.expect("room", watch="delayed", delay_s=120)
    await start(ann, bob)
    await ann.send({"type": "watch_mode", "mode": "live"})
    assert (await ann.expect("error"))["code"] == "wrong_state"
    _ = room
    await close(ann, bob, spy)


async def test_progress_mode_shows_spectators_no_board_until_the_end(
    race_server: ServerProc,
) -> None:
    url = race_server.ws_url
    room, (ann, bob), (spy,) = await lobby(url, "ann", "bob", spectators=("spy",))
    await ann.send({"type": "watch_mode", "mode": "progress"})
    await spy.expect("room", watch="progress")
    started = await start(ann, bob, spy)
    line = solve(Board.from_code(started["code"]), timeout=10).moves
    for i, text in enumerate(line[:3]):
        await ann.send(wire(text, i))
        await ann.expect("ack", id=i)
    await spy.expect("progress", player_id=ann.player_id, moves=3)
    assert spy.find("delta") is None
    late = await WsClient.connect(url, "late")
    await late.send({"type": "join", "room": room, "role": "spectator"})
    snap = await late.expect("snapshot")
    assert snap["state"] == "racing" and snap["watch"] == "progress"
    assert all(p.get("board") is None for p in snap["players"])
    assert {p["player_id"]: p["moves"] for p in snap["players"]}[ann.player_id] == 3
    # A spectator who resumes with an old seq gets no deltas replayed either.
    await spy.close()
    back = await WsClient.connect(url)
    await back.send({"type": "resume", "room": room, "token": spy.token, "last_seq": 1})
    await back.expect("snapshot")
    assert back.find("delta") is None
    # Over: the boards are everyone's.
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    for c in (back, late):
        await c.expect("race_over")
        final = await c.expect("snapshot")
        assert final["state"] == "done"
        boards = {p["player_id"]: p["board"] for p in final["players"]}
        expected = Board.from_code(started["code"])
        for text in line[:3]:
            expected.play(parse_action(text))
        assert Board.from_json(boards[ann.player_id]).key() == expected.key()
    await close(ann, bob, back, late)


@pytest.mark.slow
async def test_delayed_mode_shows_the_boards_late(race_server: ServerProc) -> None:
    url = race_server.ws_url
    room, (ann, bob), (spy,) = await lobby(url, "ann", "bob", spectators=("spy",))
    await ann.send({"type": "watch_mode", "mode": "delayed", "delay_s": 10})
    await spy.expect("room", watch="delayed", delay_s=10)
    started = await start(ann, bob, spy)
    code = started["code"]
    line = solve(Board.from_code(code), timeout=10).moves
    loop = asyncio.get_running_loop()
    await ann.send(wire(line[0], 1))
    await ann.expect("ack", id=1)
    moved = loop.time()
    await bob.expect("progress", player_id=ann.player_id)  # the racers know at once
    # A spectator who comes in now sees the boards as they were 10 s ago: the deal.
    await asyncio.sleep(1)
    late = await WsClient.connect(url, "late")
    await late.send({"type": "join", "room": room, "role": "spectator"})
    snap = await late.expect("snapshot")
    boards = {p["player_id"]: p["board"] for p in snap["players"]}
    assert boards[ann.player_id] == started["board"]
    assert {p["player_id"]: p["moves"] for p in snap["players"]}[ann.player_id] == 0
    await asyncio.sleep(7)
    assert spy.find("delta") is None and late.find("delta") is None
    for c in (spy, late):
        delta = await c.expect("delta", player_id=ann.player_id, timeout=5)
        assert delta["action"] == line[0]
    assert loop.time() - moved >= 9.9
    # Over: nothing is secret any more, the held events go out at once.
    await ann.send(wire(line[1], 2))
    await ann.expect("ack", id=2)
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    for c in (spy, late):
        await c.expect("delta", player_id=ann.player_id, moves=2, timeout=2)
        await c.expect("race_over", timeout=2)
    await close(ann, bob, spy, late)


async def test_a_delayed_race_whose_past_is_gone_shows_a_late_spectator_no_board(
    race_server: ServerProc,
) -> None:
    url = race_server.ws_url
    room, (ann, bob), _ = await lobby(url, "ann", "bob")
    await ann.send({"type": "watch_mode", "mode": "delayed", "delay_s": 10})
    await bob.expect("room", watch="delayed")
    started = await start(ann, bob)
    line = solve(Board.from_code(started["code"]), timeout=10).moves
    await ann.send(wire(line[0], 1))
    await ann.expect("ack", id=1)
    # The room keeps its last 2000 events: as if that many had come within the 10 s.
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    await r.delete(RACE_KEYS.events(room))
    await r.aclose()
    late = await WsClient.connect(url, "late")
    await late.send({"type": "join", "room": room, "role": "spectator"})
    snap = await late.expect("snapshot")
    assert snap["watch"] == "delayed" and snap["state"] == "racing"
    assert all(p.get("board") is None for p in snap["players"])  # progress only, till the end
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    await late.expect("race_over")
    final = await late.expect("snapshot")
    assert all(p["board"] is not None for p in final["players"])
    await close(ann, bob, late)
