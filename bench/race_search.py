"""``bench/race_load.py --search``: the largest racer count whose move-to-ack p99 stays
under a target (50 ms), for 1 and 2 server workers on one Redis and, given a Redis Cluster
(``--redis-cluster URL`` or ``--start-cluster``), on the cluster, printed as one table.

For each configuration the search

1. races ``--start`` racers (1000) and doubles the count while a run holds, up to
   ``--max-racers`` (16000); going down instead (halving) while the first runs fail;
2. then halves the gap between the largest count that held and the smallest that did not,
   until it is at most ``--step`` racers (250).

Each run is a fresh server and ``--seconds`` (15) of racing once every room is set up; every
racer moves once a second; ``--spectators-per-racer 1`` adds one spectator per racer (the
target load: 3,000 racers and 3,000 spectators). A run holds when the ack p99 is under the
target, every room raced, no move failed, at most 0.1% of moves went unanswered and at least
95% of the moves due were acknowledged.

How long it takes: a run is its ``--seconds`` plus the setup plus about 10 s to start and
stop the server. The setup opened 800 connections in 10 s on this 2-core box while other
work kept its load average at 10 (quicker on a quiet one), so a run of 3,000 racers and
3,000 spectators takes about 1-1.5 minutes; a configuration takes 5 to 8 runs. With the
defaults: an estimated 5-10 minutes a configuration, 10-20 minutes for the two on one
Redis, 20-40 minutes with a cluster. Run it on a quiet machine: everything else running
steals the cores the server and the load share.

Figures per configuration: the largest count that held with its p50/p99, the acknowledged
moves a second, the server's CPU (every worker process together) in cores and per
acknowledged move, Redis's CPU per acknowledged move (``INFO cpu``; every node of a
cluster, and every other client of that Redis: use ``--private-redis`` for a Redis of the
bench's own), and the smallest count that failed with its p99.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, replace
from typing import Any

from bench.race_run import Options, passes, run_load
from bench.redis_procs import backends

MS = 1000.0


@dataclass
class Found:
    """One configuration's result."""

    backend: str
    workers: int
    held: dict[str, Any] | None = None  # the largest run that held
    failed: dict[str, Any] | None = None  # the smallest run that did not
    runs: int = 0
    seconds: float = 0.0


def level(racers: float, step: int) -> int:
    """A racer count rounded to whole rooms: to hundreds for a step of 100 or more."""
    grain = 100 if step >= 100 else 4
    return max(4, round(racers / grain) * grain)


def search(base: Options, backend: str, args: argparse.Namespace) -> Found:
    """The largest racer count that holds for ``base`` (its racers are set here)."""
    found = Found(backend, base.workers)
    started = time.monotonic()
    tried: dict[int, bool] = {}

    def attempt(racers: int) -> bool:
        if racers in tried:
            return tried[racers]
        run = run_load(replace(base, racers=racers))
        ok = passes(run, args.p99_ms)
        tried[racers] = ok
        found.runs += 1
        print(
            f"  {backend}, {base.workers} worker(s), {run['racers']} racers "
            f"+{run['spectators']} spectators: p50 {run['p50'] * MS:.1f} ms, "
            f"p99 {run['p99'] * MS:.1f} ms, {run['moves_per_s']:.0f} acks/s, "
            f"server {run['server_cpu'] * 100:.0f}% of a core, load processes "
            f"{run['load_cpu'] * 100:.0f}%, errors {run['errors'] or 0}, "
            f"unanswered {run['unanswered']}, failed rooms {len(run['failed'])}: "
            f"{'holds' if ok else 'does not hold'}",
            flush=True,
        )
        run.pop("latencies")
        run.pop("pairs")  # the table needs only the summary
        if ok and (found.held is None or racers > found.held["racers"]):
            found.held = run
        if not ok and (found.failed is None or racers < found.failed["racers"]):
            found.failed = run
        return ok

    low, high = 0, 0  # the largest count that held, the smallest that did not (0: none yet)
    racers = level(args.start, args.step)
    if attempt(racers):
        low = racers
        while low < args.max_racers:
            racers = min(level(low * 2, args.step), level(args.max_racers, args.step))
            if not attempt(racers):
                high = racers
                break
            low = racers
    else:
        high = racers
        while high > args.min_racers:
            racers = level(high / 2, args.step)
            if racers >= high or attempt(racers):
                low = racers
                break
            high = racers
    while low and high and high - low > args.step:
        mid = level((low + high) / 2, args.step)
        if mid in (low, high):
            break
        if attempt(mid):
            low = mid
        else:
            high = mid
    found.seconds = time.monotonic() - started
    return found


