"""The legal moves a player gets with each update of their own board (and nobody else does),
and send home: the taps it stands for, each a committed action, refused while some card
cannot get home by foundation moves alone. Real server process, real Redis, real sockets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from server.clients.bot import action_message
from server.engine import Board, parse_action
from server.engine.solver import solve
from server.net import wire
from server.records.replays import Replay, replay_id, verify
from server.review.pace import presses
from tests.helpers.legal import changed
from tests.helpers.serverproc import QUICK, ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import API_STEP, until

CODE = "SH1-C4-AAAAAJ2"
LINE = solve(Board.from_code(CODE)).moves


def until_send_home() -> tuple[list[str], Board]:
    """The solver's line up to the first board where every card left can go home."""
    board = Board.from_code(CODE)
    played = []
    for text in LINE:
        if board.can_send_home():
            break
        board.play(parse_action(text))
        played.append(text)
    return played, board


BEFORE, ENDGAME = until_send_home()


def legal_of(board: Board) -> dict[str, Any]:
    return wire.legal_view(board)


async def race(url: str) -> tuple[str, WsClient, WsClient, WsClient]:
    """Ann hosts a race on CODE, Bob races, Sam watches (live); started."""
    ann = await WsClient.connect(url, "Ann")
    await ann.send({"type": "create_room", "code": CODE})
    room = str((await ann.expect("snapshot"))["room_id"])
    bob = await WsClient.connect(url, "Bob")
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    sam = await WsClient.connect(url, "Sam")
    await sam.send({"type": "join", "room": room, "role": "spectator"})
    await sam.expect("snapshot")
    await ann.expect("room", spectators=1)
    await ann.send({"type": "start"})
    return room, ann, bob, sam


async def test_only_the_boards_own_player_gets_its_legal_moves(race_server: ServerProc) -> None:
    room, ann, bob, sam = await race(race_server.ws_url)
    opening = Board.from_code(CODE)
    # The opening board: each racer's started carries its legal moves, the spectator's not.
    for racer in (ann, bob):
        assert (await racer.expect("started"))["legal"] == legal_of(opening)
    assert "legal" not in await sam.expect("started")
    board = Board.from_code(CODE)
    held = legal_of(opening)  # Ann's listing, as a client keeps it: each delta changes it
    for i, text in enumerate(LINE[:3], 1):
        await ann.send(action_message(text, i))
        await ann.expect("ack", id=i)
        board.play(parse_action(text))
        mine = await ann.expect("delta", moves=i)
        held = changed(held, mine["legal_change"])
        assert held == legal_of(board)  # the board as it is after this action
        watched = await sam.expect("delta", player_id=ann.player_id, moves=i)
        assert "legal_change" not in watched
        assert {k: v for k, v in mine.items() if k != "legal_change"} == watched
        assert "legal_change" not in await bob.expect("progress", player_id=ann.player_id, moves=i)
    # Another socket of Ann's: a snapshot with her legal moves, and her deltas change them.
    again = await WsClient.connect(race_server.ws_url)
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
    snap = await again.expect("snapshot")
    (own,) = [p for p in snap["players"] if p["player_id"] == ann.player_id]
    assert own["legal"] == legal_of(board)
    assert all("legal" not in p for p in snap["players"] if p is not own)
    await ann.send(action_message(LINE[3], 4))
    board.play(parse_action(LINE[3]))
    assert changed(own["legal"], (await again.expect("delta", moves=4))["legal_change"]) == (
        legal_of(board)
    )
    # Replayed events keep it so: Ann's own deltas with their changes, from the started's
    # listing on; Bob's view of them without.
    later = await WsClient.connect(race_server.ws_url)
    started_seq = next(m["seq"] for m in ann.messages if m.get("type") == "started")
    await later.send({"type": "resume", "room": room, "token": ann.token, "last_seq": started_seq})
    held = legal_of(opening)
    for i in range(1, 5):
        held = changed(held, (await later.expect("delta", moves=i))["legal_change"])
    assert held == legal_of(board)
    await bob.expect("progress", player_id=ann.player_id, moves=4)
    # A spectator's snapshot: every board, no legal moves.
    spy = await WsClient.connect(race_server.ws_url, "Spy")
    await spy.send({"type": "join", "room": room, "role": "spectator"})
    seen = await spy.expect("snapshot")
    assert all(p.get("board") and "legal" not in p for p in seen["players"])
    # Nothing a spectator got, and nothing Bob got of Ann's board, held a legal move.
    assert all("legal" not in m and "legal_change" not in m for m in sam.messages + spy.messages)
    about_ann = [m for m in bob.messages if m.get("player_id") == ann.player_id]
    assert about_ann and all("legal" not in m and "legal_change" not in m for m in about_ann)
    for c in (ann, bob, sam, again, later, spy):
        await c.close()


