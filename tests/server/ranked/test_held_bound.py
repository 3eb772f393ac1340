"""The held list is bounded, through a real server: past ``--held-max`` the oldest held
finishes, and any older than ``--held-days``, are settled unranked (as voided) and logged;
the operator's list pages with a cursor that holds while finishes are decided."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.clock import now_ms
from server.fairplay.holds import Holds
from server.store.keys import Keys
from tests.helpers.serverproc import FAST, ServerProc, redis_url, running_server
from tests.helpers.waits import until

TOKEN = "admin-" + secrets.token_hex(12)
MOST = 5


@pytest.fixture
async def server(key_prefix: str) -> AsyncIterator[ServerProc]:
    args = [*FAST, "--admin-token", TOKEN, "--held-max", str(MOST), "--held-days", "30"]
    args += ["--api-rate", "1000", "--api-burst", "1000"]
    with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        yield srv


def admin_get(srv: ServerProc, path: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(srv.http_url + path)
    request.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(request, timeout=5) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def admin_post(srv: ServerProc, path: str) -> dict[str, Any]:
    request = urllib.request.Request(srv.http_url + path, method="POST")
    request.add_header("Authorization", f"Bearer {TOKEN}")
    with urllib.request.urlopen(request, timeout=5) as res:
        return dict(json.load(res))


def held(i: int) -> dict[str, Any]:
    """A held race finish (its room long gone: settling it touches no rating)."""
    return {
        "result": f"GONE{i:02d}-1-p{i}",
        "kind": "race",
        "player_id": f"p{i}",
        "score": {"held": True},
        "room": f"GONE{i:02d}",
        "round": 1,
    }


async def test_the_held_list_keeps_its_cap_and_age(server: ServerProc, key_prefix: str) -> None:
    keys = Keys(key_prefix)
    redis = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    holds = Holds.on(redis, keys, 3600)
    try:
        # One held 31 days ago, then a flood of 11 more: 12 for a cap of 5.
        await holds.reviews.hold(held(0))
        old = now_ms() - 31 * 86_400_000
        await redis.zadd(keys.held_order(), {held(0)["result"]: old})
        for i in range(1, 12):
            await holds.reviews.hold(held(i))
            await redis.zadd(keys.held_order(), {held(i)["result"]: now_ms() - 1000 + i})

        async def at_cap() -> bool:
            # A finish leaves the list a moment before its decision and log line are
            # written: wait for the last of them, the log.
            if int((await holds.held_page(0, 50))["total"]) != MOST:
                return False
            return len([x for x in await holds.log(100) if x["action"] == "expire"]) >= 7

        await until(at_cap, timeout=15, what="the held list at its cap, the settled logged")
        _status, page = admin_get(server, "/api/admin/held?limit=50")
        kept = [h["result"] for h in page["held"]]
        assert kept == [held(i)["result"] for i in range(7, 12)]
        # The settled ones: decided as voided by the expiry, each logged.
        for i in range(7):
            done = await holds.reviews.decided(held(i)["result"])
            assert done is not None and done["status"] == "voided" and done["by"] == "expiry"
        lines = [x for x in await holds.log(100) if x["action"] == "expire"]
        assert sorted(x["target"] for x in lines) == sorted(held(i)["result"] for i in range(7))
        assert all(x["by"] == "expiry" and x["ok"] for x in lines)

        # Paged by cursor: deciding the last one read does not skip the next.
        status, first = admin_get(server, "/api/admin/held?limit=2")
        assert status == 200 and [h["result"] for h in first["held"]] == kept[:2]
        cursor = first["next_after"]
        assert cursor is not None
        admin_post(server, f"/api/admin/clear/{kept[1]}")
        _status, second = admin_get(server, f"/api/admin/held?limit=2&after={cursor}")
        assert [h["result"] for h in second["held"]] == kept[2:4]
        _status, last = admin_get(server, f"/api/admin/held?limit=2&after={second['next_after']}")
        assert [h["result"] for h in last["held"]] == kept[4:]
        assert last["next_after"] is None and last["total"] == MOST - 1
        # Under the cap, one held longer than --held-days is settled all the same.
        await redis.zadd(keys.held_order(), {kept[3]: old})

        async def aged() -> bool:
            if int((await holds.held_page(0, 50))["total"]) != MOST - 2:
                return False
            return len([x for x in await holds.log(100) if x["action"] == "expire"]) >= 8

        await until(aged, timeout=15, what="the aged finish settled and logged")
        assert (await holds.reviews.decided(kept[3]) or {}).get("by") == "expiry"
        for bad in ("x", "12", ":abc", "12:"):
            status, body = admin_get(server, f"/api/admin/held?after={bad}")
            assert status == 400 and body["error"] == "bad_after", bad
    finally:
        await redis.aclose()
