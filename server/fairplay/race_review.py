"""The review of a rated race's finishers, and the ratings that wait for it.

Every finisher of a rated race is scored as a ranked daily finish is
(:mod:`server.review.scoring`, in the solver pool). A finisher the review holds waits for an
operator, and so do the race's rating changes, everyone's, and the finishers' race history:
:func:`waits` says so to :mod:`server.ranked.ratings`, which settles the race only once no
finisher is held. Nobody but its player sees a held finisher's race meanwhile (no history,
no public race, no replay); a voided one's never shows.

A held round's **standing** (its racers' results and progress, their address marks, and the
ratings it waits on: every racer's skill when the race ended) is kept in
``review:round:{ROOM}:N`` (:func:`keep`), in the room's slot but outliving the room. An
operator's clear or void of a race finisher names the round in ``review:resettle``;
:func:`resettle_loop` (on every instance; ``SPOP`` gives each round to one) settles that
round from its standing, whatever the room did since (a rematch, or it expired): a cleared
finisher counts, a voided one keeps their rating (``voided``).

The review of one finish is **claimed** (``room:{ROOM}:claim:N:PID``, ``lua/lease.lua``):
the instance that takes the claim scores it, renewing the claim while it works, and the
others wait for its outcome; a claim whose instance died expires after :data:`CLAIM_MS` and
the next to look takes it over. So two instances never both score one finish. A review's
outcome is kept per finish (``review:done:ID``), so an instance that settles the race later,
or again, does not score it twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol, TypeVar

from ..periodic import periodic
from ..quiet import Quiet
from ..records.replays import replay_id
from ..store import lease
from ..store.store import RoomRead
from . import evidence


class Reviewing(evidence.Weighing, Protocol):
    """What reviewing a rated race's finishers needs of an instance: beside what weighing
    their evidence needs (:class:`server.fairplay.evidence.Weighing`), the instance's name
    (its claim on a finisher's review). :class:`server.context.Context` has it."""

    @property
    def instance_id(self) -> str:
        """Names this instance in the claims it makes."""


#: An instance that reviews races, as each caller of :func:`resettle_loop` types it.
R = TypeVar("R", bound=Reviewing)


log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How often an instance looks for races an operator decided (seconds).
RESETTLE_EVERY_S: Final = 2.0
#: How long a review's claim lasts unless its instance renews it (ms), and how often the
#: reviewer renews it; how often an instance waiting for another's review looks again (s).
CLAIM_MS: Final = 60_000
RENEW_EVERY_S: Final = 15.0
LOOK_EVERY_S: Final = 0.5

#: A standing: what settling one rated round needs, as JSON (see the module docstring):
#: ``room``, ``round``, ``cells``, ``code``, ``results`` (player id -> result),
#: ``progress`` (cards home), ``marks`` (address marks), ``finished_at`` (a finisher's last
#: action, ms), ``arena`` (the arena of an arena's race, else '') and, once held,
#: ``before`` (player id -> ``[mu, sigma, rating, games]``).
Standing = dict[str, Any]


def finishers(standing: Standing) -> list[str]:
    """The round's finishers, by rank."""
    results = standing["results"]
    done = [pid for pid, r in results.items() if r.get("status") == "finished"]
    return sorted(done, key=lambda pid: (int(results[pid].get("rank") or 0), pid))


async def waits(ctx: Reviewing, standing: Standing, read: RoomRead | None) -> tuple[bool, set[str]]:
    """Review a rated round's finishers (once each, claimed) and say whether its ratings wait.

    Args:
        read: the room as the race ended (the finishers' lines), or None when settling a
            kept standing (its finishers were all reviewed before it was kept).

    Returns:
        (whether a finisher is held, the finishers an operator voided).
    """
    held, voided = False, set()
    for pid in finishers(standing):
        done = await _reviewed(ctx, standing, read, pid)
        if done is None or done["status"] == "held":
            held = True  # held, or no line to review it by: it waits for an operator
        elif done["status"] == "voided":
            voided.add(pid)
    return held, voided


async def _reviewed(
    ctx: Reviewing, standing: Standing, read: RoomRead | None, pid: str
) -> dict[str, Any] | None:
    """A finisher's review outcome: decided before, or scored now by whoever claims it."""
    room, round_ = standing["room"], int(standing["round"])
    rid = replay_id(room, round_, pid)
    holds = ctx.reviews
    claim = ctx.keys.review_claim(room, round_, pid)
    mine = f"{ctx.instance_id}:{secrets.token_hex(6)}"
    while (done := await holds.decided(rid)) is None:
        if read is None:
            return None
        if await lease.take(ctx.redis, claim, mine, CLAIM_MS):
            renewing = asyncio.create_task(_renew(ctx, claim, mine))
            try:
                if (done := await holds.decided(rid)) is None:  # decided meanwhile?
                    done = await _review(ctx, standing, read, pid, rid)
                return done
            finally:
                renewing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewing
                await lease.drop(ctx.redis, claim, mine)
        await asyncio.sleep(LOOK_EVERY_S)  # another instance reviews it (or died: it expires)
    return done


async def _renew(ctx: Reviewing, key: str, mine: str) -> None:
    """Keep a claim while its review runs (the solver pool may make it wait a while); a
    renewal that fails is tried again at the next turn, the claim outliving a few."""

    async def step() -> None:
        await lease.renew(ctx.redis, key, mine, CLAIM_MS)

    await periodic(step, RENEW_EVERY_S, QUIET, "claim", "renewing a review's claim failed")


async def _review(
    ctx: Reviewing, standing: Standing, read: RoomRead, pid: str, rid: str
) -> dict[str, Any]:
    """Score one finisher's line; hold it if the review says so (held before noted as
    decided: an instance that dies between the two leaves a finish to review again, never
    one decided held but missing from the held list)."""
    room, round_ = standing["room"], int(standing["round"])
    lines = [line.split("\t", 2) for line in read.logs.get(pid, [])]
    times = [int(ms) for ms, _id, _text in lines]
    actions = [text for _ms, _id, text in lines]
    started = int(read.meta.get("starts_at") or 0)
    # The race's field: its other finishers' times (rivals who played the same deal then).
    rivals = [
        int(r["time_ms"])
        for other, r in standing["results"].items()
        if other != pid and r.get("status") == "finished" and r.get("time_ms")
    ]
    score = await evidence.assess(
        ctx,
        pid,
        rid,
        standing["code"],
        started,
        actions,
        times,
        mark=standing.get("marks", {}).get(pid),
        rivals_ms=rivals,
    )
    status = "held" if score["held"] else "passed"
    if score["held"]:
        log.warning("race finisher %s of %s/%s held: %s", pid, room, round_, score["message"])
        result = standing["results"][pid]
        await ctx.reviews.hold(
            {
                "result": rid,
                "kind": "race",
                "player_id": pid,
                "name": str(result.get("name") or ""),
                "room": room,
                "round": round_,
                "code": standing["code"],
                "time_ms": result.get("time_ms"),
                "moves": result.get("moves"),
                "score": score,
            }
        )
    await ctx.reviews.decide(rid, status, score=score)
    return {"status": status}


async def keep(ctx: Reviewing, standing: Standing) -> None:
    """Keep a held round's standing until its finishers are decided (the first one kept
    stands: every instance that sees the round held computes the same)."""
    await ctx.reviews.keep_round(standing["room"], int(standing["round"]), standing)


async def kept(ctx: Reviewing, room: str, round_: int) -> Standing | None:
    """A held round's standing, or None (never held, or settled long ago)."""
    return await ctx.reviews.kept_round(room, round_)


async def record_histories(ctx: Reviewing, standing: Standing, voided: set[str]) -> None:
    """Count each finisher's race in their history, once the round no longer waits: a held
    finisher's only once cleared, a voided one's never (recording is idempotent)."""
    room, round_ = standing["room"], int(standing["round"])
    for pid in finishers(standing):
        if pid in voided:
            continue
        result = standing["results"][pid]
        perfect = result.get("perfect") is True  # a win in the deal's proven par
        kept = await ctx.records.history.record(
            pid,
            room,
            round_,
            code=standing["code"],
            cells=int(standing["cells"]),
            rank=int(result.get("rank") or 0) or None,
            time_ms=result.get("time_ms"),
            moves=int(result.get("moves") or 0),
            replay_id=replay_id(room, round_, pid),
            at=int(standing["finished_at"].get(pid) or 0),
            perfect=perfect,
        )
        if kept and perfect:
            await ctx.records.perfect.add(pid, "race")


async def resettle_loop(ctx: R, resettle: Callable[[R, str, int], Awaitable[None]]) -> None:
    """Settle the rounds whose held finishers an operator decided (every instance runs it;
    ``SPOP`` gives each round to one, and settling is idempotent anyway)."""

    async def step() -> None:
        while (entry := await ctx.reviews.next_resettle()) is not None:
            room, _, round_ = entry.partition("/")
            if not round_.isdigit():
                continue
            try:
                await resettle(ctx, room, int(round_))
            except Exception:
                await ctx.reviews.resettle(room, round_)  # another try later
                raise

    await periodic(step, RESETTLE_EVERY_S, QUIET, "resettle", "settling decided races failed")
