"""Daily challenge costs: verifying a replay, ranking it in Redis, reading a leaderboard.

Run: python bench/daily_speed.py [--players 2000] [--redis redis://127.0.0.1:6379/0]

1. ``verify()`` of a solver-won daily replay (the engine replays ~80 actions and checks
   every claim): median and 90th percentile in ms over the first 200 days of the 4-cell
   pool.
2. ``Leaderboard.submit()`` on real Redis (verification, the ranked-attempt and pace checks
   and the ranking script), one at a time: median ms and submissions per second. Each
   player's ranked attempt is claimed first, as at the reveal, outside the timing.
3. ``board_json`` reads (top 20, and 20 around a player) on a board of ``--players``
   entries: median ms.

Keys go under a unique prefix and are deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis

from server.daily.deal import FIRST_DAY, TEST_SECRET, certify
from server.daily.deals import DailyDeals
from server.daily.leaderboard import Leaderboard
from server.engine import Board, parse_action
from server.engine.solver import solve
from server.records.replays import Replay, Result, verify
from server.store.keys import Keys


def daily_replay(date: str, pid: str, start: int, step: int) -> Replay:
    """A true record of the solver's win of a day's deal, revealed a second before its
    first action at ``start``, ``step`` ms between actions."""
    code = certify(TEST_SECRET, date, "daily").code  # the days of the documented test key
    board = Board.from_code(code)
    line = solve(board, timeout=20).moves
    for text in line:
        board.play(parse_action(text))
    times = tuple(start + i * step for i in range(len(line)))
    return Replay(
        id=f"bench-{pid}",
        kind="daily",
        code=code,
        player_id=pid,
        name=pid,
        started_at=start - 1000,
        actions=line,
        times_ms=times,
        result=Result(True, times[-1] - (start - 1000), board.moves, board.score),
        room=f"bench-room-{pid}",
        daily_date=date,
        daily_kind="daily",
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(players: int, url: str) -> None:
    dates = [(FIRST_DAY + dt.timedelta(days=d)).isoformat() for d in range(200)]
    replays = [daily_replay(d, "p", 1_780_000_000_000, 300) for d in dates]
    verify_ms = []
    for replay in replays:
        t0 = time.perf_counter()
        assert verify(replay).ok
        verify_ms.append((time.perf_counter() - t0) * 1000)
    actions = statistics.median(len(r.actions) for r in replays)
    print(
        f"verify: median {statistics.median(verify_ms):.2f} ms, p90 {pct(verify_ms, 0.9):.2f} ms"
        f" per replay ({actions:.0f} actions median, {len(replays)} replays)"
    )

    client = aioredis.Redis.from_url(url, decode_responses=True)
    prefix = f"bench:daily:{secrets.token_hex(4)}:"
    deals = DailyDeals(client, Keys(prefix), TEST_SECRET, 400 * 86_400)  # deleted at the end
    board = Leaderboard(client, Keys(prefix), deals=deals)
    date = dates[-1]
    await deals.store(certify(TEST_SECRET, date, "daily"))
    noon = int(dt.datetime.fromisoformat(f"{date}T12:00:00+00:00").timestamp() * 1000)
    base = daily_replay(date, "p", noon, 300)
    try:
        submit_ms = []
        began = time.perf_counter()
        for i in range(players):
            replay = Replay(
                **{
                    **{f: getattr(base, f) for f in Replay.__slots__},
                    "player_id": f"p{i}",
                    "id": f"r{i}",
                    "room": f"room-{i}",
                    # Spread times so that ranks differ: one more ms per action per player.
                    "times_ms": tuple(t + j * (i % 97) for j, t in enumerate(base.times_ms)),
                    "result": Result(
                        True,
                        base.result.time_ms + (len(base.actions) - 1) * (i % 97),  # type: ignore[operator]
                        base.result.moves,
                        base.result.score,
                    ),
                }
            )
            await board.claim_attempt(date, "daily", replay.player_id, f"room-{i}")
            t0 = time.perf_counter()
            outcome = await board.submit(replay, now=dt.datetime.now(dt.UTC))
            submit_ms.append((time.perf_counter() - t0) * 1000)
            assert outcome.status == "ranked", outcome
        total = time.perf_counter() - began
        print(
            f"submit: median {statistics.median(submit_ms):.2f} ms, p90 {pct(submit_ms, 0.9):.2f}"
            f" ms, {players / total:.0f} submissions/s sequential ({players} players)"
        )
        top_ms, around_ms = [], []
        for i in range(200):
            t0 = time.perf_counter()
            await board.board_json(date, "daily", 20)
            top_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            await board.board_json(date, "daily", 20, around=f"p{(i * 37) % players}")
            around_ms.append((time.perf_counter() - t0) * 1000)
        print(
            f"read top 20: median {statistics.median(top_ms):.2f} ms; 20 around a player "
            f"(+rank, streak): median {statistics.median(around_ms):.2f} ms ({players} entries)"
        )
    finally:
        keys = [k async for k in client.scan_iter(match=prefix + "*", count=1000)]
        for i in range(0, len(keys), 500):
            await client.delete(*keys[i : i + 500])
        await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    asyncio.run(main(args.players, args.redis))
