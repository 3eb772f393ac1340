"""Bytes a move puts on Redis pub/sub: what every instance with a socket in the room reads
for each move, so what the fan-out between instances costs, move by move.

Starts a private ``redis-server`` (no persistence) and ``seahaven serve`` from a source
tree (``--tree``, default this one; give a worktree of another commit to compare) on it;
``--instances 2`` starts a second server on the same Redis, where the mover has a second
socket of their own (the one case where a move's legal moves must cross instances). A
``redis-py`` client subscribes to every channel (``PSUBSCRIBE *``: it counts whatever the
scripts publish, on any channel, and is not itself a subscriber of any room's channel).
Then ``--rooms`` races, one after the other, each of two racers and a spectator on the
same deal: the racers take turns playing the solver's line, ``--moves`` actions in all,
each waited for (its ``ack``, then its event on the room's channel), and the bytes
published for each action (channel name and message, each message as a subscriber reads
it) are counted. Prints the median, mean and total bytes per move. Beside them, the bytes
the room's sockets read for a move (websocket payloads, UTF-8), by kind: the mover's ``ack``
and own ``delta`` (with its legal moves), a rival's ``progress`` and a spectator's
``delta``; and what a room of four racers and a spectator reads for a move from them.

Run: ``.venv/bin/python bench/pubsub_bytes.py [--tree DIR] [--instances 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from server.clients.bot import action_message  # noqa: E402
from server.engine import Board  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from tests.helpers.serverproc import QUICK, free_port  # noqa: E402

#: Seconds without a message after which a move counts as not published.
QUIET_S = 0.3

#: The deals raced, one a room: four of the certified 4-cell pool (``draw`` seeded 2026).
CODES = ("SH1-C4-AAAABBK", "SH1-C4-AAAACYC", "SH1-C4-AAAAEKR", "SH1-C4-AAAAENC")


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until the server answers ``/healthz``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as res:
                if res.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("server not healthy in time")


class Client:
    """A bare protocol client: sends JSON, keeps every message it reads."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.inbox: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read())
        self.player_id = ""
        self.token = ""
        #: Payload bytes read since ``started``, by message type (own deltas apart).
        self.counting = False
        self.bytes: dict[str, list[int]] = {}

    @classmethod
    async def open(cls, url: str, hello: dict[str, Any]) -> Client:
        client = cls(await connect(url, max_size=None))
        await client.send(hello)
        welcome = await client.expect("welcome")
        client.player_id, client.token = welcome["player_id"], welcome["token"]
        return client

    async def _read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            self.inbox.append(msg)
            if self.counting:
                kind = str(msg.get("type"))
                kind = "own delta" if kind == "delta" and "legal_change" in msg else kind
                size = len(raw) if isinstance(raw, bytes) else len(raw.encode())
                self.bytes.setdefault(kind, []).append(size)
            self.arrived.set()

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def expect(self, kind: str, **match: Any) -> dict[str, Any]:
        """The first message of ``kind`` matching ``match`` (taken out of the inbox)."""
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            for i, msg in enumerate(self.inbox):
                if msg.get("type") == kind and all(msg.get(k) == v for k, v in match.items()):
                    return self.inbox.pop(i)
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise RuntimeError(f"no {kind} {match}: {self.inbox[-5:]}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


class Listener:
    """Every message published on any channel, as a subscriber reads it."""

    def __init__(self, url: str) -> None:
        self.redis = aioredis.Redis.from_url(url)
        self.pubsub = self.redis.pubsub()
        self.seen: list[tuple[bytes, bytes]] = []

    async def start(self) -> None:
        await self.pubsub.psubscribe("*")
        while await self.pubsub.get_message(timeout=1.0) is None:  # the confirmation
            pass

    async def until_seq(self, seq: int) -> int:
        """Read until the event stamped ``seq`` went by, or nothing came for a while (a move
        that only the mover's instance follows is not published); the bytes read since the
        last call (channel names and messages)."""
        mark = f'{{"seq":{seq},'.encode()
        total = 0
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            msg = await self.pubsub.get_message(timeout=QUIET_S)
            if msg is None:
                return total
            if msg["type"] != "pmessage":
                continue
            channel, data = msg["channel"], msg["data"]
            self.seen.append((channel, data))
            total += len(channel) + len(data)
            if mark in data and channel.endswith(b":ch"):
                return total
        raise RuntimeError(f"the event of seq {seq} was not published")

    async def close(self) -> None:
        await self.pubsub.aclose()
        await self.redis.aclose()


async def race(urls: list[str], redis_url: str, code: str, moves: int) -> list[int]:
    """One room: two racers (and, with two instances, a second socket of the first on the
    other one) and a spectator; the racers play the solver's line by turns. The bytes
    published for each action."""
    first, other = urls[0], urls[-1]
    ann = await Client.open(first, {"type": "hello", "name": "Ann"})
    await ann.send({"type": "create_room", "code": code})
    room = (await ann.expect("snapshot"))["room_id"]
    bob = await Client.open(first, {"type": "hello", "name": "Bob"})
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    sam = await Client.open(other, {"type": "hello", "name": "Sam"})
    await sam.send({"type": "join", "room": room, "role": "spectator"})
    await sam.expect("snapshot")
    tabs = []
    if len(urls) > 1:  # Ann's second tab, on the other instance
        tab = await Client.open(other, {"type": "hello", "name": "Ann", "token": ann.token})
        await tab.send({"type": "join", "room": room, "role": "player"})
        await tab.expect("snapshot")
        tabs.append(tab)
    await ann.expect("room", spectators=1)
    listener = Listener(redis_url)
    await listener.start()
    await ann.send({"type": "start"})
    await ann.expect("started")
    await bob.expect("started")
    await sam.expect("started")
    for c in (ann, bob, sam):
        c.counting = True
    line = solve(Board.from_code(code)).moves
    out = []
    count = {ann.player_id: 0, bob.player_id: 0}
    for action in line:  # both racers play the same line, an action each by turns
        for who in (ann, bob):
            count[who.player_id] += 1
            n = count[who.player_id]
            await who.send(action_message(action, n))
            ack = await who.expect("ack", id=n)
            out.append(await listener.until_seq(int(ack["seq"])))
        if len(out) >= moves:
            break
    for tab in tabs:  # the second tab had each of Ann's deltas with her legal moves' change
        got = [m for m in tab.inbox if m.get("type") == "delta"]
        if not got or any("legal_change" not in m for m in got):
            raise RuntimeError("Ann's second tab missed her legal moves")
    await listener.close()
    await asyncio.sleep(0.2)  # the last move's events to the rival and the spectator
    for c in (ann, bob, sam):
        for kind, sizes in c.bytes.items():
            if kind != "delta" or c is sam:  # a spectator's delta; a racer's own apart
                SOCKET_BYTES.setdefault(kind, []).extend(sizes)
    for c in (ann, bob, sam, *tabs):
        await c.close()
    return out


#: The payload bytes the room's sockets read, by kind, over every room raced.
SOCKET_BYTES: dict[str, list[int]] = {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the source tree to serve")
    parser.add_argument("--rooms", type=int, default=4, help="rooms raced, one after the other")
    parser.add_argument("--moves", type=int, default=60, help="actions a room (both racers)")
    parser.add_argument("--instances", type=int, default=1, choices=(1, 2))
    args = parser.parse_args()
    tree = args.tree.resolve()
    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    redis = subprocess.Popen(
        ["redis-server", *("--port", str(redis_port), "--bind", "127.0.0.1"), "--save", ""],
        stdout=subprocess.DEVNULL,
    )
    env = {**os.environ, "PYTHONPATH": str(tree), "SEAHAVEN_SOLVER_POLICY": "normal"}
    env["SEAHAVEN_DAILY_SECRET"] = "bench-" + "0" * 26
    servers, urls = [], []
    logs = Path(tempfile.mkdtemp(prefix="pubsub-bytes-"))
    try:
        for k in range(args.instances):
            port = free_port()
            flags = [
                *("--host", "127.0.0.1", "--port", str(port), "--redis-url", redis_url),
                *("--countdown-ms", "300", *QUICK),
            ]
            with (logs / f"server-{k}.log").open("wb") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "server.cli", "serve", *flags],
                    cwd=tree,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            servers.append(proc)
            wait_healthy(f"http://127.0.0.1:{port}", proc)
            urls.append(f"ws://127.0.0.1:{port}/ws")
        per_move: list[int] = []
        for i in range(args.rooms):
            per_move += asyncio.run(race(urls, redis_url, CODES[i % len(CODES)], args.moves))
    finally:
        for proc in servers:
            proc.terminate()
            proc.wait(10)
        redis.terminate()
        redis.wait(10)
    print(f"tree {tree}: {args.instances} instance(s), {args.rooms} rooms, {len(per_move)} moves")
    print(
        f"pub/sub bytes per move: median {statistics.median(per_move):.0f}, mean "
        f"{statistics.mean(per_move):.0f}, total {sum(per_move)}"
    )
    mean = {kind: statistics.mean(sizes) for kind, sizes in SOCKET_BYTES.items() if sizes}
    for kind in sorted(mean):
        print(f"  socket bytes a {kind}: mean {mean[kind]:.0f} ({len(SOCKET_BYTES[kind])})")
    if {"ack", "own delta", "progress", "delta"} <= mean.keys():
        room = mean["ack"] + mean["own delta"] + 3 * mean["progress"] + mean["delta"]
        print(f"socket bytes to a room of 4 racers and a spectator per move: {room:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
