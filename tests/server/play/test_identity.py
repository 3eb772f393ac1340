"""Identities end to end: a name the protocol refuses is refused with the character named,
and nothing changes (the socket may say hello again); one address makes as many players as
a school lab needs, and past the limit hears when to come back."""

from __future__ import annotations

from tests.helpers.serverproc import ServerProc, WsClient, redis_url, running_server


async def test_the_server_refuses_a_zero_width_name(race_server: ServerProc) -> None:
    client = await WsClient.connect(race_server.ws_url)
    await client.send({"type": "hello", "name": "Ann\u200b"})
    error = await client.expect("error")
    assert error["code"] == "invalid_message" and "U+200B" in error["message"]
    await client.send({"type": "hello", "name": "Ann"})
    assert (await client.expect("welcome"))["name"] == "Ann"
    await client.close()


async def test_a_sixty_seat_lab_makes_its_players_and_the_limit_says_when() -> None:
    """Issue 22, route 9: a school lab of 60 behind one address makes its players in one go
    (before: the 21st and later were refused), and past the limit the refusal says when to
    come back (``retry_s``), on a socket that stays open."""
    with running_server(redis_url(), args=["--countdown-ms", "300"]) as srv:
        lab = [await WsClient.connect(srv.ws_url, f"Pupil {n}") for n in range(60)]
        assert len({c.player_id for c in lab}) == 60  # all at once, all open
        for c in lab:
            await c.close()
        more = [await WsClient.connect(srv.ws_url, f"Guest {n}") for n in range(40)]
        for c in more:
            await c.close()
        late = await WsClient.connect(srv.ws_url)
        await late.send({"type": "hello", "name": "Late"})
        refused = await late.expect("error")
        assert refused["code"] == "too_many_identities"
        assert 1 <= refused["retry_s"] <= 31  # 120 an hour: one every 30 s
        # A player who has a token comes back whatever the limit.
        await late.send({"type": "hello", "name": "Pupil 0", "token": lab[0].token})
        assert (await late.expect("welcome"))["player_id"] == lab[0].player_id
        await late.close()
