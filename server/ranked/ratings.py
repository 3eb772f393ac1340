"""Ratings: every rated race (every public one, and invite rooms whose host said so) changes
its racers' ratings of that variant, with the Weng-Lin Plackett-Luce model of ``openskill``.

A race is one free-for-all: the finishers by rank, then everyone else (gave up, left, given
up for after the away grace or at the race's time limit) by their progress, cards home. What
a rating must not be bought with keeps a racer's rating (``unrated_reason``), and the others
are rated among themselves (at least two, one of them a finisher):

- a finisher the operator voided after review (``voided``): every finisher is reviewed
  first (:mod:`server.fairplay.race_review`), and while one is held for an operator, nobody's
  rating changes, so a script playing a solved line farms nothing;
- a racer who played fewer than ``rated_min_actions`` actions (``too_few_actions``): two
  identities that start a race and give up at once farm nothing;
- racers who joined from one client address (``same_address``): a second identity is no
  opponent;
- the lower placed of two racers whose result already counted within
  ``rated_pair_window_s`` (``repeat_pair``): trading wins counts once;
- a racer who did not contest the race (``absent``, :mod:`server.fairplay.contest`: gave up or idled
  before a real share of it): nobody is rated against them, so puppets that join and give
  up hand nobody a win. They still lose, alone, below the racers who contested when one of
  those finished (:func:`forfeits`): giving up early is no way out of a loss. A racer left
  with no contested rival keeps their rating (``uncontested``);
- a result against a rival already counted against lately: the k-th rated result against
  the same rival within ``contest_repeat_days`` moves a rating by
  :func:`server.fairplay.contest.worth` of a full one (the first ``contest_repeat_full`` in
  full, then ``full / k``; :func:`soften`), so the same few puppets raced again and again
  carry no rating, and friends who race every day still move each other.

A race nobody (counted) finished changes nothing. The number shown is :func:`shown`, a
cautious estimate.

A new identity is *provisional* until it has an established record (:func:`bar`:
``provisional_games`` rated races of the variant with results against
``established_rivals`` distinct established rivals, or ranked dailies on
``provisional_days`` days); lichess's provisional ratings are the model. A ring of fresh
identities can never establish one another: the way in is established rivals or reviewed
dailies. A provisional player races and is rated like anyone, sees their rating (shown
with "?"), but is on no public list, and their results move any rival's rating by
``provisional_weight`` of what an established rival's would (:func:`soften`): a fresh
identity is not worth a full opponent, to anyone.

Each instance that sees a race end calls :func:`settle`; the room's marker makes the first
computation the only one, and each player's update is applied once (see
:mod:`server.store.ratings`). A round with a held finisher is settled by :func:`resettle`
once an operator decided, from the standing kept for it (:mod:`.race_review`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from itertools import combinations
from typing import Any, Final, Protocol

from openskill.models import PlackettLuce

from protocol.names import skeleton
from protocol.vocabulary import Mode, RoomPhase

from ..cache import replay
from ..clock import now_ms
from ..fairplay import contest, race_review
from ..fairplay.standing import standings
from ..net import wire
from ..quiet import Quiet
from ..store import names
from ..store import ratings as stored
from ..store import rivals as rivalry
from ..store.store import RoomRead, Store

log = logging.getLogger(__name__)
QUIET = Quiet(log)


class Rating(race_review.Reviewing, Protocol):
    """What rating a race needs of an instance: beside what reviewing its finishers needs
    (:class:`server.fairplay.race_review.Reviewing`), the rooms' store (the race, the
    ratings, the rivals). :class:`server.context.Context` has it."""

    @property
    def store(self) -> Store:
        """The rooms' store."""


MODEL: Final = PlackettLuce()
#: A new player's skill, as the model starts everyone.
START: Final = stored.Skill(MODEL.mu, MODEL.sigma, 1000, 0)
#: The shown rating: 1000 + SCALE x (mu - 3 sigma).
SCALE: Final = 40


def bar(ctx: Rating) -> stored.Bar:
    """What makes a player established, from the settings."""
    s = ctx.settings
    return stored.Bar(s.provisional_games, s.provisional_days, s.established_rivals)


