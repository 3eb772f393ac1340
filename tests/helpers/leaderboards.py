"""A daily leaderboard on the machine's Redis, in process: a fixture of the test's own, and
replays played, spaced to a time and submitted to it."""

from __future__ import annotations

from server.daily.leaderboard import Leaderboard, Submission
from server.records.replays import Replay
from tests.helpers.dailies import daily_deal
from tests.helpers.replay_support import edit, honest, solution

DATE = "2026-03-14"
T0 = 1_773_500_000_000  # a moment of that day, ms since the epoch


def code_of(date: str = DATE, kind: str = "daily") -> str:
    return daily_deal(date, kind).code


def play(
    pid: str,
    *,
    date: str = DATE,
    kind: str = "daily",
    step_ms: int = 200,
    start: int = T0,
    undos: int = 0,
) -> Replay:
    """An honest daily win; ``undos`` adds take-back pairs (two more moves each)."""
    code = code_of(date, kind)
    line = solution(code)
    actions = tuple(line[:1]) + ("undo", line[0]) * undos + tuple(line[1:])
    replay = honest(
        code,
        actions,
        step_ms=step_ms,
        start=start,
        player_id=pid,
        name=pid.upper(),
        daily=(date, kind),
        replay_id=f"r-{pid}-{date}",
    )
    return edit(replay, room=f"R-{pid}-{date}-{kind}-{start}")


async def submit(lb: Leaderboard, replay: Replay) -> Submission:
    """Submit a game that was its player's ranked attempt (claimed when it was revealed)."""
    assert replay.room and replay.daily_date and replay.daily_kind
    await lb.claim_attempt(replay.daily_date, replay.daily_kind, replay.player_id, replay.room)
    return await lb.submit(replay)


def spaced(replay: Replay, total_ms: int) -> Replay:
    """The same actions, re-timed to take exactly ``total_ms`` from first to last."""
    n = len(replay.actions)
    start = replay.times_ms[0]
    times = tuple(start + (total_ms * i) // (n - 1) for i in range(n))
    return edit(replay, times_ms=times, started_at=start, result_time_ms=total_ms)
