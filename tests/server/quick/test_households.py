"""Households race (a family is no cheat): identities of one client address (a family, an office, a
carrier's NAT) are paired together when nobody else waits, in the quick race and in an
arena, through a real server and sockets from real loopback addresses; their room's
snapshot says so before the race (``household``), and the race counts no rating and no
arena point between them. Anyone else waiting is preferred."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, REVIEW_OFF_ENV, WsClient
from tests.helpers.waits import until

HOME, ELSEWHERE = "127.0.0.6", "127.0.0.7"
ARGS = [
    *FAST,
    *("--pair-fourth-ms", "1000", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "500"),
]


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    """One instance under the test's prefix, the review off (scripted lines)."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, **REVIEW_OFF_ENV}
    async with serving(settings(ARGS, env)) as one:
        yield one


async def from_address(url: str, name: str, address: str) -> WsClient:
    """A client whose socket comes from ``address`` (no proxy header)."""
    client = await WsClient.connect(url, name, additional_headers={}, local_addr=(address, 0))
    client.address = address
    return client


def action(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of a line's action."""
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


async def play(client: WsClient, line: list[str]) -> None:
    """Play ``line``, each action acknowledged."""
    for i, text in enumerate(line):
        await client.send(action(text, i))
        await client.expect("ack", id=i, timeout=10)


async def test_two_identities_of_one_address_race_each_other_when_nobody_else_waits(
    srv: Served,
) -> None:
    mum = await from_address(srv.ws_url, "Mum", HOME)
    kid = await from_address(srv.ws_url, "Kid", HOME)
    for c in (mum, kid):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    # Within 10 s of queueing (the wait for a fourth is 1 s here): one room, said so.
    snaps = [await c.expect("snapshot", timeout=10) for c in (mum, kid)]
    assert snaps[0]["room_id"] == snaps[1]["room_id"]
    assert all(s["household"] is True and s["state"] == "lobby" for s in snaps)
    started = [await c.expect("started", timeout=10) for c in (mum, kid)]
    line = await asyncio.to_thread(lambda: solve(Board.from_code(started[0]["code"])).moves)
    await play(kid, list(line[:30]))
    await kid.send({"type": "give_up"})
    await play(mum, list(line))
    await mum.expect("race_over", timeout=10)
    # Nobody rated against anybody: no ``ratings`` message, no rating on either page.
    await asyncio.sleep(0.5)
    assert mum.find("ratings") is None
    for c in (mum, kid):
        _status, profile = await srv.get(f"/api/player/{c.player_id}")
        assert "4" not in profile["ratings"]
    for c in (mum, kid):
        await c.close()


async def test_a_stranger_waiting_is_preferred_to_ones_own_household(srv: Served) -> None:
    mum = await from_address(srv.ws_url, "Mum", HOME)
    kid = await from_address(srv.ws_url, "Kid", HOME)
    ed = await from_address(srv.ws_url, "Ed", ELSEWHERE)
    for c in (mum, kid, ed):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    first = await ed.expect("snapshot", timeout=10)
    assert not first.get("household")
    ids = {p["player_id"] for p in first["players"]}
    assert len(ids & {mum.player_id, kid.player_id}) == 1  # one of the household, not both
    for c in (mum, kid, ed):
        await c.close()


async def test_three_of_one_address_race_in_an_arena_for_no_point_between_them(
    srv: Served,
) -> None:
    mum = await from_address(srv.ws_url, "Mum", HOME)
    kids = [await from_address(srv.ws_url, f"Kid{i}", HOME) for i in range(2)]
    await mum.send({"type": "create_arena", "cells": 4, "minutes": 30, "starts_in_s": 1})
    arena = str((await mum.expect("arena"))["arena"]["arena_id"])
    for c in kids:
        await c.send({"type": "arena_join", "arena": arena})
        await c.expect("arena")
    everyone = [mum, *kids]
    snaps = [await c.expect("snapshot", timeout=15) for c in everyone]
    assert len({s["room_id"] for s in snaps}) == 1
    assert all(s["household"] is True for s in snaps)
    started = [await c.expect("started", timeout=10) for c in everyone]
    line = await asyncio.to_thread(lambda: solve(Board.from_code(started[0]["code"])).moves)
    for c in kids:
        await c.send({"type": "give_up"})
    await play(mum, list(line))
    for c in everyone:
        await c.expect("race_over", timeout=10)

    async def recorded() -> bool:
        _status, body = await srv.get(f"/api/arena/{arena}")
        return any(x["races"] for x in body.get("standings", []))

    await until(recorded, timeout=10, step=0.25)  # within the API's rate limit
    _status, body = await srv.get(f"/api/arena/{arena}")
    mine = next(x for x in body["standings"] if x["player_id"] == mum.player_id)
    assert (mine["races"], mine["points"], mine["wins"]) == (1, 0, 0)
    for c in everyone:
        await c.close()
