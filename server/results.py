"""What happens when a board is won: its replay is kept, a daily finish is verified and
ranked, and a race finish goes into the player's history.

:func:`record_finish` is called by the move path once the winning action is committed. It
builds the replay from what Redis holds (the board's action log with server timestamps, and
the result the server announced), so what is ranked is exactly what was played; the
leaderboard then writes an entry only if the engine verifies that replay.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from .engine import Board, parse_action, parse_code
from .replays import KINDS, Replay, Result, parse_log, replay_id, verify
from .services import services
from .store import log_key, members_key, meta_key, results_key

if TYPE_CHECKING:
    from .app import App
    from .leaderboard import Submission

log = logging.getLogger(__name__)


async def build_replay(app: App, room: str, round_: int, pid: str) -> Replay | None:
    """The replay of one finished board, from Redis (None if the room or result is gone)."""
    async with app.redis.pipeline(transaction=True) as pipe:
        pipe.hgetall(meta_key(room))
        pipe.hget(members_key(room), pid)
        pipe.hget(results_key(room, round_), pid)
        pipe.lrange(log_key(room, round_, pid), 0, -1)
        meta, member, result_text, entries = await pipe.execute()
    if not meta or result_text is None or not entries or meta.get("round") != str(round_):
        return None  # gone, or already a new round (its start time is no longer this one's)
    result = json.loads(result_text)
    actions, times = parse_log(entries)
    mode = meta.get("mode", "solo")
    kind = mode if mode in KINDS else "solo"
    started_at = int(meta.get("starts_at") or 0) if kind == "race" else times[0]
    name = json.loads(member).get("name", "") if member else result.get("name", "")
    board = Board.from_code(meta["code"])
    for text in actions:
        board.play(parse_action(text))
    daily_date = daily_kind = None
    if kind == "daily":
        stored = await app.redis.get(services(app).daily_room_key(room))
        if stored is not None:
            info = json.loads(stored)
            daily_date, daily_kind = info["date"], info["kind"]
    return Replay(
        id=replay_id(room, round_, pid),
        kind=kind,
        code=meta["code"],
        player_id=pid,
        name=name,
        started_at=started_at,
        actions=actions,
        times_ms=times,
        result=Result(
            won=result.get("status") == "finished",
            time_ms=result.get("time_ms"),
            moves=int(result.get("moves", len(actions))),
            score=board.score,
        ),
        room=room,
        round=round_,
        daily_date=daily_date,
        daily_kind=daily_kind,
    )


async def record_finish(app: App, room: str, round_: int, pid: str) -> Submission | None:
    """Keep a won board's replay; rank a daily finish; count a race finish.

    Returns:
        The leaderboard's answer for a daily game, else None.
    """
    svc = services(app)
    replay = await build_replay(app, room, round_, pid)
    if replay is None:
        log.warning("no replay for %s round %s player %s", room, round_, pid)
        return None
    await svc.replays.save(replay)
    submission = None
    if replay.kind == "daily":
        submission = await svc.leaderboard.submit(replay)
        if submission.status == "ranked":
            await svc.replays.keep(replay.id)
        elif submission.status == "refused":
            log.warning("daily finish of %s refused: %s", pid, submission.message)
    elif replay.kind == "race":
        verdict = verify(replay, min_ms_per_action=0)
        if verdict.ok:
            stored = await app.redis.hget(results_key(room, round_), pid)
            rank = json.loads(stored).get("rank") if stored else None
            await svc.history.record(
                pid,
                room,
                round_,
                code=replay.code,
                cells=parse_code(replay.code).cells,
                rank=rank,
                time_ms=replay.result.time_ms,
                moves=replay.result.moves,
                replay_id=replay.id,
                at=replay.times_ms[-1],
            )
    return submission


async def record_give_up(app: App, room: str, round_: int, pid: str) -> None:
    """Count a race given up (or left mid-race) in the player's history; keep its replay.

    Safe to call for any leave: it acts only when the round's result for the player says
    ``gave_up`` in a race room.
    """
    async with app.redis.pipeline(transaction=True) as pipe:
        pipe.hget(meta_key(room), "mode")
        pipe.hget(meta_key(room), "code")
        pipe.hget(results_key(room, round_), pid)
        mode, code, stored = await pipe.execute()
    if mode != "race" or not code or stored is None:
        return
    result = json.loads(stored)
    if result.get("status") != "gave_up":
        return
    svc = services(app)
    replay = await build_replay(app, room, round_, pid)
    if replay is not None:
        await svc.replays.save(replay)
    await svc.history.record(
        pid,
        room,
        round_,
        code=code,
        cells=parse_code(code).cells,
        rank=None,
        time_ms=None,
        moves=int(result.get("moves", 0)),
        replay_id=replay.id if replay is not None else None,
        at=replay.times_ms[-1] if replay is not None else time.time_ns() // 1_000_000,
    )
