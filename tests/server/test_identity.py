"""Identities end to end: a name the protocol refuses is refused with the character named,
and nothing changes (the socket may say hello again)."""

from __future__ import annotations

from tests.serverproc import ServerProc, WsClient


async def test_the_server_refuses_a_zero_width_name(race_server: ServerProc) -> None:
    client = await WsClient.connect(race_server.ws_url)
    await client.send({"type": "hello", "name": "Ann\u200b"})
    error = await client.expect("error")
    assert error["code"] == "invalid_message" and "U+200B" in error["message"]
    await client.send({"type": "hello", "name": "Ann"})
    assert (await client.expect("welcome"))["name"] == "Ann"
    await client.close()
