"""Limits by identity and address, not only by socket, and bounded rooms: no client can
slow, stall or fill the server by opening more sockets, sending junk, or playing forever."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.net.limits import MAX_SOCKET_FRAME
from tests.helpers.serverproc import QUICK, ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAAB"
LINE = solve(Board.from_code(CODE)).moves


@pytest.fixture(scope="module")
def strict() -> Iterator[ServerProc]:
    """A server with small limits: 5 actions a second on a board (bursts of 5), 3 sockets an
    address, 0.5 s to say hello, 2 messages a socket in a burst, boards of 100 actions, and
    resumes of at most 5 events."""
    args = [
        *("--board-rate-per-s", "5", "--board-burst", "5"),
        *("--sockets-per-address", "3", "--hello-timeout-s", "0.5"),
        *("--rate", "2", "--burst", "2"),
        *("--max-actions", "100", "--resume-max-events", "5"),
    ]
    with running_server(redis_url(), args=args) as srv:
        yield srv


@pytest.fixture(scope="module")
def roomy() -> Iterator[ServerProc]:
    """A server with per-socket limits out of the way, to test the per-board ones."""
    args = [*QUICK, "--board-rate-per-s", "5", "--board-burst", "5", "--max-actions", "100"]
    with running_server(redis_url(), args=[*args, "--resume-max-events", "5"]) as srv:
        yield srv


@pytest.fixture(scope="module")
def bounded() -> Iterator[ServerProc]:
    """A server whose boards take at most 100 actions and whose resumes replay at most 5
    events, its rates out of the way (a test of those bounds need not wait for a bucket)."""
    args = [*QUICK, "--max-actions", "100", "--resume-max-events", "5"]
    with running_server(redis_url(), args=args) as srv:
        yield srv


async def answer(ws: WsClient, action_id: int) -> dict[str, object]:
    """The ``ack`` or ``reject`` of one action."""
    found: dict[str, object] = await until(
        lambda: ws.find("ack", id=action_id) or ws.find("reject", id=action_id),
        what=f"an answer to action {action_id}",
    )
    return found


async def test_many_sockets_of_one_player_share_one_boards_rate(roomy: ServerProc) -> None:
    first = await WsClient.connect(roomy.ws_url, "Ann")
    await first.send({"type": "solo", "code": CODE})
    room = (await first.expect("snapshot"))["room_id"]
    sockets = [first]
    for _ in range(4):  # the same player on four more sockets, in the same room
        more = await WsClient.connect(roomy.ws_url)
        await more.send({"type": "resume", "room": room, "token": first.token, "last_seq": 0})
        await more.expect("welcome")
        sockets.append(more)
    for i, text in enumerate(LINE[:20], 1):
        await sockets[i % 5].send(action_message(text, i))
    answers = [await answer(sockets[i % 5], i) for i in range(1, 21)]
    acked = sum(a["type"] == "ack" for a in answers)
    limited = [a for a in answers if a.get("reason") == "rate_limited"]
    # 5 at once, then 5 a second: far fewer than the 20 sent in a moment.
    assert 5 <= acked <= 8, answers
    assert limited
    for ws in sockets:
        await ws.close()


async def test_a_board_takes_a_bounded_number_of_actions(bounded: ServerProc) -> None:
    ann = await WsClient.connect(bounded.ws_url, "Ann")
    await ann.send({"type": "solo", "code": CODE})
    await ann.expect("snapshot")
    # A move and its undo, again and again.
    for i in range(1, 101):
        await ann.send(action_message(LINE[0] if i % 2 else "undo", i))
        await ann.expect("ack", id=i)
    await ann.send(action_message(LINE[0], 101))
    assert (await ann.expect("reject", id=101))["reason"] == "too_many_actions"
    await ann.close()


async def test_a_resume_far_behind_gets_a_snapshot(bounded: ServerProc) -> None:
    ann = await WsClient.connect(bounded.ws_url, "Ann")
    await ann.send({"type": "solo", "code": CODE})
    room = (await ann.expect("snapshot"))["room_id"]
    for i, text in enumerate(LINE[:10], 1):
        await ann.send(action_message(text, i))
        await ann.expect("ack", id=i)
    again = await WsClient.connect(bounded.ws_url)
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 2})
    snap = await again.expect("snapshot")  # 8 events behind: more than 5
    assert snap["seq"] == 10 and again.find("delta") is None
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 7})
    await again.expect("delta", seq=8)  # 3 behind: the events themselves
    await ann.close()
    await again.close()


async def test_sockets_per_address_are_capped(strict: ServerProc) -> None:
    held = [await connect(strict.ws_url) for _ in range(3)]
    extra = await connect(strict.ws_url)
    await asyncio.wait_for(extra.wait_closed(), 5)
    assert extra.close_code == 1013
    await held[0].close()
    await asyncio.sleep(0.1)
    again = await connect(strict.ws_url)  # a place is free again
    await again.send(json.dumps({"type": "hello", "name": "Ann"}))
    assert json.loads(await again.recv())["type"] == "welcome"
    for ws in [*held[1:], again]:
        await ws.close()


async def test_a_socket_that_never_says_hello_is_closed(strict: ServerProc) -> None:
    silent = await connect(strict.ws_url)
    talker = await connect(strict.ws_url)
    await talker.send(json.dumps({"type": "hello", "name": "Bob"}))
    await talker.recv()
    await asyncio.wait_for(silent.wait_closed(), 5)
    assert silent.close_code == 1008
    # The talker connected just after the silent one, whose timeout has run out: a moment
    # more and the talker's has too.
    await asyncio.sleep(0.1)
    await talker.send(json.dumps({"type": "ping"}))  # past the timeout, still served
    assert json.loads(await talker.recv())["type"] == "pong"
    await talker.close()


async def test_binary_and_oversized_frames_count_against_the_rate(strict: ServerProc) -> None:
    ws = await connect(strict.ws_url)
    await ws.send(b'{"type":"ping"}')  # binary: refused, and counted
    first = json.loads(await ws.recv())
    assert first["type"] == "error" and first["code"] == "bad_json"
    await ws.send("x" * 5000)  # over the 4 KiB cap: refused, and counted
    assert json.loads(await ws.recv())["code"] == "too_large"
    await ws.send(json.dumps({"type": "ping"}))  # the burst of 2 is spent
    assert json.loads(await ws.recv())["code"] == "rate_limited"
    await ws.close()


async def test_an_oversized_frame_is_refused_up_to_the_hard_cap_and_closes_past_it(
    roomy: ServerProc,
) -> None:
    """Past 4 KiB a frame gets ``error too_large`` and the socket stays (up to the 64 KiB
    hard cap, the last byte included); past the cap the socket is closed with 1009 and a
    reason that names the limit, and the next connection is served."""
    ws = await connect(roomy.ws_url)
    for size in (4097, 60_000, MAX_SOCKET_FRAME):
        await ws.send("x" * size)
        answer = json.loads(await ws.recv())
        assert answer["type"] == "error" and answer["code"] == "too_large", size
        await ws.send(json.dumps({"type": "ping"}))  # still open, still served
        assert json.loads(await ws.recv())["type"] == "pong"
    await ws.send("x" * (MAX_SOCKET_FRAME + 1))
    await asyncio.wait_for(ws.wait_closed(), 5)
    assert ws.close_code == 1009
    assert str(MAX_SOCKET_FRAME) in (ws.close_reason or "")
    again = await connect(roomy.ws_url)
    await again.send(json.dumps({"type": "ping"}))
    assert json.loads(await again.recv())["type"] == "pong"
    await again.close()


@pytest.mark.parametrize("bad", ['"1"', "1.0", "true"])
async def test_action_ids_are_integers(roomy: ServerProc, bad: str) -> None:
    ann = await WsClient.connect(roomy.ws_url, "Ann")
    await ann.send({"type": "solo", "code": CODE})
    await ann.expect("snapshot")
    await ann.send('{"type":"undo","id":' + bad + "}")
    error = await ann.expect("error")
    assert error["code"] == "invalid_message" and "id" in error["message"]
    await ann.close()


async def test_room_events_count_spectators_instead_of_listing_them(roomy: ServerProc) -> None:
    ann = await WsClient.connect(roomy.ws_url, "Ann")
    await ann.send({"type": "create_room"})
    room = (await ann.expect("snapshot"))["room_id"]
    sizes = []
    watchers = []
    for i in range(30):
        w = await WsClient.connect(roomy.ws_url, f"Watcher{i}")
        await w.send({"type": "join", "room": room, "role": "spectator"})
        await w.expect("snapshot")
        event = await ann.expect("room", spectators=i + 1)
        assert [p["player_id"] for p in event["players"]] == [ann.player_id]
        sizes.append(len(json.dumps(event)))
        watchers.append(w)
    # The 30th spectator's event is as small as the first's (a count grows by a digit).
    assert sizes[-1] - sizes[0] <= 2
    for c in [ann, *watchers]:
        await c.close()
