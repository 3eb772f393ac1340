"""The messages of a player's devices (:mod:`protocol.devices`), built here and nowhere else:
a part of :mod:`server.net.wire` (which holds every other message), kept apart for size.
Each goes to its player's own socket only."""

from __future__ import annotations

from typing import Any

from protocol.models import ERROR_CODES

from .compact import dumps


def passkey_challenge(purpose: str, rp_id: str, options: dict[str, Any]) -> str:
    """``passkey_challenge``: the options for the browser's WebAuthn call."""
    return dumps(
        {"type": "passkey_challenge", "purpose": purpose, "rp_id": rp_id, "options": options}
    )


def passkeys(keys: list[dict[str, Any]]) -> str:
    """``passkeys``: the player's passkeys as their owner sees them (no key material)."""
    return dumps({"type": "passkeys", "passkeys": keys})


def transfer_code(code: str, link: str | None, qr_svg: str, expires_at: int) -> str:
    """``transfer_code``: the code, its link and QR code, and its expiry."""
    out: dict[str, Any] = {"type": "transfer_code", "code": code}
    if link is not None:
        out["link"] = link
    out.update(qr_svg=qr_svg, expires_at=expires_at)
    return dumps(out)


def player_deleted() -> str:
    """``player_deleted``."""
    return dumps({"type": "player_deleted"})


def signed_out() -> str:
    """``signed_out``: the player signed out everywhere on another device."""
    return dumps({"type": "signed_out"})


def game_left(room: str, mode: str, given_up: bool) -> str:
    """``game_left``: what became of the game a sign-in (or a deletion) left."""
    return dumps({"type": "game_left", "room_id": room, "mode": mode, "given_up": given_up})


def refused(code: str, retry_s: int | None = None) -> str:
    """``error`` of a device message, with ``retry_s`` when waiting helps."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": ERROR_CODES[code]}
    if retry_s is not None:
        out["retry_s"] = retry_s
    return dumps(out)
