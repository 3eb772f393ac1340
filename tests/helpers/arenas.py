"""Arenas played on real servers: the settings of an arena of seconds, a private arena opened
by its host, each race played to its end, and the standings recomputed from the races'
records."""

from __future__ import annotations

import asyncio
from typing import Any

from server.arena.points import Race, Racer, standings
from server.engine import Board
from server.engine.solver import solve
from tests.helpers.quick_race import action
from tests.helpers.serverproc import FAST, REVIEW_OFF, WsClient

#: One arena minute is a second here: an arena of 30 "minutes" lasts 30 s.
MINUTE_MS = 1000
ARGS = [
    *FAST,
    *REVIEW_OFF,
    *("--provisional-games", "0", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", str(MINUTE_MS), "--arena-pair-ms", "800"),
]


async def line_of(code: str) -> list[str]:
    """The solver's winning line of ``code``."""
    found = await asyncio.to_thread(lambda: solve(Board.from_code(code), timeout=20))
    assert found.moves, code
    return list(found.moves)


async def play(client: WsClient, line: list[str], first_id: int = 0) -> None:
    """Play ``line`` to the win."""
    for i, text in enumerate(line):
        await client.send(action(text, first_id + i))
        await client.expect("ack", id=first_id + i, timeout=10)
    await client.expect("finished", player_id=client.player_id, timeout=10)


async def private_arena(host: WsClient, others: list[WsClient], minutes: int) -> str:
    """``host`` makes a private 4-cell arena starting in a second, the ``others`` join it;
    its id."""
    await host.send({"type": "create_arena", "cells": 4, "minutes": minutes, "starts_in_s": 1})
    arena = str((await host.expect("arena"))["arena"]["arena_id"])
    for c in others:
        await c.send({"type": "arena_join", "arena": arena})
        await c.expect("arena")
    return arena


async def next_race(clients: list[WsClient], pledgers: tuple[WsClient, ...] = ()) -> str:
    """Everyone is brought into one race (its snapshot), the pledgers pledge in its lobby,
    and it starts; its deal's code."""
    snaps = [await c.expect("snapshot", timeout=15) for c in clients]
    room = snaps[0]["room_id"]
    assert {s["room_id"] for s in snaps} == {room}  # one race, whichever instance
    assert all(s["public"] and s["rated"] and s["paired"] and s["code"] is None for s in snaps)
    for c in pledgers:
        await c.send({"type": "arena_pledge"})
        await c.expect("arena_pledged", room=room)
    started = [await c.expect("started", timeout=10) for c in clients]
    return str(started[0]["code"])


async def race_over(clients: list[WsClient], winner: WsClient) -> None:
    """The race ends; everyone is back in the pool."""
    for c in clients:
        over = await c.expect("race_over", timeout=15)
        assert over["results"][0]["player_id"] == winner.player_id
    for c in clients:
        await c.expect("arena", seat="pool", timeout=10)


def recomputed(records: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    """The table from the recorded races, by the test's own reading of them."""
    races = [
        Race(
            r["race"],
            r["at"],
            tuple(
                Racer(x["pid"], x["place"], x["time_ms"], x["pledged"], x["kept"])
                for x in r["racers"]
            ),
        )
        for r in records
    ]
    return [(x.pid, x.points, x.streak, x.races) for x in standings(races) if x.races]
