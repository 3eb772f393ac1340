"""Signed out means out, and identity changes from any screen, through real servers in this
process on the machine's Redis: after "sign out everywhere" every other open socket of the
player, on this instance or another, hears ``signed_out`` at once and can start no game
until it signs in again; a sign-in or a deletion from a socket that plays leaves its game
first and says what became of it; a transfer code that fails answers alike whether nobody
has it or its second half is wrong."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store import accounts
from tests.helpers.devices import first_move, refused, solo_begun
from tests.helpers.inproc import Served, serving, serving_two, settings
from tests.helpers.serverproc import WsClient


def prefixed() -> Any:
    return settings(env={"SEAHAVEN_KEY_PREFIX": f"test:signout:{secrets.token_hex(6)}:"})


@pytest.fixture
async def srv() -> AsyncIterator[Served]:
    async with serving(prefixed()) as served:
        yield served


async def code_of(client: WsClient) -> str:
    """A new transfer code of the socket's player."""
    await client.send({"type": "transfer_new"})
    return str((await client.expect("transfer_code"))["code"])


async def second_device(url: str, first: WsClient) -> WsClient:
    """Another socket signed in as ``first``'s player with a transfer code."""
    phone = await WsClient.connect(url, "Phone")
    await phone.send({"type": "transfer_claim", "code": await code_of(first)})
    welcome = await phone.expect("welcome")
    assert welcome["player_id"] == first.player_id
    phone.player_id, phone.token = str(welcome["player_id"]), str(welcome["token"])
    return phone


#: Every way to start or play a game, ranked or not.
STARTS: tuple[dict[str, Any], ...] = (
    {"type": "solo"},
    {"type": "solo", "code": "SH1-C4-AAAAAJ2"},
    {"type": "daily"},
    {"type": "daily", "hard": True},
    {"type": "queue", "cells": 4},
    {"type": "accept_bot"},
    {"type": "create_room"},
    {"type": "create_room", "public": True},
    {"type": "create_arena", "minutes": 10},
    {"type": "arena_join", "arena": "ABCDEF"},
    {"type": "start"},
    {"type": "rematch"},
    {"type": "rated", "rated": True},
)


