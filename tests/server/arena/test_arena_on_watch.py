"""Watch names an arena's race by its arena (so a watcher knows it): ``GET /api/rooms/live``
gives each arena race its arena's id and length, as the arena's page titles it; any other
room has neither. Nothing more of the arena: no standings, no pool, no code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.arenas import ARGS, next_race, private_arena
from tests.helpers.serverproc import ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import until


@pytest.fixture
def server(key_prefix: str) -> Iterator[ServerProc]:
    with running_server(redis_url(), args=ARGS, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as one:
        yield one


def listed(server: ServerProc) -> list[dict[str, Any]]:
    status, body = server.get_json("/api/rooms/live")
    assert status == 200
    return list(body["rooms"])


async def test_an_arena_race_is_listed_with_its_arenas_length(server: ServerProc) -> None:
    ann = await WsClient.connect(server.ws_url, "Ann")
    bob = await WsClient.connect(server.ws_url, "Bob")
    arena = await private_arena(ann, [bob], minutes=25)
    await next_race([ann, bob])
    # A public room that is no arena's race, in the list beside it.
    cy = await WsClient.connect(server.ws_url, "Cy")
    await cy.send({"type": "create_room", "cells": 2, "public": True})
    other = (await cy.expect("snapshot"))["room_id"]

    def both() -> list[dict[str, Any]] | None:
        rooms = listed(server)
        return rooms if len(rooms) == 2 else None

    rooms = await until(both)
    race = next(r for r in rooms if r["room_id"] != other)
    assert race["arena"] == arena and race["arena_minutes"] == 25
    assert race["cells"] == 4
    plain = next(r for r in rooms if r["room_id"] == other)
    assert plain["arena"] is None and plain["arena_minutes"] is None
    # The arena's name and nothing else of it.
    assert not {"standings", "pool", "code", "players"} & set(race)
    for c in (ann, bob, cy):
        await c.close()
