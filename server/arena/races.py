"""What an arena's races leave: one record per race, written once when it ends, and
amended when an operator clears a finisher the review held.

A record lists every racer of the race with their place (None: not finished, gave up, or a
finish held for review or voided), finish time, pledge and whether they kept it, whether
they were absent (did not contest it: :mod:`server.fairplay.contest`), their household
(racers of one client address share a number; never the address or its mark) and what their
placement is worth (``worth``, below 1 for a win over rivals they beat often lately:
:mod:`.points`). The
standings are a pure function of the records (:func:`.arena_points.standings`, where a
race's last record counts), so an amendment re-counts the table from that race on.

A race recorded before its finishers' review waits for it in ``arenas:awaiting`` until the
review amends the record; one whose instance died first is asked for again by any
instance (:func:`review_overdue`), so a finish the review would hold never keeps its
points for want of an answer.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from ..clock import now_ms
from ..context import Context
from ..fairplay import contest, race_review
from ..net import wire
from ..quick.rooms import RoomsOf
from ..quiet import Quiet
from ..ranked import ratings
from ..ranked.ratings import standing_of
from ..records.replays import replay_id
from ..rooms.records import RoomPhase
from ..store import arenas
from ..store import rivals as rivalry
from ..store.store import RoomRead
from .host import Host, Races
from .points import Race, Racer

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How long a recorded race may wait for its finishers' review before it is asked for
#: again (ms): longer than a review's claim lasts unless renewed.
REVIEW_AGAIN_MS: Final = 2 * race_review.CLAIM_MS
#: The waiting races one pass asks about at most.
OVERDUE_AT_ONCE: Final = 20
#: How many times an amendment reads the records again when another came first.
AMEND_TRIES: Final = 5


def households(marks: dict[str, str]) -> dict[str, int]:
    """Each racer who shares a client address with another racer: their household's number
    in this race (1, 2, ...); what a record keeps instead of the address marks."""
    by_mark: dict[str, list[str]] = {}
    for pid, mark in marks.items():
        by_mark.setdefault(mark, []).append(pid)
    shared = [pids for pids in by_mark.values() if len(pids) > 1]
    return {pid: i + 1 for i, pids in enumerate(shared) for pid in pids}


def race_of(record: dict[str, Any]) -> Race:
    """A recorded race as the points count it."""
    return Race(
        str(record["race"]),
        int(record["at"]),
        tuple(
            Racer(
                str(r["pid"]),
                r["place"],
                r["time_ms"],
                bool(r["pledged"]),
                bool(r["kept"]),
                str(r.get("name") or ""),
                bool(r.get("absent")),
                int(r.get("home") or 0),
                "pending" in r,
                float(r.get("worth", 1.0)),
            )
            for r in record["racers"]
        ),
    )


async def record(ctx: Host, races: Races, arena: str, room: str, ends: int) -> None:
    """Record a race of the arena once, as soon as it ends (its records kept past the
    arena's ``ends``): each racer's place, finish time and pledge. A finish the review has
    not decided yet counts as it stands (its racers go back to the pool at once, and an
    honest finish is never made to wait); one held for review, or voided, counts as not
    finished. A held finisher's place and time are kept aside in the record (``pending``)
    for :func:`amend`, which also applies the review's outcome once it comes."""
    read = await ctx.store.read_room(room)
    racers: list[dict[str, Any]] = []
    if read is None or read.meta.get("state") != RoomPhase.DONE:
        # No race (nobody came, or the room is gone): free its racers.
        mine = [p for p, r in (await arenas.racing(ctx.store, arena)).items() if r == room]
        await arenas.record(ctx.store, arena, f"{room}/0", room, "", mine, ends)
        return
    round_ = int(read.meta["round"])
    cells = int(read.meta.get("cells") or 4)
    standing = standing_of(read, room, round_, cells)
    results = read.results
    pids = list(results)
    pledges = await arenas.pledged(ctx.store, arena, room, pids)
    absent = contest.absent(standing, ctx.settings)
    full = ctx.settings.contest_repeat_full
    homes = households(standing["marks"])
    for pid, result in results.items():
        undid = any(line.split("\t", 2)[-1] == "undo" for line in read.logs.get(pid, []))
        racer: dict[str, Any] = {
            "pid": pid,
            "name": str(result.get("name") or ""),
            "place": None,
            "time_ms": None,
            "pledged": pid in pledges,
            "kept": not undid,
            "absent": pid in absent,
            "home": homes.get(pid, 0),
        }
        if result.get("status") == "finished" and result.get("rank") is not None:
            decided = await ctx.reviews.decided(replay_id(room, round_, pid))
            status = decided.get("status") if decided is not None else None
            finish = {"place": int(result["rank"]), "time_ms": int(result["time_ms"])}
            if status == "held":
                racer["pending"] = finish
            elif status != "voided":
                racer.update(finish)
        racers.append(racer)
    beaten = ahead_of(racers)
    since = int(read.meta.get("starts_at") or 0) - ctx.settings.contest_repeat_s * 1000
    counts = await rivalry.counted(ctx.store, "arena", beaten, since)
    for racer in racers:
        rivals = beaten.get(racer["pid"]) or []
        worth = contest.field_worth(counts.get(racer["pid"], {}), rivals, full)
        if worth < 1:
            racer["worth"] = round(worth, 4)
    if not contested(racers):
        # Nobody raced anybody (rivals who gave up at once): no race, nothing kept, and
        # nothing for the standings to count.
        await arenas.record(ctx.store, arena, f"{room}/{round_}", room, "", pids, ends)
        return
    race = {
        "race": f"{room}/{round_}",
        "at": int(read.meta.get("starts_at") or 0),
        "racers": racers,
    }
    first = await arenas.record(
        ctx.store, arena, f"{room}/{round_}", room, wire.dumps(race), pids, ends
    )
    if first:
        # Each win over a rival counts towards the next one's worth.
        keep_s = ctx.settings.contest_repeat_s
        at = int(read.meta.get("starts_at") or 0)
        await rivalry.remember(ctx.store, "arena", beaten, f"{room}/{round_}", at, keep_s)
    if any("pending" in r for r in racers):
        # An operator who decided while it was being recorded: its resettle found no record.
        await amend(ctx, arena, room, round_)
    if first and any(r["place"] is not None for r in racers):
        # The review of its finishers runs apart (seconds, minutes on a busy host): what it
        # holds or voids amends the record then. Noted first, so that a review its instance
        # did not live to finish is asked for again (:func:`review_overdue`).
        await arenas.await_review(ctx.store, awaiting(arena, room, round_), now_ms())
        races.review(arena, room, round_, standing, read)


def awaiting(arena: str, room: str, round_: int) -> str:
    """A recorded race's name among those waiting for their review: ``ARENA ROOM/ROUND``."""
    return f"{arena} {room}/{round_}"


async def review_overdue(ctx: Host, races: Races, now: int) -> int:
    """Ask again for the review of the recorded races still waiting for it after
    :data:`REVIEW_AGAIN_MS` (the instance that recorded one died before its review
    amended the record): how many.

    A finisher's review is claimed (:mod:`server.fairplay.race_review`), so asking again
    while another instance still works on it scores nothing twice. A race whose room has
    moved on or gone has no line to review by: its finishers not decided yet are held
    for an operator (``unreviewed``), as a daily finish whose review could not run is, and
    count as not finished until cleared."""
    entries = await arenas.overdue(ctx.store, now - REVIEW_AGAIN_MS, OVERDUE_AT_ONCE)
    for entry in entries:
        arena, _, race = entry.partition(" ")
        room, _, round_text = race.partition("/")
        if not round_text.isdigit():
            await arenas.reviewed(ctx.store, entry)  # not a name this code writes
            continue
        round_ = int(round_text)
        await arenas.asked_again(ctx.store, entry, now)
        read = await ctx.store.read_room(room)
        if (
            read is not None
            and read.meta.get("state") == RoomPhase.DONE
            and read.meta.get("round") == round_text
        ):
            standing = standing_of(read, room, round_, int(read.meta.get("cells") or 4))
            races.review(arena, room, round_, standing, read)
            continue
        await hold_unreviewed(ctx, arena, room, round_)
        await amend(ctx, arena, room, round_)
        await arenas.reviewed(ctx.store, entry)
    return len(entries)


async def hold_unreviewed(ctx: Host, arena: str, room: str, round_: int) -> None:
    """Hold, for an operator, each finisher of a recorded race whose review never came."""
    race = f"{room}/{round_}"
    found = [r for r in await arenas.results(ctx.store, arena) if r.get("race") == race]
    if not found:
        return
    for racer in found[-1]["racers"]:
        placed = racer.get("place") is not None or racer.get("pending") is not None
        rid = replay_id(room, round_, racer["pid"])
        if not placed or await ctx.reviews.decided(rid) is not None:
            continue
        finish = racer.get("pending") or racer
        score = {
            "held": True,
            "reason": "unreviewed",
            "message": "the review of this arena race's finish never came back",
        }
        await ctx.reviews.hold(
            {
                "result": rid,
                "kind": "race",
                "player_id": racer["pid"],
                "name": str(racer.get("name") or ""),
                "room": room,
                "round": round_,
                "time_ms": finish.get("time_ms"),
                "score": score,
            }
        )
        await ctx.reviews.decide(rid, "held", score=score)


class RacesOf(RoomsOf):
    """:class:`.host.Races` on a whole instance: the rooms' own operations and the review."""

    __slots__ = ()

    def review(
        self, arena: str, room: str, round_: int, standing: dict[str, Any], read: RoomRead
    ) -> None:
        """See :meth:`.host.Races.review`."""
        self.ctx.spawn(review_later(self.ctx, arena, room, round_, standing, read))


async def review_later(
    ctx: Context,
    arena: str,
    room: str,
    round_: int,
    standing: race_review.Standing,
    read: RoomRead,
) -> None:
    """Review a recorded race's finishers (once each, shared with its ratings' settling)
    and amend its record by the outcome."""
    await race_review.waits(ctx, standing, read)
    await amend(ctx, arena, room, round_)
    await arenas.reviewed(ctx.store, awaiting(arena, room, round_))


def ahead_of(racers: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each racer who finished (a finish held for review at its place): the rivals they
    placed ahead of, who contested the race and are of another household."""
    placed = {r["pid"]: r["place"] or (r.get("pending") or {}).get("place") for r in racers}
    out: dict[str, list[str]] = {}
    for racer in racers:
        mine = placed[racer["pid"]]
        if mine is None:
            continue
        home = racer["home"]
        out[racer["pid"]] = [
            other["pid"]
            for other in racers
            if other["pid"] != racer["pid"]
            and not other["absent"]
            and not (home and other["home"] == home)
            and (placed[other["pid"]] is None or placed[other["pid"]] > mine)
        ]
    return out


def contested(racers: list[dict[str, Any]]) -> bool:
    """Whether two racers of a race at least contested it (not ``absent``: a finisher, a
    held one included, never is). A race of one racer and rivals who gave up or idled early
    is recorded as no race: it costs the standings nothing and earns nobody anything."""
    return sum(1 for r in racers if not r["absent"]) >= 2


async def amend(ctx: Host, arena: str, room: str, round_: int) -> None:
    """Record a race again when the review's decisions changed what its finishers count:
    a finish recorded before its review that the review holds is set aside (``pending``,
    not finished; the others keep their places) or, voided, no longer counts; a pending one
    an operator cleared takes the place it finished in, and a voided one stays uncounted.

    Two instances may amend one race at once (an operator's two decisions, a review's
    outcome): each appends only onto the records it read, else reads and decides again,
    so the last record always reflects every decision made before it."""
    for _ in range(AMEND_TRIES):
        records = await arenas.results(ctx.store, arena)
        record = await amended(ctx, records, room, round_)
        if record is None:
            return
        done = await arenas.amend(ctx.store, arena, wire.dumps(record), len(records))
        if done is not False:
            return
    QUIET.failure("amend", "an arena race was amended by others %d times over", AMEND_TRIES)


async def amended(
    ctx: Host, records: list[dict[str, Any]], room: str, round_: int
) -> dict[str, Any] | None:
    """The race's last record as the review's decisions now have it, or None when they
    change nothing (or it is not recorded yet: its record will see the decisions)."""
    race = f"{room}/{round_}"
    found = [r for r in records if r.get("race") == race]
    if not found:
        return None
    record, changed = found[-1], False
    for racer in record["racers"]:
        pending = racer.get("pending")
        if pending is None and racer.get("place") is None:
            continue
        decided = await ctx.reviews.decided(replay_id(room, round_, racer["pid"]))
        if pending is None:  # counted as it stood: the review may take it back
            status = decided.get("status") if decided is not None else None
            if status in ("held", "voided"):
                finish = {"place": racer["place"], "time_ms": racer["time_ms"]}
                racer.update(place=None, time_ms=None)
                if status == "held":
                    racer["pending"] = finish
                changed = True
            continue
        status = decided.get("status") if decided is not None else "held"
        if status == "held":
            continue
        del racer["pending"]
        if status != "voided":
            racer.update(pending)
            changed = True
    return record if changed else None


async def resettle(ctx: Context, room: str, round_: int) -> None:
    """An operator decided a held finisher of a round: its ratings settle
    (:func:`.ratings.resettle`) and, for an arena's race, its record is amended."""
    standing = await race_review.kept(ctx, room, round_)
    await ratings.resettle(ctx, room, round_)
    # The standing names the arena; so does the room while it lives (the standing may not
    # be kept yet: the operator can decide as soon as the review holds).
    arena = str((standing or {}).get("arena") or "")
    if not arena:
        arena = (await ctx.store.room_fields(room)).get("arena") or ""
    if arena:
        await amend(ctx, arena, room, round_)
