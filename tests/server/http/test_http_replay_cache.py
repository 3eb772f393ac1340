"""Replays are cacheable for good: a strong ``ETag`` that is a hash of the body, a long
``Cache-Control``, and 304 to a matching ``If-None-Match``; through the server's own front
and routes (:meth:`server.http.server.HttpFront.respond`) on a context over the machine's
Redis, without a socket (the front's 304 rule itself: ``test_http_front.py``).

The replays are written straight into Redis, under a key prefix of the test's own, the way
the server stores a finished game's.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import pytest
from websockets.http11 import Response

from server.http.server import HttpFront
from server.records.replays import Replay, Result, dumps
from tests.helpers.dailies import daily_deal
from tests.helpers.fakes_http import ask, on_redis, real_front
from tests.helpers.inproc import settings


def given_up(replay_id: str, name: str) -> Replay:
    """A finished solo game on a past daily deal, given up before any action."""
    return Replay(
        id=replay_id,
        kind="solo",
        code=daily_deal("2026-03-14").code,
        player_id="p1",
        name=name,
        started_at=1_773_480_000_000,
        actions=(),
        times_ms=(),
        result=Result(won=False, time_ms=None, moves=0, score=0),
    )


@pytest.fixture
async def server(key_prefix: str) -> AsyncIterator[HttpFront]:
    """The server's front on a context with two replays stored."""
    async with on_redis(settings(env={"SEAHAVEN_KEY_PREFIX": key_prefix})) as ctx:
        for replay in (given_up("r1", "Ann"), given_up("r2", "Bob")):
            await ctx.redis.set(ctx.keys.replay(replay.id), dumps(replay), ex=600)
        yield real_front(ctx)


async def get(front: HttpFront, path: str, if_none_match: str | None = None) -> Response:
    headers = {} if if_none_match is None else {"If-None-Match": if_none_match}
    return await ask(front, "GET", path, headers)


async def test_a_replay_has_a_strong_etag_and_may_be_kept_for_good(server: HttpFront) -> None:
    first, again, other = [
        await get(server, p) for p in ("/api/replay/r1", "/api/replay/r1", "/api/replay/r2")
    ]
    assert first.status_code == again.status_code == other.status_code == 200
    etag = first.headers.get("ETag")
    assert etag == '"' + hashlib.sha256(first.body).hexdigest()[:32] + '"'  # strong: no W/
    assert again.headers.get("ETag") == etag and again.body == first.body
    assert other.headers.get("ETag") not in (None, etag)
    cache = first.headers.get("Cache-Control") or ""
    assert "immutable" in cache and "public" in cache
    max_age = int(cache.split("max-age=")[1].split(",")[0])
    assert max_age >= 30 * 24 * 3600


async def test_a_matching_if_none_match_gets_304(server: HttpFront) -> None:
    etag = (await get(server, "/api/replay/r1")).headers.get("ETag")
    assert etag is not None
    other = (await get(server, "/api/replay/r2")).headers.get("ETag")
    for condition in (etag, f"W/{etag}", f'"x", {etag}', "*"):
        reply = await get(server, "/api/replay/r1", condition)
        assert reply.status_code == 304, condition
        assert reply.body == b""
        assert reply.headers.get("ETag") == etag
        assert "immutable" in (reply.headers.get("Cache-Control") or "")
        assert reply.headers.get("Content-Length") is None
    head = await ask(server, "HEAD", "/api/replay/r1", {"If-None-Match": etag})
    assert head.status_code == 304 and head.body == b""
    for condition in (str(other), '"nope"'):
        reply = await get(server, "/api/replay/r1", condition)
        assert reply.status_code == 200 and reply.headers.get("ETag") == etag and reply.body
    # What may change is neither tagged nor answered 304.
    missing = await get(server, "/api/replay/nosuch", "*")
    assert missing.status_code == 404 and missing.headers.get("ETag") is None
    assert missing.headers.get("Cache-Control") == "no-cache"
    today = await get(server, "/api/daily", "*")
    assert today.status_code == 200 and today.headers.get("ETag") is None
