"""Chaos benchmark: bots race while a server instance is killed and Redis stalls and restarts.

It starts a private ``redis-server`` (on a free 127.0.0.1 port, its data in a temporary
folder, an append-only file fsynced on every write) and two ``seahaven serve`` instances A and
B on it, sets up rooms of racers spread over both instances, and lets every racer play its
room's solver line while these faults happen, measured from the start of the race:

- at ``--kill-at`` (5 s) instance A is killed with SIGKILL; a replacement A' starts on a new
  port ``--replace-after`` (3 s) later;
- at ``--pause-at`` (12 s) Redis is stopped with SIGSTOP for ``--pause-for`` (3 s), then
  continued;
- at ``--restart-at`` (20 s) Redis is stopped (SIGTERM: it finishes its append-only file;
  ``--redis-signal KILL`` crashes it instead) and started again ``--down-for`` (1 s) later
  on the same port and data.

Each racer is a small client that keeps its token and the events it has seen. On a lost
socket it reconnects to the next instance, sends ``resume`` with the highest seq up to which
it has seen every event, and resends its unacknowledged action with the same ``id``; an
action answered ``error busy`` is resent with the same ``id`` after a short backoff. The run
ends when every racer has finished and heard ``race_over`` (or after ``--seconds``). Then:

- a spectator joins each room on the replacement instance, and every board in its snapshot
  must equal the board its racer holds (the start position plus each acknowledged action);
- Redis must hold every acknowledged action: its id in the board's ids hash with the seq
  the client was acknowledged with, and its action log must be exactly the acknowledged
  actions, in order, each once (an action still unanswered at the end may follow them).

It prints a markdown table (acknowledged actions, those lost, ``busy`` answers, reconnects,
clients that recovered after the last fault, the faults and their times) and exits with 1
if an acknowledged action was lost or applied twice, a board differs, or a client did not
recover. Everything it started is stopped and its temporary folder removed, errors or not.

Run: ``.venv/bin/python bench/chaos.py`` (about a minute; ``--help`` for the flags).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import signal
import statistics
import sys
import tempfile
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bench.chaos_procs import Cluster, RedisProc  # noqa: E402
from bench.chaos_racer import ROUND, Racer, open_link  # noqa: E402
from bench.stats import percentile  # noqa: E402
from server.clients.bot import plan  # noqa: E402  (the bot's moves and solver line)
from server.engine import Board, parse_action  # noqa: E402
from server.pools import draw  # noqa: E402
from server.store.keys import Keys  # noqa: E402
from tests.helpers.serverproc import QUICK, free_port  # noqa: E402

# -- the run --------------------------------------------------------------------------------


@dataclass
class Fault:
    """A fault injected (or undone) and when, in seconds from the race's start."""

    at: float
    what: str


@dataclass
class Room:
    """A room and its racers (the first is its host)."""

    racers: list[Racer]
    room_id: str = ""
    code: str = ""


@dataclass
class Audit:
    """What Redis and a spectator on the replacement instance say about the racers."""

    lost: int = 0  # acknowledged ids missing from the board's ids hash
    other_seq: int = 0  # acknowledged ids whose seq in Redis is another
    twice: int = 0  # ids in an action log more than once
    log_short: int = 0  # boards whose log is shorter than their acknowledged ids
    log_differs: int = 0  # boards whose log is not their acknowledged actions in order
    unacked_tail: int = 0  # actions committed but unanswered when the run ended
    boards_equal: int = 0  # boards in the spectator's snapshot equal to the racer's own
    boards_checked: int = 0
    problems: list[str] = field(default_factory=list)


