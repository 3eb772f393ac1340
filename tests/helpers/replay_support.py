"""Build honest replay records for the replay, verify and leaderboard tests.

A record is made the way the server makes one: the solver's winning actions, played through
the engine, each with a server timestamp; the claimed result is what the engine says.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.records.replays import Replay, Result

#: Solutions by code: the solver is fast, but tests ask for the same deals often.
_SOLUTIONS: dict[str, tuple[str, ...]] = {}


def solution(code: str) -> tuple[str, ...]:
    """The solver's winning actions for a deal (cached)."""
    if code not in _SOLUTIONS:
        found = solve(Board.from_code(code), timeout=20)
        assert found.result == "solved", f"{code} not solved: {found.result}"
        _SOLUTIONS[code] = found.moves
    return _SOLUTIONS[code]


def honest(
    code: str,
    actions: tuple[str, ...] | None = None,
    *,
    step_ms: int = 120,
    start: int = 1_780_000_000_000,
    kind: str = "daily",
    player_id: str = "p1",
    name: str = "Ann",
    daily: tuple[str, str] | None = None,
    replay_id: str = "r1",
    race_started_at: int | None = None,
    times: tuple[int, ...] | None = None,
) -> Replay:
    """A true record of playing ``actions`` (the solution by default) ``step_ms`` apart
    (or at the given server ``times``)."""
    actions = solution(code) if actions is None else actions
    board = Board.from_code(code)
    for text in actions:
        board.play(parse_action(text))
    if times is None:
        times = tuple(start + i * step_ms for i in range(len(actions)))
    started_at = race_started_at if race_started_at is not None else (times[:1] or (start,))[0]
    won = board.is_won()
    time_ms = times[-1] - started_at if won else None
    return Replay(
        id=replay_id,
        kind=kind,
        code=code,
        player_id=player_id,
        name=name,
        started_at=started_at,
        actions=tuple(actions),
        times_ms=times,
        result=Result(won, time_ms, board.moves, board.score),
        daily_date=daily[0] if daily else None,
        daily_kind=daily[1] if daily else None,
    )


def won_time(replay: Replay) -> int:
    """The claimed time of a won record (only a win has one)."""
    assert replay.result.time_ms is not None, f"{replay.id} claims no win"
    return replay.result.time_ms


def edit(replay: Replay, **changes: Any) -> Replay:
    """A copy of a record with fields replaced (``result_*`` edits the result)."""
    result = {k[7:]: v for k, v in changes.items() if k.startswith("result_")}
    rest = {k: v for k, v in changes.items() if not k.startswith("result_")}
    if result:
        rest["result"] = dataclasses.replace(replay.result, **result)
    return dataclasses.replace(replay, **rest)
