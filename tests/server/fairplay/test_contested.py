"""Contested results only (issue 34), through a real server and real sockets from several
loopback addresses (127.0.0.x, each a network of its own; no proxy header):

- the puppet pattern: a fresh identity races quick races against three fresh identities of
  three other addresses that each make 14 moves and give up; the race rates nobody against
  them (the farmer's line says ``uncontested``, the puppets lose), and the farmer stays
  provisional, off ``/api/ratings`` and off the featured race, where the old rule (two
  rated races here) listed them;
- a rival who played a real share of the race and stayed rates as before;
- in an arena, the same puppets hand the farmer no point, no fire and no podium.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, REVIEW_OFF_ENV, WsClient

#: The contest rule as shipped (its defaults; the test flags turn it off), the old bar of
#: games low enough that two races would have established the farmer, the rivals' bar on.
RULE = [
    *("--contest-min-tables", "20", "--contest-min-home", "8", "--contest-min-s", "60"),
    *("--provisional-games", "2", "--established-rivals", "3", "--rated-pair-window-s", "0"),
    *("--pair-fourth-ms", "300", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "300"),
]
#: The farmer's address and the puppets' (one each), and a household's.
FARMER, PUPPETS = "127.0.0.2", ("127.0.0.3", "127.0.0.4", "127.0.0.5")


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    """One instance under the test's prefix, the review off (scripted lines), the rule on."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, **REVIEW_OFF_ENV}
    async with serving(settings([*FAST, *RULE], env)) as one:
        yield one


async def from_address(url: str, name: str, address: str) -> WsClient:
    """A client whose socket comes from ``address`` (a loopback address of its own)."""
    client = await WsClient.connect(url, name, additional_headers={}, local_addr=(address, 0))
    client.address = address
    return client


def line_of(code: str) -> list[str]:
    """The solver's winning line of ``code``."""
    found = solve(Board.from_code(code), timeout=20).moves
    assert found, code
    return list(found)


