"""Names that can't pass for another (impostors): a ``hello`` whose name has the UTS #39
skeleton of an established player's name is refused (``name_taken``), through a real
server: the all-Cyrillic ``Мах`` for ``Max`` passed before. The player themselves keeps
theirs; a name that only resembles it in spelling passes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.names import skeleton
from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, REVIEW_OFF_ENV, WsClient
from tests.helpers.waits import until

#: Every player established at once: one rated race lists its racers.
ARGS = [a for a in FAST if a != "--open-names"]  # the guard on (the tests' flags turn it off)
ARGS += ["--provisional-games", "0", "--rated-min-actions", "0"]


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, **REVIEW_OFF_ENV}
    async with serving(settings(ARGS, env)) as one:
        yield one


def action(text: str, action_id: int) -> dict[str, Any]:
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


def test_a_cyrillic_look_alike_has_the_latin_names_skeleton() -> None:
    assert skeleton("Мах") == skeleton("Max")  # Cyrillic М, а, х
    assert skeleton("ТОМ") == skeleton("TOM")
    assert skeleton("B0b") == skeleton("BOb")
    assert skeleton("Maxi") != skeleton("Max")
    assert skeleton("Макс") != skeleton("Max")  # a Russian name of its own


async def hello(srv: Served, name: str, token: str | None = None) -> dict[str, Any]:
    """The server's answer to a ``hello`` (``welcome`` or ``error``)."""
    client = await WsClient.connect(srv.ws_url)
    msg: dict[str, Any] = {"type": "hello", "name": name}
    if token:
        msg["token"] = token
    await client.send(msg)
    for _ in range(100):
        for m in client.messages:
            if m["type"] in ("welcome", "error"):
                await client.close()
                return m
        await asyncio.sleep(0.05)
    raise AssertionError("no answer to hello")


async def test_a_name_that_passes_for_an_established_players_is_refused(srv: Served) -> None:
    champ = await WsClient.connect(srv.ws_url, "Max")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    assert (await hello(srv, "Мах"))["type"] == "welcome"  # nobody established yet
    await champ.send({"type": "create_room", "cells": 4})
    room = (await champ.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await champ.send({"type": "rated", "rated": True})
    await bob.expect("room", rated=True)
    await champ.send({"type": "start"})
    code = (await champ.expect("started"))["code"]
    line = await asyncio.to_thread(lambda: solve(Board.from_code(code), timeout=20).moves)
    for i, text in enumerate(line):
        await champ.send(action(text, i))
        await champ.expect("ack", id=i)
    await bob.send({"type": "give_up"})
    changes = (await champ.expect("ratings", timeout=10))["changes"]
    assert not any(x["provisional"] for x in changes)

    async def refused() -> bool:
        return bool((await hello(srv, "Мах"))["type"] == "error")

    await until(refused, timeout=5)  # the name is kept as the race's lines are applied
    answer = await hello(srv, "Мах")
    assert answer["type"] == "error" and answer["code"] == "name_taken"
    assert (await hello(srv, "Max"))["code"] == "name_taken"  # the very name, too
    assert (await hello(srv, "Maxi"))["type"] == "welcome"
    # Max himself, coming back (any look of his name is his).
    assert (await hello(srv, "Max", champ.token))["type"] == "welcome"
    # A refused hello made nobody: the session of the one who asked is unchanged.
    assert (await hello(srv, "Мах", bob.token))["code"] == "name_taken"
    for c in (champ, bob):
        await c.close()