def soften(
    after: dict[str, tuple[float, float]],
    before: dict[str, stored.Skill],
    established: dict[str, bool],
    weight: float,
    rivals_of: dict[str, list[str]] | None = None,
    repeats: dict[str, dict[str, int]] | None = None,
    full: int = 0,
) -> dict[str, tuple[float, float]]:
    """The model's updates, each racer's scaled by the weight of their rivals (the others
    rated, or ``rivals_of`` them): an established rival counts 1, a provisional one
    ``weight``, for everyone: a win over fresh identities is worth little to anyone. Each
    rival's weight is then what a repeated result against them is worth
    (:func:`server.fairplay.contest.worth` of the results already counted against them,
    ``repeats``, with ``full`` in full): three rivals raced again and again stop paying."""
    out = dict(after)
    for pid, (mu, sigma) in after.items():
        rivals = (rivals_of or {}).get(pid) or [other for other in after if other != pid]
        counts = (repeats or {}).get(pid) or {}
        share = sum(
            (1.0 if established[o] else weight) * contest.worth(counts.get(o, 0) + 1, full)
            for o in rivals
        ) / len(rivals)
        old = before[pid]
        out[pid] = (old.mu + share * (mu - old.mu), old.sigma + share * (sigma - old.sigma))
    return out


def shown(mu: float, sigma: float) -> int:
    """The rating shown for a skill: ``round(1000 + 40 (mu - 3 sigma))``, 1000 at the start."""
    return round(1000 + SCALE * (mu - 3 * sigma))


def address_mark(address: str) -> str:
    """What a room keeps of a racer's client address (``ad:PID``): enough to tell two
    racers of one address apart from two of two, not the address itself."""
    return hashlib.sha256(f"seahaven-address:{address}".encode()).hexdigest()[:16]


def order(
    results: dict[str, dict[str, Any]], progress: dict[str, int] | None = None
) -> list[tuple[str, int]]:
    """The racers' places: finishers by rank, then everyone else by ``progress`` (cards
    home, most first; equal progress ties), after every finisher."""
    progress = progress or {}
    finishers = sorted(
        (r["rank"], pid) for pid, r in results.items() if r.get("status") == "finished"
    )
    places = [(pid, rank) for rank, pid in finishers]
    others = sorted(
        (-progress.get(pid, 0), pid) for pid, r in results.items() if r.get("status") != "finished"
    )
    place, last = len(finishers), None
    for i, (minus, pid) in enumerate(others):
        if minus != last:
            place, last = len(finishers) + i + 1, minus
        places.append((pid, place))
    return places


def repeats(counted: list[tuple[str, int]], met: set[frozenset[str]]) -> dict[str, str]:
    """Of the racers ``counted`` (by place), those whose result against another one still
    counted already counted lately (``met``): the lower placed of each such pair, so that
    two identities trading wins count their first race only."""
    dropped: dict[str, str] = {}
    for (a, _ra), (b, _rb) in combinations(counted, 2):  # by place: a is placed ahead of b
        if a in dropped or b in dropped:
            continue
        if frozenset((a, b)) in met:
            dropped[b] = "repeat_pair"
    return dropped


def compute(
    places: list[tuple[str, int]], before: dict[str, stored.Skill]
) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of each racer placed (at least two), by the model."""
    teams = [[MODEL.rating(mu=before[pid].mu, sigma=before[pid].sigma)] for pid, _ in places]
    rated = MODEL.rate(teams, ranks=[float(rank) for _, rank in places])
    return {pid: (team[0].mu, team[0].sigma) for (pid, _), team in zip(places, rated, strict=True)}


async def settle(ctx: Rating, room: str) -> None:
    """Apply a finished rated race's ratings (safe to call from every instance, again)."""
    try:
        await _settle(ctx, room)
    except Exception:  # Redis gone: another instance that saw the end may do it
        QUIET.failure("ratings", "settling the ratings of %s failed", room)


async def _settle(ctx: Rating, room: str) -> None:
    meta = await ctx.store.room_fields(room)
    if meta.get("mode") != Mode.RACE or meta.get("rated") != "1":
        return
    if meta.get("state") != RoomPhase.DONE:
        return
    round_, cells = int(meta["round"]), int(meta["cells"])
    marker = await stored.settled(ctx.store, room, round_)
    if marker is None:
        read = await ctx.store.read_room(room)
        if read is None or read.meta.get("state") != RoomPhase.DONE:
            return
        if int(read.meta["round"]) != round_:
            return  # a rematch meanwhile: that round's marker is another call's
        marker = await settle_round(ctx, standing_of(read, room, round_, cells), read)
        if marker is None:
            return  # a finisher waits for an operator: so does everyone's rating
    await _apply(ctx, room, round_, cells, marker)


