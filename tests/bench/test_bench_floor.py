"""The floor that ``bench/move_cost.py --floor`` measures beside the server writes, for an
action, the frames the server writes: the ack and the mover's delta with the change of its
legal moves in one write, a ``progress`` to each rival, a ``delta`` to each spectator. Were
it to write fewer or smaller ones, the ratio the bench prints would flatter the floor."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import ClientConnection, connect

from protocol.models import Ack, DeltaMsg, Progress, parse_server
from tests import ROOT
from tests.helpers.serverproc import free_port


@pytest.fixture
def floor_url() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "fanout_floor.py"), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60  # it solves one deal before it listens
        while True:
            assert proc.poll() is None, "the floor exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the floor did not listen in time"
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def said(ws: ClientConnection) -> str:
    return str(await asyncio.wait_for(ws.recv(), 5))


async def test_an_action_makes_the_servers_frames(floor_url: str) -> None:
    url = f"ws://{floor_url}/ws"
    racers = [await connect(url) for _ in range(4)]
    watcher = await connect(url)
    try:
        for ws in [*racers, watcher]:
            await ws.send(json.dumps({"type": "hello", "name": "x"}))
            assert json.loads(await said(ws))["type"] == "welcome"
        host, mover = racers[0], racers[1]
        await host.send(json.dumps({"type": "create_room", "code": "SH1-C4-AAAAAJ2"}))
        room = json.loads(await said(host))["room_id"]
        for ws in racers[1:]:
            await ws.send(json.dumps({"type": "join", "room": room, "role": "player"}))
            await said(ws)
        await watcher.send(json.dumps({"type": "join", "room": room, "role": "spectator"}))
        await said(watcher)
        await host.send(json.dumps({"type": "start"}))
        for ws in [*racers, watcher]:
            assert json.loads(await said(ws))["type"] == "started"

        await mover.send(json.dumps({"type": "move", "id": 7, "src": "col1", "dst": "cell1"}))
        ack = parse_server(await said(mover))
        own = parse_server(await said(mover))
        assert isinstance(ack, Ack) and ack.id == 7
        assert isinstance(own, DeltaMsg) and own.legal_change is not None and own.seq == ack.seq
        for rival in (racers[0], racers[2], racers[3]):
            progress = parse_server(await said(rival))
            assert isinstance(progress, Progress) and progress.seq == ack.seq
        seen = parse_server(await said(watcher))
        assert isinstance(seen, DeltaMsg) and seen.legal_change is None and seen.seq == ack.seq
        with urllib.request.urlopen(f"http://{floor_url}/metrics", timeout=5) as res:
            assert res.read().decode().split() == ["seahaven_move_latency_seconds_count", "1"]
    finally:
        for ws in [*racers, watcher]:
            await ws.close()
