"""Bad input: every kind is answered with an error or a reject, and nothing changes."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.engine import Board
from tests import ROOT
from tests.helpers.race_keys import RACE_KEYS
from tests.helpers.serverproc import ServerProc, WsClient, decoded, redis_url, running_server

log_key = RACE_KEYS.log

CODE = "SH1-C4-AAAAAAB"


async def solo(url: str, name: str = "ann") -> tuple[WsClient, dict[str, object]]:
    """A player in a solo game on CODE."""
    c = await WsClient.connect(url, name)
    await c.send({"type": "solo", "code": CODE})
    return c, await c.expect("snapshot")


async def still_works(c: WsClient) -> None:
    await c.send({"type": "ping"})
    await c.expect("pong")


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2, 3]", "bad_json"),
        ('"just a string"', "bad_json"),
        ('{"type": "teleport"}', "unknown_type"),
        ('{"no_type": 1}', "unknown_type"),
        ('{"type": "ping", "extra": true}', "invalid_message"),
        ('{"type": "move", "id": "one", "src": "col1", "dst": "found"}', "invalid_message"),
        ('{"type": "move", "id": 1, "src": "col0", "dst": "found"}', "invalid_message"),
        ('{"type": "hello", "name": "' + "n" * 100 + '"}', "invalid_message"),
        ("x" * 5000, "too_large"),
        ("♠" * 1500, "too_large"),  # 1500 characters, 4500 bytes: the cap is in bytes
        (b"\xff\xfe\x00", "bad_json"),
    ],
)
async def test_malformed_frames(race_server: ServerProc, frame: str | bytes, code: str) -> None:
    c, _snap = await solo(race_server.ws_url)
    await c.send(frame)
    err = await c.expect("error")
    assert err["code"] == code
    await still_works(c)
    await c.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
    await c.expect("ack", id=1)
    await c.close()


async def test_hello_first_and_bad_version(race_server: ServerProc) -> None:
    c = await WsClient.connect(race_server.ws_url)
    await c.send({"type": "create_room", "cells": 4})
    assert (await c.expect("error"))["code"] == "hello_first"
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
    """A server with a tight rate limit and an origin allow-list."""
    args = ["--rate", "5", "--burst", "10", "--allow-origin", "https://friends.example"]
    with running_server(redis_url(), args=args) as srv:
        yield srv


async def test_flood_is_rate_limited(strict_server: ServerProc) -> None:
    c = await WsClient.connect(strict_server.ws_url, "flood")
    for _ in range(30):
        await c.send({"type": "ping"})
    await c.expect("error", code="rate_limited")
    pongs = sum(1 for m in c.messages if m["type"] == "pong")
    assert 9 <= pongs <= 12  # the burst (the welcome's hello used one token)
    await asyncio.sleep(0.5)
    await still_works(c)
    await c.close()


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


def test_http_routes(race_server: ServerProc) -> None:
    with urllib.request.urlopen(race_server.http_url + "/healthz") as res:
        assert res.status == 200 and json.load(res)["redis"] is True
    with urllib.request.urlopen(race_server.http_url + "/metrics") as res:
        text = res.read().decode()
    assert "seahaven_connections " in text and "seahaven_move_latency_seconds_bucket" in text
    for bad in ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/nope.html"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(race_server.http_url + bad)
        assert info.value.code == 404
        info.value.close()


def test_the_static_server_serves_only_the_clients_own_files(race_server: ServerProc) -> None:
    """Route 6: ``/tests/measure_latency.py`` and ``/README.md`` of ``client_web/`` were
    served. An allow-list of the client's folders and extensions decides."""
    client = ROOT / "client_web"
    served = [
        "/",
        "/index.html",
        "/css/app.css",
        "/js/app.js",
        "/js/views/daily.js",
        "/i18n/en.json",
        "/rules/en.html",
        "/img/icon.svg",
    ]
    for path in served:
        with urllib.request.urlopen(race_server.http_url + path) as res:
            assert res.status == 200, path
    refused = [
        "/tests/measure_latency.py",
        "/tests/apply_deltas.mjs",
        "/README.md",
        "/js/../README.md",
        "/css/app.js",  # a folder serves its own kind of file only
        "/i18n/../tests/measure_latency.py",
        "/../pyproject.toml",
        "/%2e%2e/server/settings.py",
    ]
    assert (client / "tests" / "measure_latency.py").is_file() and (client / "README.md").is_file()
    for path in refused:
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(race_server.http_url + path)
        assert info.value.code == 404, path
        info.value.close()
    # Every file the page loads is served: each one the client's tree holds outside its
    # tests and README.
    for file in client.rglob("*"):
        rel = file.relative_to(client).as_posix()
        if file.is_file() and not rel.startswith("tests/") and rel != "README.md":
            with urllib.request.urlopen(f"{race_server.http_url}/{rel}") as res:
                assert res.status == 200, rel
