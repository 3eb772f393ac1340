"""The API's answers to what a client may get wrong, and its plain answers, through the
server's front and routes on a context over the machine's Redis (no socket): a clear error
naming what was wrong, and nothing read that the request did not earn (a player's own pages
need their token)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.http.server import HttpFront
from tests.helpers.fakes_http import ask, body_json, on_redis, real_front
from tests.helpers.inproc import settings
from tests.helpers.serverproc import ahead_dates


@pytest.fixture
async def front(key_prefix: str) -> AsyncIterator[HttpFront]:
    """The server's front with room for many requests, on a context of the test's own."""
    given = settings(
        ["--api-rate", "1000", "--api-burst", "1000"], {"SEAHAVEN_KEY_PREFIX": key_prefix}
    )
    async with on_redis(given) as ctx:
        yield real_front(ctx)


async def get(front: HttpFront, path: str, token: str | None = None) -> tuple[int, Any]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    answer = await ask(front, "GET", path, headers)
    return answer.status_code, body_json(answer)


async def test_the_day_and_its_refusals(front: HttpFront) -> None:
    today, _tomorrow = ahead_dates()
    status, body = await get(front, "/api/daily")
    assert status == 200 and body["date"] == today and body["running"] is True
    assert "code" not in body and "code" not in body["hard"]  # revealed only by playing it
    assert (await get(front, f"/api/daily/{today}"))[1] == body
    day = dt.date.fromisoformat(today)
    later, before = (day + dt.timedelta(days=30)).isoformat(), day - dt.timedelta(days=3)
    for path, expected in (
        (f"/api/daily/{later}", (404, "future_date")),
        ("/api/daily/2026-13-01", (400, "bad_date")),
        ("/api/daily/2001-01-01", (400, "bad_date")),  # before the first day
        (f"/api/daily/{before}", (503, "unavailable")),  # no certified deal that day here
    ):
        status, body = await get(front, path)
        assert (status, body["error"]) == expected, path
        assert body["message"]


async def test_a_leaderboard_says_what_is_wrong_with_its_query(front: HttpFront) -> None:
    today, _tomorrow = ahead_dates()
    board = f"/api/daily/{today}/leaderboard"
    status, body = await get(front, board)
    assert status == 200 and body["entries"] == [] and body["kind"] == "daily"
    for query, error in (
        ("?kind=easy", "bad_kind"),
        ("?limit=0", "bad_limit"),
        ("?limit=x", "bad_limit"),
        ("?around=" + "p" * 33, "bad_player"),
        ("?by=luck", "bad_by"),
        ("?friends=1", "bad_token"),
    ):
        status, body = await get(front, board + query)
        assert body["error"] == error, query
        assert status == (401 if error == "bad_token" else 400), query
    assert (await get(front, board + "?friends=1", "t" * 24))[0] == 401  # no such session
    assert (await get(front, "/api/daily/2026-02-30/leaderboard"))[1]["error"] == "bad_date"


async def test_a_players_own_pages_need_their_token(front: HttpFront) -> None:
    today, _tomorrow = ahead_dates()
    for path in (f"/api/daily/{today}/mine", "/api/player/p-ann/data"):
        for token in (None, "short", "t" * 24):
            status, body = await get(front, path, token)
            assert (status, body["error"]) == (401, "bad_token"), (path, token)
    status, body = await get(front, f"/api/daily/{today}/mine?kind=easy", "t" * 24)
    assert (status, body["error"]) == (400, "bad_kind")


async def test_lists_and_counts(front: HttpFront) -> None:
    status, body = await get(front, "/api/ratings?cells=2&limit=5")
    assert (status, body) == (200, {"cells": 2, "players": []})
    for query, error in (("?cells=3", "bad_cells"), ("?limit=101", "bad_limit")):
        status, body = await get(front, "/api/ratings" + query)
        assert (status, body["error"]) == (400, error), query
    status, body = await get(front, "/api/rooms/live")
    assert status == 200 and body["rooms"] == [] and body["featured"] is None
    assert (await get(front, "/api/rooms/live?limit=51"))[1]["error"] == "bad_limit"
    status, body = await get(front, "/api/online")
    assert status == 200 and set(body) == {"online", "racing", "waiting"}
    status, body = await get(front, "/api/room/NOROOM/invite")
    assert (status, body["error"]) == (404, "room_not_found")
    status, body = await get(front, "/api/arena/no-such-arena")
    assert (status, body["error"]) == (404, "not_found")
    assert (await get(front, "/api/arena/no-such-arena?top=0"))[1]["error"] == "bad_top"
    status, body = await get(front, "/api/player/p-nobody")
    assert status == 200 and body["player_id"] == "p-nobody" and "follows" not in body
