"""Reconnect: resume with the last seq seen, idempotent action ids, snapshots on a gap."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, open_race, redis_url

log_key = RACE_KEYS.log

CODE = "SH1-C4-AAAAAAC"


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


def last_event_seq(c: WsClient) -> int:
    """The seq of the last event received (acks do not count: their delta may be in flight)."""
    return max(int(m["seq"]) for m in c.messages if "seq" in m and m["type"] != "ack")


async def log_length(room: str, pid: str) -> int:
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    n = int(await r.llen(log_key(room, 1, pid)))
    await r.aclose()
    return n


async def race(url: str) -> tuple[WsClient, WsClient, str, tuple[str, ...]]:
    ann = await WsClient.connect(url, "ann")
    bob = await WsClient.connect(url, "bob")
    room = await open_race(CODE, ann, [bob])
    return ann, bob, room, solve(Board.from_code(CODE), timeout=10).moves


async def test_resume_gets_missed_events_and_ids_are_idempotent(race_server: ServerProc) -> None:
    ann, bob, room, line = await race(race_server.ws_url)
    for i in range(3):
        await ann.send(wire(line[i], i))
        ack = await ann.expect("ack", id=i)
        await ann.expect("delta", seq=ack["seq"])
    seen = last_event_seq(ann)
    third_seq = ack["seq"]
    await ann.close()
    for i in range(2):
        await bob.send(wire(line[i], i))
        await bob.expect("ack", id=i)

    again = await WsClient.connect(race_server.ws_url)
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": seen})
    welcome = await again.expect("welcome")
    assert welcome["player_id"] == ann.player_id
    missed = [await again.expect("progress", player_id=bob.player_id) for _ in range(2)]
    assert [m["moves"] for m in missed] == [1, 2]
    assert all(int(m["seq"]) > seen for m in missed)
    assert again.find("snapshot") is None
    assert again.find("delta", player_id=bob.player_id) is None  # fair view holds on resume

    # The third action again (a client that never saw its ack): acked, not applied twice.
    await again.send(wire(line[2], 2))
    assert (await again.expect("ack", id=2))["seq"] == third_seq
    assert await log_length(room, ann.player_id) == 3
    await again.send(wire(line[3], 3))
    await again.expect("ack", id=3)
    assert await log_length(room, ann.player_id) == 4
    # Bob's resend of an id he already used on his own board is his own business.
    await bob.send(wire(line[1], 1))
    await bob.expect("ack", id=1)
    assert await log_length(room, bob.player_id) == 2
    await again.close()
    await bob.close()


async def test_resume_after_a_gap_gets_a_snapshot(race_server: ServerProc) -> None:
    ann, bob, room, line = await race(race_server.ws_url)
    await ann.send(wire(line[0], 1))
    await ann.expect("ack", id=1)
    await ann.close()
    again = await WsClient.connect(race_server.ws_url)
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
    snap = await again.expect("snapshot")
    mine = next(p for p in snap["players"] if p["player_id"] == ann.player_id)
    theirs = next(p for p in snap["players"] if p["player_id"] == bob.player_id)
    assert mine["moves"] == 1 and mine["board"] is not None
    assert theirs.get("board") is None  # a racer never sees another racer's board
    expected = Board.from_code(CODE)
    expected.play(parse_action(line[0]))
    assert Board.from_json(mine["board"]).key() == expected.key()
    await again.close()
    await bob.close()


async def test_resume_errors(race_server: ServerProc) -> None:
    ann, bob, room, _line = await race(race_server.ws_url)
    stranger = await WsClient.connect(race_server.ws_url, "stranger")
    c = await WsClient.connect(race_server.ws_url)
    await c.send({"type": "resume", "room": room, "token": "Q" * 32, "last_seq": 0})
    assert (await c.expect("error"))["code"] == "bad_token"
    await c.send({"type": "resume", "room": "GONEGONE", "token": stranger.token, "last_seq": 0})
    assert (await c.expect("error"))["code"] == "room_not_found"
    # Someone who was never a racer here comes back as a spectator: they may watch, not play.
    await c.send({"type": "resume", "room": room, "token": stranger.token, "last_seq": 10**9})
    snap = await c.expect("snapshot")
    assert snap["role"] == "spectator" and snap["you"] == stranger.player_id
    assert all(p["board"] is not None for p in snap["players"])
    await c.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
    assert (await c.expect("reject", id=1))["reason"] == "not_racing"
    await c.send({"type": "resume", "room": "GONEGONE", "token": stranger.token, "last_seq": 0})
    assert (await c.expect("error"))["code"] == "room_not_found"
    for x in (ann, bob, stranger, c):
        await x.close()


async def test_a_spectator_resumes_and_sees_the_missed_deltas(race_server: ServerProc) -> None:
    ann, bob, room, line = await race(race_server.ws_url)
    spy = await WsClient.connect(race_server.ws_url, "spy")
    await spy.send({"type": "join", "room": room, "role": "spectator"})
    await spy.expect("snapshot")
    await ann.send(wire(line[0], 1))
    await spy.expect("delta", player_id=ann.player_id, moves=1)
    seen = last_event_seq(spy)
    await spy.close()
    await bob.send(wire(line[0], 1))
    await bob.expect("ack", id=1)
    again = await WsClient.connect(race_server.ws_url)
    await again.send({"type": "resume", "room": room, "token": spy.token, "last_seq": seen})
    missed = await again.expect("delta", player_id=bob.player_id)
    assert missed["moves"] == 1 and missed["changes"]
    for c in (ann, bob, again):
        await c.close()


async def test_a_finished_round_still_shows_racers_who_left(race_server: ServerProc) -> None:
    ann, bob, room, line = await race(race_server.ws_url)
    for i, text in enumerate(line):
        await ann.send(wire(text, i))
        await ann.expect("ack", id=i)
    await bob.send({"type": "give_up"})
    await ann.expect("race_over")
    eve = await WsClient.connect(race_server.ws_url, "eve")
    await eve.send({"type": "join", "room": room, "role": "spectator"})
    await eve.expect("snapshot")
    await ann.close()  # a closed tab after the race ends the membership ...
    await bob.close()
    await eve.expect("room", players=[])  # both leaves are done
    # ... but not the round: a later spectator sees it as it ended, boards and all,
    cy = await WsClient.connect(race_server.ws_url, "cy")
    await cy.send({"type": "join", "room": room, "role": "spectator"})
    late = await cy.expect("snapshot")
    assert {p["player_id"]: p["status"] for p in late["players"]} == {
        ann.player_id: "finished",
        bob.player_id: "gave_up",
    }
    assert all("board" in p for p in late["players"])
    # and Ann, reloading, takes her racer's seat again, with her won board and her result.
    back = await WsClient.connect(race_server.ws_url, "ann", token=ann.token)
    await back.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**15})
    snap = await back.expect("snapshot")
    assert snap["state"] == "done" and snap["role"] == "player"
    seen = {p["player_id"]: p for p in snap["players"]}
    assert seen[ann.player_id]["status"] == "finished" and seen[ann.player_id]["rank"] == 1
    assert sum(seen[ann.player_id]["board"]["foundations"].values()) == 52
    assert seen[ann.player_id]["time_ms"] is not None
    assert "board" not in seen[bob.player_id]  # a racer still sees only her own board
    # The host's seat went with the last racer; back, Ann holds it and starts a rematch,
    # which counts her in and not Bob, who is gone.
    assert snap["host"] == ann.player_id
    await back.send({"type": "rematch"})
    lobby = await eve.expect("room", state="lobby")
    assert [p["player_id"] for p in lobby["players"] if p["role"] == "player"] == [ann.player_id]
    for c in (back, eve, cy):
        await c.close()
