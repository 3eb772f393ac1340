"""A name that passes for an established player's (the same UTS #39 skeleton: the
Cyrillic "Мах" for "Max") is theirs alone, decided without a server (the kept names and
sessions real on Redis, the socket a fake): ``hello`` with such a name is refused
``name_taken`` unless it is the holder's own session; a refused hello changes nobody's.
That a rated race keeps its established racers' names is the journey in
:mod:`tests.server.play.test_play_server`; a ranked daily's, in
:mod:`tests.server.ranked.test_finish_decisions`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol import models as m
from protocol.names import skeleton
from server.play.identity import on_hello
from server.store import names
from server.transport.clients import Client
from tests.helpers.fakes_play import Instance, Socket, instance
from tests.helpers.serverproc import FAST

#: The guard on (the tests' flags turn it off).
GUARDED = [a for a in FAST if a != "--open-names"]


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix, args=GUARDED)


def test_a_cyrillic_look_alike_has_the_latin_names_skeleton() -> None:
    assert skeleton("Мах") == skeleton("Max")  # Cyrillic М, а, х
    assert skeleton("ТОМ") == skeleton("TOM")
    assert skeleton("B0b") == skeleton("BOb")
    assert skeleton("Maxi") != skeleton("Max")
    assert skeleton("Макс") != skeleton("Max")  # a Russian name of its own


async def hello(ctx: Instance, name: str, token: str | None = None) -> dict[str, Any]:
    """What a new socket's ``hello`` is answered."""
    conn = Socket(pid=None)
    await on_hello(ctx, conn, m.Hello(type="hello", name=name, token=token))
    (answer,) = conn.sent
    return answer


async def test_a_name_that_passes_for_an_established_players_is_refused(ctx: Instance) -> None:
    assert ctx.settings.open_names is False
    champ = await hello(ctx, "Max")
    bob = await hello(ctx, "Bob")
    assert (await hello(ctx, "Мах"))["type"] == "welcome"  # nobody established yet
    await names.keep(ctx.store, skeleton("Max"), champ["player_id"], 3600)
    answer = await hello(ctx, "Мах")
    assert answer["type"] == "error" and answer["code"] == "name_taken"
    assert (await hello(ctx, "Max"))["code"] == "name_taken"  # the very name, too
    assert (await hello(ctx, "Maxi"))["type"] == "welcome"
    # Max himself, coming back (any look of his name is his).
    back = await hello(ctx, "Мах", champ["token"])
    assert (back["type"], back["player_id"]) == ("welcome", champ["player_id"])
    # A refused hello made nobody: the session of the one who asked is unchanged.
    assert (await hello(ctx, "Мах", bob["token"]))["code"] == "name_taken"
    assert await ctx.store.load_session(bob["token"]) == (bob["player_id"], "Bob")


async def test_open_names_refuse_nothing(redis_client: Client, key_prefix: str) -> None:
    ctx = await instance(redis_client, key_prefix)  # the tests' flags: open names
    await names.keep(ctx.store, skeleton("Max"), "pmax", 3600)
    assert (await hello(ctx, "Мах"))["type"] == "welcome"
