"""Rating abuse benchmark: what each rating abuse can buy, against a real server.

Starts one real ``seahaven serve`` of this checkout (on ``--redis-url``, default the
machine's Redis, under a key prefix of the run's own; 127.0.0.1 trusted as a proxy so that
each simulated client names its own address in ``X-Forwarded-For``), then tries each abuse
as a cheater would, a bounded number of times, and prints what it bought:

1. farming: two identities of one address race a public room and give up at once,
   ``--rounds`` times: the rating the first one gains, and whether it is on
   ``/api/ratings``;
2. win-trading: two identities of one address queue for the quick race (paired or not
   within 3 s), and two identities of two addresses trade wins in rated invite rooms
   ``--rounds`` times (the loser plays 10 actions first): the ratings both gain;
3. hostage: a racer finishes, the other stays connected and idle: whether ``race_over``
   comes within 12 s, and the winner's rating change by then;
4. dodging: the queue penalty after one dodge (s);
5. look-alike names: how many of ten of the issue's names the server accepts;
6. spam: public lobbies one identity (and one address) can open in a row, and whether a
   running race stays first on ``/api/rooms/live`` after 60 lobbies;
7. spectators: how many of 12 sockets of one identity join one room whose cap is 5;
8. proxies: how many of 150 new players a process on this machine makes by naming other
   addresses in ``X-Forwarded-For`` (a server with the default ``trusted_proxies``);
9. a lab: how many of 60 new players from one address are welcomed (default limits).

Every scenario is bounded (timeouts of a few seconds); the whole run takes about a minute.
Run from a checkout: ``.venv/bin/python bench/rating_abuse.py``; to measure another
checkout (say main, before this change), copy this file into its ``bench/`` and run it
there with this checkout's Python. Figures are printed one line per abuse.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.engine import Board, Move, parse_action  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from tests.helpers.serverproc import REVIEW_OFF, ServerProc, redis_url, start_server  # noqa: E402

#: Serve flags every run uses: scripted clients, whose finishes the review would hold (it
#: is off here: what a rating rule refuses is measured, not what the review holds).
BASE = [
    *("--countdown-ms", "200", "--rate", "500", "--burst", "500"),
    *("--board-rate-per-s", "500", "--board-burst", "500"),
    *REVIEW_OFF,
    *("--pair-fourth-ms", "500", "--bot-offer-ms", "60000"),
]
PROXY = ["--trusted-proxy", "127.0.0.1/32"]
_next = 0


class Client:
    """One identity on one socket, behind ``address``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pid = ""
        self.token = ""
        self.inbox: list[dict[str, Any]] = []

    @classmethod
    async def open(
        cls, url: str, name: str | None, address: str | None = None, token: str | None = None
    ) -> Client:
        global _next
        _next += 1
        address = address or f"198.18.{_next // 250 % 250}.{_next % 250 + 1}"
        ws = await connect(url, additional_headers={"X-Forwarded-For": address})
        client = cls(ws)
        if name is not None:
            hello: dict[str, Any] = {"type": "hello", "name": name}
            if token:
                hello["token"] = token
            await client.send(hello)
            welcome = await client.expect("welcome", "error")
            client.pid = str(welcome.get("player_id", ""))
            client.token = str(welcome.get("token", ""))
        return client

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def expect(self, *kinds: str, timeout: float = 5.0) -> dict[str, Any]:
        """The first message of one of ``kinds`` (earlier ones kept), or {} on timeout."""
        for i, msg in enumerate(self.inbox):
            if msg["type"] in kinds:
                return self.inbox.pop(i)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                raw = await asyncio.wait_for(self.ws.recv(), left)
            except (TimeoutError, Exception):
                return {}
            msg = json.loads(raw)
            if msg["type"] in kinds:
                return dict(msg)
            self.inbox.append(msg)
        return {}

    async def close(self) -> None:
        await self.ws.close()


async def play(client: Client, code: str, n: int | None = None) -> None:
    """The first ``n`` actions of the solver's line (all: to the win)."""
    line = solve(Board.from_code(code), timeout=20).moves
    for i, text in enumerate(line[:n] if n is not None else line):
        parsed = parse_action(text)
        assert isinstance(parsed, Move)
        await client.send({"type": "move", "id": i, "src": str(parsed.src), "dst": str(parsed.dst)})
        await client.expect("ack", "reject")


def rating(r: redis.Redis, prefix: str, pid: str, cells: int = 4) -> int:
    """A player's shown rating of ``cells`` (1000 if never rated)."""
    value = r.hget(f"{prefix}rating:{{{pid}}}:{cells}", "rating")
    return int(value) if value is not None else 1000


