"""The Watch list (``GET /api/rooms/live``, :func:`server.store.listing.live_rooms`) reads
every state a public room can be in, on a real Redis through the store's own scripts.

A racer who finishes with "Send all home" commits several actions in one request, and the
move script keeps each one's progress, a line each, in the room's progress field: the list
once read that field as one JSON object and answered 500 to every visitor while such a race
ran. One room it cannot read never fails the whole list either.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.net import wire
from server.store.commit import BoardLimits, MoveCommit
from server.store.keys import Keys
from server.store.listing import list_room, list_running, live_rooms
from server.store.status import Status
from server.store.store import Store
from tests.helpers.serverproc import redis_url

CODE = "SH1-C4-AAAAAAB"
NOW = 1_800_000_000_000


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    # The solver's line in one instant: the board's rate out of the way.
    store = Store(client, Keys(key_prefix), ttl=60, limits=BoardLimits(burst=1000))
    yield store
    await store.aclose()
    await client.aclose()


def line_to_send_home(code: str) -> list[str]:
    """The solver's line up to the first board where every card left can go home."""
    board = Board.from_code(code)
    played: list[str] = []
    for text in solve(Board.from_code(code)).moves:
        if board.can_send_home():
            return played
        board.play(parse_action(text))
        played.append(text)
    raise AssertionError("the line never reaches a send home")


async def public_room(store: Store, room: str, racers: tuple[str, ...], start: bool) -> None:
    """A public room of ``racers`` (the first its host), listed, and racing if ``start``."""
    fields: dict[str, str | int] = {"room_id": room, "code": CODE, "cells": 4, "mode": "race"}
    fields |= {"state": "lobby", "round": 1, "host": racers[0], "seq": 0, "np": 0, "ns": 0}
    fields |= {"typed": 0, "watch": "live", "delay_s": 0, "public": 1, "rated": 0}
    fields |= {"paired": 0, "playing": 0, "finishers": 0, "starts_at": ""}
    assert await store.create(room, fields)
    for pid in racers:
        member = wire.member(pid, pid.title(), "player")
        assert (await store.join(room, pid, "player", member, 8, "c0")).status is Status.OK
    await list_room(store, room, NOW)
    if start:
        assert (await store.start(room, racers[0], NOW, NOW, "c0")).status is Status.OK
        assert (await store.begin(room, 1, "c0", NOW)).status is Status.OK
        await list_running(store, room, NOW)


def commit(room: str, pid: str, board: Board, actions: list[str], version: int) -> MoveCommit:
    """One request of ``actions`` (a send home's taps when several) played on ``board``, as
    the move path builds it (one log entry, delta and progress per action)."""
    entries, deltas, progress, legal = [], [], [], []
    for n, text in enumerate(actions, 1):
        delta = board.play(parse_action(text))
        log_id = version + 1 if len(actions) == 1 else f"{version + 1}.{n}"
        entries.append(f"{NOW}\t{log_id}\t{text}")
        deltas.append(wire.delta_body(pid, 1, text, delta, board, 10))
        progress.append(wire.progress_body(pid, 1, board))
        legal.append(wire.legal(board))
    won = board.is_won()
    return MoveCommit(
        room=room,
        round=1,
        pid=pid,
        action_id=version + 1,
        version=version,
        log_entries=tuple(entries),
        delta_bodies=tuple(deltas),
        progress_bodies=tuple(progress),
        legal=tuple(legal),
        finishing=won,
        time_ms=10,
        moves=board.moves,
        result=wire.result(pid, pid.title(), "finished", 10, board.moves) if won else "",
        origin=f"c-{pid}",
        now=NOW,
    )


async def test_a_send_home_finish_while_a_rival_races_keeps_the_list_reading(
    store: Store,
) -> None:
    room = "SENDHOME"
    await public_room(store, room, ("ann", "bob"), start=True)
    board = Board.from_code(CODE)
    line = line_to_send_home(CODE)
    for version, text in enumerate(line):
        assert (await store.move(commit(room, "ann", board, [text], version))).status is Status.OK
    taps = [str(tap) for tap in board.send_home_taps()]
    assert len(taps) > 1
    finish = commit(room, "ann", board, taps, len(line))
    assert finish.finishing
    assert (await store.move(finish)).status is Status.OK
    # The move script kept one progress line per tap.
    kept = await store.redis.hget(store.keys.room(room), "pg:ann")
    assert kept is not None and kept.count("\n") == len(taps) - 1
    # Bob still races: the room is live, Ann's progress is that of several actions at once.
    (entry,) = await live_rooms(store)
    assert entry["room_id"] == room and entry["state"] == "racing"
    mine = next(r for r in entry["racers"] if r["name"] == "Ann")
    assert mine["finished"] and mine["foundation_cards"] == 52
    assert mine["moves"] > len(line)  # the taps the send home stood for count as moves
    bob = next(r for r in entry["racers"] if r["name"] == "Bob")
    assert not bob["finished"] and bob["moves"] == 0


async def test_one_room_the_list_cannot_read_is_left_out_not_the_list(store: Store) -> None:
    await public_room(store, "GOODROOM", ("gus",), start=False)
    await public_room(store, "BADROOM1", ("bea",), start=False)
    assert {r["room_id"] for r in await live_rooms(store)} == {"GOODROOM", "BADROOM1"}
    await store.redis.hset(store.keys.room("BADROOM1"), "pg:bea", "not json at all")
    listed = await live_rooms(store)
    assert [r["room_id"] for r in listed] == ["GOODROOM"]
