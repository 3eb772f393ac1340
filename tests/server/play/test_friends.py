"""Following players, decided without a server (the lists and the boards real on Redis, the
socket a fake): ``follow``, ``unfollow`` and ``friends`` answer the follower alone, with the
name a public board shows; unknown, own and malformed ids are refused; the list is bounded
and kept; the Friends tab of a running day's board holds only the players followed and
oneself, as the public board shows them (no replay ids). The route's journey (its token,
the list private on the player page) is in :mod:`tests.server.daily.test_daily_server`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import ValidationError

from protocol import models as m
from protocol.models import CLIENT_ADAPTER
from server.daily.deal import today
from server.play.friends import on_follow, on_friends, on_unfollow
from server.store import follows
from server.store.follows import MAX_FOLLOWS
from server.transport.clients import Client
from tests.helpers.fakes_play import Instance, Socket, instance
from tests.helpers.fakes_ranked import won_today
from tests.helpers.leaderboards import submit


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    ctx = await instance(redis_client, key_prefix, today().isoformat())
    for pid in ("pbob", "pcy"):  # two ranked players of today
        assert (await submit(ctx.daily.leaderboard, won_today(pid))).status == "ranked"
    yield ctx


async def follow(ctx: Instance, conn: Socket, pid: str) -> dict[str, Any]:
    """What ``follow`` answers (the last message the socket got)."""
    await on_follow(ctx, conn, m.Follow(type="follow", player_id=pid))
    return conn.sent[-1]


async def test_follow_refusals_and_the_list_answered_to_the_follower(ctx: Instance) -> None:
    ann = Socket(pid="pann")
    # Refused, and nothing changes: an id nobody has, one's own.
    assert (await follow(ctx, ann, "pnobody000000"))["code"] == "unknown_player"
    assert (await follow(ctx, ann, "pann"))["code"] == "self_follow"
    await on_friends(ctx, ann, m.Friends(type="friends"))
    assert ann.sent[-1] == {"type": "friends", "follows": []}
    # A malformed id, or a stray field, never reaches the handler.
    for bad in ({"player_id": "p}{x"}, {"player_id": "pbob", "x": 1}):
        with pytest.raises(ValidationError):
            CLIENT_ADAPTER.validate_python({"type": "follow", **bad})
    # Followed: the whole list, with the name the public board shows.
    answer = await follow(ctx, ann, "pbob")
    assert answer == {"type": "friends", "follows": [{"player_id": "pbob", "name": "PBOB"}]}
    assert len((await follow(ctx, ann, "pcy"))["follows"]) == 2
    assert await follows.followed(ctx.store, "pann") == {"pbob", "pcy"}
    assert await follows.followed(ctx.store, "pbob") == set()  # being followed is not following
    await on_unfollow(ctx, ann, m.Unfollow(type="unfollow", player_id="pbob"))
    assert ann.sent[-1]["follows"] == [{"player_id": "pcy", "name": "PCY"}]


async def test_the_list_is_bounded_and_kept(ctx: Instance) -> None:
    ann = Socket(pid="pann")
    await follow(ctx, ann, "pcy")
    redis, key = ctx.store.redis, ctx.store.keys.follows("pann")
    filler: dict[Any, Any] = {
        f"pfill{i:04d}": json.dumps({"at": i, "name": ""}) for i in range(MAX_FOLLOWS - 1)
    }
    await redis.hset(key, mapping=filler)
    assert (await follow(ctx, ann, "pbob"))["code"] == "too_many_follows"
    assert await redis.hlen(key) == MAX_FOLLOWS
    assert len((await follow(ctx, ann, "pcy"))["follows"]) == MAX_FOLLOWS  # again: no change
    assert 0 < await redis.ttl(key) <= ctx.settings.history_s


async def test_the_friends_tab_is_the_public_board_among_the_followed(ctx: Instance) -> None:
    date, board = today().isoformat(), ctx.daily.leaderboard
    ann = Socket(pid="pann")
    await follow(ctx, ann, "pbob")
    public = {e["player_id"]: e for e in (await board.board_json(date, "daily"))["entries"]}
    assert set(public) == {"pbob", "pcy"}
    # Ann (not ranked) sees Bob alone, as the public board shows him; never Cy.
    wanted = await follows.followed(ctx.store, "pann") | {"pann"}
    mine = await board.among(date, "daily", sorted(wanted), "pann")
    assert mine == [public["pbob"]]
    assert "replay_id" not in json.dumps(mine)  # the day runs: replays are their players'
    # Cy follows nobody: Cy alone.
    wanted = await follows.followed(ctx.store, "pcy") | {"pcy"}
    assert await board.among(date, "daily", sorted(wanted), "pcy") == [public["pcy"]]
