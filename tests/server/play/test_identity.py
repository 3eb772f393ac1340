"""Who a client is, decided without a server (sessions real on Redis, the socket a fake):
``hello`` makes a player, or recognises one by its token; an unknown token, another version
of the protocol, or a socket already in a room is refused and nothing changes; a new
identity costs its address a token of a bucket, and past it the refusal says when to come
back, while a player with a token comes back whatever the limit. The school lab behind one
address, end to end, is in :mod:`tests.server.play.test_play_server`."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol import models as m
from protocol.models import PROTOCOL_VERSION
from server.net.limits import TokenBuckets
from server.play.devices import PLAYERS
from server.play.identity import on_hello
from server.transport.clients import Client
from tests.helpers.fakes_play import Instance, Socket, instance

LAB = "198.51.100.60"


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix)


async def hello(
    ctx: Instance, name: str, token: str | None = None, address: str = LAB, **more: Any
) -> tuple[Socket, dict[str, Any]]:
    """A new socket from ``address`` says hello: the socket and its answer."""
    conn = Socket(pid=None, address=address, **more)
    await on_hello(ctx, conn, m.Hello(type="hello", name=name, token=token))
    (answer,) = conn.sent
    return conn, answer


async def test_a_new_player_is_made_kept_and_noted_for_the_operator(ctx: Instance) -> None:
    conn, welcome = await hello(ctx, "Ann")
    assert welcome["type"] == "welcome" and welcome["name"] == "Ann"
    pid, token = welcome["player_id"], welcome["token"]
    assert (conn.pid, conn.name, conn.token) == (pid, "Ann", token)
    assert await ctx.store.load_session(token) == (pid, "Ann")
    assert [who for who, _ in await ctx.reviews.identities(LAB)] == [pid]
    assert conn in ctx.kept(PLAYERS).sockets  # it hears when its player signs out
    # The token brings the same player back, under the name it gives now.
    _again, back = await hello(ctx, "Annie", token)
    assert (back["player_id"], back["token"], back["name"]) == (pid, token, "Annie")
    assert await ctx.store.load_session(token) == (pid, "Annie")
    assert [who for who, _ in await ctx.reviews.identities(LAB)] == [pid]  # nobody new


async def test_refused_hellos_change_nothing(ctx: Instance) -> None:
    unknown = secrets.token_urlsafe(24)
    conn, answer = await hello(ctx, "Ann", unknown)
    assert (answer["type"], answer["code"]) == ("error", "bad_token") and conn.pid is None
    conn = Socket(pid=None)
    await on_hello(ctx, conn, m.Hello(type="hello", name="Ann", v=PROTOCOL_VERSION + 1))
    assert [x.get("code") for x in conn.sent] == ["unsupported_version"]
    assert str(PROTOCOL_VERSION) in str(conn.sent[0]["message"])
    conn, answer = await hello(ctx, "Ann", room="RSOMEWHERE")
    assert answer["code"] == "already_in_room" and conn.pid is None
    assert await ctx.reviews.identities(LAB) == []
    assert ctx.kept(PLAYERS).sockets == set()


async def test_new_identities_cost_the_address_and_the_refusal_says_when(ctx: Instance) -> None:
    ctx.identities = TokenBuckets(120 / 3600, 2)  # two at once, then one every 30 s
    first = [(await hello(ctx, f"Pupil {n}"))[1] for n in range(2)]
    assert [a["type"] for a in first] == ["welcome", "welcome"]
    _conn, refused = await hello(ctx, "Late")
    assert (refused["type"], refused["code"]) == ("error", "too_many_identities")
    assert 1 <= refused["retry_s"] <= 31
    assert ctx.metrics.registry.get_sample_value("seahaven_errors_total") == 1
    # A player who has a token comes back whatever the limit; another address is not touched.
    _conn, back = await hello(ctx, "Pupil 0", first[0]["token"])
    assert (back["type"], back["player_id"]) == ("welcome", first[0]["player_id"])
    assert (await hello(ctx, "Cy", address="203.0.113.5"))[1]["type"] == "welcome"
    assert len(await ctx.reviews.identities(LAB)) == 2
