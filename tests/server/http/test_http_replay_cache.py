"""Replays are cacheable for good, on a real server process over real sockets: a strong
``ETag`` that is a hash of the body, a long ``Cache-Control``, and 304 to a matching
``If-None-Match``.

The replays are written straight into Redis, under a key prefix of this module's own, the
way the server stores a finished game's.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator

import pytest
import redis

from server.records.replays import Replay, Result, dumps
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.rawhttp import Reply, request
from tests.helpers.serverproc import ServerProc, redis_url, running_server

PREFIX = f"test:http:{secrets.token_hex(6)}:"


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


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    keys = Keys(PREFIX)
    for replay in (given_up("r1", "Ann"), given_up("r2", "Bob")):
        client.set(keys.replay(replay.id), dumps(replay), ex=600)
    with running_server(redis_url(), env={"SEAHAVEN_KEY_PREFIX": PREFIX}) as srv:
        yield srv
    client.delete(keys.replay("r1"), keys.replay("r2"))
    client.close()


def get(srv: ServerProc, path: str, if_none_match: str | None = None) -> Reply:
    headers = {} if if_none_match is None else {"If-None-Match": if_none_match}
    return request(srv.port, "GET", path, headers)


def test_a_replay_has_a_strong_etag_and_may_be_kept_for_good(server: ServerProc) -> None:
    first, again, other = (
        get(server, p) for p in ("/api/replay/r1", "/api/replay/r1", "/api/replay/r2")
    )
    assert first.status == again.status == other.status == 200
    etag = first.header("etag")
    assert etag == '"' + hashlib.sha256(first.body).hexdigest()[:32] + '"'  # strong: no W/
    assert again.header("etag") == etag and again.body == first.body
    assert other.header("etag") not in (None, etag)
    cache = first.header("cache-control") or ""
    assert "immutable" in cache and "public" in cache
    max_age = int(cache.split("max-age=")[1].split(",")[0])
    assert max_age >= 30 * 24 * 3600


def test_a_matching_if_none_match_gets_304(server: ServerProc) -> None:
    etag = get(server, "/api/replay/r1").header("etag")
    assert etag is not None
    other = get(server, "/api/replay/r2").header("etag")
    for condition in (etag, f"W/{etag}", f'"x", {etag}', "*"):
        reply = get(server, "/api/replay/r1", condition)
        assert reply.status == 304, condition
        assert reply.body == b""
        assert reply.header("etag") == etag
        assert "immutable" in (reply.header("cache-control") or "")
        assert reply.header("content-length") is None
    head = request(server.port, "HEAD", "/api/replay/r1", {"If-None-Match": etag})
    assert head.status == 304 and head.body == b""
    for condition in (str(other), '"nope"'):
        reply = get(server, "/api/replay/r1", condition)
        assert reply.status == 200 and reply.header("etag") == etag and reply.body
    # What may change is neither tagged nor answered 304.
    missing = get(server, "/api/replay/nosuch", "*")
    assert missing.status == 404 and missing.header("etag") is None
    assert missing.header("cache-control") == "no-cache"
    today = get(server, "/api/daily", "*")
    assert today.status == 200 and today.header("etag") is None
