"""The play messages end to end, on real servers, the machine's Redis and real sockets:
identities (a name the protocol refuses, a school lab behind one address, a name that
passes for one a rated race established), and the rooms an hour (every way to make a room
asks the allowance; what was made stays). Their decisions are tested without a server:
:mod:`tests.server.play.test_identity`, :mod:`tests.server.play.test_lookalike_names`,
:mod:`tests.server.play.test_room_quota`, :mod:`tests.server.play.test_hint_decisions`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import (
    FAST,
    REVIEW_OFF_ENV,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
)
from tests.helpers.waits import until

# -- identities -----------------------------------------------------------------------------


async def test_the_server_refuses_a_zero_width_name(race_server: ServerProc) -> None:
    client = await WsClient.connect(race_server.ws_url)
    await client.send({"type": "hello", "name": "Ann\u200b"})
    error = await client.expect("error")
    assert error["code"] == "invalid_message" and "U+200B" in error["message"]
    await client.send({"type": "hello", "name": "Ann"})
    assert (await client.expect("welcome"))["name"] == "Ann"
    await client.close()


async def test_a_sixty_seat_lab_makes_its_players_and_the_limit_says_when() -> None:
    """A school lab of 60 behind one address makes its players in one go, and past the
    limit the refusal says when to come back (``retry_s``), on a socket that stays open."""
    with running_server(redis_url(), args=["--countdown-ms", "300"]) as srv:
        lab = [await WsClient.connect(srv.ws_url, f"Pupil {n}") for n in range(60)]
        assert len({c.player_id for c in lab}) == 60  # all at once, all open
        for c in lab:
            await c.close()
        more = [await WsClient.connect(srv.ws_url, f"Guest {n}") for n in range(40)]
        for c in more:
            await c.close()
        late = await WsClient.connect(srv.ws_url)
        await late.send({"type": "hello", "name": "Late"})
        refused = await late.expect("error")
        assert refused["code"] == "too_many_identities"
        assert 1 <= refused["retry_s"] <= 31  # 120 an hour: one every 30 s
        # A player who has a token comes back whatever the limit.
        await late.send({"type": "hello", "name": "Pupil 0", "token": lab[0].token})
        assert (await late.expect("welcome"))["player_id"] == lab[0].player_id
        await late.close()


# -- names that pass for an established player's -----------------------------------------

#: Every player established at once: one rated race lists its racers.
ARGS = [a for a in FAST if a != "--open-names"]  # the guard on (the tests' flags turn it off)
ARGS += ["--provisional-games", "0", "--rated-min-actions", "0"]


@pytest.fixture
async def named(key_prefix: str) -> AsyncIterator[Served]:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, **REVIEW_OFF_ENV}
    async with serving(settings(ARGS, env)) as one:
        yield one


def action(text: str, action_id: int) -> dict[str, Any]:
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


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


async def test_a_name_that_passes_for_an_established_players_is_refused(named: Served) -> None:
    champ = await WsClient.connect(named.ws_url, "Max")
    bob = await WsClient.connect(named.ws_url, "Bob")
    assert (await hello(named, "Мах"))["type"] == "welcome"  # nobody established yet
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
        return bool((await hello(named, "Мах"))["type"] == "error")

    await until(refused, timeout=5)  # the name is kept as the race's lines are applied
    answer = await hello(named, "Мах")
    assert answer["type"] == "error" and answer["code"] == "name_taken"
    # Max himself, coming back (the rules of a kept name: test_lookalike_names.py).
    assert (await hello(named, "Max", champ.token))["type"] == "welcome"
    for c in (champ, bob):
        await c.close()


# -- rooms an hour --------------------------------------------------------------------------


async def solo(c: WsClient) -> dict[str, Any]:
    """Start a solo game and leave it: the snapshot, or the refusal."""
    await c.send({"type": "solo"})
    while True:
        for kind in ("snapshot", "error"):
            found = c.find(kind)
            if found is not None:
                if kind == "snapshot":
                    await c.send({"type": "leave"})
                    await c.expect("left")
                return found
        await c.send({"type": "ping"})
        await c.expect("pong")


async def test_every_way_to_make_a_room_asks_the_allowance_and_what_was_made_stays(
    key_prefix: str,
) -> None:
    args = [*FAST, "--rooms-per-hour", "1", "--rooms-per-hour-per-address", "5"]
    with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        ann = await WsClient.connect(srv.ws_url, "ann")
        made = await solo(ann)
        assert made["type"] == "snapshot", made
        refused = await solo(ann)
        assert refused["type"] == "error" and refused["code"] == "slow_down", refused
        assert 0 < refused["retry_s"] <= 3600
        # A race room is refused as well.
        await ann.send({"type": "create_room"})
        again = await ann.expect("error", code="slow_down")
        assert again["retry_s"] <= refused["retry_s"]
        # Nothing made is lost: the first game is still there to come back to.
        await ann.send(
            {"type": "resume", "room": made["room_id"], "token": ann.token, "last_seq": 0}
        )
        await ann.expect("room", room_id=made["room_id"])
        await ann.close()
