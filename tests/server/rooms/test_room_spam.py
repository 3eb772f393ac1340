"""Rooms cannot be spammed, on a real server process, a real Redis and real sockets: an
identity has one open lobby, an address a few public ones; however
many lobbies are listed, running races come first on the Watch list and stay featured; a
public lobby nobody starts closes; the spectator cap counts sockets, not identities.

The server runs in the test's process (:mod:`tests.helpers.inproc`), at the real lobby lifetime,
which a test lets pass by moving the server's clock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store.keys import Keys
from server.store.listing import list_room
from server.store.store import Store
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.quick_race import ESTABLISHED
from tests.helpers.serverproc import FAST, WsClient
from tests.helpers.waits import until


def behind(address: str) -> dict[str, Any]:
    """Connect options of a client at ``address``."""
    return {"additional_headers": {"X-Forwarded-For": address}}


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *ESTABLISHED, "--spectators-per-room", "5"]
    async with serving(settings(args, env)) as one:
        yield one


async def test_one_open_lobby_per_identity_and_a_few_public_ones_per_address(
    srv: Served,
) -> None:
    """Route 6 (387 public rooms in 6 s from 6 sockets, before)."""
    ann = await WsClient.connect(srv.ws_url, "Ann", **behind("203.0.113.80"))
    await ann.send({"type": "create_room", "public": True})
    await ann.expect("snapshot")
    # A second tab of Ann: her lobby is still open.
    tab = await WsClient.connect(srv.ws_url, "Ann", token=ann.token, **behind("203.0.113.80"))
    await tab.send({"type": "create_room", "public": True})
    assert (await tab.expect("error"))["code"] == "lobby_open"
    await tab.send({"type": "create_room"})
    assert (await tab.expect("error"))["code"] == "lobby_open"
    # Other identities of the address: two more public lobbies, then no more.
    for n in range(2):
        other = await WsClient.connect(srv.ws_url, f"Alt{n}", **behind("203.0.113.80"))
        await other.send({"type": "create_room", "public": True})
        await other.expect("snapshot")
    spam = await WsClient.connect(srv.ws_url, "Spam", **behind("203.0.113.80"))
    await spam.send({"type": "create_room", "public": True})
    assert (await spam.expect("error"))["code"] == "too_many_lobbies"
    # An invite room is still theirs to make; so is a public one from another address.
    await spam.send({"type": "create_room"})
    await spam.expect("snapshot")
    bob = await WsClient.connect(srv.ws_url, "Bob", **behind("198.51.100.80"))
    await bob.send({"type": "create_room", "public": True})
    await bob.expect("snapshot")
    # Ann leaves her lobby: she may open another.
    await ann.send({"type": "leave"})
    await ann.expect("left")
    await ann.send({"type": "create_room"})
    await ann.expect("snapshot")


async def test_lobbies_never_crowd_a_running_race_off_the_watch_list(
    srv: Served, key_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Route 6: 120 empty public rooms pushed a running race off the list, and featured
    became null. Here 300 lobbies are listed after the race starts (straight into the index,
    as many addresses could), and the race stays first and featured."""
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    await ann.send({"type": "create_room", "public": True})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "start"})
    await ann.expect("started")
    keys = Keys(key_prefix)
    store = Store(redis_client, keys, ttl=60)
    # Many ids in the index, then real lobbies with a racer in each (many addresses).
    for n in range(280):
        await list_room(store, f"FAKE{n:04d}", int(time.time() * 1000) - 500)
    lobbies = [await WsClient.connect(srv.ws_url, f"L{n}") for n in range(20)]
    for lobby in lobbies:
        await lobby.send({"type": "create_room", "public": True})
    first = (await lobbies[0].expect("snapshot"))["room_id"]
    for lobby in lobbies[1:]:
        await lobby.expect("snapshot")
    await asyncio.sleep(1.1)  # past the list's one-second copy
    status, live = await srv.get("/api/rooms/live?limit=10")
    assert status == 200
    assert live["rooms"][0]["room_id"] == room and live["featured"]["room_id"] == room
    assert [r["state"] for r in live["rooms"][1:]] == ["lobby"] * 9  # the newest lobbies
    # The lobbies close once lobby-ttl-s (5 minutes) passed without a start: off the list,
    # and their keys go a minute later.
    srv.clock.advance(300_500)
    await asyncio.sleep(1.1)  # past the list's one-second copy
    status, live = await srv.get("/api/rooms/live?limit=50")
    assert [r["room_id"] for r in live["rooms"]] == [room]

    async def closing() -> bool:
        return 0 < int(await redis_client.ttl(keys.room(first))) <= 60

    await until(closing, timeout=5)


async def test_the_spectator_cap_counts_sockets(srv: Served) -> None:
    """Route 7: 130 sockets of one identity joined as spectators, the room reported 1."""
    ann = await WsClient.connect(srv.ws_url, "Ann")
    await ann.send({"type": "create_room"})
    room = (await ann.expect("snapshot"))["room_id"]
    sam = await WsClient.connect(srv.ws_url, "Sam")
    tabs = [sam] + [await WsClient.connect(srv.ws_url, "Sam", token=sam.token) for _ in range(7)]
    answers = []
    for tab in tabs:
        await tab.send({"type": "join", "room": room, "role": "spectator"})
        reply = await until_reply(tab)
        answers.append(reply["type"] if reply["type"] == "snapshot" else reply["code"])
    assert answers == ["snapshot"] * 5 + ["spectators_full"] * 3
    for tab in tabs:
        await tab.close()


async def until_reply(client: WsClient) -> dict[str, Any]:
    """The snapshot or error that answers a join."""
    found: list[dict[str, Any]] = []

    async def answered() -> bool:
        reply = client.find("snapshot") or client.find("error")
        if reply is not None:
            found.append(reply)
        return bool(found)

    await until(answered)
    return found[0]