async def setup_room(
    index: int, cluster: Cluster, args: argparse.Namespace, stop: asyncio.Event
) -> Room:
    """Open the racers of one room (spread over the instances), create it, join it, solve."""
    slots = len(cluster.slots)
    racers = [
        Racer(f"r{index}-{j}", cluster, (index * args.room_size + j) % slots, args.speed, stop)
        for j in range(args.room_size)
    ]
    for racer in racers:
        await racer.hello()
    host = racers[0]
    assert host.link is not None
    # A typed certified deal: a drawn one stays hidden until the start (fair play), and the
    # bench works out every racer's solver line before it.
    code = draw(4).code
    await host.link.send({"type": "create_room", "code": code})
    snap = await host.expect("snapshot")
    room = Room(racers, str(snap["room_id"]), code)
    for racer in racers[1:]:
        assert racer.link is not None
        await racer.link.send({"type": "join", "room": room.room_id, "role": "player"})
        await racer.expect("snapshot")
    # Solved now, before the start, in a thread: the racers of other rooms keep their pace.
    line = await asyncio.to_thread(plan, Board.from_code(room.code), 20.0)
    if not line:
        raise RuntimeError(f"no solver line for {room.code}")
    for racer in racers:
        racer.room, racer.line = room.room_id, line
    return room


async def inject(
    args: argparse.Namespace,
    t0: float,
    cluster: Cluster,
    store: RedisProc,
    faults: list[Fault],
) -> float:
    """The fault timeline. Returns the loop time at which the last fault was over."""
    loop = asyncio.get_running_loop()

    def note(what: str) -> None:
        faults.append(Fault(loop.time() - t0, what))

    async def until(second: float) -> None:
        await asyncio.sleep(max(0.0, t0 + second - loop.time()))

    await until(args.kill_at)
    killed = cluster.kill(0)
    note(f"SIGKILL instance A (port {killed.port})")
    await until(args.kill_at + args.replace_after)
    srv = await asyncio.to_thread(cluster.start, 0)
    note(f"replacement A' healthy (port {srv.port})")
    await until(args.pause_at)
    store.send(signal.SIGSTOP)
    note("SIGSTOP Redis")
    await asyncio.sleep(args.pause_for)
    store.send(signal.SIGCONT)
    note("SIGCONT Redis")
    await until(args.restart_at)
    sig = signal.Signals[f"SIG{args.redis_signal}"]
    await asyncio.to_thread(store.stop, sig)
    note(f"Redis stopped by SIG{args.redis_signal}")
    await asyncio.sleep(args.down_for)
    await asyncio.to_thread(store.start)
    note("Redis restarted, answering (append-only file loaded)")
    return loop.time()


async def spectate(url: str, room: Room) -> dict[str, Any]:
    """A snapshot of ``room`` as a new spectator on the instance at ``url`` sees it.

    Raises:
        RuntimeError: no snapshot.
    """
    link = await open_link(url, lambda _msg: None)
    if link is None:
        raise RuntimeError(f"cannot connect to {url}")
    try:
        await link.send({"type": "hello", "name": f"w-{room.room_id}"})
        await link.send({"type": "join", "room": room.room_id, "role": "spectator"})
        snap = await link.reply(("snapshot", "error"), 15.0)
        if snap is None or snap["type"] != "snapshot":
            raise RuntimeError(f"no snapshot of {room.room_id}: {snap}")
        return snap
    finally:
        await link.close()


