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
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load_floor import measure_echo  # noqa: E402
from bench.race_run import Options, run_load  # noqa: E402
from bench.race_search import search_main  # noqa: E402
from bench.redis_procs import backends  # noqa: E402
from bench.stats import percentile  # noqa: E402

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
        help="start a 3-master cluster for the run (tests/helpers/rediscluster.py)",
    )
    p.add_argument("--no-echo", action="store_true", help="skip the echo floor")
    p.add_argument(
        "--websockets-clients",
        action="store_true",
        help="load clients on websockets' client, not the lean one (bench/lean_client.py)",
    )
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
            lean_clients=not args.websockets_clients,
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
