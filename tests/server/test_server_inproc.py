"""Edge cases that need the server in this process (real Redis, real websockets), so that a
test can hold a lock or the Redis pool at the exact instant that matters: late events of a
room just left, and moves while the shared Redis pool is exhausted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.server import ServerConnection, serve

from server.app import build_context, build_registry
from server.context import Context
from server.engine import Board
from server.http.server import HttpFront
from server.net.session import serve_connection
from server.rooms.membership import on_close
from server.settings import Settings
from tests.helpers.serverproc import WsClient, redis_url
from tests.helpers.waits import until


@dataclass
class InProc:
    """A server instance running on the test's event loop."""

    app: Context
    ws_url: str
    pool: aioredis.BlockingConnectionPool


@pytest.fixture
async def inproc() -> AsyncIterator[InProc]:
    # The server's kind of pool (see server.app.run), small and quick to give up.
    pool = aioredis.BlockingConnectionPool.from_url(
        redis_url(), decode_responses=True, max_connections=4, timeout=1
    )
    redis: Any = aioredis.Redis(connection_pool=pool)
    app = build_context(Settings(countdown_ms=200, rate_per_s=500, rate_burst=500), redis)
    registry = build_registry()
    front = HttpFront(app, registry)
    app.hub.start()

    async def handler(ws: ServerConnection) -> None:
        await serve_connection(app, ws, registry.ws, on_close)

    async with serve(handler, "127.0.0.1", 0, process_request=front.process_request) as server:
        port = server.sockets[0].getsockname()[1]
        yield InProc(app, f"ws://127.0.0.1:{port}/ws", pool)
    await app.hub.close()
    await app.store.aclose()
    app.metrics.close()
    await redis.aclose()
    await pool.aclose()


async def test_no_event_of_a_left_room_reaches_the_leaver(inproc: InProc) -> None:
    app = inproc.app
    ann = await WsClient.connect(inproc.ws_url, "ann")
    bob = await WsClient.connect(inproc.ws_url, "bob")
    spy = await WsClient.connect(inproc.ws_url, "spy")
    await ann.send({"type": "create_room", "code": "SH1-C4-AAAAAAB"})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await spy.send({"type": "join", "room": room, "role": "spectator"})
    await spy.expect("snapshot")
    await ann.send({"type": "start"})
    await ann.expect("started")
    await bob.expect("started")

    # Another socket's subscription is in progress (it holds the hub), so Bob's socket stays
    # in the room's fan-out set for a while after the server has taken him out of the room.
    async with app.hub._lock:
        await bob.send({"type": "leave"})
        await until(
            lambda: any(c.pid == bob.player_id and c.room is None for c in app.hub.rooms[room])
        )
        seen = len(bob.messages)
        move = Board.from_code("SH1-C4-AAAAAAB").useful_moves()[0]
        await ann.send({"type": "move", "id": 1, "src": str(move.src), "dst": str(move.dst)})
        await ann.expect("ack", id=1)
        await spy.expect("delta", player_id=ann.player_id)  # the reader has fanned it out
        await asyncio.sleep(0.05)
    await bob.expect("left", room_id=room)
    late = [msg for msg in bob.messages[seen:] if msg.get("player_id") == ann.player_id]
    assert late == [], f"an event of the room Bob left reached him: {late}"
    for c in (ann, bob, spy):
        await c.close()


async def test_moves_do_not_wait_for_the_shared_redis_pool(inproc: InProc) -> None:
    ann = await WsClient.connect(inproc.ws_url, "ann")
    await ann.send({"type": "solo", "code": "SH1-C4-AAAAAAB"})
    await ann.expect("snapshot")
    # Other traffic (sockets arriving, snapshots, a stall that piles commands up) holds
    # every connection of the shared pool for longer than its timeout.
    held = []
    while inproc.pool.can_get_connection():
        # redis-py leaves BlockingConnectionPool.get_connection unannotated.
        held.append(await inproc.pool.get_connection())  # type: ignore[no-untyped-call]
    try:
        board = Board.from_code("SH1-C4-AAAAAAB")
        for i in range(1, 4):
            move = board.useful_moves()[0]
            board.push(move)
            await ann.send({"type": "move", "id": i, "src": str(move.src), "dst": str(move.dst)})
            await ann.expect("ack", id=i, timeout=3)
        assert ann.find("error") is None
    finally:
        for conn in held:
            await inproc.pool.release(conn)
    await ann.close()


async def test_a_failed_entry_leaves_the_socket_free_to_join_again(inproc: InProc) -> None:
    app = inproc.app
    ann = await WsClient.connect(inproc.ws_url, "ann")
    bob = await WsClient.connect(inproc.ws_url, "bob")
    await ann.send({"type": "create_room", "code": "SH1-C4-AAAAAAC"})
    room = (await ann.expect("snapshot"))["room_id"]

    # Redis fails once while Bob's socket is being brought up to date in the room.
    real = app.store.read_room
    failures = [1]

    async def failing_snapshot(*args: Any, **kwargs: Any) -> Any:
        if failures:
            failures.pop()
            raise ConnectionError("Redis went away")
        return await real(*args, **kwargs)

    # A stand-in for one method of this store object, on purpose (mypy refuses any such
    # assignment).
    app.store.read_room = failing_snapshot  # type: ignore[method-assign]
    await bob.send({"type": "join", "room": room, "role": "spectator"})
    assert (await bob.expect("error"))["code"] in ("internal", "busy")
    # Not stuck half inside: the same join works now, and events reach Bob.
    await bob.send({"type": "join", "room": room, "role": "spectator"})
    assert (await bob.expect("snapshot"))["room_id"] == room
    await ann.send({"type": "start"})
    await ann.expect("started")
    await bob.expect("started")
    await ann.close()
    await bob.close()


async def test_a_stop_ends_background_work_that_outlives_one_cancellation(inproc: InProc) -> None:
    # A loop that outlives Redis outages catches a RedisError and sleeps on: a cancellation
    # that arrives while redis-py waits for a connection can come out as one. A stopping
    # server that cancelled once waited for such a loop for good (a worker of a killed
    # parent, seen under load).
    cancellations = 0

    async def outlives_outages() -> None:
        nonlocal cancellations
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancellations += 1
                if cancellations > 1:
                    raise
                # the first one, as the loop sees it: an error to retry after

    inproc.app.spawn(outlives_outages())
    await asyncio.sleep(0)  # it runs, up to its sleep
    await asyncio.wait_for(inproc.app.stop_tasks(), 10)
    assert cancellations == 2
    assert inproc.app.tasks == set()
