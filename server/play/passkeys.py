"""Passkeys: a player adds WebAuthn credentials to their identity and signs in with any of
them on any device (the checking is the ``webauthn`` library's: no cryptography here).

A challenge is this socket's alone, good for one try within :data:`CHALLENGE_S`, and kept in
this instance's memory (a socket stays on one instance). A sign-in proves the credential's
player by its signature over the challenge, made for this site's relying party id and from
an allowed origin, in a page of this site's own (never in a frame of another site: the
browser says so in the client data's ``crossOrigin`` and ``topOrigin``); the answer is the
same ``welcome`` a ``hello`` with that player's token gets. A passkey's list, names and
dates go to its player's socket only; a new passkey is named after the device that made it
("Chrome on Android", from its browser's User-Agent) unless the player names it.

Relying party and origins come from the settings (``webauthn_rp_id``, ``webauthn_origins``).
Browsers refuse an IP address as relying party id, so a development server is used on
``http://localhost:PORT`` (the page says so on ``127.0.0.1``).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from protocol import models as m

from ..clock import now_ms
from ..context import Context, Kept
from ..fairplay.standing import standing
from ..net.registry import Routes
from ..net.session import Conn
from ..net.wire import devices as out
from ..store import accounts
from .devices import become, signed_in, step_out

routes = Routes()

#: Seconds a challenge holds.
CHALLENGE_S: Final = 120
#: Challenges kept on one instance at most (the oldest go first).
MAX_CHALLENGES: Final = 20_000


@dataclass(slots=True)
class Challenge:
    """A challenge sent to a socket: for which purpose, when, and for which player."""

    purpose: str
    value: bytes
    at: int
    pid: str | None


#: Socket id -> its open challenge, on this instance.
CHALLENGES: Final[Kept[dict[str, Challenge]]] = Kept("passkey challenges", dict)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _take(ctx: Context, conn: Conn, purpose: str) -> Challenge | None:
    """This socket's challenge of ``purpose`` if it still holds; it is used up either way."""
    found = ctx.kept(CHALLENGES).pop(conn.cid, None)
    if found is None or found.purpose != purpose or now_ms() - found.at > CHALLENGE_S * 1000:
        return None
    return found


#: Browsers as a User-Agent names them, the first match wins (Edge and Opera also say
#: "Chrome", Chrome also says "Safari").
BROWSERS: Final = (
    ("Edg", "Edge"),
    ("EdgA", "Edge"),
    ("EdgiOS", "Edge"),
    ("OPR", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Firefox", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome", "Chrome"),
    ("Safari", "Safari"),
)
#: Systems as a User-Agent names them, the first match wins (Android also says "Linux",
#: an iPhone also says "Mac OS X").
SYSTEMS: Final = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