async def race(
    url: str, host: Client, guest: Client, public: bool, winner: Client | None, loser_moves: int
) -> None:
    """``host`` and ``guest`` race one room; ``winner`` wins (None: nobody), the other
    plays ``loser_moves`` actions and gives up."""
    await host.send({"type": "create_room", "cells": 4, "public": public})
    snap = await host.expect("snapshot", "error")
    if snap.get("type") != "snapshot":
        return
    await guest.send({"type": "join", "room": snap["room_id"], "role": "player"})
    await guest.expect("snapshot")
    if not public:
        await host.send({"type": "rated", "rated": True})
        await guest.expect("room")
    await host.send({"type": "start"})
    code = str((await guest.expect("started"))["code"])
    await host.expect("started")
    losers = [c for c in (host, guest) if c is not winner]
    for c in losers:
        if loser_moves:
            await play(c, code, loser_moves)
    if winner is not None:
        await play(winner, code)
    for c in losers:
        await c.send({"type": "give_up"})
    await host.expect("race_over", timeout=5)
    await asyncio.sleep(0.4)  # each player's update is applied after the event
    for c in (host, guest):
        await c.send({"type": "leave"})
        await c.expect("left")


async def farming(url: str, r: redis.Redis, prefix: str, srv: ServerProc, rounds: int) -> str:
    ann = await Client.open(url, "Ann", "203.0.113.1")
    bob = await Client.open(url, "Bob", "203.0.113.1")
    for _ in range(rounds):
        await race(url, ann, bob, True, None, 0)
    _status, top = srv.get_json("/api/ratings?cells=4&limit=10")
    listed = ann.pid in json.dumps(top)
    gain = rating(r, prefix, ann.pid) - 1000
    return f"{gain:+d} rating after {rounds} give-up ties, on /api/ratings: {listed}"


async def trading(url: str, r: redis.Redis, prefix: str, rounds: int) -> str:
    q1 = await Client.open(url, "Q1", "203.0.113.2")
    q2 = await Client.open(url, "Q2", "203.0.113.2")
    for c in (q1, q2):
        await c.send({"type": "queue", "cells": 2})
    paired = bool(await q1.expect("snapshot", timeout=3))
    for c in (q1, q2):
        await c.close()
    ann = await Client.open(url, "Ann")
    bob = await Client.open(url, "Bob")
    for i in range(rounds):
        winner = ann if i % 2 == 0 else bob
        await race(url, ann, bob, False, winner, 10)
    a, b = rating(r, prefix, ann.pid) - 1000, rating(r, prefix, bob.pid) - 1000
    return (
        f"one address paired by the quick race: {paired}; {rounds} traded wins (two "
        f"addresses) buy A {a:+d}, B {b:+d} (together {a + b:+d})"
    )


async def hostage(url: str, r: redis.Redis, prefix: str) -> str:
    ann = await Client.open(url, "Ann")
    bob = await Client.open(url, "Bob")
    await ann.send({"type": "create_room", "cells": 4, "public": True})
    room = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "start"})
    code = (await bob.expect("started"))["code"]
    await ann.expect("started")
    await play(bob, code, 12)
    await play(ann, code)
    began = time.monotonic()
    over = False
    while time.monotonic() - began < 12 and not over:
        await bob.send({"type": "ping"})
        over = bool(await ann.expect("race_over", timeout=1))
    waited = time.monotonic() - began
    await asyncio.sleep(0.5)
    gain = rating(r, prefix, ann.pid) - 1000
    end = f"race_over after {waited:.1f} s" if over else "no race_over within 12 s"
    return f"{end}; the winner's change by then {gain:+d}"


async def dodging(url: str) -> str:
    dodger = await Client.open(url, "Dodger")
    others = [await Client.open(url, f"O{n}") for n in range(3)]
    for c in (dodger, *others):
        await c.send({"type": "queue", "cells": 1})
        await c.expect("queued")
    await dodger.expect("snapshot", timeout=8)
    await dodger.send({"type": "leave"})
    await dodger.expect("left")
    await asyncio.sleep(0.5)
    await dodger.send({"type": "queue", "cells": 1})
    queued = await dodger.expect("queued")
    return f"held back {queued.get('penalty_s')} s after the first dodge"


NAMES = (
    "\u0405\u0440\u0435\u0435d\u04433",
    "\uff33\uff50\uff45\uff45\uff44\uff59",
    "\U0001d412\U0001d429\U0001d41e\U0001d41e\U0001d41d\U0001d432",
    "Speedy3\u00b7c68b",
    "\u3164",
    "\u2800",
    "\uffa0",
    "\ufdfd" * 24,
    "Z" + "\u0301\u0316\u0327" * 7 + "a",
    "Ann\u00a0Lee",
)


async def names(url: str) -> str:
    accepted = 0
    for name in NAMES:
        c = await Client.open(url, None)
        await c.send({"type": "hello", "name": name})
        accepted += (await c.expect("welcome", "error")).get("type") == "welcome"
        await c.close()
    return f"{accepted} of {len(NAMES)} look-alike or blank names accepted"


