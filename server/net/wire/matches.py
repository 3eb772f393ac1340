"""The messages of play beyond one room: the quick-race queue and its pairing, a bot's
offer, arenas and their standings, rating changes (the models of
:mod:`protocol.matches`)."""

from __future__ import annotations

from typing import Any

from .compact import dumps


def queued(
    cells: int, rating: int, games: int, penalty_s: int, now: int, provisional: bool = False
) -> str:
    """``queued``: you wait for a quick race of ``cells`` cells."""
    return dumps(
        {
            "type": "queued",
            "cells": cells,
            "rating": rating,
            "games": games,
            "provisional": provisional,
            "penalty_s": penalty_s,
            "now": now,
        }
    )


def unqueued(cells: int, reason: str) -> str:
    """``unqueued``: you no longer wait for a quick race (``asked`` or ``room``)."""
    return dumps({"type": "unqueued", "cells": cells, "reason": reason})


def arena_info(
    arena: str,
    cells: int,
    minutes: int,
    starts_at: int,
    ends_at: int,
    phase: str,
    private: bool,
    players: int,
    closes_at: int | None = None,
) -> dict[str, Any]:
    """An arena as ``arena`` and ``GET /api/arenas`` show it (``closes_at``: when its last
    races are ended by its rule)."""
    return {
        "arena_id": arena,
        "cells": cells,
        "minutes": minutes,
        "starts_at": starts_at,
        "ends_at": ends_at,
        "closes_at": closes_at if closes_at is not None else ends_at,
        "phase": phase,
        "private": private,
        "players": players,
    }


def arena_line(
    rank: int,
    pid: str,
    name: str,
    points: int,
    streak: int,
    fire: bool,
    races: int,
    wins: int,
    time_ms: int,
) -> dict[str, Any]:
    """One line of an arena's standings."""
    return {
        "rank": rank,
        "player_id": pid,
        "name": name,
        "points": points,
        "streak": streak,
        "fire": fire,
        "races": races,
        "wins": wins,
        "time_ms": time_ms,
    }


def arena(
    info: dict[str, Any], seat: str, room: str | None, now: int, invite: str | None = None
) -> str:
    """``arena``: an arena you joined or watch, and where you are in it."""
    data: dict[str, Any] = {"type": "arena", "arena": info, "seat": seat, "room": room}
    if invite is not None:
        data["invite"] = invite
    data["now"] = now
    return dumps(data)


def arena_standings(
    arena: str,
    phase: str,
    races: int,
    players: int,
    top: list[dict[str, Any]],
    you: dict[str, Any] | None,
    now: int,
) -> str:
    """``arena_standings``: the top of the table and your own line."""
    return dumps(
        {
            "type": "arena_standings",
            "arena_id": arena,
            "phase": phase,
            "races": races,
            "players": players,
            "top": top,
            "you": you,
            "now": now,
        }
    )


def arena_over(arena: str, podium: list[dict[str, Any]], you: dict[str, Any] | None) -> str:
    """``arena_over``: the arena ended; its podium."""
    return dumps({"type": "arena_over", "arena_id": arena, "podium": podium, "you": you})


def arena_left(arena: str, reason: str) -> str:
    """``arena_left``: you are out of the arena (``asked``, ``room``, ``over``)."""
    return dumps({"type": "arena_left", "arena_id": arena, "reason": reason})


def arena_pledged(room: str) -> str:
    """``arena_pledged``: your pledge for the race of ``room`` is taken."""
    return dumps({"type": "arena_pledged", "room": room})


def pairing(cells: int, racers: int, pair_by: int, now: int) -> str:
    """``pairing``: ``racers`` ready players (you among them) race by ``pair_by`` at the
    latest."""
    return dumps(
        {"type": "pairing", "cells": cells, "racers": racers, "pair_by": pair_by, "now": now}
    )


def bot_offer(cells: int, bot_name: str, bot_rating: int, waited_s: int) -> str:
    """``bot_offer``: nobody else waits; race a bot at about your pace."""
    return dumps(
        {
            "type": "bot_offer",
            "cells": cells,
            "bot": {"name": bot_name, "rating": bot_rating},
            "waited_s": waited_s,
        }
    )


def rating_change(
    pid: str,
    name: str,
    rating: int,
    change: int,
    games: int,
    unrated_reason: str | None,
    provisional: bool = False,
) -> dict[str, Any]:
    """One racer's line of ``ratings``."""
    return {
        "player_id": pid,
        "name": name,
        "rating": rating,
        "change": change,
        "games": games,
        "unrated_reason": unrated_reason,
        "provisional": provisional,
    }
