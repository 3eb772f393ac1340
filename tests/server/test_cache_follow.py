"""An instance's record of a room follows the room-wide events the hub hands it, as read off
the channel (no message parsed back): each change is the one the event's message shows."""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from protocol.vocabulary import Mode, RoomPhase, WatchMode
from server.cache import BoardCache, BoardEntry, RoomCache, RoomState
from server.engine import Board
from server.net import wire
from server.store.events import ROOM_FIELDS, RoomEvent, stamp
from server.store.keys import Keys
from server.store.store import Store
from tests.helpers.serverproc import redis_url

CODE = "SH1-C4-AAAAAJ2"
MEMBER = json.dumps({"player_id": "pA", "name": "Ann", "role": "player"})


def cache_of(state: RoomState) -> RoomCache:
    """A cache holding ``state`` (its store is never asked: following reads nothing)."""
    store = Store(aioredis.Redis.from_url(redis_url()), Keys(), 60)
    rooms = RoomCache(store, BoardCache(store))
    rooms.rooms[state.room] = state
    return rooms


def lobby(round_: int = 1) -> RoomState:
    return RoomState("R", CODE, 4, round_, RoomPhase.LOBBY, 0, Mode.RACE)


def record(kind: str, seq: int, *values: object) -> RoomEvent:
    """A room-wide record as a script stores it (``lua/common.lua`` ``emit_record``)."""
    return RoomEvent.parse(f"\t{json.dumps([kind, str(seq), *map(str, values)])}\t\t")


def room_record(seq: int, state: str, round_: int, watch: str, delay_s: int) -> RoomEvent:
    fields = {
        "room_id": "R",
        "code": CODE,
        "cells": 4,
        "mode": "race",
        "state": state,
        "round": round_,
        "host": "pA",
        "ns": 0,
        "typed": 1,
        "watch": watch,
        "delay_s": delay_s,
        "public": 0,
        "rated": 0,
        "paired": 0,
    }
    return record("room", seq, *(fields[f] for f in ROOM_FIELDS), MEMBER)


def message(event: RoomEvent) -> dict[str, Any]:
    """What the room's sockets receive of ``event``."""
    data: dict[str, Any] = json.loads(wire.render(event))
    return data


def test_a_round_followed_event_by_event_as_its_messages_show() -> None:
    state = lobby()
    rooms = cache_of(state)
    watch = room_record(2, "lobby", 1, "delayed", 12)
    rooms.follow("R", watch)
    shown = message(watch)
    assert (state.watch, state.delay_s) == (shown["watch"], shown["delay_s"]) == ("delayed", 12)
    assert state.seq == 2 and state.phase is RoomPhase.LOBBY
    countdown = record("countdown", 3, 1, 5_000, 4_000)
    rooms.follow("R", countdown)
    assert state.starts_at == message(countdown)["starts_at"] == 5_000
    assert (state.phase, state.seq) == (RoomPhase.COUNTDOWN, 3)
    started = record("started", 4, 1, "SH1-C4-AAAAABM", 4, 5_000, "pA")
    rooms.follow("R", started)
    assert state.code == message(started)["code"] == "SH1-C4-AAAAABM"
    assert (state.phase, state.seq) == (RoomPhase.RACING, 4)
    # A message the server wrote (the round's ratings): its seq, nothing else.
    ratings = RoomEvent.parse(f"\t{stamp(5, wire.ratings_body(1, 4, [])[1:])}\t\t")
    rooms.follow("R", ratings)
    assert (state.phase, state.seq) == (RoomPhase.RACING, 5)
    over = record("race_over", 6, 1, "", "0")
    rooms.follow("R", over)
    assert (state.phase, state.seq) == (RoomPhase.DONE, 6)
    assert rooms.rooms["R"] is state


def test_a_live_room_keeps_its_delay_and_a_room_event_sets_the_phase_it_names() -> None:
    state = lobby()
    state.delay_s = 30
    rooms = cache_of(state)
    live = room_record(2, "lobby", 1, "live", 99)
    rooms.follow("R", live)
    assert message(live)["delay_s"] is None  # the message has none: the cache keeps its own
    assert (state.watch, state.delay_s) == (WatchMode.LIVE, 30)
    done = room_record(3, "done", 1, "progress", 0)
    rooms.follow("R", done)
    assert (state.phase, state.watch) == (RoomPhase.DONE, WatchMode.PROGRESS)


def test_a_rematch_or_an_event_out_of_phase_drops_the_record() -> None:
    state = lobby()
    rooms = cache_of(state)
    rooms.boards.put(("R", 1, "pA"), BoardEntry(Board.from_code(CODE), 0, None, None))
    rooms.follow("R", room_record(2, "lobby", 2, "live", 30))  # round 2: read afresh
    assert "R" not in rooms.rooms and not rooms.boards.entries
    state = lobby()
    rooms = cache_of(state)
    rooms.follow("R", record("started", 2, 1, CODE, 4, 5_000, "pA"))  # no countdown seen
    assert "R" not in rooms.rooms


def test_an_older_event_never_takes_the_seq_back() -> None:
    state = lobby()
    state.seq = 9
    rooms = cache_of(state)
    rooms.follow("R", room_record(4, "lobby", 1, "live", 30))
    assert state.seq == 9