async def spam(url: str, srv: ServerProc) -> str:
    ann = await Client.open(url, "Ann", "203.0.113.9")
    made = 0
    for _ in range(10):  # one identity: create, leave, create ...
        await ann.send({"type": "create_room", "public": True})
        if (await ann.expect("snapshot", "error")).get("type") == "snapshot":
            made += 1
            await ann.send({"type": "leave"})
            await ann.expect("left")
    others = 0
    for n in range(10):  # more identities of the same address, each one lobby
        c = await Client.open(url, f"S{n}", "203.0.113.9")
        await c.send({"type": "create_room", "public": True})
        others += (await c.expect("snapshot", "error")).get("type") == "snapshot"
    a = await Client.open(url, "RaceA")
    b = await Client.open(url, "RaceB")
    await a.send({"type": "create_room", "public": True})
    room = (await a.expect("snapshot"))["room_id"]
    await b.send({"type": "join", "room": room, "role": "player"})
    await b.expect("snapshot")
    await a.send({"type": "start"})
    await a.expect("started")
    for n in range(60):  # a lobby each from 60 addresses
        c = await Client.open(url, f"L{n}")
        await c.send({"type": "create_room", "public": True})
        await c.expect("snapshot", "error")
    await asyncio.sleep(1.1)
    _status, live = srv.get_json("/api/rooms/live?limit=20")
    first = bool(live["rooms"]) and live["rooms"][0]["room_id"] == room
    listed = room in json.dumps(live["rooms"])
    return (
        f"one socket opened {made} of 10 public lobbies (create, leave, create), its address "
        f"{made + others} of 20; after 60 lobbies the running race is listed: {listed}, "
        f"first: {first}"
    )


async def spectators(url: str) -> str:
    host = await Client.open(url, "Host")
    await host.send({"type": "create_room"})
    room = (await host.expect("snapshot"))["room_id"]
    sam = await Client.open(url, "Sam")
    tabs = [sam] + [await Client.open(url, "Sam", token=sam.token) for _ in range(11)]
    joined = 0
    for tab in tabs:
        await tab.send({"type": "join", "room": room, "role": "spectator"})
        joined += (await tab.expect("snapshot", "error")).get("type") == "snapshot"
    return f"{joined} of 12 spectator sockets of one identity joined (cap 5)"


async def identities(url: str, forged: bool, n: int) -> int:
    """How many of ``n`` new players one address makes (each naming another address in
    X-Forwarded-For when ``forged``)."""
    welcomed = 0
    for i in range(n):
        address = f"192.0.2.{i % 250 + 1}" if forged else "192.0.2.200"
        ws = await connect(url, additional_headers={"X-Forwarded-For": address})
        await ws.send(json.dumps({"type": "hello", "name": f"N{i}"}))
        welcomed += json.loads(await ws.recv())["type"] == "welcome"
        await ws.close()
    return welcomed


def server(prefix: str, args: Sequence[str]) -> ServerProc:
    return start_server(redis_url(), args=[*BASE, *args], env={"SEAHAVEN_KEY_PREFIX": prefix})


def drop(r: redis.Redis, prefix: str) -> None:
    for key in r.scan_iter(match=f"{prefix}*", count=1000):
        r.delete(key)


async def run(rounds: int, extra: list[str]) -> None:
    r = redis.Redis.from_url(redis_url(), decode_responses=True)
    prefix = f"abuse-{secrets.token_hex(4)}:"
    many = ["--identities-per-address", "100000", "--sockets-per-address", "1000"]
    srv = server(prefix, [*PROXY, *many, "--spectators-per-room", "5", *extra])
    try:
        url = srv.ws_url
        print("1. farming:", await farming(url, r, prefix, srv, rounds))
        print("2. win-trading:", await trading(url, r, prefix, rounds))
        print("3. hostage:", await hostage(url, r, prefix))
        print("4. dodging:", await dodging(url))
        print("5. names:", await names(url))
        print("6. spam:", await spam(url, srv))
        print("7. spectators:", await spectators(url))
    finally:
        srv.stop()
    plain = server(prefix, [])  # the default limits and trusted proxies
    try:
        forged = await identities(plain.ws_url, True, 150)
        print(f"8. proxies: {forged} of 150 new players made with forged X-Forwarded-For")
    finally:
        plain.stop()
    lab = server(prefix, [])
    try:
        pupils = await identities(lab.ws_url, False, 60)
        print(f"9. a lab: {pupils} of 60 new players from one address welcomed")
    finally:
        lab.stop()
        drop(r, prefix)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="races per farming scenario")
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="one more flag for the main server (repeat; e.g. --serve-arg=--race-limit-"
        "after-finish-s=5, which an older checkout does not know)",
    )
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.serve_arg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
