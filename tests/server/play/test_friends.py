"""Following players on a real server, real Redis and real sockets: ``follow``,
``unfollow`` and ``friends`` answer the follower alone; unknown, own and malformed ids are
refused; the list is bounded; it is never shown to anyone else; the Friends tab of a
running day's board holds only the players followed and oneself, as the public board shows
them (no replay ids); friends racing now lists their public rooms, never a private one."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.daily.deal import today
from server.store.follows import MAX_FOLLOWS
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import daily_server, get, line_of, play, start_daily
from tests.helpers.serverproc import WsClient, redis_url


async def refused(client: WsClient, msg: dict[str, Any], code: str) -> None:
    await client.send(msg)
    error = await client.expect("error")
    assert error["code"] == code, error


@pytest.mark.slow
async def test_follow_a_friend_and_see_them_alone_on_the_friends_board() -> None:
    prefix = f"test:friends:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    board_path = f"/api/daily/{date}/leaderboard?kind=daily&friends=1"
    with daily_server(prefix) as (srv, _env):
        ann, bob, cy = [await WsClient.connect(srv.ws_url, name) for name in ("Ann", "Bob", "Cy")]
        for racer in (bob, cy):  # two ranked players of today
            await start_daily(racer)
            await play(racer, line)
            assert (await racer.expect("daily_result", timeout=10))["ranked"] is True
            await racer.send({"type": "leave"})
            await racer.expect("left")
        # Refused, and nothing changes: an id nobody has, one's own, a malformed one.
        await refused(ann, {"type": "follow", "player_id": "pnobody000000"}, "unknown_player")
        await refused(ann, {"type": "follow", "player_id": ann.player_id}, "self_follow")
        await refused(ann, {"type": "follow", "player_id": "p}{x"}, "invalid_message")
        await refused(
            ann, {"type": "follow", "player_id": bob.player_id, "x": 1}, "invalid_message"
        )
        await ann.send({"type": "friends"})
        assert (await ann.expect("friends"))["follows"] == []
        await ann.send({"type": "follow", "player_id": bob.player_id})
        answer = await ann.expect("friends")
        assert answer["follows"] == [{"player_id": bob.player_id, "name": "Bob"}]
        assert bob.find("friends") is None  # being followed tells Bob nothing

        # The Friends tab: Bob and Ann (not ranked) only, never Cy; Bob as the board has him.
        status, body = get(srv, board_path, ann.token)
        assert status == 200 and body["friends"] is True and body["finishers"] == 2
        assert [e["player_id"] for e in body["entries"]] == [bob.player_id]
        public_board = get(srv, f"/api/daily/{date}/leaderboard?kind=daily")[1]["entries"]
        by_id = {e["player_id"]: e for e in public_board}
        assert body["entries"] == [by_id[bob.player_id]]  # as the public board shows Bob
        assert "replay_id" not in json.dumps(body)  # the day runs: replays are their players'
        status, body = get(srv, board_path, cy.token)  # Cy follows nobody: Cy alone
        assert body["entries"] == [by_id[cy.player_id]]
        status, body = get(srv, board_path)
        assert status == 401 and body["error"] == "bad_token"
        assert get(srv, board_path, "x" * 32)[0] == 401

        # The follow list is Ann's alone.
        status, page = get(srv, f"/api/player/{ann.player_id}", cy.token)
        assert status == 200 and "follows" not in page
        assert "follows" not in get(srv, f"/api/player/{ann.player_id}")[1]
        own = get(srv, f"/api/player/{ann.player_id}", ann.token)[1]
        assert own["follows"] == [{"player_id": bob.player_id, "name": "Bob"}]

        await ann.send({"type": "follow", "player_id": cy.player_id})
        assert len((await ann.expect("friends"))["follows"]) == 2

        # Unfollow; and the list is bounded.
        await ann.send({"type": "unfollow", "player_id": bob.player_id})
        assert (await ann.expect("friends"))["follows"] == [
            {"player_id": cy.player_id, "name": "Cy"}
        ]
        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        try:
            filler: dict[Any, Any] = {
                f"pfill{i:04d}": json.dumps({"at": i, "name": ""}) for i in range(199)
            }
            await r.hset(keys.follows(ann.player_id), mapping=filler)
            await refused(ann, {"type": "follow", "player_id": bob.player_id}, "too_many_follows")
            assert await r.hlen(keys.follows(ann.player_id)) == MAX_FOLLOWS
            await ann.send({"type": "follow", "player_id": cy.player_id})  # again: no change
            assert len((await ann.expect("friends"))["follows"]) == MAX_FOLLOWS
            assert await r.ttl(keys.follows(ann.player_id)) > 0
        finally:
            await r.aclose()
        for client in (ann, bob, cy):
            await client.close()
