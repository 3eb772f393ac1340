"""Hints on a busy host: how often does a hint name a move, and how long does it take?

Starts a real ``seahaven serve`` process on 127.0.0.1 (on ``--redis-url``, default the
machine's Redis; its keys under a prefix of their own, dropped afterwards), its solver at its
defaults (``idle`` policy, niced), and ``--busy`` (2) processes that spin a pure Python loop
for the whole run: a host with no spare CPU. Then one player at a time, alone on the opening
of a certified deal (``--deals`` of them, ``--cells`` cells), asks ``--hints`` hints in a
row, each once the last was answered, playing each move it names.

It prints, over every hint asked: how many named a move (``proven``: the first move of a line
proven shortest; ``solver``: the fast solver's winning move), how many said ``lost`` or
``unknown``, and the latency from ``hint`` sent to its answer (p50, p95, max). Run it on the
code before a change and after to compare (the same deals, in the same order).

Everything is bounded: at most 8 busy loops, 200 deals, 10 hints a deal.

Run: ``.venv/bin/python bench/hint_busy.py`` (``--busy 0`` for a quiet host).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import secrets
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402

from bench.stats import percentile  # noqa: E402
from server.engine import format_code  # noqa: E402
from server.pools import load_pool  # noqa: E402
from tests.helpers.serverproc import QUICK, drop_keys, redis_url, start_server  # noqa: E402


def spin(stop_at: float) -> None:
    """A busy loop until ``stop_at`` (epoch seconds): one core's worth of other work."""
    n = 0
    while time.time() < stop_at:
        n += 1


async def answer_of(ws: Any, kind: str, hint_id: int) -> dict[str, Any]:
    """The next message of ``kind`` with ``id`` ``hint_id`` (others skipped)."""
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
        if msg.get("type") in (kind, "reject") and msg.get("id") == hint_id:
            return dict(msg)
        if msg.get("type") == "error":
            return dict(msg)


async def one_deal(url: str, code: str, hints: int, out: list[tuple[str, float]]) -> None:
    """A player alone on ``code`` asks ``hints`` hints in a row, playing each move."""
    async with connect(url, open_timeout=30, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "hinter"}))
        while json.loads(await ws.recv()).get("type") != "welcome":
            pass
        await ws.send(json.dumps({"type": "solo", "code": code}))
        while json.loads(await ws.recv()).get("type") != "snapshot":
            pass
        for i in range(hints):
            hint_id = 1000 + i
            began = time.perf_counter()
            await ws.send(json.dumps({"type": "hint", "id": hint_id}))
            msg = await answer_of(ws, "hint", hint_id)
            took = time.perf_counter() - began
            if msg["type"] != "hint":
                out.append((f"{msg['type']}:{msg.get('reason') or msg.get('code')}", took))
                return
            kind = msg["status"]
            if kind == "move":
                kind = f"move:{msg.get('source') or ('proven' if 'remaining' in msg else 'solver')}"
            out.append((kind, took))
            if msg["status"] != "move":
                return
            src, dst = msg["move"].split()
            await ws.send(json.dumps({"type": "move", "id": i, "src": src, "dst": dst}))
            while True:
                got = json.loads(await ws.recv())
                if got.get("type") in ("ack", "reject") and got.get("id") == i:
                    break


async def run(url: str, codes: list[str], hints: int) -> list[tuple[str, float]]:
    """Every deal in turn."""
    out: list[tuple[str, float]] = []
    for code in codes:
        await one_deal(url, code, hints, out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, choices=range(9), default=2)
    parser.add_argument("--deals", type=int, choices=range(1, 201), default=20, metavar="1-200")
    parser.add_argument("--cells", type=int, choices=(1, 2, 4), default=4)
    parser.add_argument("--hints", type=int, choices=range(1, 11), default=3, metavar="1-10")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()

    codes = [format_code(entry.deal, args.cells) for entry in load_pool(args.cells)[: args.deals]]
    prefix = f"bench:hintbusy:{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_SOLVER_POLICY": "idle"}
    srv = start_server(args.redis_url or redis_url(), args=QUICK, env=env)
    stop_at = time.time() + 3600
    loops = [mp.Process(target=spin, args=(stop_at,), daemon=True) for _ in range(args.busy)]
    try:
        for p in loops:
            p.start()
        began = time.perf_counter()
        out = asyncio.run(run(srv.ws_url, codes, args.hints))
        seconds = time.perf_counter() - began
    finally:
        for p in loops:
            p.terminate()
        srv.stop()
        drop_keys(prefix)
    kinds: dict[str, int] = {}
    for kind, _ in out:
        kinds[kind] = kinds.get(kind, 0) + 1
    times = sorted(t for _, t in out)
    moves = sum(n for k, n in kinds.items() if k.startswith("move"))
    print(
        f"{len(out)} hints on {len(codes)} openings ({args.cells} cells), "
        f"{args.busy} busy loops, {seconds:.0f} s"
    )
    print(f"named a move: {moves}/{len(out)} ({100 * moves / max(1, len(out)):.0f}%)")
    for kind in sorted(kinds):
        print(f"  {kind}: {kinds[kind]}")
    print(
        f"latency p50 {percentile(times, 50):.2f} s, p95 {percentile(times, 95):.2f} s, "
        f"max {times[-1]:.2f} s"
    )


if __name__ == "__main__":
    main()
