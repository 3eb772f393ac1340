"""A whole race over real sockets: three racers, a spectator, deltas, fair view, ranks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server.engine import Board, Move, apply_delta, parse_action
from server.engine.solver import solve
from server.net.wire import board_view
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient

log_key = RACE_KEYS.log

CODE = "SH1-C4-AAAAAAB"


def wire(action_text: str, action_id: int) -> dict[str, object]:
    """A protocol message for one action in RULES.md notation."""
    action = parse_action(action_text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


class Mirror:
    """A thin client's copy of boards: built from ``started`` and moved only by deltas."""

    def __init__(self) -> None:
        self.boards: dict[str, Board] = {}

    def start(self, started: dict[str, Any]) -> None:
        for pid in started["players"]:
            self.boards[str(pid)] = Board.from_json(started["board"])

    def apply(self, delta: dict[str, Any]) -> None:
        from server.engine import Change, Delta, parse_location

        changes = tuple(
            Change(
                tuple(_card(c) for c in ch["cards"]),
                parse_location(ch["src"]),
                parse_location(ch["dst"]),
            )
            for ch in delta["changes"]
        )
        apply_delta(
            self.boards[str(delta["player_id"])],
            Delta(changes, int(delta["points"]), int(delta["score"]), bool(delta["undo"])),
        )


def _card(name: str) -> int:
    from server.engine import parse_card

    return parse_card(name)


async def play_line(client: WsClient, line: tuple[str, ...], first_id: int) -> list[int]:
    """Send each action and wait for its ack; returns the acked seqs."""
    seqs = []
    for i, text in enumerate(line):
        await client.send(wire(text, first_id + i))
        ack = await client.expect("ack", id=first_id + i)
        seqs.append(int(ack["seq"]))
    return seqs


async def test_full_race(race_server: ServerProc) -> None:
    url = race_server.ws_url
    ann = await WsClient.connect(url, "ann")
    bob = await WsClient.connect(url, "bob")
    cat = await WsClient.connect(url, "cat")
    spy = await WsClient.connect(url, "spy")
    await ann.send({"type": "create_room", "cells": 4, "code": CODE})
    snap = await ann.expect("snapshot")
    room = str(snap["room_id"])
    assert snap["state"] == "lobby" and snap["host"] == ann.player_id and snap["code"] == CODE
    for c in (bob, cat):
        await c.send({"type": "join", "room": room, "role": "player"})
        await c.expect("snapshot")
    await spy.send({"type": "join", "room": room, "role": "spectator"})
    await spy.expect("snapshot")
    info = await ann.expect("room", spectators=1)
    assert {p["player_id"] for p in info["players"]} >= {ann.player_id}

    # Only the host starts; moves before the start are refused.
    await bob.send({"type": "start"})
    assert (await bob.expect("error"))["code"] == "not_host"
    await bob.send(wire("col1 cell3", 1))
    assert (await bob.expect("reject", id=1))["reason"] == "not_started"
    await ann.send({"type": "start"})
    countdowns = [await c.expect("countdown") for c in (ann, bob, cat, spy)]
    assert len({c["starts_at"] for c in countdowns}) == 1
    starts_at = int(countdowns[0]["starts_at"])
    started = [await c.expect("started") for c in (ann, bob, cat, spy)]
    assert {s["started_at"] for s in started} == {starts_at}
    assert set(started[0]["players"]) == {ann.player_id, bob.player_id, cat.player_id}
    mirror = Mirror()
    mirror.start(started[3])
    opening = Board.from_code(CODE)
    assert started[0]["board"] == board_view(opening)

    line = solve(opening, timeout=10).moves
    assert line
    # A spectator's move is refused and changes nothing.
    await spy.send(wire(line[0], 1))
    assert (await spy.expect("reject", id=1))["reason"] == "not_racing"

    await play_line(ann, line, 100)
    fin_ann = await ann.expect("finished", player_id=ann.player_id)
    assert fin_ann["rank"] == 1 and fin_ann["moves"] == len(line)
    # Moves after the finish are refused.
    await ann.send(wire(line[0], 999))
    assert (await ann.expect("reject", id=999))["reason"] == "finished"

    # Bob takes one move back on the way, then wins too.
    await play_line(bob, line[:3], 100)
    await bob.send({"type": "undo", "id": 103})
    await bob.expect("ack", id=103)
    await play_line(bob, line[2:], 104)
    fin_bob = await bob.expect("finished", player_id=bob.player_id)
    assert fin_bob["rank"] == 2
    assert int(fin_bob["time_ms"]) >= int(fin_ann["time_ms"])
    assert fin_bob["moves"] == len(line) + 2

    # Cat plays a little, then gives up; the race is over.
    await play_line(cat, line[:5], 1)
    await cat.send({"type": "give_up"})
    over = await spy.expect("race_over")
    results = over["results"]
    assert [(r["player_id"], r["status"], r["rank"]) for r in results] == [
        (ann.player_id, "finished", 1),
        (bob.player_id, "finished", 2),
        (cat.player_id, "gave_up", None),
    ]

    # Fair view: cat saw only progress of the others; the spectator saw every delta.
    for msg in cat.messages:
        if msg["type"] == "delta":
            assert msg["player_id"] == cat.player_id
    progress_ids = {m["player_id"] for m in cat.messages if m["type"] == "progress"}
    assert progress_ids == {ann.player_id, bob.player_id}
    deltas = [m for m in spy.messages if m["type"] == "delta"]
    assert len(deltas) == 2 * len(line) + 2 + 5
    seqs = [int(m["seq"]) for m in spy.messages if "seq" in m and m["type"] != "snapshot"]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))
    for d in deltas:
        mirror.apply(d)

    # The mirror equals the boards the server keeps (a fresh spectator's snapshot, and Redis).
    late = await WsClient.connect(url, "late")
    await late.send({"type": "join", "room": room, "role": "spectator"})
    final = await late.expect("snapshot")
    assert final["state"] == "done"
    for p in final["players"]:
        assert p["board"] == board_view(mirror.boards[p["player_id"]]), p["player_id"]
    assert mirror.boards[ann.player_id].is_won() and mirror.boards[bob.player_id].is_won()
    import redis.asyncio as aioredis

    from tests.helpers.serverproc import decoded, redis_url

    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    log = decoded(await r.lrange(log_key(room, 1, bob.player_id), 0, -1))
    await r.aclose()
    assert len(log) == len(line) + 2
    assert all(len(e.split("\t")) == 3 and int(e.split("\t")[0]) >= starts_at for e in log)
    for c in (ann, bob, cat, spy, late):
        await c.close()
    _ = json, asyncio