async def resettle(ctx: Rating, room: str, round_: int) -> None:
    """Settle a round an operator decided a held finisher of, from its kept standing
    (:mod:`.race_review`), whatever the room did since: a rematch, or it expired."""
    marker = await stored.settled(ctx.store, room, round_)
    standing = await race_review.kept(ctx, room, round_)
    if standing is None:
        return  # never held, or settled long ago
    if marker is None:
        marker = await settle_round(ctx, standing, None)
        if marker is None:
            return  # another finisher of it is still held
    await _apply(ctx, room, round_, int(standing["cells"]), marker)


def standing_of(read: RoomRead, room: str, round_: int, cells: int) -> race_review.Standing:
    """What settling a round needs, from the room as the race ended."""
    code = read.meta["code"]
    finished_at, last_at = {}, {}
    started_at = int(read.meta.get("starts_at") or 0)
    for pid, lines in read.logs.items():
        last_at[pid] = int(lines[-1].split("\t", 1)[0]) if lines else started_at
        if lines and read.results.get(pid, {}).get("status") == "finished":
            finished_at[pid] = last_at[pid]
    # What each racer made of the race by its first finish (the contest rule's progress).
    won_at = min(finished_at.values(), default=None)
    made = {pid: list(contest.made(code, lines, won_at)) for pid, lines in read.logs.items()}
    return {
        "room": room,
        "round": round_,
        "cells": cells,
        "code": code,
        "results": {pid: dict(r) for pid, r in read.results.items()},
        "progress": cards_home(code, read),
        "marks": {
            pid: read.meta[f"ad:{pid}"] for pid in read.results if read.meta.get(f"ad:{pid}")
        },
        "finished_at": finished_at,
        "started_at": started_at,
        "last_at": last_at,
        "made": made,
        "arena": read.meta.get("arena") or "",
    }


async def settle_round(
    ctx: Rating, standing: race_review.Standing, read: RoomRead | None
) -> str | None:
    """Review a round's finishers and settle its changes once none is held: the marker,
    or None while one is. A held round's standing is kept, with every racer's rating as
    the race ended (what it waits on), so that settling it later counts as settling at
    once; each finisher's race is counted in their history once settled."""
    if "before" not in standing:  # held before (a later call, from the room): as it was kept
        standing = await race_review.kept(ctx, standing["room"], int(standing["round"])) or (
            standing
        )
    held, voided = await race_review.waits(ctx, standing, read)
    if held:
        if "before" not in standing:
            pids = list(standing["results"])
            skills = await stored.skills(ctx.store, pids, int(standing["cells"]), START)
            standing = {
                **standing,
                "before": {pid: [x.mu, x.sigma, x.rating, x.games] for pid, x in skills.items()},
            }
            await race_review.keep(ctx, standing)
            standing = await race_review.kept(ctx, standing["room"], int(standing["round"])) or (
                standing
            )
        # An operator may have decided meanwhile (before the standing was kept).
        held, voided = await race_review.waits(ctx, standing, None)
        if held:
            return None
    marker = await _claim(ctx, standing, voided)
    await race_review.record_histories(ctx, standing, voided)
    return marker


async def changes(ctx: Rating, room: str, meta: dict[str, str]) -> list[dict[str, Any]] | None:
    """The rating changes of a rated round that is over and settled, as ``ratings`` gave
    them (for a ``snapshot``), or None: not rated, not over, not settled, or nobody rated.
    Nothing here is secret once the race is over: every racer got it as an event."""
    if meta.get("rated") != "1" or meta.get("state") != RoomPhase.DONE:
        return None
    marker = await stored.settled(ctx.store, room, int(meta["round"]))
    if marker is None:
        return None
    data = json.loads(marker)
    if not data.get("rated"):
        return None
    return _lines_as_changes(data["lines"])


