"""A player's recent daily results, for ``GET /api/player/ID`` (the web client's player page).

Read from what the leaderboards already keep, in two pipelined round trips, bounded by the
days looked at: the player's entry of each day and kind of the last :data:`CHART_DAYS` days
(``daily:{DATE:KIND}:entries``, with the rank from ``daily:{DATE:KIND}:rank``), and the days
with a ranked finish of the last :data:`CALENDAR_DAYS` (``player:{PID}:days``, as the streak
counts them).

Fair play (protocol/DAILY.md): a running day's leaderboard shows everyone's time, so the
player's time of today is shown; its replay is the player's alone until the day is over, so
``replay_id`` of a running day is given only to the player themself (``owner``).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Final

from .deal import is_running
from .leaderboard import Leaderboard

#: Days of results the chart shows (today included).
CHART_DAYS: Final = 30
#: Days the streak calendar shows (today included): 13 weeks.
CALENDAR_DAYS: Final = 91
KINDS: Final = ("daily", "hard")


async def daily_history(
    board: Leaderboard, pid: str, today: dt.date, *, owner: bool
) -> dict[str, Any]:
    """``{name, results: [{date, kind, time_ms, moves, perfect, rank, finishers, replay_id?}],
    days: [DATE, ...]}``: the ranked results of the last :data:`CHART_DAYS` days, oldest
    first, and the days with a ranked finish of the last :data:`CALENDAR_DAYS` days.

    ``name`` is the one of the player's latest entry (None without any).
    """
    dates = [(today - dt.timedelta(days=n)).isoformat() for n in range(CHART_DAYS - 1, -1, -1)]
    slots = [(date, kind) for date in dates for kind in KINDS]
    first_day = today.toordinal() - CALENDAR_DAYS + 1
    texts, days = await board.daily.recent(pid, slots, first_day, today.toordinal())
    days = sorted(days)
    entries = [
        (date, kind, json.loads(text))
        for (date, kind), text in zip(slots, texts, strict=True)
        if text is not None
    ]
    places = await board.daily.places(
        [(date, kind, entry["member"]) for date, kind, entry in entries]
    )
    results = []
    for (date, kind, entry), (rank, finishers) in zip(entries, places, strict=True):
        result: dict[str, Any] = {
            "date": date,
            "kind": kind,
            "time_ms": entry["time_ms"],
            "moves": entry["moves"],
            "perfect": entry.get("perfect") is True,
            "rank": None if rank is None else rank + 1,
            "finishers": finishers,
        }
        if owner or not is_running(date):  # a running day's replay is its player's alone
            result["replay_id"] = entry["replay_id"]
        results.append(result)
    name = str(entries[-1][2]["name"]) if entries else None
    return {"name": name, "results": results, "days": days}