async def test_the_other_sockets_are_told_at_once_and_start_nothing(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    room = await solo_begun(ann)
    phone = await second_device(srv.ws_url, ann)
    bob = await WsClient.connect(srv.ws_url, "Bob")
    await bob.send({"type": "create_room"})
    bobs = str((await bob.expect("snapshot"))["room_id"])
    await phone.send({"type": "sign_out_everywhere"})
    await phone.expect("welcome")
    await ann.expect("signed_out")
    for msg in (*STARTS, {"type": "join", "room": bobs, "role": "player"}):
        await refused(ann, msg, "signed_out")
    src, dst = first_move()
    await refused(ann, {"type": "move", "id": 9, "src": src, "dst": dst}, "signed_out")
    # Its game was left as a closed tab's would be: no socket of the player is in it.
    assert not any(c.pid == ann.player_id for c in srv.ctx.hub.rooms.get(room, ()))
    # The device that signed the others out plays on.
    await phone.send({"type": "solo"})
    await phone.expect("snapshot")
    # Signing in again (a new code from the phone) makes the socket the player again.
    await ann.send({"type": "transfer_claim", "code": await code_of(phone)})
    assert (await ann.expect("welcome"))["player_id"] == ann.player_id
    await ann.send({"type": "solo"})
    await ann.expect("snapshot")


async def test_a_signed_out_socket_may_start_as_a_new_player(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    phone = await second_device(srv.ws_url, ann)
    await phone.send({"type": "sign_out_everywhere"})
    await ann.expect("signed_out")
    await refused(ann, {"type": "hello", "name": "Ann", "token": ann.token}, "bad_token")
    await ann.send({"type": "hello", "name": "Ann"})
    assert (await ann.expect("welcome"))["player_id"] != ann.player_id
    await ann.send({"type": "solo"})
    await ann.expect("snapshot")


async def test_sockets_on_another_instance_are_told_too() -> None:
    async with serving_two(prefixed()) as (one, two):
        ann = await WsClient.connect(one.ws_url, "Ann")
        await ann.send({"type": "queue", "cells": 4})
        await ann.expect("queued")
        phone = await second_device(two.ws_url, ann)
        await phone.send({"type": "sign_out_everywhere"})
        await phone.expect("welcome")
        await ann.expect("signed_out")
        assert ann.player_id not in one.ctx.whereabouts.waiting
        for msg in STARTS:
            await refused(ann, msg, "signed_out")


async def test_deleting_the_player_signs_out_its_other_sockets(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    phone = await second_device(srv.ws_url, ann)
    await phone.send({"type": "delete_player", "player_id": ann.player_id})
    await phone.expect("player_deleted")
    await ann.expect("signed_out")
    await refused(ann, {"type": "daily"}, "signed_out")


async def test_a_sign_in_from_a_game_leaves_it_and_says_so(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    phone = await WsClient.connect(srv.ws_url, "Phone")
    room = await solo_begun(phone)
    # A code that fails changes nothing: the game goes on.
    await refused(phone, {"type": "transfer_claim", "code": "ZZZZ-ZZZZ"}, "transfer_unknown")
    await phone.send({"type": "undo", "id": 2})
    await phone.expect("ack", id=2)
    before = phone.player_id
    await phone.send({"type": "transfer_claim", "code": await code_of(ann)})
    left = await phone.expect("game_left")
    assert left == {"type": "game_left", "room_id": room, "mode": "solo", "given_up": True}
    assert (await phone.expect("welcome"))["player_id"] == ann.player_id
    assert (await srv.ctx.store.room_fields(room))[f"st:{before}"] == "gave_up"
    # A fresh solo game not begun is left without a loss.
    await phone.send({"type": "solo"})
    fresh = str((await phone.expect("snapshot"))["room_id"])
    other = await WsClient.connect(srv.ws_url, "Other")
    await phone.send({"type": "transfer_claim", "code": await code_of(other)})
    assert (await phone.expect("game_left"))["given_up"] is False
    assert (await phone.expect("welcome"))["player_id"] == other.player_id
    assert fresh != room


async def test_a_sign_in_from_the_queue_leaves_it(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    phone = await WsClient.connect(srv.ws_url, "Phone")
    await phone.send({"type": "queue", "cells": 4})
    await phone.expect("queued")
    await phone.send({"type": "transfer_claim", "code": await code_of(ann)})
    assert (await phone.expect("unqueued"))["reason"] == "asked"
    await phone.expect("welcome")
    assert not srv.ctx.whereabouts.waiting


async def test_delete_from_a_game_leaves_it_first(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    room = await solo_begun(ann)
    await ann.send({"type": "delete_player", "player_id": ann.player_id})
    left = await ann.expect("game_left")
    assert left["room_id"] == room and left["given_up"] is True
    await ann.expect("player_deleted")


async def test_a_socket_may_sign_in_before_hello(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    fresh = await WsClient.connect(srv.ws_url)
    await fresh.send({"type": "transfer_claim", "code": await code_of(ann)})
    welcome = await fresh.expect("welcome")
    assert welcome["player_id"] == ann.player_id and welcome["name"] == "Ann"
    await refused(
        await WsClient.connect(srv.ws_url),
        {"type": "passkey_options", "purpose": "register"},
        "hello_first",
    )


async def test_a_failed_claim_tells_no_live_first_half(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    guesser = await WsClient.connect(srv.ws_url, "Guess")
    unknown = await refused(
        guesser, {"type": "transfer_claim", "code": "ZZZZ-ZZZZ"}, "transfer_unknown"
    )
    live = await code_of(ann)
    wrong = live[:5] + ("AAAA" if live[5:] != "AAAA" else "BBBB")
    assert (
        await refused(guesser, {"type": "transfer_claim", "code": wrong}, "transfer_unknown")
        == unknown
    )
    # A used (or replaced) code's first half tells nothing either; the whole code does.
    phone = await WsClient.connect(srv.ws_url, "Phone")
    await phone.send({"type": "transfer_claim", "code": live})
    await phone.expect("welcome")
    assert (
        await refused(guesser, {"type": "transfer_claim", "code": wrong}, "transfer_unknown")
        == unknown
    )
    await refused(guesser, {"type": "transfer_claim", "code": live}, "transfer_used")
    assert accounts.MAX_WRONG > 2  # the tries above did not kill a code


async def test_a_lost_announcement_is_caught_at_the_next_start(srv: Served) -> None:
    # Pub/sub is at most once: a socket whose instance never heard the sign-out (its
    # subscription dropped a moment) still meets it at the next game it would start.
    ann = await WsClient.connect(srv.ws_url, "Ann")
    await solo_begun(ann)
    await srv.ctx.redis.delete(srv.ctx.keys.session(ann.token))  # ended, never announced
    await ann.send({"type": "daily"})
    await ann.expect("signed_out")
    assert ann.find("snapshot", mode="daily") is None
    for msg in STARTS:
        await refused(ann, msg, "signed_out")
    # A move needs no session read: an open game is left as the announcement would.
    assert not any(c.pid == ann.player_id for room in srv.ctx.hub.rooms.values() for c in room)