def device_name(user_agent: str) -> str:
    """A passkey's default name: the browser and system of the User-Agent that made it
    ("Chrome on Android"), or "Passkey" when neither is known."""
    browser = next((name for mark, name in BROWSERS if f"{mark}/" in user_agent), "")
    system = next((name for mark, name in SYSTEMS if mark in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or "Passkey"


def _user_agent(conn: Conn) -> str:
    request = conn.ws.request
    return request.headers.get("User-Agent", "") if request is not None else ""


def allowed_origin(ctx: Context, client_data: str) -> str | None:
    """The origin the browser signed (from the client data), if this server takes it: one
    of ``webauthn_origins``, or without them ``https://RP_ID`` (any port) and, for
    ``localhost``, ``http://localhost`` (any port); and never one made in a cross-origin
    frame. The library then checks the origin again."""
    try:
        data = json.loads(_unb64(client_data))
        origin = data.get("origin")
    except (ValueError, binascii.Error, AttributeError):
        return None
    if not isinstance(origin, str):
        return None
    # Made in a frame of another site's page (a page that framed ours to have the player
    # sign in there): refused, whatever its own origin.
    top = data.get("topOrigin", origin)
    if data.get("crossOrigin") not in (None, False) or top != origin:
        return None
    settings = ctx.settings
    if settings.webauthn_origins:
        return origin if origin in settings.webauthn_origins else None
    parts = urlsplit(origin)
    rp = settings.webauthn_rp_id
    if parts.hostname != rp:
        return None
    if parts.scheme == "https" or (parts.scheme == "http" and rp == "localhost"):
        return origin
    return None


@routes.ws("passkey_options")
async def on_passkey_options(ctx: Context, conn: Conn, msg: m.PasskeyOptions) -> None:
    """Send the options of a passkey to make (for this player) or to sign in with."""
    settings = ctx.settings
    challenges = ctx.kept(CHALLENGES)
    if len(challenges) >= MAX_CHALLENGES:
        challenges.pop(next(iter(challenges)))
    if msg.purpose == "register":
        if conn.pid is None:  # a passkey is made for a player: say who you are first
            conn.error("hello_first")
            return
        if not await signed_in(ctx, conn):
            return
        have = await accounts.passkeys(ctx.store, conn.pid)
        options: Any = generate_registration_options(
            rp_id=settings.webauthn_rp_id,
            rp_name=settings.webauthn_rp_name,
            user_name=conn.name or "player",
            user_id=conn.pid.encode(),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=_unb64(k.id)) for k in have],
        )
    else:
        options = generate_authentication_options(
            rp_id=settings.webauthn_rp_id,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
    challenges[conn.cid] = Challenge(msg.purpose, options.challenge, now_ms(), conn.pid)
    body = json.loads(options_to_json(options))
    conn.queue(out.passkey_challenge(msg.purpose, settings.webauthn_rp_id, body))


@routes.ws("passkey_register")
async def on_passkey_register(ctx: Context, conn: Conn, msg: m.PasskeyRegister) -> None:
    """Verify a new passkey and add it to this player."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    challenge = _take(ctx, conn, "register")
    if challenge is None or challenge.pid != conn.pid:
        conn.queue(out.refused("no_challenge"))
        return
    cred = msg.credential
    origin = allowed_origin(ctx, cred.client_data)
    if origin is None:
        conn.queue(out.refused("passkey_refused"))
        return
    try:
        made = verify_registration_response(
            credential={
                "id": cred.id,
                "rawId": cred.id,
                "type": "public-key",
                "response": {
                    "clientDataJSON": cred.client_data,
                    "attestationObject": cred.attestation_object,
                    "transports": list(cred.transports),
                },
            },
            expected_challenge=challenge.value,
            expected_rp_id=ctx.settings.webauthn_rp_id,
            expected_origin=origin,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        ctx.metrics.errors.inc()
        conn.queue(out.refused("passkey_refused"))
        return
    key = accounts.Passkey(
        id=_b64(made.credential_id),
        name=msg.name or device_name(_user_agent(conn)),
        public_key=_b64(made.credential_public_key),
        sign_count=made.sign_count,
        created=now_ms(),
        player_name=conn.name,
    )
    status = await accounts.add_passkey(ctx.store, conn.pid, key)
    if status != "added":
        conn.queue(out.refused("too_many_passkeys" if status == "full" else "passkey_taken"))
        return
    await _list(ctx, conn)


@routes.ws("passkey_sign_in")
async def on_passkey_sign_in(ctx: Context, conn: Conn, msg: m.PasskeySignIn) -> None:
    """Sign this socket in as the player of the passkey whose signature it sends (leaving
    what it was doing as its old player once the passkey proved itself)."""
    challenge = _take(ctx, conn, "sign_in")
    if challenge is None:
        conn.queue(out.refused("no_challenge"))
        return
    cred = msg.credential
    pid = await accounts.passkey_owner(ctx.store, cred.id)
    key = None if pid is None else await accounts.passkey_of(ctx.store, pid, cred.id)
    if pid is None or key is None:
        conn.queue(out.refused("passkey_unknown"))
        return
    origin = allowed_origin(ctx, cred.client_data)
    if origin is None:
        conn.queue(out.refused("passkey_refused"))
        return
    response: dict[str, Any] = {
        "clientDataJSON": cred.client_data,
        "authenticatorData": cred.authenticator_data,
        "signature": cred.signature,
    }
    if cred.user_handle is not None:
        response["userHandle"] = cred.user_handle
    try:
        proved = verify_authentication_response(
            credential={
                "id": cred.id,
                "rawId": cred.id,
                "type": "public-key",
                "response": response,
            },
            expected_challenge=challenge.value,
            expected_rp_id=ctx.settings.webauthn_rp_id,
            expected_origin=origin,
            credential_public_key=_unb64(key.public_key),
            credential_current_sign_count=key.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        ctx.metrics.errors.inc()
        conn.queue(out.refused("passkey_refused"))
        return
    key.sign_count, key.used = proved.new_sign_count, now_ms()
    await accounts.save_passkey(ctx.store, pid, key)
    await step_out(ctx, conn)
    await become(ctx, conn, pid, key.player_name)


async def _list(ctx: Context, conn: Conn) -> None:
    assert conn.pid is not None
    keys = await accounts.passkeys(ctx.store, conn.pid)
    conn.queue(out.passkeys([k.shown() for k in keys]))


@routes.ws("list_passkeys")
async def on_list_passkeys(ctx: Context, conn: Conn, msg: m.ListPasskeys) -> None:
    """Send this player's passkeys."""
    if not await signed_in(ctx, conn):
        return
    await _list(ctx, conn)


@routes.ws("passkey_rename")
async def on_passkey_rename(ctx: Context, conn: Conn, msg: m.PasskeyRename) -> None:
    """Name one of this player's passkeys."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    key = await accounts.passkey_of(ctx.store, conn.pid, msg.id)
    if key is None:
        conn.queue(out.refused("passkey_not_found"))
        return
    key.name = msg.name
    await accounts.save_passkey(ctx.store, conn.pid, key)
    await _list(ctx, conn)


@routes.ws("passkey_remove")
async def on_passkey_remove(ctx: Context, conn: Conn, msg: m.PasskeyRemove) -> None:
    """Remove one of this player's passkeys."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    barred = (await standing(ctx, conn.pid)).barred
    if not await accounts.remove_passkey(ctx.store, conn.pid, msg.id, keep_bound=barred):
        conn.queue(out.refused("passkey_not_found"))
        return
    await _list(ctx, conn)
