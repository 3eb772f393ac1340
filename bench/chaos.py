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
import json
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from bench.stats import percentile  # noqa: E402
from server.bot import action_message, plan  # noqa: E402  (the bot's moves and solver line)
from server.engine import Board, parse_action  # noqa: E402
from server.pools import draw  # noqa: E402
from server.store.keys import Keys  # noqa: E402
from tests.serverproc import QUICK, ServerProc, free_port, start_server  # noqa: E402

#: Seconds without any answer to an action (or a resume) before the socket counts as dead.
ANSWER_TIMEOUT = 10.0
#: Seconds to open a websocket.
OPEN_TIMEOUT = 3.0
#: The round every board of the run is in (no rematch).
ROUND = 1


# -- the processes --------------------------------------------------------------------------


class RedisProc:
    """A private ``redis-server`` on 127.0.0.1 whose acknowledged writes survive a restart.

    Args:
        folder: its data folder (the append-only file) and its log.
        port: the port it listens on, the same after every restart.
    """

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A blocking client that decodes replies to text."""
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True)

    def start(self, timeout: float = 30.0) -> None:
        """Start it (loading its append-only file, if any) and wait until it answers PING.

        Raises:
            RuntimeError: it exited or did not answer in time.
        """
        cmd = [
            "redis-server",
            *("--port", str(self.port), "--bind", "127.0.0.1"),
            *("--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")),
            *("--appendonly", "yes", "--appendfsync", "always", "--save", ""),
            *("--daemonize", "no"),
        ]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        with self.client() as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        return
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not answer within {timeout} s")

    def send(self, sig: signal.Signals) -> None:
        """Send a signal (SIGSTOP, SIGCONT, ...)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 15.0) -> None:
        """Stop it with ``sig`` and wait for the process to end (SIGKILL after ``timeout``)."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a stopped process would not act on SIGTERM
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """The server instances, one per slot; a racer moves to the next slot's instance.

    Args:
        redis_url: the Redis every instance shares.
        flags: the ``seahaven serve`` flags of every instance.
    """

    def __init__(self, redis_url: str, flags: Sequence[str], slots: int = 2) -> None:
        self.redis_url = redis_url
        self.flags = list(flags)
        self.slots: list[ServerProc | None] = [None] * slots
        self.every: list[ServerProc] = []  # every process ever started, for the clean-up

    def start(self, slot: int) -> ServerProc:
        """Start an instance in ``slot`` and wait until it is healthy (blocking)."""
        srv = start_server(self.redis_url, args=self.flags)
        self.every.append(srv)
        self.slots[slot] = srv
        return srv

    def kill(self, slot: int) -> ServerProc:
        """SIGKILL the instance in ``slot`` (a crash); the slot stays empty until refilled."""
        srv = self.slots[slot]
        assert srv is not None, f"slot {slot} is empty"
        self.slots[slot] = None
        srv.kill()
        return srv

    def url(self, slot: int) -> str | None:
        """The websocket URL of the instance in ``slot``, if one runs there."""
        srv = self.slots[slot % len(self.slots)]
        return srv.ws_url if srv is not None else None

    def close(self, keep_logs: bool) -> None:
        """Stop every instance; remove their logs unless ``keep_logs``."""
        for srv in self.every:
            srv.stop()
            if keep_logs:
                print(f"kept the log of the instance on port {srv.port}: {srv.log_path}")
            else:
                srv.log_path.unlink(missing_ok=True)


# -- the racers -----------------------------------------------------------------------------


class Link:
    """One websocket of a racer. Room events go to ``on_event`` as they arrive; every other
    message (and ``snapshot``) waits in :attr:`replies` for whoever expects an answer.

    Args:
        ws: the open socket.
        on_event: called with every message that carries an event ``seq``.
    """

    def __init__(self, ws: ClientConnection, on_event: Callable[[dict[str, Any]], None]) -> None:
        self.ws = ws
        self.on_event = on_event
        self.replies: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                is_event = "seq" in msg and msg["type"] != "ack"
                if is_event:
                    self.on_event(msg)
                if not is_event or msg["type"] == "snapshot":
                    self.replies.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            self.replies.put_nowait(None)  # closed

    async def send(self, msg: dict[str, Any]) -> bool:
        """Send a message; False if the socket is closed."""
        try:
            await self.ws.send(json.dumps(msg))
        except ConnectionClosed:
            return False
        return True

    async def reply(self, kinds: Sequence[str], timeout: float) -> dict[str, Any] | None:
        """The next message of one of ``kinds`` (others are dropped), or None when the socket
        closed or nothing came within ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                msg = await asyncio.wait_for(self.replies.get(), deadline - loop.time())
            except TimeoutError:
                return None
            if msg is None:
                self.replies.put_nowait(None)  # stays closed for the next caller
                return None
            if msg["type"] in kinds:
                return msg

    @property
    def closed(self) -> bool:
        """Whether the socket has closed."""
        return self.task.done()

    async def close(self) -> None:
        """Close the socket and wait for its reader."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 2.0)
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


async def open_link(url: str, on_event: Callable[[dict[str, Any]], None]) -> Link | None:
    """A new socket to ``url``, or None if it cannot be opened."""
    try:
        ws = await connect(url, open_timeout=OPEN_TIMEOUT, max_size=2**20)
    except (OSError, TimeoutError, ConnectionClosed):
        return None
    return Link(ws, on_event)


@dataclass
class Tally:
    """What one racer saw."""

    acked: dict[int, int] = field(default_factory=dict)  # action id -> seq of its ack
    ack_times: list[float] = field(default_factory=list)  # loop time of each ack
    waits: list[float] = field(default_factory=list)  # first send to ack, seconds
    busy_actions: int = 0
    busy_resumes: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # other error codes
    rejects: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0  # resumes that went through
    failed_connects: int = 0  # sockets that could not be opened
    timeouts: int = 0  # answers that never came on an open socket
    sent: int = 0  # action messages sent, resends included


class Racer:
    """A racing client that survives faults: it resumes on any instance and resends.

    Args:
        name: its name in the room.
        cluster: the instances.
        slot: the instance it connects to first.
        speed: actions a second.
        stop: set when the run is over.
    """

    def __init__(
        self, name: str, cluster: Cluster, slot: int, speed: float, stop: asyncio.Event
    ) -> None:
        self.name = name
        self.cluster = cluster
        self.slot = slot
        self.pause = 1.0 / speed
        self.stop = stop
        self.link: Link | None = None
        self.pid = ""
        self.token = ""
        self.room = ""
        self.line: tuple[str, ...] = ()
        self.board: Board | None = None
        self.tally = Tally()
        self.seen: set[int] = set()  # event seqs received
        self.covered = 0  # every seq up to this is in a snapshot received
        self.watermark = 0  # every seq up to this was received or covered
        self.started = asyncio.Event()
        self.race_over = asyncio.Event()
        self.finished = False
        self.diverged = ""  # the reason of an unexpected reject
        self.pending: int | None = None  # the id of an action sent and not yet answered

    # -- events ---------------------------------------------------------------------------

    def on_event(self, msg: dict[str, Any]) -> None:
        """Note an event's seq; follow the start and the end of the race."""
        seq = int(msg["seq"])
        kind = msg["type"]
        if kind == "snapshot":
            self.covered = max(self.covered, seq)
        else:
            self.seen.add(seq)
        if kind == "started":
            self.board = Board.from_json({**msg["board"], "code": msg["code"]})
            self.started.set()
        elif kind == "race_over":
            self.race_over.set()
        while self.watermark + 1 in self.seen or self.watermark < self.covered:
            self.watermark += 1

    def holes(self) -> list[int]:
        """Event seqs below the highest one seen that never arrived (nor under a snapshot)."""
        top = max(self.seen, default=0)
        return [s for s in range(self.covered + 1, top) if s not in self.seen]

    # -- connecting -----------------------------------------------------------------------

    async def open(self, url: str) -> Link | None:
        """A new socket to ``url``, or None if it cannot be opened."""
        link = await open_link(url, self.on_event)
        if link is None:
            self.tally.failed_connects += 1
        return link

    async def hello(self) -> None:
        """First connection: ``hello`` on the racer's first instance.

        Raises:
            RuntimeError: no socket or no welcome.
        """
        url = self.cluster.url(self.slot)
        link = await self.open(url) if url else None
        if link is None:
            raise RuntimeError(f"{self.name}: cannot connect to {url}")
        self.link = link
        await link.send({"type": "hello", "name": self.name})
        welcome = await self.expect("welcome")
        self.pid, self.token = str(welcome["player_id"]), str(welcome["token"])

    async def expect(self, kind: str, timeout: float = 15.0) -> dict[str, Any]:
        """The next ``kind`` message during the setup (no faults yet).

        Raises:
            RuntimeError: an error, a closed socket or nothing in time.
        """
        assert self.link is not None
        msg = await self.link.reply((kind, "error"), timeout)
        if msg is None or msg["type"] != kind:
            raise RuntimeError(f"{self.name}: expected {kind}, got {msg}")
        return msg

    async def reconnect(self) -> bool:
        """Drop the socket, open one to the next instance and ``resume`` there (retrying,
        instance after instance, until it goes through). False if the run ended first."""
        backoff = 0.1
        while not self.stop.is_set():
            if self.link is not None:
                await self.link.close()
                self.link = None
            self.slot += 1
            url = self.cluster.url(self.slot)
            link = await self.open(url) if url else None
            if link is not None:
                self.link = link
                if await self.resume(link):
                    self.tally.reconnects += 1
                    return True
            await self.nap(backoff)
            backoff = min(1.0, backoff * 2)
        return False

    async def resume(self, link: Link) -> bool:
        """``resume`` on a new socket (again after each ``busy``), then a ``ping``: the socket
        handles one message at a time, so ``pong`` says the resume is fully answered.

        Returns:
            True once a resume went through; False if the socket failed or will not do.
        """
        resume = {
            "type": "resume",
            "room": self.room,
            "token": self.token,
            "last_seq": self.watermark,
        }
        for _try in range(20):
            resume["last_seq"] = self.watermark
            if not await link.send(resume) or not await link.send({"type": "ping"}):
                return False
            welcomed, refused = False, ""
            while True:
                msg = await link.reply(("welcome", "error", "pong"), ANSWER_TIMEOUT)
                if msg is None:
                    if not link.closed:
                        self.tally.timeouts += 1
                    return False
                if msg["type"] == "welcome":
                    welcomed = True
                elif msg["type"] == "error":
                    refused = str(msg["code"])
                else:
                    break
            if welcomed and not refused:
                return True
            if refused != "busy":
                self.tally.errors[f"resume: {refused or 'no welcome'}"] += 1
                return False
            self.tally.busy_resumes += 1
            await self.nap(0.2 + random.random() * 0.3)
            if self.stop.is_set():
                return False
        return False

    async def nap(self, seconds: float) -> None:
        """Sleep, or less if the run ends meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)

    # -- racing ---------------------------------------------------------------------------

    async def race(self) -> None:
        """Play the line, one action every ``1 / speed`` seconds, then wait for the end."""
        assert self.board is not None
        await self.nap(random.random() * self.pause)  # spread the load
        for step, text in enumerate(self.line):
            if self.stop.is_set():
                return
            began = time.monotonic()
            seq = await self.perform(step + 1, text)
            if seq is None:
                return  # the run ended, or the server refused the action (diverged)
            self.board.play(parse_action(text))
            await self.nap(max(0.0, self.pause - (time.monotonic() - began)))
        self.finished = self.board.is_won()
        await self.await_race_over()

    async def perform(self, action_id: int, text: str) -> int | None:
        """Send one action until it is acknowledged: after ``busy`` (a short backoff) and
        after a reconnect, with the same ``id``.

        Returns:
            The seq of its ack; None if the run ended or the server rejected it.
        """
        msg = action_message(text, action_id)
        loop = asyncio.get_running_loop()
        first = loop.time()
        backoff = 0.1
        while not self.stop.is_set():
            if (self.link is None or self.link.closed) and not await self.reconnect():
                return None
            assert self.link is not None
            self.tally.sent += 1
            self.pending = action_id
            if not await self.link.send(msg):
                await self.link.close()
                continue
            answer = await self.link.reply(("ack", "reject", "error"), ANSWER_TIMEOUT)
            if answer is None:
                if not self.link.closed:
                    self.tally.timeouts += 1
                    await self.link.close()
                continue
            kind = answer["type"]
            if kind == "ack" and answer["id"] == action_id:
                now = loop.time()
                self.tally.acked[action_id] = int(answer["seq"])
                self.tally.ack_times.append(now)
                self.tally.waits.append(now - first)
                self.pending = None
                return int(answer["seq"])
            if kind == "error":
                code = str(answer["code"])
                if code == "busy":
                    self.tally.busy_actions += 1
                else:
                    self.tally.errors[code] += 1
            elif kind == "reject":
                reason = str(answer["reason"])
                self.tally.rejects[reason] += 1
                if reason not in ("conflict", "rate_limited"):
                    self.diverged = reason
                    self.pending = None
                    return None
            await self.nap(backoff + random.random() * backoff)
            backoff = min(1.0, backoff * 2)
        return None

    async def await_race_over(self) -> None:
        """Stay in the room (reconnecting if need be) until ``race_over`` or the run's end."""
        while not self.race_over.is_set() and not self.stop.is_set():
            if (self.link is None or self.link.closed) and not await self.reconnect():
                return
            assert self.link is not None
            waits: list[asyncio.Future[Any]] = [
                asyncio.ensure_future(self.race_over.wait()),
                asyncio.ensure_future(self.stop.wait()),
                asyncio.ensure_future(asyncio.shield(self.link.task)),
            ]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for waiter in waits:
                waiter.cancel()

    async def close(self) -> None:
        """Close its socket."""
        if self.link is not None:
            await self.link.close()


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