@pytest.fixture(scope="module")
def tight() -> Iterator[ServerProc]:
    """A server whose boards take one action more than the line before the send home, then
    (almost) nothing: a send home passes only if the rate limit counts it once."""
    args = [*QUICK, "--board-burst", str(len(BEFORE) + 1), "--board-rate-per-s", "0.01"]
    with running_server(redis_url(), args=args) as srv:
        yield srv


async def test_send_home_commits_the_taps_it_stands_for(tight: ServerProc) -> None:
    ann = await WsClient.connect(tight.ws_url, "Ann")
    await ann.send({"type": "solo", "code": CODE})
    snap = await ann.expect("snapshot")
    assert snap["players"][0]["legal"]["send_home"] is False
    # Refused while some card cannot get home by foundation moves alone; nothing changes.
    await ann.send({"type": "send_home", "id": 1000})
    assert (await ann.expect("reject", id=1000))["reason"] == "cannot_send_home"
    for i, text in enumerate(BEFORE, 1):
        await ann.send(action_message(text, i))
        await ann.expect("ack", id=i)
    held = snap["players"][0]["legal"]
    for i in range(1, len(BEFORE) + 1):
        last = await ann.expect("delta", moves=i)
        held = changed(held, last["legal_change"])
    assert last["legal_change"]["send_home"] is True and held == legal_of(ENDGAME)
    taps = [str(t) for t in ENDGAME.send_home_taps()]
    assert len(taps) > 1
    await ann.send({"type": "send_home", "id": 2000})
    ack = await ann.expect("ack", id=2000)
    deltas = [await ann.expect("delta", moves=len(BEFORE) + n) for n in range(1, len(taps) + 1)]
    # Each tap is an action of its own: its delta, its seq, counted in moves.
    assert [d["action"] for d in deltas] == taps
    assert [d["seq"] for d in deltas] == list(range(ack["seq"] - len(taps) + 1, ack["seq"] + 1))
    assert all(
        len(d["changes"]) == 1 and d["changes"][0]["dst"].startswith("found:") for d in deltas
    )
    assert all(d["points"] == 10 for d in deltas)
    assert deltas[-1]["finished"] and [d["finished"] for d in deltas].count(True) == 1
    board = ENDGAME.copy()
    for tap, d in zip(ENDGAME.send_home_taps(), deltas, strict=True):
        board.play(tap)
        held = changed(held, d["legal_change"])
        assert held == legal_of(board)
    finished = await ann.expect("finished", player_id=ann.player_id)
    assert finished["moves"] == len(BEFORE) + len(taps)
    # A resent send home is acknowledged again, never applied twice.
    await ann.send({"type": "send_home", "id": 2000})
    assert (await ann.expect("ack", id=2000))["seq"] == ack["seq"]
    # The replay holds the taps, as played, and verifies.
    room = snap["room_id"]

    def kept() -> Any:
        status, body = tight.get_json(f"/api/replay/{replay_id(room, 1, ann.player_id)}")
        return body if status == 200 else None

    body = await until(kept, what="the replay kept", step=API_STEP)
    assert body["actions"] == [*BEFORE, *taps]
    assert len(set(body["times_ms"][-len(taps) :])) == 1  # one request, one server time
    replay = Replay.from_json(body)
    assert verify(replay, min_ms_per_action=0).ok  # (the test plays faster than a person)
    assert len(presses(replay.actions, replay.times_ms)) == len(BEFORE) + 1  # one press
    await ann.close()
