"""The standing gate (server/fairplay/standing.py) on the machine's Redis: a bar and a flag
as the gate reads them, for one player and many."""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis

from server.fairplay.standing import standing, standings
from server.store.evidence import EvidenceStore
from server.store.keys import Keys
from server.store.reviews import Reviews
from tests.helpers.serverproc import redis_url


async def test_the_gate_reads_bars_and_flags() -> None:
    keys = Keys(f"test:standing:{secrets.token_hex(6)}:")
    redis = aioredis.from_url(redis_url(), decode_responses=True)
    try:
        reviews = Reviews(redis, keys, 3600)
        assert await reviews.bar("bad")
        assert await EvidenceStore(redis, keys, 3600).flag("odd", 0.7, "score 0.70 over 3")
        bad, odd, fine = [await standing(reviews, p) for p in ("bad", "odd", "fine")]
        assert (bad.barred, bad.may_rank, bad.shown, bad.flagged) == (True, False, False, False)
        assert (odd.barred, odd.may_rank, odd.shown, odd.flagged) == (False, True, True, True)
        assert odd.flag is not None and odd.flag["why"] == "score 0.70 over 3"
        assert (fine.barred, fine.flagged, fine.may_rank) == (False, False, True)
        many = await standings(reviews, ["fine", "bad", "odd", "bad", ""])
        assert set(many) == {"fine", "bad", "odd", ""}
        assert [p for p, s in many.items() if not s.may_rank] == ["bad"]
        assert many[""].may_rank and await standings(reviews, []) == {}
        assert await reviews.unbar("bad")
        assert (await standing(reviews, "bad")).may_rank
    finally:
        await redis.delete(keys.barred(), keys.flagged())
        await redis.aclose()
