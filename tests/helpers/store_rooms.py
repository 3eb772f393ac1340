"""Rooms made and played on a :class:`~server.store.store.Store` on the machine's Redis,
through the store's own scripts, as the room logic and the move path call them, without a
server: a test of what the store decides sets up its room with these."""

from __future__ import annotations

from server.engine import Board, parse_action
from server.net import wire
from server.store.commit import MoveCommit
from server.store.status import Status
from server.store.store import Store

#: The deal the rooms here are made on, unless a test names another.
CODE = "SH1-C4-AAAAAAB"
#: The server time of every request here, in ms.
NOW = 1_800_000_000_000


async def made(
    store: Store,
    room: str,
    racers: tuple[str, ...],
    *,
    mode: str = "race",
    public: bool = False,
    start: bool = True,
    code: str = CODE,
) -> None:
    """A room of ``racers`` (the first its host), started (its countdown over) if ``start``."""
    fields: dict[str, str | int] = {"room_id": room, "code": code, "cells": 4, "mode": mode}
    fields |= {"state": "lobby", "round": 1, "host": racers[0], "seq": 0, "np": 0, "ns": 0}
    fields |= {"typed": 0, "watch": "live", "delay_s": 0, "public": int(public), "rated": 0}
    fields |= {"paired": 0, "playing": 0, "finishers": 0, "starts_at": ""}
    assert await store.create(room, fields)
    for pid in racers:
        assert await joined(store, room, pid, "player") is Status.OK
    if start:
        assert (await store.start(room, racers[0], NOW, NOW, "c0")).status is Status.OK
        assert (await store.begin(room, 1, "c0", NOW)).status is Status.OK


async def joined(store: Store, room: str, pid: str, role: str) -> Status:
    """What the store answers ``pid`` joining ``room`` as ``role`` (at most 8 racers)."""
    member = wire.member(pid, pid.title(), role)
    return (await store.join(room, pid, role, member, 8, f"c-{pid}")).status


def commit(
    room: str,
    pid: str,
    board: Board,
    actions: list[str],
    version: int,
    *,
    now: int = NOW,
    origin: str = "",
) -> MoveCommit:
    """One request of ``actions`` (a send home's taps when several) played on ``board``, as
    the move path builds it: one log entry, delta and progress per action, at ``now``,
    from the socket ``origin`` (one of ``pid``'s by default)."""
    entries, deltas, progress, legal = [], [], [], []
    for n, text in enumerate(actions, 1):
        before = wire.legal_view(board)
        delta = board.play(parse_action(text))
        log_id = version + 1 if len(actions) == 1 else f"{version + 1}.{n}"
        entries.append(f"{now}\t{log_id}\t{text}")
        deltas.append(wire.delta_body(pid, 1, text, delta, board, 10))
        progress.append(wire.progress_body(pid, 1, board))
        legal.append(wire.legal_change(before, wire.legal_view(board)))
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
        origin=origin or f"c-{pid}",
        now=now,
    )


async def played(
    store: Store, room: str, pid: str, board: Board, line: list[str], version: int = 0
) -> int:
    """``pid`` plays ``line`` an action at a time on ``board``, whose log holds ``version``
    actions so far: the log's length after."""
    for text in line:
        assert (await store.move(commit(room, pid, board, [text], version))).status is Status.OK
        version += 1
    return version