def _lines_as_changes(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The settled lines of a round as ``ratings`` shows them."""
    return [
        wire.rating_change(
            x["player_id"],
            x["name"],
            x["rating"],
            x["change"],
            x["games"],
            x["unrated_reason"],
            bool(x.get("provisional")),
        )
        for x in lines
    ]


def cards_home(code: str, read: RoomRead) -> dict[str, int]:
    """Each racer's cards on the foundations at the end (their progress)."""
    out = {}
    for pid, lines in read.logs.items():
        try:
            out[pid] = sum(replay(code, lines).board.foundations)
        except Exception:  # a corrupt log: no progress to rank by
            out[pid] = 0
    return out


def refusals(
    ctx: Rating, standing: race_review.Standing, places: list[tuple[str, int]]
) -> dict[str, str]:
    """Why each racer who keeps their rating keeps it, before the repeated pairs: too few
    actions, or an address shared with another racer."""
    results, marks_of = standing["results"], standing["marks"]
    refused: dict[str, str] = {}
    for pid, _place in places:
        r = results[pid]
        if int(r.get("moves") or 0) < ctx.settings.rated_min_actions:
            refused[pid] = "too_few_actions"
    marks: dict[str, list[str]] = {}
    for pid, _place in places:
        mark = marks_of.get(pid)
        if mark and pid not in refused:
            marks.setdefault(mark, []).append(pid)
    for pids in marks.values():
        if len(pids) > 1:
            refused.update(dict.fromkeys(pids, "same_address"))
    return refused


async def _claim(ctx: Rating, standing: race_review.Standing, voided: set[str]) -> str:
    """Work out the round's changes and settle them (or get those settled first).

    The changes are the model's from the ratings the round waits on (its standing's
    ``before``, kept when a finisher was held; else the ratings now); a racer rated in
    another race since gets this round's change on top of what they have now.
    """
    room, round_, cells = standing["room"], int(standing["round"]), int(standing["cells"])
    results = standing["results"]
    places = order(results, standing["progress"])
    refused = {pid: "voided" for pid in voided}
    for pid, why in refusals(ctx, standing, places).items():
        refused.setdefault(pid, why)
    absent = {pid for pid in contest.absent(standing, ctx.settings) if pid not in refused}
    refused.update(dict.fromkeys(absent, "absent"))
    pids = [pid for pid, _ in places]
    now_skills = await stored.skills(ctx.store, pids, cells, START)
    kept = standing.get("before") or {}
    before = {
        pid: stored.Skill(float(mu), float(sigma), int(rating), int(games))
        for pid, (mu, sigma, rating, games) in kept.items()
    }
    before = {pid: before.get(pid, now_skills[pid]) for pid in pids}
    counted = [(pid, rank) for pid, rank in places if pid not in refused]
    window_ms = ctx.settings.rated_pair_window_s * 1000
    met = await stored.met(ctx.store, [pid for pid, _ in counted], now_ms() - window_ms)
    refused.update(repeats(counted, met))
    counted = [(pid, rank) for pid, rank in counted if pid not in refused]
    finished = any(results[pid].get("status") == "finished" for pid, _ in counted)
    after = compute(counted, before) if len(counted) >= 2 and finished else {}
    for pid, _ in counted if absent and len(counted) < 2 else []:
        refused[pid] = "uncontested"  # their rivals were absent: nobody to be rated against
    record = await stored.standing(ctx.store, pids, cells)
    established = {pid: bar(ctx).met(*record[pid]) for pid in pids}
    rivals_of = {pid: [o for o in after if o != pid] for pid in after}
    if finished:
        after.update(forfeits(absent, counted, places, before, rivals_of))
    credited = {
        pid: [o for o in rivals_of[pid] if established[o]] for pid in after if pid not in absent
    }
    fresh = await stored.new_rivals(ctx.store, cells, credited)
    s = ctx.settings
    repeat_ms = s.contest_repeat_s * 1000
    counts = await rivalry.counted(ctx.store, "rated", rivals_of, now_ms() - repeat_ms)
    after = soften(
        after, before, established, s.provisional_weight, rivals_of, counts, s.contest_repeat_full
    )
    after = on_top(after, before, now_skills)
    now = now_ms()
    lines: list[dict[str, Any]] = []
    for pid, rank in places:
        old = now_skills[pid]
        name = str(results[pid].get("name") or "")
        rivals = credited.get(pid, [])
        if pid in after:
            mu, sigma = after[pid]
            rating, games, reason = shown(mu, sigma), old.games + 1, None
        else:
            mu, sigma, rating, games = old.mu, old.sigma, shown(old.mu, old.sigma), old.games
            reason = refused.get(pid)
        lines.append(
            {
                "player_id": pid,
                "name": name,
                "place": rank,
                "status": results[pid].get("status"),
                "mu": mu,
                "sigma": sigma,
                "rating": rating,
                "change": rating - shown(old.mu, old.sigma) if pid in after else 0,
                "games": games,
                "unrated_reason": reason,
                "provisional": not bar(ctx).met(
                    games, record[pid][1], record[pid][2] + fresh.get(pid, 0)
                ),
                # The distinct established rivals this result counts against (kept with
                # the rating: what makes a player established by races).
                "rivals": rivals,
            }
        )
    body = ""
    if after and await _racing_this_round(ctx, room, round_):
        body = wire.ratings_body(round_, cells, _lines_as_changes(lines))
    marker = wire.dumps({"at": now, "cells": cells, "rated": bool(after), "lines": lines})
    written, marker = await stored.claim(ctx.store, room, round_, marker, body, ctx.instance_id)
    if written and after and window_ms > 0:
        # Only the instance whose marker counts: the pairs it rated have met from now on.
        await stored.meet(ctx.store, [p for p in after if p not in absent], now, window_ms // 1000)
    if written and after:
        # Each rated result against a rival counts towards the next one's worth.
        against = {pid: rivals_of[pid] for pid in after if pid not in absent}
        race = f"{room}/{round_}"
        await rivalry.remember(ctx.store, "rated", against, race, now, repeat_ms // 1000)
    return marker


def forfeits(
    absent: set[str],
    counted: list[tuple[str, int]],
    places: list[tuple[str, int]],
    before: dict[str, stored.Skill],
    rivals_of: dict[str, list[str]],
) -> dict[str, tuple[float, float]]:
    """What the absent lose: each absent racer is rated, alone, below the racers who
    contested, when one of them finished (nobody gains from them: giving up early is no
    way out of a loss, nor a way to hand one's rival a win). ``rivals_of`` gets theirs."""
    out: dict[str, tuple[float, float]] = {}
    if not counted:
        return out
    for pid, place in places:
        if pid not in absent:
            continue
        field = [*counted, (pid, max(place, max(rank for _, rank in counted) + 1))]
        out[pid] = compute(field, before)[pid]
        rivals_of[pid] = [other for other, _ in counted]
    return out


#: The least sigma a change put on top of a newer rating leaves (the model's never 0).
MIN_SIGMA: Final = 0.001


def on_top(
    after: dict[str, tuple[float, float]],
    before: dict[str, stored.Skill],
    now: dict[str, stored.Skill],
) -> dict[str, tuple[float, float]]:
    """The changes as they apply now: a racer whose rating is still the one the round
    waited on gets the model's new rating; one rated in another race since gets the
    round's change (of mu and of sigma) on top of their rating now."""
    out = {}
    for pid, (mu, sigma) in after.items():
        old, cur = before[pid], now[pid]
        if (cur.mu, cur.sigma) == (old.mu, old.sigma):
            out[pid] = (mu, sigma)
        else:
            out[pid] = (cur.mu + mu - old.mu, max(MIN_SIGMA, cur.sigma + sigma - old.sigma))
    return out


async def _racing_this_round(ctx: Rating, room: str, round_: int) -> bool:
    """Whether the room is still in this round (its racers hear ``ratings``); after a
    rematch, or once the room expired, the changes are settled without an event."""
    fields = await ctx.store.room_fields(room)
    return bool(fields) and fields.get("round") == str(round_)


async def _apply(ctx: Rating, room: str, round_: int, cells: int, marker: str) -> None:
    """Apply every racer's line of a settled round (each once, whoever calls)."""
    data = json.loads(marker)
    if not data.get("rated"):
        return
    lines = data["lines"]
    racers = len(lines)
    keep_s = ctx.settings.history_s
    gate = await standings(ctx, [str(line["player_id"]) for line in lines])
    barred = {pid for pid, s in gate.items() if not s.shown}
    for line in lines:
        if line["unrated_reason"] == "voided":
            continue  # a voided finish changes nothing and shows nowhere, as a public race too
        race = {
            "cells": cells,
            "at": data["at"],
            "rank": line["place"] if line["status"] == "finished" else None,
            "status": line["status"],
            "racers": racers,
            "rating": line["rating"],
            "change": line["change"],
        }
        listed = line["player_id"] not in barred
        await stored.apply(
            ctx.store,
            line["player_id"],
            cells,
            f"{room}/{round_}",
            int(data["at"]),
            line,
            race,
            keep_s,
            listed=listed,
        )
        if listed and line["unrated_reason"] is None and not line.get("provisional"):
            # An established name: nobody else may take one that passes for it.
            await names.keep(ctx.store, skeleton(line["name"]), line["player_id"], keep_s)
