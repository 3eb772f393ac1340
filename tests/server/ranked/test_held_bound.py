"""The held list is bounded, decided without a server (the operator's actions on the
machine's Redis, as ``seahaven admin`` has them): past its cap the oldest held finishes,
and any older than its age, are settled unranked (as voided) and logged; the operator's
list pages with a cursor that holds while finishes are decided. That every instance keeps
the bound, and the route's answer to a bad cursor, is a journey in
:mod:`tests.server.ranked.test_race_held`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.clock import now_ms
from server.fairplay.holds import Holds
from server.store.keys import Keys
from server.transport.clients import Client

MOST = 5
DAYS = 30


@pytest.fixture
async def holds(redis_client: Client, key_prefix: str) -> AsyncIterator[Holds]:
    yield Holds.on(redis_client, Keys(key_prefix), 3600)


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


async def expired(holds: Holds) -> list[str]:
    return [x["target"] for x in await holds.log(100) if x["action"] == "expire"]


async def test_the_held_list_keeps_its_cap_and_age(holds: Holds, key_prefix: str) -> None:
    keys, redis = Keys(key_prefix), holds.reviews.redis
    # One held 31 days ago, then a flood of 11 more: 12 for a cap of 5.
    await holds.reviews.hold(held(0))
    old = now_ms() - (DAYS + 1) * 86_400_000
    await redis.zadd(keys.held_order(), {held(0)["result"]: old})
    for i in range(1, 12):
        await holds.reviews.hold(held(i))
        await redis.zadd(keys.held_order(), {held(i)["result"]: now_ms() - 1000 + i})

    settled = await holds.expire_held(MOST, DAYS)
    assert sorted(settled) == sorted(held(i)["result"] for i in range(7))
    page = await holds.held_page(0, 50)
    kept = [h["result"] for h in page["held"]]
    assert page["total"] == MOST and kept == [held(i)["result"] for i in range(7, 12)]
    # The settled ones: decided as voided by the expiry, each logged.
    for i in range(7):
        done = await holds.reviews.decided(held(i)["result"])
        assert done is not None and done["status"] == "voided" and done["by"] == "expiry"
    assert sorted(await expired(holds)) == sorted(settled)
    lines = [x for x in await holds.log(100) if x["action"] == "expire"]
    assert all(x["by"] == "expiry" and x["ok"] for x in lines)
    assert await holds.expire_held(MOST, DAYS) == []  # within its bound: nothing more

    # Paged by cursor: deciding the last one read does not skip the next.
    first = await holds.held_page(0, 2)
    assert [h["result"] for h in first["held"]] == kept[:2]
    cursor = first["next_after"]
    assert cursor is not None
    assert (await holds.clear(kept[1], "op")).ok
    second = await holds.held_page(0, 2, cursor)
    assert [h["result"] for h in second["held"]] == kept[2:4]
    last = await holds.held_page(0, 2, second["next_after"])
    assert [h["result"] for h in last["held"]] == kept[4:]
    assert last["next_after"] is None and last["total"] == MOST - 1

    # Under the cap, one held longer than the age is settled all the same.
    await redis.zadd(keys.held_order(), {kept[3]: old})
    assert await holds.expire_held(MOST, DAYS) == [kept[3]]
    assert (await holds.held_page(0, 50))["total"] == MOST - 2
    assert (await holds.reviews.decided(kept[3]) or {}).get("by") == "expiry"
    for bad in ("x", "12", ":abc", "12:"):
        with pytest.raises(ValueError):
            await holds.held_page(0, 2, bad)
