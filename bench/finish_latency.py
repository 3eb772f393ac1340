"""How soon a ranked daily's finisher knows: the time from the winning move to its ack, to
the player's own day saying "pending review" (``daily_pending``), and to the review's
decision (``daily_result``), through a real server.

Run: python bench/finish_latency.py [--finishes 20] [--gap-ms 60] [--redis redis://127.0.0.1:6379/0]

It starts ``seahaven serve`` on the given Redis under a fresh key prefix and daily secret,
with the server's default review and solver (``idle`` priority, one process), every player
established (``--provisional-games 0``) and each on an address of its own (the server
trusts 127.0.0.1 as a proxy). Then, one after another, ``--finishes`` fresh players start
today's ranked daily and play the solver's line ``--gap-ms`` apart (above the physical
floor of 50 ms an action); for each it times, from sending the last move:

- ``ack``: its acknowledgement;
- ``own day``: the first message that tells the player what the win counts for
  (``daily_pending``, or ``daily_result`` if that came first);
- ``decision``: ``daily_result`` (ranked, or held: a scripted line at a script's pace is
  usually held; a decision all the same).

It prints each finish and the p50 and p95 of the three. Keys are deleted at the end. Run
it beside ``python3 -c 'while 1: pass' &`` (twice) to see a host whose spare CPU is taken.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis as redis_sync
from websockets.asyncio.client import ClientConnection, connect

from server.engine import Board, Move, parse_action
from server.engine.solver import solve

ROOT = Path(__file__).resolve().parent.parent
#: The server's start (today's deals certified) may take this long at most, in seconds.
START_S = 180.0
#: One finish's decision may take this long at most, in seconds.
DECISION_S = 600.0


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/api/daily", timeout=2) as res:
            return int(res.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def next_of(ws: ClientConnection, kinds: set[str]) -> tuple[dict[str, Any], float]:
    """The next message of one of ``kinds`` and the monotonic time it came."""
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), DECISION_S))
        if msg.get("type") in kinds:
            return msg, time.monotonic()
        if msg.get("type") == "error":
            raise RuntimeError(f"server error: {msg}")


async def one_finish(
    url: str, n: int, gap_s: float, lines: dict[str, tuple[str, ...]]
) -> dict[str, Any]:
    """Play one ranked daily to a win; the times from its last move, in ms."""
    headers = {"X-Forwarded-For": f"198.18.{n // 250 % 250}.{n % 250 + 1}"}
    async with connect(url, additional_headers=headers, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"Bench{n}"}))
        await next_of(ws, {"welcome"})
        await ws.send(json.dumps({"type": "daily"}))
        snap, _ = await next_of(ws, {"snapshot"})
        code = str(snap["code"])
        if code not in lines:
            lines[code] = solve(Board.from_code(code), timeout=30).moves
        line = lines[code]
        for i, text in enumerate(line, start=1):
            action = parse_action(text)
            assert isinstance(action, Move)
            msg = {"type": "move", "id": i, "src": str(action.src), "dst": str(action.dst)}
            last = i == len(line)
            if not last:
                await ws.send(json.dumps(msg))
                await next_of(ws, {"ack"})
                await asyncio.sleep(gap_s)
                continue
            sent = time.monotonic()
            await ws.send(json.dumps(msg))
            _, acked = await next_of(ws, {"ack"})
            first, told = await next_of(ws, {"daily_pending", "daily_result"})
            result, decided = (
                (first, told)
                if first["type"] == "daily_result"
                else await next_of(ws, {"daily_result"})
            )
        return {
            "ack": (acked - sent) * 1000,
            "own": (told - sent) * 1000,
            "decision": (decided - sent) * 1000,
            "first": first["type"],
            "outcome": f"#{result['rank']}" if result["ranked"] else str(result["unranked_reason"]),
        }


async def run(base: str, finishes: int, gap_s: float) -> list[dict[str, Any]]:
    url = base.replace("http", "ws", 1) + "/ws"
    lines: dict[str, tuple[str, ...]] = {}
    out = []
    for n in range(finishes):
        t = await one_finish(url, n, gap_s, lines)
        out.append(t)
        print(
            f"finish {n + 1:3d}: ack {t['ack']:8.1f} ms, own day ({t['first']}) "
            f"{t['own']:8.1f} ms, decision {t['decision']:9.1f} ms ({t['outcome']})",
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--finishes", type=int, default=20)
    parser.add_argument("--gap-ms", type=int, default=60)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    port = free_port()
    data = tempfile.mkdtemp(prefix="seahaven-finish-")
    prefix = f"bench:finish:{secrets.token_hex(6)}:"
    cmd = [sys.executable, "-m", "server.cli", "serve", "--port", str(port)]
    cmd += ["--data-dir", data, "--redis-url", args.redis, "--provisional-games", "0"]
    cmd += ["--trusted-proxy", "127.0.0.1/32", "--identities-per-address", "100000"]
    cmd += ["--rate", "500", "--burst", "500", "--board-rate-per-s", "500", "--board-burst", "500"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAHAVEN_")}
    env.update(
        SEAHAVEN_KEY_PREFIX=prefix,
        SEAHAVEN_DAILY_SECRET=secrets.token_urlsafe(32),
        SEAHAVEN_ROOMS_PER_HOUR="1000000",
        SEAHAVEN_ROOMS_PER_HOUR_PER_ADDRESS="1000000",
    )
    log = Path(data) / "server.log"
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        began = time.monotonic()
        while not served(base):
            if proc.poll() is not None or time.monotonic() - began > START_S:
                print(log.read_text()[-2000:])
                return 1
            time.sleep(0.1)
        times = asyncio.run(run(base, args.finishes, args.gap_ms / 1000))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        client = redis_sync.Redis.from_url(args.redis)
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
    print(f"{len(times)} ranked daily finishes, {os.cpu_count()} cores; ms from the last move:")
    print("| | p50 | p95 | max |")
    print("|---|---|---|---|")
    for key, label in (
        ("ack", "ack"),
        ("own", "own day says pending/ranked"),
        ("decision", "review's decision"),
    ):
        values = [t[key] for t in times]
        p50, p95 = statistics.median(values), pct(values, 0.95)
        print(f"| {label} | {p50:.1f} | {p95:.1f} | {max(values):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
