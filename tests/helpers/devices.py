"""What the tests of a player's devices share: asking for a passkey's options, registering
a software passkey, and expecting a refusal, over the real protocol."""

from __future__ import annotations

from typing import Any

from tests.helpers.authenticator import SoftKey
from tests.helpers.serverproc import WsClient

#: The page's origin the software authenticator signs for (a test server's relying party is
#: ``localhost``).
ORIGIN = "http://localhost:8765"


async def options(client: WsClient, purpose: str) -> dict[str, Any]:
    """The WebAuthn options of ``purpose`` (``register`` or ``sign_in``) for this socket."""
    await client.send({"type": "passkey_options", "purpose": purpose})
    answer = await client.expect("passkey_challenge")
    assert answer["purpose"] == purpose and answer["rp_id"] == "localhost"
    return dict(answer["options"])


async def refused(client: WsClient, msg: dict[str, Any], code: str) -> dict[str, Any]:
    """Send ``msg`` and expect an ``error`` of ``code``; the error."""
    await client.send(msg)
    error = await client.expect("error")
    assert error["code"] == code, error
    return error


async def register(
    client: WsClient, key: SoftKey, name: str | None = "phone"
) -> list[dict[str, Any]]:
    """Register ``key`` as a passkey of the socket's player (named ``name``, or by the
    server when None); the player's passkeys."""
    made = key.register(await options(client, "register"), ORIGIN)
    msg: dict[str, Any] = {"type": "passkey_register", "credential": made}
    if name is not None:
        msg["name"] = name
    await client.send(msg)
    return list((await client.expect("passkeys"))["passkeys"])


#: A typed game (never a daily deal) and the first move of a line that wins it.
SOLO_CODE = "SH1-C4-AAAAAJ2"


def first_move() -> tuple[str, str]:
    """The first move of a winning line of :data:`SOLO_CODE`: (source, destination)."""
    from server.engine import Board
    from server.engine.solver import solve

    src, dst = solve(Board.from_code(SOLO_CODE)).moves[0].split(" ")
    return src, dst


async def solo_begun(client: WsClient) -> str:
    """The socket starts a solo game of :data:`SOLO_CODE` and plays one move; its room."""
    await client.send({"type": "solo", "code": SOLO_CODE})
    room = str((await client.expect("snapshot"))["room_id"])
    src, dst = first_move()
    await client.send({"type": "move", "id": 1, "src": src, "dst": dst})
    await client.expect("ack", id=1)
    return room
