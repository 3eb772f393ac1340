"""A player's devices on a real server (in this process, on the machine's Redis, with a
clock the test moves): passkeys registered and used by a software authenticator, forged,
replayed and unknown assertions refused; transfer codes claimed once, refused when used,
expired, guessed or tried too often; sign out everywhere; deleting a player, and a barred
player who deletes and signs in again on the same passkey."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from server.store import accounts
from tests.helpers.authenticator import SoftKey
from tests.helpers.devices import ORIGIN, options, refused, register
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import WsClient


@pytest.fixture
async def srv() -> AsyncIterator[Served]:
    prefix = f"test:devices:{secrets.token_hex(6)}:"
    async with serving(settings(env={"SEAHAVEN_KEY_PREFIX": prefix})) as served:
        yield served


async def test_a_passkey_signs_another_device_in_as_the_same_player(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    listed = await register(ann, key)
    assert [k["name"] for k in listed] == ["phone"] and "public_key" not in listed[0]
    other = await WsClient.connect(srv.ws_url, "Someone")
    before, before_token = other.player_id, other.token
    await other.send(
        {"type": "passkey_sign_in", "credential": key.sign(await options(other, "sign_in"), ORIGIN)}
    )
    welcome = await other.expect("welcome")
    assert welcome["player_id"] == ann.player_id != before
    assert welcome["name"] == "Ann" and welcome["token"] != ann.token
    # Nothing is merged: the identity the socket was keeps its own token and player.
    again = await WsClient.connect(srv.ws_url, "Someone", token=before_token)
    assert again.player_id == before
    # Both sessions work; the list is the player's, on either device, and nobody else's.
    await other.send({"type": "list_passkeys"})
    assert [k["id"] for k in (await other.expect("passkeys"))["passkeys"]] == [listed[0]["id"]]
    stranger = await WsClient.connect(srv.ws_url, "Cy")
    await stranger.send({"type": "list_passkeys"})
    assert (await stranger.expect("passkeys"))["passkeys"] == []
    await refused(stranger, {"type": "passkey_remove", "id": listed[0]["id"]}, "passkey_not_found")
    await refused(
        stranger,
        {"type": "passkey_rename", "id": listed[0]["id"], "name": "x"},
        "passkey_not_found",
    )
    # Name, then remove: a removed passkey signs nobody in.
    await ann.send({"type": "passkey_rename", "id": listed[0]["id"], "name": "laptop"})
    assert (await ann.expect("passkeys"))["passkeys"][0]["name"] == "laptop"
    await ann.send({"type": "passkey_remove", "id": listed[0]["id"]})
    assert (await ann.expect("passkeys"))["passkeys"] == []
    third = await WsClient.connect(srv.ws_url, "Dee")
    signed = key.sign(await options(third, "sign_in"), ORIGIN)
    await refused(third, {"type": "passkey_sign_in", "credential": signed}, "passkey_unknown")


async def test_forged_replayed_and_foreign_assertions_are_refused(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key)
    eve = await WsClient.connect(srv.ws_url, "Eve")
    # Signed by another key: the signature does not verify.
    forged = key.sign(
        await options(eve, "sign_in"), ORIGIN, signer=ec.generate_private_key(ec.SECP256R1())
    )
    await refused(eve, {"type": "passkey_sign_in", "credential": forged}, "passkey_refused")
    # Made on another site's page.
    foreign = key.sign(await options(eve, "sign_in"), "https://evil.example")
    await refused(eve, {"type": "passkey_sign_in", "credential": foreign}, "passkey_refused")
    # A real assertion, replayed: its challenge is used up, then another challenge's.
    good = key.sign(await options(eve, "sign_in"), ORIGIN)
    await eve.send({"type": "passkey_sign_in", "credential": good})
    assert (await eve.expect("welcome"))["player_id"] == ann.player_id
    await refused(eve, {"type": "passkey_sign_in", "credential": good}, "no_challenge")
    await options(eve, "sign_in")
    await refused(eve, {"type": "passkey_sign_in", "credential": good}, "passkey_refused")
    # A challenge is the socket's own: one asked on another socket does not serve here.
    mallory = await WsClient.connect(srv.ws_url, "Mal")
    stolen = key.sign(await options(eve, "sign_in"), ORIGIN)
    await refused(mallory, {"type": "passkey_sign_in", "credential": stolen}, "no_challenge")
    # One credential is one player's: offering it again (any player) is refused.
    made = key.register(await options(mallory, "register"), ORIGIN)
    await refused(mallory, {"type": "passkey_register", "credential": made}, "passkey_taken")
    assert mallory.player_id != ann.player_id


async def test_transfer_codes_work_once_and_bound_guessing(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    await ann.send({"type": "transfer_new", "origin": "http://localhost:8765"})
    made = await ann.expect("transfer_code")
    code = made["code"]
    assert made["link"] == f"http://localhost:8765/#/claim/{code}" and made["qr_svg"].startswith(
        "<svg"
    )
    phone = await WsClient.connect(srv.ws_url, "Phone")
    await phone.send({"type": "transfer_claim", "code": code.lower().replace("-", " ")})
    welcome = await phone.expect("welcome")
    assert welcome["player_id"] == ann.player_id and welcome["name"] == "Ann"
    # Used: refused, saying so; the first device stays signed in.
    tablet = await WsClient.connect(srv.ws_url, "Tab")
    await refused(tablet, {"type": "transfer_claim", "code": code}, "transfer_used")
    assert (await srv.get(f"/api/player/{ann.player_id}/data", ann.token))[0] == 200
    # Guessed: a wrong second half, five times, kills the code; the right one then fails.
    await ann.send({"type": "transfer_new"})
    code = (await ann.expect("transfer_code"))["code"]
    wrong = code[:5] + ("AAAA" if code[5:] != "AAAA" else "BBBB")
    for _ in range(accounts.MAX_WRONG):
        await refused(tablet, {"type": "transfer_claim", "code": wrong}, "transfer_unknown")
    await refused(tablet, {"type": "transfer_claim", "code": code}, "transfer_dead")
    # Expired after 10 minutes.
    await ann.send({"type": "transfer_new"})
    code = (await ann.expect("transfer_code"))["code"]
    srv.clock.advance(accounts.TRANSFER_LIVE_S * 1000 + 1000)
    await refused(tablet, {"type": "transfer_claim", "code": code}, "transfer_expired")
    # A new code replaces the old one.
    await ann.send({"type": "transfer_new"})
    old = (await ann.expect("transfer_code"))["code"]
    await ann.send({"type": "transfer_new"})
    await ann.expect("transfer_code")
    await refused(tablet, {"type": "transfer_claim", "code": old}, "transfer_expired")
    # Per address: past the limit, even a good code waits.
    guesser = await WsClient.connect(srv.ws_url, "Guess")
    for _ in range(accounts.TRIES_PER_ADDRESS):
        await refused(guesser, {"type": "transfer_claim", "code": "ZZZZ-ZZZZ"}, "transfer_unknown")
    await ann.send({"type": "transfer_new"})
    code = (await ann.expect("transfer_code"))["code"]
    error = await refused(guesser, {"type": "transfer_claim", "code": code}, "transfer_limited")
    assert 0 < error["retry_s"] <= accounts.TRIES_WINDOW_S
    assert guesser.player_id != ann.player_id


async def test_sign_out_everywhere_ends_every_other_session(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    await ann.send({"type": "transfer_new"})
    code = (await ann.expect("transfer_code"))["code"]
    phone = await WsClient.connect(srv.ws_url, "Phone")
    await phone.send({"type": "transfer_claim", "code": code})
    phone_token = (await phone.expect("welcome"))["token"]
    await phone.send({"type": "sign_out_everywhere"})
    welcome = await phone.expect("welcome")
    assert welcome["player_id"] == ann.player_id and welcome["token"] not in (
        ann.token,
        phone_token,
    )
    path = f"/api/player/{ann.player_id}/data"
    assert (await srv.get(path, ann.token))[0] == 401
    assert (await srv.get(path, phone_token))[0] == 401
    assert (await srv.get(path, welcome["token"]))[0] == 200
    again = await WsClient.connect(srv.ws_url)
    await refused(again, {"type": "hello", "name": "Ann", "token": ann.token}, "bad_token")
    # Ann's first socket is still open, but its session is over: it is told at once, and may
    # not make a code or a passkey to come back with, nor see or change the player's devices.
    await ann.expect("signed_out")
    for msg in (
        {"type": "transfer_new"},
        {"type": "list_passkeys"},
        {"type": "passkey_remove", "id": "A" * 22},
        {"type": "sign_out_everywhere"},
        {"type": "delete_player", "player_id": ann.player_id},
    ):
        await refused(ann, msg, "signed_out")
    await refused(ann, {"type": "passkey_options", "purpose": "register"}, "bad_token")
    assert (await srv.get(path, welcome["token"]))[0] == 200  # the player is still there


async def test_my_data_is_mine_alone_and_delete_removes_it(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key, "yubi")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    path = f"/api/player/{ann.player_id}/data"
    assert (await srv.get(path))[0] == 401
    assert (await srv.get(path, bob.token))[0] == 401
    status, data = await srv.get(path, ann.token)
    assert status == 200 and data["player_id"] == ann.player_id and data["name"] == "Ann"
    assert [k["name"] for k in data["passkeys"]] == ["yubi"] and "public_key" not in str(data)
    assert data["pending_review"] == []
    # A finish of hers held for review is there as "pending review" alone (no score, no
    # evidence); Bob's is not.
    for who, result in ((ann, "R1:1:" + ann.player_id), (bob, "R2:1:" + bob.player_id)):
        await srv.ctx.reviews.hold(
            {
                "result": result,
                "kind": "daily",
                "player_id": who.player_id,
                "score": 0.93,
                "features": {"pace": 0.9},
                "date": "2026-12-07",
                "daily_kind": "daily",
                "entry": {"time_ms": 61000},
            }
        )
    held = (await srv.get(path, ann.token))[1]["pending_review"]
    assert [(h["status"], h["kind"], h["date"]) for h in held] == [
        ("pending review", "daily", "2026-12-07")
    ]
    assert "score" not in str(held) and "0.93" not in str(held) and "features" not in str(held)
    # Delete: refused unless it names oneself; then every key and token of Ann's is gone.
    await refused(ann, {"type": "delete_player", "player_id": bob.player_id}, "confirm_mismatch")
    await ann.send({"type": "delete_player", "player_id": ann.player_id})
    await ann.expect("player_deleted")
    await refused(ann, {"type": "list_passkeys"}, "hello_first")
    assert (await srv.get(path, ann.token))[0] == 401
    redis, keys = srv.ctx.redis, srv.ctx.keys
    assert (
        await redis.exists(keys.player_passkeys(ann.player_id), keys.player_sessions(ann.player_id))
        == 0
    )
    fresh = await WsClient.connect(srv.ws_url, "Fresh")
    signed = key.sign(await options(fresh, "sign_in"), ORIGIN)
    await refused(fresh, {"type": "passkey_sign_in", "credential": signed}, "passkey_unknown")
    line = (await srv.ctx.reviews.log(5))[0]
    assert line["action"] == "delete_player" and line["status"] == "deleted"
    assert line["target"] == "-" and ann.player_id not in str(line) and "Ann" not in str(line)


async def test_a_barred_player_who_deletes_comes_back_barred_on_the_same_passkey(
    srv: Served,
) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    await register(ann, key, "my phone")
    await srv.ctx.reviews.bar(ann.player_id)
    await ann.send({"type": "delete_player", "player_id": ann.player_id})
    await ann.expect("player_deleted")
    back = await WsClient.connect(srv.ws_url, "Anna")
    await back.send(
        {"type": "passkey_sign_in", "credential": key.sign(await options(back, "sign_in"), ORIGIN)}
    )
    welcome = await back.expect("welcome")
    assert welcome["player_id"] == ann.player_id
    assert await srv.ctx.reviews.is_barred(welcome["player_id"])
    await back.send({"type": "list_passkeys"})
    assert [k["name"] for k in (await back.expect("passkeys"))["passkeys"]] == ["Passkey"]


async def test_a_barred_players_removed_passkey_starts_no_fresh_identity(srv: Served) -> None:
    ann = await WsClient.connect(srv.ws_url, "Ann")
    key = SoftKey()
    listed = await register(ann, key)
    await srv.ctx.reviews.bar(ann.player_id)
    await ann.send({"type": "passkey_remove", "id": listed[0]["id"]})
    assert (await ann.expect("passkeys"))["passkeys"] == []
    fresh = await WsClient.connect(srv.ws_url, "Fresh")
    made = key.register(await options(fresh, "register"), ORIGIN)
    await refused(fresh, {"type": "passkey_register", "credential": made}, "passkey_taken")
    signed = key.sign(await options(fresh, "sign_in"), ORIGIN)
    await refused(fresh, {"type": "passkey_sign_in", "credential": signed}, "passkey_unknown")
    # Unbarred, the same removal frees the credential for anyone.
    bob = await WsClient.connect(srv.ws_url, "Bob")
    other = SoftKey()
    bobs = await register(bob, other)
    await bob.send({"type": "passkey_remove", "id": bobs[0]["id"]})
    await bob.expect("passkeys")
    assert [k["name"] for k in await register(fresh, other, "mine now")] == ["mine now"]