def check_redis(store: RedisProc, rooms: list[Room], audit: Audit) -> None:
    """Every acknowledged action in Redis: the ids hash and the action log of each board."""
    keys = Keys()
    client: Any = store.client()  # replies decoded to str, which its hints cannot say
    with client:
        for room in rooms:
            for racer in room.racers:
                acked = racer.tally.acked
                ids: dict[str, str] = client.hgetall(keys.ids(room.room_id, ROUND, racer.pid))
                log: list[str] = client.lrange(keys.log(room.room_id, ROUND, racer.pid), 0, -1)
                for action_id, seq in sorted(acked.items()):
                    stored = ids.get(str(action_id))
                    if stored is None:
                        audit.lost += 1
                        audit.problems.append(f"{racer.name}: acked id {action_id} not in Redis")
                    elif int(stored) != seq:
                        audit.other_seq += 1
                        audit.problems.append(
                            f"{racer.name}: id {action_id} acked with seq {seq}, Redis has {stored}"
                        )
                logged = [int(entry.split("\t")[1]) for entry in log]
                texts = [entry.split("\t")[2] for entry in log]
                audit.twice += len(logged) - len(set(logged))
                if len(log) < len(acked):
                    audit.log_short += 1
                # Ids are the line's step numbers: the log must be 1..n in order, then at
                # most the one action still unanswered when the run ended.
                n = len(acked)
                expected = [str(parse_action(t)) for t in racer.line[: n + 1]]
                if (
                    sorted(acked) != list(range(1, n + 1))
                    or logged[:n] != list(range(1, n + 1))
                    or len(logged) > n + 1
                    or texts != expected[: len(texts)]
                ):
                    audit.log_differs += 1
                    wrong = next(
                        (
                            i
                            for i, x in enumerate(logged)
                            if x != i + 1 or i >= len(expected) or texts[i] != expected[i]
                        ),
                        len(logged),
                    )
                    audit.problems.append(
                        f"{racer.name}: the log ({len(logged)} actions) departs from the "
                        f"{n} acknowledged ones at position {wrong + 1}"
                    )
                audit.unacked_tail += max(0, len(logged) - n)


def compare_boards(room: Room, snap: dict[str, Any], audit: Audit) -> None:
    """Each racer's own board against the spectator's snapshot of it (which may also hold
    the racer's last action if it was still unanswered when the run ended)."""
    boards = {p["player_id"]: p for p in snap["players"]}
    for racer in room.racers:
        audit.boards_checked += 1
        seen = boards.get(racer.pid)
        mine = racer.board
        if seen is None or mine is None or "board" not in seen:
            audit.problems.append(f"{racer.name}: no board in the snapshot")
            continue
        candidates = [mine]
        if racer.pending is not None:
            ahead = mine.copy()
            ahead.play(parse_action(racer.line[racer.pending - 1]))
            candidates.append(ahead)
        theirs = Board.from_json({**seen["board"], "code": room.code})
        if any(theirs.key() == b.key() and seen["moves"] == b.moves for b in candidates):
            audit.boards_equal += 1
        else:
            audit.problems.append(
                f"{racer.name}: snapshot board ({seen['moves']} moves) differs from the "
                f"client's ({mine.moves} moves)"
            )


def redis_errors(cluster: Cluster) -> int:
    """``seahaven_redis_errors_total`` summed over the running instances."""
    total = 0.0
    for srv in cluster.slots:
        if srv is None:
            continue
        with urllib.request.urlopen(srv.http_url + "/metrics", timeout=5) as res:
            for line in res.read().decode().splitlines():
                if line.startswith("seahaven_redis_errors_total "):
                    total += float(line.split()[-1])
    return int(total)