def action(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of a line's action."""
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


async def play(client: WsClient, line: list[str], first: int = 0) -> None:
    """Play ``line`` (ids from ``first``), each action acknowledged."""
    for i, text in enumerate(line):
        await client.send(action(text, first + i))
        await client.expect("ack", id=first + i, timeout=10)


async def puppet_race(
    farmer: WsClient, puppets: list[WsClient], started: list[dict[str, Any]]
) -> None:
    """The puppets make 14 moves each and give up; the farmer plays the line to the win."""
    code = str(started[0]["code"])
    line = await asyncio.to_thread(line_of, code)
    for p in puppets:
        await play(p, line[:14])
        await p.send({"type": "give_up"})
    await play(farmer, line)
    await farmer.expect("finished", player_id=farmer.player_id, timeout=10)


async def test_puppets_that_give_up_early_make_nobody_a_champion_in_the_quick_race(
    srv: Served,
) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    everyone = [farmer, *puppets]
    for _ in range(3):
        for c in everyone:
            await c.send({"type": "queue", "cells": 4})
            assert (await c.expect("queued"))["provisional"] is True
        snaps = [await c.expect("snapshot", timeout=10) for c in everyone]
        assert len({s["room_id"] for s in snaps}) == 1
        assert not any(s.get("household") for s in snaps)  # four addresses
        started = [await c.expect("started", timeout=10) for c in everyone]
        # Meanwhile the race runs, it is never featured: its racers are provisional.
        _status, live = await srv.get("/api/rooms/live")
        assert live["featured"] is None
        await puppet_race(farmer, puppets, started)
        ratings = await farmer.expect("ratings", timeout=10)
        lines = {x["player_id"]: x for x in ratings["changes"]}
        assert lines[farmer.player_id]["unrated_reason"] == "uncontested"
        assert lines[farmer.player_id]["change"] == 0
        for p in puppets:  # giving up early is no way out of a loss
            assert lines[p.player_id]["unrated_reason"] is None
            assert lines[p.player_id]["change"] <= 0
        for c in everyone:
            await c.expect("race_over", timeout=10)
            await c.send({"type": "leave"})
            await c.expect("left")
    status, top = await srv.get("/api/ratings?cells=4&limit=10")
    assert status == 200 and top["players"] == []
    _status, profile = await srv.get(f"/api/player/{farmer.player_id}")
    assert "4" not in profile["ratings"]  # never rated: nothing bought
    await farmer.send({"type": "queue", "cells": 4})
    assert (await farmer.expect("queued"))["provisional"] is True
    for c in everyone:
        await c.close()


async def test_a_rival_who_played_a_real_share_of_the_race_is_rated_against(
    srv: Served,
) -> None:
    ann = await from_address(srv.ws_url, "Ann", FARMER)
    bob = await from_address(srv.ws_url, "Bob", PUPPETS[0])
    for c in (ann, bob):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    for c in (ann, bob):
        await c.expect("snapshot", timeout=10)
    started = [await c.expect("started", timeout=10) for c in (ann, bob)]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    # Bob plays on past a minute of the race (his last action counts, not his give-up:
    # one who idles and gives up late was absent), then gives up.
    await play(bob, line[:15])
    srv.clock.advance(61_000)
    await play(bob, line[15:30], first=15)
    await bob.send({"type": "give_up"})
    await play(ann, line)
    lines = {x["player_id"]: x for x in (await ann.expect("ratings", timeout=10))["changes"]}
    assert lines[ann.player_id]["unrated_reason"] is None
    assert lines[ann.player_id]["change"] > 0
    assert lines[bob.player_id]["change"] < 0
    # Both provisional: the change is a quarter of the model's (provisional_weight).
    assert lines[ann.player_id]["provisional"] is True
    for c in (ann, bob):
        await c.close()


async def arena_race(srv: Served, farmer: WsClient, puppets: list[WsClient]) -> None:
    """One arena race of the farmer and the puppets, the puppets giving up early."""
    everyone = [farmer, *puppets]
    snaps = [await c.expect("snapshot", timeout=15) for c in everyone]
    assert len({s["room_id"] for s in snaps}) == 1
    started = [await c.expect("started", timeout=10) for c in everyone]
    await puppet_race(farmer, puppets, started)
    for c in everyone:
        await c.expect("race_over", timeout=10)
    for c in everyone:
        await c.expect("arena", seat="pool", timeout=10)


async def test_puppets_hand_an_arena_farmer_no_point_no_fire_and_no_podium(
    srv: Served,
) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    await farmer.send({"type": "create_arena", "cells": 4, "minutes": 40, "starts_in_s": 1})
    arena = str((await farmer.expect("arena"))["arena"]["arena_id"])
    for p in puppets:
        await p.send({"type": "arena_join", "arena": arena})
        await p.expect("arena")
    for _ in range(3):
        await arena_race(srv, farmer, puppets)

    # Each race is recorded before its racers are back in the pool (arena_race waited
    # for that): a race against nobody counts as no race at all.
    _status, body = await srv.get(f"/api/arena/{arena}")
    line = next((x for x in body["standings"] if x["player_id"] == farmer.player_id), None)
    assert line is None or (line["points"], line["fire"], line["wins"]) == (0, False, 0)
    assert all(x["points"] == 0 for x in body["standings"])
    # Its end, in the middle of a fourth race (the four are paired again at once), which
    # everyone gives up: nobody scored, so nobody is on the podium.
    for c in (farmer, *puppets):
        await c.expect("started", timeout=15)
    srv.clock.advance(40 * 1000)
    for c in (farmer, *puppets):
        await c.send({"type": "give_up"})
    over = await farmer.expect("arena_over", timeout=15)
    assert over["podium"] == []
    for c in (farmer, *puppets):
        await c.close()
