"""Solo statistics as the script keeps them, on a real Redis without a server: a game counted
once, its lists bounded, a loss ending the streak, records only when bettered. Which games
count, and the player page that shows them, through a server: ``test_records_server.py``."""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis

from server.records.solo_stats import GAMES_KEPT, IDS_KEPT, SoloStats
from server.store.keys import Keys
from tests.helpers.serverproc import redis_url


async def test_the_script_counts_a_game_once_and_keeps_its_lists_bounded() -> None:
    """``lua/solo_record.lua`` directly: a repeat changes nothing; ids and games are capped;
    a loss ends the streak; only a better time or fewer moves is a record."""
    prefix = f"test:solo:{secrets.token_hex(6)}:"
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        stats = SoloStats(r, Keys(prefix), 600)
        first = await stats.record("p1", 2, "R1/1", won=True, time_ms=5000, moves=90)
        again = await stats.record("p1", 2, "R1/1", won=True, time_ms=4000, moves=80)
        assert first.counted and not again.counted and again.stats == first.stats
        slower = await stats.record("p1", 2, "R2/1", won=True, time_ms=6000, moves=85)
        assert (slower.best_time, slower.fewest_moves, slower.best_streak) == (False, True, True)
        assert slower.stats["streak"] == 2 and slower.stats["best_ms"] == 5000
        lost = await stats.record("p1", 2, "R3/1", won=False, time_ms=None, moves=4)
        assert lost.stats["streak"] == 0 and lost.stats["best_streak"] == 2
        for n in range(IDS_KEPT + GAMES_KEPT):
            await stats.record("p1", 2, f"S{n}/1", won=n % 2 == 0, time_ms=7000, moves=99)
        after = await stats.read_variant("p1", 2)
        assert after["games"] == 3 + IDS_KEPT + GAMES_KEPT and len(after["last"]) == GAMES_KEPT
        seen = await r.hget(Keys(prefix).solo_stats("p1", 2), "seen")
        assert seen is not None and len(seen.split()) == IDS_KEPT
    finally:
        await r.delete(Keys(prefix).solo_stats("p1", 2))
        await r.aclose()
