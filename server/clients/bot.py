"""A bot racer: joins (or creates) a room, waits for the start and plays a solver line.

Used by ``seahaven bot``, by the tests and by anyone who wants an opponent. It speaks only
the public protocol over a websocket, like any other client.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from ..engine import Board, DoubleTap, Move, Tap, Undo, parse_action
from ..engine.solver import solve


@dataclass
class BotResult:
    """How the bot's race went."""

    room: str = ""
    player_id: str = ""
    finished: bool = False
    gave_up: bool = False
    time_ms: int | None = None
    rank: int | None = None
    moves: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)


def action_message(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of an action in RULES.md notation."""
    action = parse_action(text)
    if isinstance(action, Move):
        return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}
    if isinstance(action, Tap):
        return {"type": "tap", "id": action_id, "at": str(action.at)}
    if isinstance(action, DoubleTap):
        return {"type": "double_tap", "id": action_id, "at": str(action.at)}
    assert isinstance(action, Undo)
    return {"type": "undo", "id": action_id}


def plan(board: Board, timeout: float = 20.0) -> tuple[str, ...]:
    """A winning line from the solver, or () if it finds none in time."""
    result = solve(board, timeout=timeout)
    return result.moves if result.result == "solved" else ()


class Bot:
    """One bot connection.

    Args:
        url: the server's websocket URL (``ws://host:port/ws``).
        name: the name shown to the others.
        speed: actions per second.
        say: where the running commentary goes (``print`` by default; None for silence).
        token: the token of an identity to race as (a new one without).
    """

    def __init__(
        self,
        url: str,
        name: str = "bot",
        speed: float = 2.0,
        say: Callable[[str], None] | None = print,
        token: str | None = None,
    ) -> None:
        self.url = url
        self.token = token
        self.name = name
        self.speed = speed
        self.say = say or (lambda _text: None)
        self.ws: ClientConnection | None = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.result = BotResult()
        self.names: dict[str, str] = {}
        self.over = False

    async def _send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(msg))

    async def _reader(self) -> None:
        assert self.ws is not None
        async for raw in self.ws:
            await self.inbox.put(json.loads(raw))
        await self.inbox.put({"type": "_closed"})

    async def _next(self, *kinds: str) -> dict[str, Any]:
        """The next message of one of ``kinds``, commenting on others as they pass."""
        while True:
            msg = await self.inbox.get()
            kind = msg["type"]
            if kind == "_closed":
                raise ConnectionError("the server closed the connection")
            self._comment(msg)
            if kind in kinds:
                return msg
            if kind == "error" and "error" not in kinds:
                raise RuntimeError(f"server error {msg['code']}: {msg['message']}")

    def _comment(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "room":
            self.names.update({p["player_id"]: p["name"] for p in msg["players"]})
            racers = [p["name"] for p in msg["players"] if p["role"] == "player"]
            self.say(f"room {msg['room_id']} ({msg['state']}): racers {', '.join(racers)}")
        elif kind == "countdown":
            wait = (msg["starts_at"] - msg["now"]) / 1000
            self.say(f"countdown: the race starts in {wait:.1f} s")
        elif kind == "started":
            self.say(f"started: {msg['code']}, {len(msg['players'])} racers")
        elif kind == "finished":
            if msg["player_id"] == self.result.player_id:
                self.result.finished, self.result.time_ms = True, msg["time_ms"]
                self.result.rank = msg["rank"]
            who = self.names.get(msg["player_id"], msg["player_id"])
            self.say(
                f"{who} finished #{msg['rank']} in {msg['time_ms'] / 1000:.2f} s, "
                f"{msg['moves']} moves"
            )
        elif kind == "gave_up":
            self.say(f"{self.names.get(msg['player_id'], msg['player_id'])} gave up")
        elif kind == "race_over":
            self.over = True
            self.result.results = msg["results"]
            self.say("race over:")
            for r in msg["results"]:
                place = f"#{r['rank']}" if r["rank"] else "--"
                self.say(
                    f"  {place} {r['name']} {r['status']} {r['time_ms']} ms {r['moves']} moves"
                )

    async def run(
        self, room: str | None = None, cells: int = 4, start_at: int = 2, code: str | None = None
    ) -> BotResult:
        """Join ``room`` (or create one and start it once ``start_at`` racers are in), race.

        Raises:
            RuntimeError: the server refused something essential (it says what).
            ConnectionError: the connection dropped.
        """
        async with connect(self.url, max_size=2**20) as ws:
            self.ws = ws
            reader = asyncio.create_task(self._reader())
            try:
                return await self._race(room, cells, start_at, code)
            finally:
                reader.cancel()

    async def _race(
        self, room: str | None, cells: int, start_at: int, code: str | None
    ) -> BotResult:
        hello: dict[str, Any] = {"type": "hello", "name": self.name}
        if self.token:
            hello["token"] = self.token
        await self._send(hello)
        welcome = await self._next("welcome")
        me = self.result.player_id = welcome["player_id"]
        self.names[me] = self.name
        if room is None:
            create: dict[str, Any] = {"type": "create_room", "cells": cells}
            if code:
                create["code"] = code
            await self._send(create)
        else:
            await self._send({"type": "join", "room": room, "role": "player"})
        snap = await self._next("snapshot")
        self.result.room = snap["room_id"]
        deal = snap["code"] or "dealt at the start"  # the lobby hides a drawn deal
        self.say(f"in room {snap['room_id']} (invite {snap['room_id']}), deal {deal}")
        if room is None:
            racers = len(snap["players"])
            while racers < start_at:
                info = await self._next("room")
                racers = sum(1 for p in info["players"] if p["role"] == "player")
            await self._send({"type": "start"})
        started = await self._next("started")
        board = Board.from_json({**started["board"], "code": started["code"]})
        line = await asyncio.to_thread(plan, board.copy())
        if not line:
            self.say("the solver found no win in time; playing useful moves")
        await self._play(board, line)
        if not self.result.finished and not self.result.gave_up:
            self.result.gave_up = True
            await self._send({"type": "give_up"})
        while not self.over:
            await self._next("race_over")
        return self.result

    async def _play(self, board: Board, line: tuple[str, ...]) -> None:
        me = self.result.player_id
        pause = 1.0 / self.speed if self.speed > 0 else 0.0
        rng = random.Random(me)
        steps = iter(line) if line else None
        for action_id in range(1, 2000):
            if board.is_won():
                break
            if steps is not None:
                text = next(steps, None)
                if text is None:
                    break
            else:
                useful = board.useful_moves()
                if not useful or board.is_lost():
                    break
                text = str(rng.choice(useful))
            started = time.monotonic()
            await self._send(action_message(text, action_id))
            answer = await self._next("ack", "reject")
            if answer["type"] == "reject":
                self.say(f"refused {text}: {answer['reason']}")
                break
            board.play(parse_action(text))
            self.result.moves += 1
            if board.is_won():
                while not self.result.finished:
                    await self._next("finished")
                return
            await asyncio.sleep(max(0.0, pause - (time.monotonic() - started)))
