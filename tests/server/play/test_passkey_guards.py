"""Each guard of the passkey handler pinned by a test that fails without it: the sign
counter (a cloned passkey), the challenge's expiry, its purpose, a register challenge asked
as another player, leaving the game before a sign-in, the session on register, and an
assertion made in another site's frame; and a new passkey's name says which device made it.
A server in this process, on the machine's Redis, with a clock the test moves."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest

from server.play.passkeys import CHALLENGE_S, device_name
from server.store import accounts
from tests.helpers.authenticator import SoftKey
from tests.helpers.devices import ORIGIN, options, refused, register, solo_begun
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import WsClient

ANDROID_CHROME = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)


@pytest.fixture
async def srv() -> AsyncIterator[Served]:
    prefix = f"test:passkeys:{secrets.token_hex(6)}:"
    async with serving(settings(env={"SEAHAVEN_KEY_PREFIX": prefix})) as served:
        yield served


async def sign_in(client: WsClient, key: SoftKey) -> dict[str, object]:
    """Sign ``client`` in with ``key``; its ``welcome``."""
    signed = key.sign(await options(client, "sign_in"), ORIGIN)
    await client.send({"type": "passkey_sign_in", "credential": signed})
    return await client.expect("welcome")


async def test_a_passkey_whose_counter_went_back_is_a_clone_and_refused(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    laptop = await WsClient.connect(srv.ws_url, "Laptop")
    for _ in range(2):  # its counter is at 2 now
        assert (await sign_in(laptop, key))["player_id"] == ann.player_id
    clone = SoftKey(cred_id=key.cred_id, key=key.key, count=0)  # the same key, counter behind
    thief = await WsClient.connect(srv.ws_url, "Thief")
    signed = clone.sign(await options(thief, "sign_in"), ORIGIN)
    await refused(thief, {"type": "passkey_sign_in", "credential": signed}, "passkey_refused")
    assert (await sign_in(thief, key))["player_id"] == ann.player_id  # the real one goes on


async def test_a_challenge_expires(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    late = await WsClient.connect(srv.ws_url, "Late")
    asked = await options(late, "sign_in")
    srv.clock.advance(CHALLENGE_S * 1000 + 1000)
    signed = key.sign(asked, ORIGIN)
    await refused(late, {"type": "passkey_sign_in", "credential": signed}, "no_challenge")


async def test_a_register_challenge_signs_nobody_in(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    other = await WsClient.connect(srv.ws_url, "Other")
    signed = key.sign(await options(other, "register"), ORIGIN)
    await refused(other, {"type": "passkey_sign_in", "credential": signed}, "no_challenge")
    assert other.find("welcome") is None


async def test_a_register_challenge_is_the_player_s_who_asked_it(srv: Served) -> None:
    bob = await WsClient.connect(srv.ws_url, "Bob")
    await bob.send({"type": "transfer_new"})
    code = (await bob.expect("transfer_code"))["code"]
    device = await WsClient.connect(srv.ws_url, "Ann")
    asked = await options(device, "register")  # asked as Ann ...
    await device.send({"type": "transfer_claim", "code": code})
    assert (await device.expect("welcome"))["player_id"] == bob.player_id  # ... now Bob
    made = SoftKey().register(asked, ORIGIN)
    await refused(device, {"type": "passkey_register", "credential": made}, "no_challenge")
    assert await accounts.passkeys(srv.ctx.store, bob.player_id) == []


async def test_a_passkey_sign_in_leaves_the_game_first(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    phone = await WsClient.connect(srv.ws_url, "Phone")
    before = phone.player_id
    room = await solo_begun(phone)
    assert (await sign_in(phone, key))["player_id"] == ann.player_id
    left = await phone.expect("game_left")
    assert left == {"type": "game_left", "room_id": room, "mode": "solo", "given_up": True}
    assert (await srv.ctx.store.room_fields(room))[f"st:{before}"] == "gave_up"
    # Out of the room: a move there is no longer this socket's.
    await phone.send({"type": "move", "id": 2, "src": "col1", "dst": "cell1"})
    assert (await phone.expect("reject", id=2))["reason"] == "not_racing"


async def test_a_lapsed_session_registers_no_passkey(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    asked = await options(ann, "register")
    # Its session ends (as a lapsed one, or one whose announcement has not come yet).
    await accounts.end_sessions(srv.ctx.store, ann.player_id)
    made = SoftKey().register(asked, ORIGIN)
    await refused(ann, {"type": "passkey_register", "credential": made}, "bad_token")
    assert await accounts.passkeys(srv.ctx.store, ann.player_id) == []


async def test_an_assertion_made_in_another_site_s_frame_is_refused(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    eve = await WsClient.connect(srv.ws_url, "Eve")
    for frame in (
        {"crossOrigin": True, "topOrigin": "https://evil.example"},
        {"crossOrigin": True},
        {"topOrigin": "https://evil.example"},
    ):
        signed = key.sign(await options(eve, "sign_in"), ORIGIN, frame=frame)
        await refused(eve, {"type": "passkey_sign_in", "credential": signed}, "passkey_refused")
    # In our own page (a top-level one, or a frame of our own site), it signs in.
    same = {"crossOrigin": False, "topOrigin": ORIGIN}
    signed = key.sign(await options(eve, "sign_in"), ORIGIN, frame=same)
    await eve.send({"type": "passkey_sign_in", "credential": signed})
    assert (await eve.expect("welcome"))["player_id"] == ann.player_id


async def test_a_new_passkey_is_named_after_the_device_that_made_it(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann", user_agent_header=ANDROID_CHROME)
    listed = await register(ann, SoftKey(), name=None)
    assert [k["name"] for k in listed] == ["Chrome on Android"]
    # Named by the player, it keeps their name; renamed, the new one.
    listed = await register(ann, SoftKey(), name="old phone")
    assert sorted(k["name"] for k in listed) == ["Chrome on Android", "old phone"]


def test_device_names_from_user_agents() -> None:
    assert device_name(ANDROID_CHROME) == "Chrome on Android"
    iphone = (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    )
    assert device_name(iphone) == "Safari on iPhone"
    edge = (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0"
    )
    assert device_name(edge) == "Edge on Windows"
    mac_firefox = (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0"
    )
    assert device_name(mac_firefox) == "Firefox on macOS"
    assert device_name("") == device_name("curl/8.5") == "Passkey"