def cell(value: float | None, scale: float = MS, digits: int = 3) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value * scale:.{digits}f}"


def print_table(results: list[Found], args: argparse.Namespace) -> None:
    print(
        f"\nLargest racer count with ack p99 under {args.p99_ms:.0f} ms "
        f"({args.spectators_per_racer:g} spectators per racer, 1 move/s per racer, "
        f"{args.seconds:.0f} s runs):\n"
    )
    print(
        "| Redis | server workers | racers (+ spectators) | ack p50 / p99 | acks/s | "
        "server CPU (cores) | server CPU per move | Redis CPU per move (masters) | "
        "smallest count over the target (its p99) | load clients (cores) | runs (minutes) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    saturated = False
    for f in results:
        h, x = f.held, f.failed
        over = f"{x['racers']} ({x['p99'] * MS:.0f} ms)" if x else "none tried"
        if h is None:
            print(
                f"| {f.backend} | {f.workers} | none held | | | | | | {over} | | "
                f"{f.runs} ({f.seconds / 60:.0f}) |"
            )
            continue
        # A load process near a full core adds queueing of its own to the latencies.
        busy = h["load_cpu"] / args.load_procs > 0.8
        saturated |= busy
        load = f"{h['load_cpu']:.2f}{' (!)' if busy else ''}"
        print(
            f"| {f.backend} | {f.workers} | {h['racers']} (+{h['spectators']}) | "
            f"{h['p50'] * MS:.1f} / {h['p99'] * MS:.1f} ms | {h['moves_per_s']:.0f} | "
            f"{h['server_cpu']:.2f} | {cell(h['server_cpu_per_move'])} ms | "
            f"{cell(h['redis_cpu_per_move'])} ms | {over} | {load} | "
            f"{f.runs} ({f.seconds / 60:.0f}) |"
        )
    if saturated:
        print(
            "\n(!): the load processes used over 80% of a core each: their own delays are in "
            "that row's latencies; give them more processes (--load-procs) or another machine."
        )
    by = {(f.backend, f.workers): f for f in results if f.held}
    for backend in dict.fromkeys(f.backend for f in results):
        one, two = by.get((backend, 1)), by.get((backend, 2))
        if one and two and one.held and two.held:
            ratio = two.held["racers"] / one.held["racers"]
            capped = " (at least: 2 workers held the largest count tried)" if not two.failed else ""
            print(f"\n{backend}: 2 workers hold {ratio:.2f}x the racers of 1 worker{capped}.")


def search_main(args: argparse.Namespace) -> int:
    """Run the search of every configuration and print the table."""
    workers = [int(w) for w in args.search_workers.split(",")]
    with backends(args) as (redis_url, cluster):
        base = Options(
            spectators_per_racer=args.spectators_per_racer,
            seconds=args.seconds,
            load_procs=args.load_procs,
            redis_url=None if args.embedded else redis_url,
            nice=args.nice,
            lean_clients=not args.websockets_clients,
        )
        configs = [("one Redis", replace(base, workers=w)) for w in workers]
        if cluster:
            configs += [
                ("cluster", replace(base, workers=w, redis_url=None, redis_cluster=cluster))
                for w in workers
            ]
        results = []
        for backend, opts in configs:
            print(f"searching: {backend}, {opts.workers} worker(s)", flush=True)
            results.append(search(opts, backend, args))
    print_table(results, args)
    return 0
