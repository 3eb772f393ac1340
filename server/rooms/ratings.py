"""Ratings: every rated race (every public one, and invite rooms whose host said so) changes
its racers' ratings of that variant, with the Weng-Lin Plackett-Luce model of ``openskill``.

A race is one free-for-all: the finishers by rank, then everyone else (gave up, left, given
up for after the away grace), tied last. A finisher whose pace is not a person's (the
human-pace rule of the daily challenge, :mod:`server.daily.pace`) keeps their rating; the
others are rated among themselves. The number shown is :func:`shown`, a cautious estimate.

Each instance that sees a race end calls :func:`settle`; the room's marker makes the first
computation the only one, and each player's update is applied once (see
:mod:`server.store.ratings`).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from openskill.models import PlackettLuce

from .. import wire
from ..clock import now_ms
from ..context import Context
from ..daily.pace import judge, presses
from ..quiet import Quiet
from ..store import ratings as stored
from ..store.records import Mode, RoomPhase
from ..store.store import RoomRead

log = logging.getLogger(__name__)
QUIET = Quiet(log)

MODEL: Final = PlackettLuce()
#: A new player's skill, as the model starts everyone.
START: Final = stored.Skill(MODEL.mu, MODEL.sigma, 1000, 0)
#: The shown rating: 1000 + SCALE x (mu - 3 sigma).
SCALE: Final = 40


def shown(mu: float, sigma: float) -> int:
    """The rating shown for a skill: ``round(1000 + 40 (mu - 3 sigma))``, 1000 at the start."""
    return round(1000 + SCALE * (mu - 3 * sigma))


def order(results: dict[str, dict[str, Any]]) -> list[tuple[str, int]]:
    """The racers' places: finishers by rank, then everyone else tied after them."""
    finishers = sorted(
        (r["rank"], pid) for pid, r in results.items() if r.get("status") == "finished"
    )
    last = len(finishers) + 1
    places = [(pid, rank) for rank, pid in finishers]
    places += sorted((pid, last) for pid, r in results.items() if r.get("status") != "finished")
    return places


def compute(
    places: list[tuple[str, int]], before: dict[str, stored.Skill]
) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of each racer placed (at least two), by the model."""
    teams = [[MODEL.rating(mu=before[pid].mu, sigma=before[pid].sigma)] for pid, _ in places]
    rated = MODEL.rate(teams, ranks=[float(rank) for _, rank in places])
    return {pid: (team[0].mu, team[0].sigma) for (pid, _), team in zip(places, rated, strict=True)}


def pace_refused(ctx: Context, read: RoomRead, pid: str) -> str | None:
    """The human-pace rule a finisher's line breaks, or None."""
    lines = [line.split("\t", 2) for line in read.logs.get(pid, [])]
    if not lines:
        return None
    times = [int(ms) for ms, _id, _text in lines]
    actions = [text for _ms, _id, text in lines]
    started = int(read.meta.get("starts_at") or 0)
    verdict = judge(started, presses(actions, times), ctx.daily.leaderboard.pace)
    return None if verdict.ok else verdict.reason


async def settle(ctx: Context, room: str) -> None:
    """Apply a finished rated race's ratings (safe to call from every instance, again)."""
    try:
        await _settle(ctx, room)
    except Exception:  # Redis gone: another instance that saw the end may do it
        QUIET.failure("ratings", "settling the ratings of %s failed", room)


async def _settle(ctx: Context, room: str) -> None:
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
        marker = await _claim(ctx, room, read, round_, cells)
    await _apply(ctx, room, round_, cells, marker)


async def changes(ctx: Context, room: str, meta: dict[str, str]) -> list[dict[str, Any]] | None:
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
            x["player_id"], x["name"], x["rating"], x["change"], x["games"], x["unrated_reason"]
        )
        for x in lines
    ]


async def _claim(ctx: Context, room: str, read: RoomRead, round_: int, cells: int) -> str:
    """Work out the round's changes and settle them (or get those settled first)."""
    results = read.results
    places = order(results)
    refused = {
        pid: reason
        for pid, r in results.items()
        if r.get("status") == "finished" and (reason := pace_refused(ctx, read, pid)) is not None
    }
    pids = [pid for pid, _ in places]
    before = await stored.skills(ctx.store, pids, cells, START)
    counted = [(pid, rank) for pid, rank in places if pid not in refused]
    after = compute(counted, before) if len(counted) >= 2 else {}
    now = now_ms()
    lines: list[dict[str, Any]] = []
    for pid, rank in places:
        old = before[pid]
        name = str(results[pid].get("name") or "")
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
            }
        )
    body = ""
    if after:
        body = wire.ratings_body(round_, cells, _lines_as_changes(lines))
    marker = wire.dumps({"at": now, "cells": cells, "rated": bool(after), "lines": lines})
    _written, marker = await stored.claim(ctx.store, room, round_, marker, body, ctx.instance_id)
    return marker


async def _apply(ctx: Context, room: str, round_: int, cells: int, marker: str) -> None:
    """Apply every racer's line of a settled round (each once, whoever calls)."""
    data = json.loads(marker)
    if not data.get("rated"):
        return
    lines = data["lines"]
    racers = len(lines)
    keep_s = ctx.settings.history_days * 86_400
    for line in lines:
        race = {
            "cells": cells,
            "at": data["at"],
            "rank": line["place"] if line["status"] == "finished" else None,
            "status": line["status"],
            "racers": racers,
            "rating": line["rating"],
            "change": line["change"],
        }
        await stored.apply(
            ctx.store,
            line["player_id"],
            cells,
            f"{room}/{round_}",
            int(data["at"]),
            line,
            race,
            keep_s,
        )
