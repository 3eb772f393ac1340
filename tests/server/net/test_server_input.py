"""Bad input through a server: every kind is answered with an error or a reject, and nothing
changes; a socket's limits where the real socket matters (a frame past the hard cap closes
it with 1009, the sockets of an address, the hello timeout, a resume far behind).

What the socket's checks decide about each frame (its size, rate, JSON, type, fields; hello
first) is tested without a server in ``test_session_input.py``; a board's limits on the
store in ``tests/server/store/test_board_limits.py``; the server's own routes and the
client's files through the front in ``tests/server/http/test_http_files.py``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.cache import replay
from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.net.limits import MAX_SOCKET_FRAME
from server.net.wire import board_view
from tests.helpers.fuzz_frames import frames
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, decoded, redis_url, running_server

log_key = RACE_KEYS.log

CODE = "SH1-C4-AAAAAAB"
LINE = solve(Board.from_code(CODE)).moves
FUZZ_CODE = "SH1-C2-AAAAAAE"


async def solo(url: str, name: str = "ann") -> tuple[WsClient, dict[str, object]]:
    """A player in a solo game on CODE."""
    c = await WsClient.connect(url, name)
    await c.send({"type": "solo", "code": CODE})
    return c, await c.expect("snapshot")


async def test_a_bad_version_or_token_in_hello(race_server: ServerProc) -> None:
    c = await WsClient.connect(race_server.ws_url)
    await c.send({"type": "hello", "name": "x", "v": 99})
    assert (await c.expect("error"))["code"] == "unsupported_version"
    await c.send({"type": "hello", "name": "x", "token": "Z" * 32})
    assert (await c.expect("error"))["code"] == "bad_token"
    await c.send({"type": "hello", "name": "x"})
    await c.expect("welcome")
    await c.close()


async def test_illegal_moves_change_nothing(race_server: ServerProc) -> None:
    c, snap = await solo(race_server.ws_url)
    room = str(snap["room_id"])
    opening = Board.from_code(CODE)
    cases = [
        ({"type": "move", "id": 1, "src": "cell3", "dst": "col1"}, "empty_source"),
        ({"type": "move", "id": 2, "src": "col1", "dst": "cell1"}, "cell_occupied"),
        ({"type": "move", "id": 3, "src": "col1", "dst": "col1"}, "same_location"),
        ({"type": "move", "id": 4, "src": "found", "dst": "col1"}, "foundation_needs_suit"),
        ({"type": "tap", "id": 5, "at": "found:S"}, "not_a_top_card"),
        ({"type": "undo", "id": 6}, "nothing_to_undo"),
        ({"type": "move", "id": 7, "src": "col1", "dst": "cell4"}, None),
        ({"type": "move", "id": 8, "src": "col1", "dst": "cell4"}, "cell_occupied"),
    ]
    for msg, reason in cases:
        await c.send(msg)
        if reason is None:
            await c.expect("ack", id=msg["id"])
        else:
            rej = await c.expect("reject", id=msg["id"])
            assert rej["reason"] == reason
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    log = decoded(await r.lrange(log_key(room, 1, c.player_id), 0, -1))
    await r.aclose()
    assert [e.split("\t")[2] for e in log] == ["col1 cell4"]
    assert opening.columns[0]  # sanity: the move moved a real card
    await c.close()


async def test_room_errors(race_server: ServerProc) -> None:
    c = await WsClient.connect(race_server.ws_url, "ann")
    await c.send({"type": "join", "room": "NOSUCHROOM", "role": "player"})
    assert (await c.expect("error"))["code"] == "room_not_found"
    await c.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
    assert (await c.expect("reject", id=1))["reason"] == "not_racing"
    await c.send({"type": "start"})
    assert (await c.expect("error"))["code"] == "not_in_room"
    await c.send({"type": "leave"})
    assert (await c.expect("error"))["code"] == "not_in_room"
    await c.send({"type": "solo", "code": "SH1-C9-AAAAAAA"})
    assert (await c.expect("error"))["code"] == "bad_code"
    await c.send({"type": "create_room", "cells": 2})
    snap = await c.expect("snapshot")
    await c.send({"type": "create_room", "cells": 2})
    assert (await c.expect("error"))["code"] == "already_in_room"
    # The room fills at 8 racers; the 9th is told so and may watch instead.
    others = [await WsClient.connect(race_server.ws_url, f"p{i}") for i in range(8)]
    for i, o in enumerate(others):
        await o.send({"type": "join", "room": snap["room_id"], "role": "player"})
        if i < 7:
            await o.expect("snapshot")
        else:
            assert (await o.expect("error"))["code"] == "room_full"
    await c.send({"type": "start"})
    await c.expect("countdown")
    late = await WsClient.connect(race_server.ws_url, "late")
    await late.send({"type": "join", "room": snap["room_id"], "role": "player"})
    assert (await late.expect("error"))["code"] == "race_in_progress"
    await c.send({"type": "rematch"})
    assert (await c.expect("error"))["code"] == "wrong_state"
    for o in [*others, late, c]:
        await o.close()


@pytest.fixture(scope="module")
def strict_server() -> Iterator[ServerProc]:
    """A server with an origin allow-list, 3 sockets an address, 0.5 s to say hello, and
    resumes of at most 5 events. It believes the address a test names in
    ``X-Forwarded-For`` (see :func:`behind`), so that the sockets one test leaves closing
    never count against the next one's."""
    args = ["--allow-origin", "https://friends.example", "--resume-max-events", "5"]
    args += ["--sockets-per-address", "3", "--hello-timeout-s", "0.5"]
    args += ["--trusted-proxy", "127.0.0.1/32"]
    with running_server(redis_url(), args=args) as srv:
        yield srv