async def run(args: argparse.Namespace, folder: Path) -> int:
    """Start everything, race through the faults, check, print. Returns the exit status."""
    loop = asyncio.get_running_loop()
    store = RedisProc(folder / "redis", free_port())
    cluster = Cluster(
        store.url,
        [
            *QUICK,
            *("--countdown-ms", str(args.countdown_ms)),
            *("--away-grace-ms", str(args.away_grace_ms)),
            *("--redis-timeout", str(args.redis_timeout)),
            # Every client comes from 127.0.0.1: lift the per-address socket cap.
            *("--sockets-per-address", "10000"),
        ],
    )
    # SIGTERM (or SIGHUP) cancels the run like Ctrl-C does, so the clean-up below runs.
    main_task = asyncio.current_task()
    assert main_task is not None
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, main_task.cancel)
    stop = asyncio.Event()
    racers: list[Racer] = []
    playing: asyncio.Future[list[None]] | None = None
    timeline: asyncio.Future[float] | None = None
    try:
        await asyncio.to_thread(store.start)
        await asyncio.gather(
            asyncio.to_thread(cluster.start, 0), asyncio.to_thread(cluster.start, 1)
        )
        rooms = list(
            await asyncio.gather(*(setup_room(i, cluster, args, stop) for i in range(args.rooms)))
        )
        racers = [r for room in rooms for r in room.racers]
        for room in rooms:
            host = room.racers[0]
            assert host.link is not None
            await host.link.send({"type": "start"})
        await asyncio.wait_for(
            asyncio.gather(*(r.started.wait() for r in racers)), args.countdown_ms / 1000 + 15
        )
        t0 = loop.time()
        faults: list[Fault] = []
        playing = asyncio.gather(*(r.race() for r in racers))
        timeline = asyncio.ensure_future(inject(args, t0, cluster, store, faults))
        # Every fault is injected, then the racers play on until they are done or time is up.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(timeline), args.seconds)
            await asyncio.wait_for(
                asyncio.shield(playing), max(0.0, t0 + args.seconds - loop.time())
            )
        stop.set()
        await playing
        if not timeline.done():
            raise RuntimeError("the fault timeline did not finish within --seconds")
        last_fault = timeline.result()
        elapsed = loop.time() - t0

        audit = Audit()
        url = cluster.url(0) or cluster.url(1)
        assert url is not None
        for room in rooms:
            compare_boards(room, await spectate(url, room), audit)
        check_redis(store, rooms, audit)
        server_redis_errors = redis_errors(cluster)
    finally:
        stop.set()
        for task in (timeline, playing):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await asyncio.gather(*(r.close() for r in racers), return_exceptions=True)
        store.send(signal.SIGCONT)  # a paused Redis would hold up the servers' shutdown
        cluster.close(args.keep)
        store.stop()

    return report(args, racers, faults, audit, t0, last_fault, elapsed, server_redis_errors)


def report(
    args: argparse.Namespace,
    racers: list[Racer],
    faults: list[Fault],
    audit: Audit,
    t0: float,
    last_fault: float,
    elapsed: float,
    server_redis_errors: int,
) -> int:
    """Print the table; returns 1 if anything acknowledged was lost or a client is stuck."""
    tallies = [r.tally for r in racers]
    acked = sum(len(t.acked) for t in tallies)
    after = sum(1 for t in tallies if any(a > last_fault for a in t.ack_times))
    recovered = sum(
        1 for r in racers if r.finished or any(a > last_fault for a in r.tally.ack_times)
    )
    finished = sum(1 for r in racers if r.finished)
    over = sum(1 for r in racers if r.race_over.is_set())
    holes = [h for r in racers for h in r.holes()]
    own_holes = sum(1 for r in racers for h in r.holes() if h in set(r.tally.acked.values()))
    waits = [w for t in tallies for w in t.waits]
    errors: Counter[str] = Counter()
    rejects: Counter[str] = Counter()
    for t in tallies:
        errors.update(t.errors)
        rejects.update(t.rejects)
    diverged = [f"{r.name}: {r.diverged}" for r in racers if r.diverged]
    n = len(racers)
    failed = bool(
        audit.lost
        or audit.other_seq
        or audit.twice
        or audit.log_short
        or audit.log_differs
        or audit.boards_equal < audit.boards_checked
        or recovered < n
        or diverged
    )
    ms = 1000.0
    print(
        f"chaos: {n} racers in {args.rooms} rooms of {args.room_size}, {args.speed:g} actions/s "
        f"each, instances A and B on one Redis (appendfsync always), redis-timeout "
        f"{args.redis_timeout:g} s; ran {elapsed:.1f} s from the start"
    )
    print("| measure | value |")
    print("|---|---|")
    print(
        f"| acknowledged actions (action messages sent, resends included) | {acked} "
        f"({sum(t.sent for t in tallies)}) |"
    )
    print(f"| **acknowledged moves lost** | **{audit.lost}** |")
    print(
        f"| acked with another seq in Redis / applied twice / logs not the acked actions | "
        f"{audit.other_seq} / {audit.twice} / {audit.log_differs + audit.log_short} |"
    )
    print(f"| committed but unanswered when the run ended | {audit.unacked_tail} |")
    print(f"| **actions answered busy** | **{sum(t.busy_actions for t in tallies)}** |")
    print(f"| resumes answered busy | {sum(t.busy_resumes for t in tallies)} |")
    print(
        f"| reconnects (resumes that went through) / sockets that would not open | "
        f"{sum(t.reconnects for t in tallies)} / {sum(t.failed_connects for t in tallies)} |"
    )
    other = ", ".join(f"{c} {k}" for k, c in sorted({**errors, **rejects}.items())) or "0"
    print(
        f"| other errors and rejects / answers that never came | {other} / "
        f"{sum(t.timeouts for t in tallies)} |"
    )
    print(
        f"| **clients recovered** (an ack after the last fault, or finished) | "
        f"**{recovered}/{n}** ({after} acked after it, {finished} finished) |"
    )
    print(f"| racers that heard race_over | {over}/{n} |")
    print(
        f"| boards equal to a spectator's snapshot on A' | "
        f"{audit.boards_equal}/{audit.boards_checked} |"
    )
    print(
        f"| room events never received (of them own deltas of acked actions) | "
        f"{len(holes)} ({own_holes}) |"
    )
    if waits:
        print(
            f"| send to ack, busy and reconnects included: p50 / p99 / max | "
            f"{statistics.median(waits) * ms:.1f} ms / {percentile(waits, 99) * ms:.0f} ms / "
            f"{max(waits) * ms:.0f} ms |"
        )
    print(f"| server Redis errors (metric, A' and B) | {server_redis_errors} |")
    for fault in faults:
        print(f"| fault at {fault.at:.1f} s | {fault.what} |")
    print(f"| last fault over at | {last_fault - t0:.1f} s |")
    for problem in (audit.problems + diverged)[:20]:
        print(f"problem: {problem}")
    print("FAILED" if failed else "OK: no acknowledged move lost, every client recovered")
    return 1 if failed else 0


