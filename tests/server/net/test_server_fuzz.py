"""Random and mutated messages thrown at a live game: the server answers, the room stays whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cache import replay
from server.net.wire import board_view
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, decoded, redis_url

log_key = RACE_KEYS.log

CODE = "SH1-C2-AAAAAAE"

TEMPLATES: list[dict[str, Any]] = [
    {"type": "move", "id": 1, "src": "col1", "dst": "cell1"},
    {"type": "move", "id": 2, "src": "cell1", "dst": "col3"},
    {"type": "tap", "id": 3, "at": "col4"},
    {"type": "double_tap", "id": 4, "at": "col2"},
    {"type": "undo", "id": 5},
    {"type": "hint", "id": 6},
    {"type": "join", "room": "ABCDEFGH", "role": "player"},
    {"type": "create_room", "cells": 4},
    {"type": "start"},
    {"type": "rematch"},
    {"type": "resume", "room": "ABCDEFGH", "token": "t" * 32, "last_seq": 0},
    {"type": "hello", "name": "again"},
    {"type": "ping"},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated(draw: st.DrawFn) -> str | bytes:
    """A valid message with one field dropped, added or replaced, or its type changed."""
    msg = dict(draw(st.sampled_from(TEMPLATES)))
    how = draw(st.sampled_from(["drop", "add", "replace", "retype", "id", "none"]))
    keys = sorted(msg)
    if how == "drop":
        msg.pop(draw(st.sampled_from(keys)))
    elif how == "add":
        msg[draw(st.text(min_size=1, max_size=6))] = draw(json_values)
    elif how == "replace":
        msg[draw(st.sampled_from(keys))] = draw(json_values)
    elif how == "retype":
        msg["type"] = draw(st.sampled_from([t["type"] for t in TEMPLATES] + ["", "MOVE", "x"]))
    elif how == "id":
        msg["id"] = draw(st.integers(min_value=-5, max_value=2**60))
    return json.dumps(msg)


frames = st.one_of(
    mutated(),
    st.text(max_size=60),
    st.binary(max_size=60),
    json_values.map(json.dumps),
)


async def throw(url: str, batch: list[str | bytes]) -> None:
    c = await WsClient.connect(url, "fuzz")
    await c.send({"type": "solo", "code": CODE})
    snap = await c.expect("snapshot")
    room = str(snap["room_id"])
    await c.send({"type": "move", "id": 10**6, "src": "col1", "dst": "found:S"})
    await c.expect("reject", id=10**6)
    for frame in batch:
        await c.send(frame)
    await c.send({"type": "ping"})
    await c.expect("pong", timeout=10)

    # The room is whole: the server's board is the replay of the log in Redis, and every
    # action acknowledged to the client is in that log exactly once.
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    log = decoded(await r.lrange(log_key(room, 1, c.player_id), 0, -1))
    await r.aclose()
    acked_ids = {int(m["id"]) for m in c.messages if m["type"] == "ack"}
    assert sorted(int(e.split("\t")[1]) for e in log) == sorted(acked_ids)
    watcher = await WsClient.connect(url, "watcher")
    await watcher.send({"type": "join", "room": room, "role": "spectator"})
    seen = await watcher.expect("snapshot")
    player = next(p for p in seen["players"] if p["player_id"] == c.player_id)
    assert player["board"] == board_view(replay(CODE, log).board)
    assert player["moves"] == len(log)
    await watcher.close()
    await c.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(frames, min_size=1, max_size=12))
def test_random_and_mutated_messages(race_server: ServerProc, batch: list[str | bytes]) -> None:
    asyncio.run(throw(race_server.ws_url, batch))
    assert race_server.health()["ok"] is True
