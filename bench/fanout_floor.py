"""The floor under a move's CPU: a bare ``websockets`` server that does only the I/O of a
race, for ``bench/move_cost.py --floor`` to measure beside the real server.

It speaks just enough of the protocol for the race load of ``bench/race_clients.py``
(``hello``, ``create_room``, ``join``, ``start``, and the actions), keeps its rooms in
memory and checks nothing: no validation, no engine, no Redis, no pub/sub. Each action is
answered as the real server answers it, with the same frames of the same sizes (made once,
at start, by :mod:`server.net.wire` from a real board in mid-game): the ack and the mover's
delta with the change of its legal moves in one write, the ``progress`` to each rival, the
``delta`` to each spectator. What a move costs here is what ``websockets`` on this event
loop and the kernel's loopback cost for the frames a move makes: the part of the server's
CPU per move that no change inside the server can take away.

Run by the bench: ``python bench/fanout_floor.py --port PORT``; ``GET /metrics`` counts
the actions answered (as the server's ``seahaven_move_latency_seconds_count``), and
``GET /healthz`` answers once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import sys
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from bench.race_clients import line_of
from server.engine import Board, parse_action
from server.net import wire
from server.net.session import frame  # the server's own framing, cached as there
from server.pools import draw


@dataclass
class Bodies:
    """The bodies a move sends (without their seq), taken from a real board in mid-game."""

    own: str  # the mover's delta with the change of its legal moves
    delta: str  # a spectator's delta
    progress: str  # a rival's progress

    @classmethod
    def made(cls) -> Bodies:
        code = draw(4).code
        board = Board.from_code(code)
        line = line_of(code)
        delta = None
        text = ""
        before = wire.legal_view(board)
        for text in line[: max(1, len(line) // 3)]:  # a third of the way: a busy table
            before = wire.legal_view(board)
            delta = board.play(parse_action(text))
        assert delta is not None, "the solver found no line"
        pid = "p" * 22  # the length of a player id
        body = wire.delta_body(pid, 1, text, delta, board, 61_234)
        return cls(
            own=wire.own_view(body, wire.legal_change(before, wire.legal_view(board))),
            delta=body,
            progress=wire.progress_body(pid, 1, board),
        )


@dataclass
class Room:
    racers: list[ServerConnection] = field(default_factory=list)
    spectators: list[ServerConnection] = field(default_factory=list)
    seq: int = 0
    code: str = ""


class Floor:
    """The rooms, and the count of actions answered."""

    def __init__(self, bodies: Bodies) -> None:
        self.bodies = bodies
        self.rooms: dict[str, Room] = {}
        self.names = (f"room{n}" for n in itertools.count())
        self.actions = 0

    def snapshot(self, room_id: str) -> str:
        return orjson.dumps({"type": "snapshot", "room_id": room_id}).decode()

    async def connection(self, ws: ServerConnection) -> None:
        room: Room | None = None
        racer = False
        async for raw in ws:
            msg: dict[str, Any] = orjson.loads(raw)
            kind = msg.get("type")
            if kind in ("move", "tap", "double_tap", "undo", "send_home") and room is not None:
                self.action(ws, room, int(msg["id"]))
            elif kind == "hello":
                await ws.send('{"type":"welcome","player_id":"p","token":"t","name":"n"}')
            elif kind == "create_room":
                room_id = next(self.names)
                room = self.rooms[room_id] = Room(code=str(msg.get("code", "")))
                room.racers.append(ws)
                racer = True
                await ws.send(self.snapshot(room_id))
            elif kind == "join":
                room = self.rooms[msg["room"]]
                racer = msg.get("role") == "player"
                (room.racers if racer else room.spectators).append(ws)
                await ws.send(self.snapshot(msg["room"]))
            elif kind == "start" and room is not None:
                room.seq += 1
                started = f'{{"seq":{room.seq},"type":"started","code":"{room.code}"}}'
                data = frame(started)
                for conn in (*room.racers, *room.spectators):
                    conn.transport.write(data)
        if room is not None:
            (room.racers if racer else room.spectators).remove(ws)

    def action(self, mover: ServerConnection, room: Room, action_id: int) -> None:
        """What the real server writes for an accepted action, and nothing else."""
        room.seq += 1
        seq = room.seq
        head = f'{{"seq":{seq},'
        ack = f'{{"type":"ack","id":{action_id},"seq":{seq}}}'
        mover.transport.write(frame(ack) + frame(head + self.bodies.own))
        progress = frame(head + self.bodies.progress)
        delta = frame(head + self.bodies.delta)
        for conn in room.racers:
            if conn is not mover:
                conn.transport.write(progress)
        for conn in room.spectators:
            conn.transport.write(delta)
        self.actions += 1

    def process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        if request.path == "/healthz":
            return ws.respond(HTTPStatus.OK, "ok\n")
        if request.path == "/metrics":
            count = f"seahaven_move_latency_seconds_count {self.actions}\n"
            return ws.respond(HTTPStatus.OK, count)
        return None


async def main(port: int) -> None:
    floor = Floor(Bodies.made())
    gc.collect()
    gc.freeze()  # as the server does once it has loaded
    gc.set_threshold(50_000, 50, 100)
    async with serve(
        floor.connection,
        "127.0.0.1",
        port,
        process_request=floor.process_request,
        max_size=64 * 1024,
        ping_interval=20,
        ping_timeout=20,
        compression=None,
    ):
        await asyncio.Future()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(main(args.port))
    else:
        asyncio.run(main(args.port))