async def test_a_resume_far_behind_gets_a_snapshot(strict_server: ServerProc) -> None:
    ann = await WsClient.connect(strict_server.ws_url, "Ann")
    await ann.send({"type": "solo", "code": CODE})
    room = (await ann.expect("snapshot"))["room_id"]
    for i, text in enumerate(LINE[:10], 1):
        await ann.send(action_message(text, i))
        await ann.expect("ack", id=i)
    again = await WsClient.connect(strict_server.ws_url)
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 2})
    snap = await again.expect("snapshot")  # 8 events behind: more than 5
    assert snap["seq"] == 10 and again.find("delta") is None
    await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 7})
    await again.expect("delta", seq=8)  # 3 behind: the events themselves
    await ann.close()
    await again.close()


async def test_foreign_origins_are_refused(strict_server: ServerProc) -> None:
    with pytest.raises(InvalidStatus) as info:
        await connect(strict_server.ws_url, origin=Origin("https://evil.example"))
    assert info.value.response.status_code == 403
    for origin in ("https://friends.example", f"http://127.0.0.1:{strict_server.port}"):
        ws = await connect(strict_server.ws_url, origin=Origin(origin))
        await ws.send(json.dumps({"type": "ping"}))
        assert json.loads(await ws.recv())["type"] == "pong"
        await ws.close()
    assert strict_server.health()["ok"] is True


def behind(address: str) -> dict[str, str]:
    """The headers of a client at ``address`` (behind the trusted proxy)."""
    return {"X-Forwarded-For": address}


async def test_sockets_per_address_are_capped(strict_server: ServerProc) -> None:
    url, address = strict_server.ws_url, behind("203.0.113.31")
    held = [await connect(url, additional_headers=address) for _ in range(3)]
    # Another address has places of its own.
    other = await connect(url, additional_headers=behind("203.0.113.32"))
    await other.send(json.dumps({"type": "ping"}))
    assert json.loads(await other.recv())["type"] == "pong"
    extra = await connect(url, additional_headers=address)
    await asyncio.wait_for(extra.wait_closed(), 5)
    assert extra.close_code == 1013
    await held[0].close()
    await asyncio.sleep(0.1)
    again = await connect(url, additional_headers=address)  # a place is free again
    await again.send(json.dumps({"type": "hello", "name": "Ann"}))
    assert json.loads(await again.recv())["type"] == "welcome"
    for ws in [*held[1:], again, other]:
        await ws.close()


async def test_a_socket_that_never_says_hello_is_closed(strict_server: ServerProc) -> None:
    address = behind("203.0.113.33")
    silent = await connect(strict_server.ws_url, additional_headers=address)
    talker = await connect(strict_server.ws_url, additional_headers=address)
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


async def test_an_oversized_frame_is_refused_up_to_the_hard_cap_and_closes_past_it(
    race_server: ServerProc,
) -> None:
    """Past 4 KiB a frame gets ``error too_large`` and the socket stays (up to the 64 KiB
    hard cap, the last byte included); past the cap the socket is closed with 1009 and a
    reason that names the limit, and the next connection is served."""
    ws = await connect(race_server.ws_url)
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
    again = await connect(race_server.ws_url)
    await again.send(json.dumps({"type": "ping"}))
    assert json.loads(await again.recv())["type"] == "pong"
    await again.close()


async def throw(url: str, batch: list[str | bytes]) -> None:
    """Frames thrown at a live solo game: the server answers, and the room stays whole."""
    c = await WsClient.connect(url, "fuzz")
    await c.send({"type": "solo", "code": FUZZ_CODE})
    room = str((await c.expect("snapshot"))["room_id"])
    await c.send({"type": "move", "id": 10**6, "src": "col1", "dst": "found:S"})
    await c.expect("reject", id=10**6)
    for frame in batch:
        await c.send(frame)
    await c.send({"type": "ping"})
    await c.expect("pong", timeout=10)
    # The server's board is the replay of the log in Redis, and every action acknowledged to
    # the client is in that log exactly once.
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    log = decoded(await r.lrange(log_key(room, 1, c.player_id), 0, -1))
    await r.aclose()
    acked_ids = {int(m["id"]) for m in c.messages if m["type"] == "ack"}
    assert sorted(int(e.split("\t")[1]) for e in log) == sorted(acked_ids)
    watcher = await WsClient.connect(url, "watcher")
    await watcher.send({"type": "join", "room": room, "role": "spectator"})
    seen = await watcher.expect("snapshot")
    player = next(p for p in seen["players"] if p["player_id"] == c.player_id)
    assert player["board"] == board_view(replay(FUZZ_CODE, log).board)
    assert player["moves"] == len(log)
    await watcher.close()
    await c.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(frames, min_size=1, max_size=12))
def test_random_and_mutated_messages_leave_a_live_game_whole(
    race_server: ServerProc, batch: list[str | bytes]
) -> None:
    """Through a server: what each frame is answered is decided by the socket's checks
    (``test_session_input.py``, many more frames); here the frames its handlers take change
    a real game's board and log as one."""
    asyncio.run(throw(race_server.ws_url, batch))
    assert race_server.health()["ok"] is True
