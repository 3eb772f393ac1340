"""The chaos benchmark's racer: a bot that plays its room's solver line over a websocket and
survives the faults (it reconnects to the next instance, resumes from the last seq it has
seen whole, and resends its unacknowledged action with the same id)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.chaos_procs import Cluster
from server.clients.bot import action_message
from server.engine import Board, parse_action

#: Seconds without any answer to an action (or a resume) before the socket counts as dead.
ANSWER_TIMEOUT = 10.0
#: Seconds to open a websocket.
OPEN_TIMEOUT = 3.0
#: The round every board of the run is in (no rematch).
ROUND = 1


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
