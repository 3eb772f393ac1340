"""The floor of the race benchmark: a bare ``websockets`` echo server, idle and under the
same pattern of connections as the racers (each sending once a second)."""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import random
import time

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from tests.helpers.serverproc import free_port

# -- the echo floor -------------------------------------------------------------------------


def echo_server(port: int) -> None:
    """A bare websockets echo server (run in its own process)."""

    async def echo(ws: ServerConnection) -> None:
        async for msg in ws:
            await ws.send(msg)

    async def main() -> None:
        async with serve(echo, "127.0.0.1", port, compression=None, ping_interval=None):
            await asyncio.Future()

    asyncio.run(main())


async def echo_idle(url: str, rounds: int = 2000) -> list[float]:
    """Round trips of one client on an idle echo server."""
    async with connect(url, compression=None) as ws:
        times = []
        payload = json.dumps({"type": "move", "id": 1, "src": "col1", "dst": "found"})
        for _ in range(rounds):
            t = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            times.append(time.perf_counter() - t)
        return times


def echo_worker(url: str, conns: int, seconds: float, queue: mp.Queue[list[float]]) -> None:
    """``conns`` echo clients, each sending once a second (the same pattern as racers)."""

    async def client(out: list[float]) -> None:
        async with connect(url, compression=None, ping_interval=None, open_timeout=60) as ws:
            await asyncio.sleep(random.random())
            end = time.perf_counter() + seconds
            payload = json.dumps({"type": "move", "id": 1, "src": "col1", "dst": "found"})
            while time.perf_counter() < end:
                t = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                out.append(time.perf_counter() - t)
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - t)))

    async def main() -> list[float]:
        out: list[float] = []
        await asyncio.gather(*(client(out) for _ in range(conns)), return_exceptions=True)
        return out

    queue.put(asyncio.run(main()))


def measure_echo(racers: int, procs: int, seconds: float) -> tuple[list[float], list[float]]:
    """Round trips of the echo server: idle, and under ``racers`` connections (spread over
    ``procs`` load processes) each sending once a second for ``seconds``."""
    port = free_port()
    proc = mp.Process(target=echo_server, args=(port,), daemon=True)
    proc.start()
    url = f"ws://127.0.0.1:{port}/ws"
    time.sleep(0.5)
    idle = asyncio.run(echo_idle(url))
    queue: mp.Queue[list[float]] = mp.Queue()
    clients = [
        mp.Process(target=echo_worker, args=(url, racers // procs, seconds, queue))
        for _ in range(procs)
    ]
    for p in clients:
        p.start()
    loaded: list[float] = []
    for _ in clients:
        loaded.extend(queue.get())
    for p in clients:
        p.join()
    proc.terminate()
    proc.join()
    return idle, loaded
