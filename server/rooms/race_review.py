"""The review of a rated race's finishers, and the ratings that wait for it.

Every finisher of a rated race is scored as a ranked daily finish is
(:mod:`server.daily.review`, in the solver pool). A finisher the review holds waits for an
operator, and so do the race's rating changes, everyone's: :func:`waits` says so to
:mod:`server.rooms.ratings`, which settles the race only once no finisher is held. An
operator's clear or void of a race finisher names the race in ``review:resettle``;
:func:`resettle_loop` (on every instance) settles it then: a cleared finisher counts, a
voided one keeps their rating (``voided``).

A review's outcome is kept per finish (``review:done:ID``), so an instance that settles the
race later, or again, does not score it twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from ..context import Context
from ..daily.replays import replay_id
from ..quiet import Quiet
from ..store.store import RoomRead

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How often an instance looks for races an operator decided (seconds).
RESETTLE_EVERY_S: Final = 2.0


async def waits(ctx: Context, room: str, read: RoomRead, round_: int) -> tuple[bool, set[str]]:
    """Review a rated round's finishers (once each) and say whether its ratings wait.

    Returns:
        (whether a finisher is held, the finishers an operator voided).
    """
    holds, held, voided = ctx.daily.holds, False, set()
    for pid, result in read.results.items():
        if result.get("status") != "finished":
            continue
        rid = replay_id(room, round_, pid)
        done = await holds.decided(rid)
        if done is None:
            done = await _review(ctx, room, read, round_, pid, rid)
        if done["status"] == "held":
            held = True
        elif done["status"] == "voided":
            voided.add(pid)
    return held, voided


async def _review(
    ctx: Context, room: str, read: RoomRead, round_: int, pid: str, rid: str
) -> dict[str, str]:
    """Score one finisher's line; hold it if the review says so."""
    lines = [line.split("\t", 2) for line in read.logs.get(pid, [])]
    times = [int(ms) for ms, _id, _text in lines]
    actions = [text for _ms, _id, text in lines]
    started = int(read.meta.get("starts_at") or 0)
    score = await ctx.daily.reviewer.score(pid, read.meta["code"], started, actions, times)
    status = "held" if score["held"] else "passed"
    await ctx.daily.holds.decide(rid, status, score=score)
    if score["held"]:
        log.warning("race finisher %s of %s/%s held: %s", pid, room, round_, score["message"])
        result = read.results[pid]
        await ctx.daily.holds.hold(
            {
                "result": rid,
                "kind": "race",
                "player_id": pid,
                "name": str(result.get("name") or ""),
                "room": room,
                "round": round_,
                "code": read.meta["code"],
                "time_ms": result.get("time_ms"),
                "moves": result.get("moves"),
                "score": score,
            }
        )
    return {"status": status}


async def resettle_loop(ctx: Context, settle: Callable[[Context, str], Awaitable[None]]) -> None:
    """Settle the races whose held finishers an operator decided (every instance runs it;
    ``SPOP`` gives each race to one, and settling is idempotent anyway)."""
    while True:
        await asyncio.sleep(RESETTLE_EVERY_S)
        try:
            while (entry := await ctx.redis.spop(ctx.keys.resettle())) is not None:
                room = str(entry).split("/", 1)[0]
                await settle(ctx, room)
        except Exception:
            QUIET.failure("resettle", "settling decided races failed")