def main() -> int:
    """Parse the flags, run the benchmark in a temporary folder, remove the folder.

    Returns:
        The exit status: 0, or 1 when something acknowledged was lost or a client is stuck.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=6, help="rooms")
    parser.add_argument("--room-size", type=int, default=4, help="racers per room (2-8)")
    parser.add_argument("--speed", type=float, default=3.0, help="actions a second per racer")
    parser.add_argument("--seconds", type=float, default=60.0, help="longest race time")
    parser.add_argument("--kill-at", type=float, default=5.0, help="SIGKILL instance A")
    parser.add_argument("--replace-after", type=float, default=3.0, help="then start A'")
    parser.add_argument("--pause-at", type=float, default=12.0, help="SIGSTOP Redis")
    parser.add_argument("--pause-for", type=float, default=3.0, help="then SIGCONT")
    parser.add_argument("--restart-at", type=float, default=20.0, help="stop and restart Redis")
    parser.add_argument("--down-for", type=float, default=1.0, help="then start it again")
    parser.add_argument(
        "--redis-signal", choices=("TERM", "KILL"), default="TERM", help="how Redis is stopped"
    )
    parser.add_argument("--redis-timeout", type=float, default=0.5, help="serve flag")
    parser.add_argument("--away-grace-ms", type=int, default=60_000, help="serve flag")
    parser.add_argument("--countdown-ms", type=int, default=1000, help="serve flag")
    parser.add_argument("--keep", action="store_true", help="keep the data and server logs")
    args = parser.parse_args()
    if not 2 <= args.room_size <= 8 or args.rooms < 1 or args.speed <= 0:
        parser.error("--rooms >= 1, --room-size 2..8, --speed > 0")
    if not args.kill_at < args.kill_at + args.replace_after < args.pause_at:
        parser.error("the replacement must be up before Redis is paused")
    if not args.pause_at + args.pause_for < args.restart_at < args.seconds or args.down_for < 0:
        parser.error("the faults must come in order, before --seconds")
    if shutil.which("redis-server") is None:
        parser.error("redis-server is not installed")
    folder = Path(tempfile.mkdtemp(prefix="seahaven-chaos-"))
    try:
        return asyncio.run(run(args, folder))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("interrupted: every process stopped", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
