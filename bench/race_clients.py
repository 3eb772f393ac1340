"""The race benchmark's load clients: rooms of 4 racers and their spectators, set up
before any starts, then raced at one action a second per racer (the bot's solver lines).

A load process (:func:`load_worker`) runs its rooms on its own event loop.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import multiprocessing as mp
import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

import uvloop
from websockets.asyncio.client import ClientConnection, connect

from bench.lean_client import lean_connect
from server.clients.bot import action_message, plan
from server.engine import Board

ROOM_SIZE = 4


# -- the race load --------------------------------------------------------------------------


class Link(Protocol):
    """A load client's connection: ``websockets``' or the lean one (:mod:`bench.lean_client`)."""

    async def send(self, message: str) -> None: ...

    async def close(self) -> None: ...


class Racer:
    """One connection: a racer sends its solver line, one action a second; a spectator
    only counts what it receives."""

    def __init__(self) -> None:
        self.ws: Link
        self.pending: dict[int, float] = {}
        self.latencies: list[float] = []
        self.when: list[float] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.received = 0
        self.rejects = 0
        self.errors: dict[str, int] = {}  # error codes received while racing (busy: Redis)
        self.task: asyncio.Task[None] | None = None
        self.racing = False

    def on_text(self, raw: str) -> None:
        """One message from the server."""
        now = time.perf_counter()
        self.received += 1
        if raw.startswith('{"type":"ack"'):
            msg = json.loads(raw)
            sent = self.pending.pop(msg["id"], None)
            if sent is not None:
                self.latencies.append(now - sent)
                self.when.append(time.time())
            return
        if self.racing and raw.startswith('{"seq"'):
            return  # deltas and progress: counted, not parsed (keep the load cheap)
        msg = json.loads(raw)
        if msg["type"] == "reject":
            self.rejects += 1
            self.pending.pop(msg["id"], None)
        if self.racing and msg["type"] == "error":
            # An error answers a move that failed (busy: Redis failed); it carries no
            # id, so the oldest unanswered move is taken as the one it answers.
            self.errors[msg["code"]] = self.errors.get(msg["code"], 0) + 1
            if self.pending:
                del self.pending[min(self.pending)]
            return
        self.inbox.put_nowait(msg)

    async def reader(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                self.on_text(str(raw))
        except Exception:
            pass

    async def expect(self, kind: str) -> dict[str, Any]:
        while True:
            msg = await self.inbox.get()
            if msg["type"] == kind:
                return msg
            if msg["type"] == "error":
                raise RuntimeError(str(msg))


async def open_racer(url: str, name: str, lean: bool = True) -> Racer:
    """A connection that said hello (``lean``: :mod:`bench.lean_client`, else
    ``websockets``' client)."""
    racer = Racer()
    if lean:
        racer.ws = await lean_connect(url, racer.on_text)
    else:
        ws = await connect(url, max_size=2**20, open_timeout=120, ping_interval=None)
        racer.ws = ws
        racer.task = asyncio.create_task(racer.reader(ws))
    await racer.ws.send(json.dumps({"type": "hello", "name": name}))
    await racer.expect("welcome")
    return racer


@functools.cache
def line_of(code: str) -> tuple[str, ...]:
    """The solver's line of a deal (worked out once per load process)."""
    return plan(Board.from_code(code), timeout=10)


@dataclass
class Room:
    """A room set up and waiting for its start."""

    racers: list[Racer]
    spectators: list[Racer]
    code: str


async def set_up_room(url: str, index: int, code: str, spectators: int, lean: bool = True) -> Room:
    """One room: 4 racers joined (the first its host) and ``spectators`` watching."""
    racers = [await open_racer(url, f"r{index}-{i}", lean) for i in range(ROOM_SIZE)]
    watchers = [await open_racer(url, f"s{index}-{i}", lean) for i in range(spectators)]
    host = racers[0]
    # The host types a certified deal: a drawn one stays hidden until the start, and the
    # solver line is worked out now, during the setup (solving at the start would hold up
    # the acks of the rooms already racing on the load process's event loop).
    await host.ws.send(json.dumps({"type": "create_room", "code": code}))
    room = (await host.expect("snapshot"))["room_id"]
    line_of(code)
    for r in racers[1:]:
        await r.ws.send(json.dumps({"type": "join", "room": room, "role": "player"}))
        await r.expect("snapshot")
    for s in watchers:
        await s.ws.send(json.dumps({"type": "join", "room": room, "role": "spectator"}))
        await s.expect("snapshot")
    return Room(racers, watchers, code)


async def race_room(room: Room, go_at: float, stop_at: float, out: dict[str, Any]) -> None:
    """Start ``room`` at ``go_at`` and race it until ``stop_at``; add its figures to ``out``."""
    racers, host = room.racers, room.racers[0]
    await asyncio.sleep(max(0.0, go_at - time.time()))
    await host.ws.send(json.dumps({"type": "start"}))
    started = await host.expect("started")
    assert started["code"] == room.code
    for r in racers[1:]:
        await r.expect("started")
    for c in [*racers, *room.spectators]:
        c.racing = True
    line = line_of(room.code)
    await asyncio.gather(*(play(r, line, stop_at) for r in racers))
    for r in racers:
        out["latencies"].extend(r.latencies)
        out["when"].extend(r.when)
        out["rejects"] += r.rejects
        out["received"] += r.received
        out["unanswered"] += len(r.pending)  # every move sent had a second or more
        for code, n in r.errors.items():
            out["errors"][code] = out["errors"].get(code, 0) + n
    out["received"] += sum(s.received for s in room.spectators)
    for c in [*racers, *room.spectators]:
        await c.ws.close()


async def play(racer: Racer, line: tuple[str, ...], stop_at: float) -> None:
    """One action a second, starting at a random phase so the load is spread."""
    await asyncio.sleep(random.random())
    next_at = time.perf_counter()
    for i, text in enumerate(line, start=1):
        if time.time() >= stop_at:
            return
        message = json.dumps(action_message(text, i))
        racer.pending[i] = time.perf_counter()
        await racer.ws.send(message)
        next_at += 1.0
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


def empty_result() -> dict[str, Any]:
    return {
        "latencies": [],
        "when": [],
        "rejects": 0,
        "received": 0,
        "ready": 0,
        "errors": {},
        "unanswered": 0,
        "failed": [],
    }


def load_worker(
    url: str,
    first_room: int,
    rooms: int,
    spectators: int,
    codes: list[str],
    ready: mp.Queue[int],
    go: mp.Queue[tuple[float, float]],
    results: mp.Queue[dict[str, Any]],
    lean: bool = True,
) -> None:
    """A load process: sets up ``rooms`` rooms on its own event loop (uvloop), says how
    many are ready, waits for the common start and races them; its clients are the lean
    ones of :mod:`bench.lean_client` unless ``lean`` is false (``websockets``' client)."""
    # The measuring clients should not add collector pauses of their own to the figures.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)

    async def main() -> dict[str, Any]:
        out = empty_result()
        sem = asyncio.Semaphore(25)  # rooms being set up at once: do not flood the accept

        async def one(i: int) -> Room:
            async with sem:
                return await set_up_room(url, i, codes[i % len(codes)], spectators, lean)

        made = await asyncio.gather(
            *(one(first_room + i) for i in range(rooms)), return_exceptions=True
        )
        ok = [r for r in made if isinstance(r, Room)]
        out["failed"] = [repr(r) for r in made if isinstance(r, BaseException)][:5]
        out["ready"] = len(ok)
        ready.put(len(ok))
        go_at, stop_at = await asyncio.to_thread(go.get)
        raced = await asyncio.gather(
            *(race_room(r, go_at, stop_at, out) for r in ok), return_exceptions=True
        )
        out["failed"] += [repr(r) for r in raced if isinstance(r, BaseException)][:5]
        return out

    try:
        results.put(uvloop.run(main()))
    except BaseException as exc:  # always report, so the parent never waits forever
        failed = empty_result()
        failed["failed"] = [f"load process failed: {exc!r}"]
        ready.put(0)
        results.put(failed)
