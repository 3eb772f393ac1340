"""Fan-out: each instance subscribes to the channels of the rooms it has sockets in and
forwards every event to those sockets, each seeing what its role may see.

Racers see another racer's actions as ``progress`` (counts only); the player whose board it
is sees the ``delta`` with the change of the board's legal moves (``legal_change``), and
spectators what the room's watch mode allows: the ``delta`` at once (live), the ``delta``
some seconds late (delayed) or the ``progress`` (progress). The change of a ``delta`` is
not on the room's channel: the mover has it with the ack, and the mover's other sockets,
where there are any, from the player's own channel in the room, which publishes it just
before the event (the move script publishes there only while some instance other than the
mover's follows it, or the mover has another socket here), and which an instance follows
while the player has a socket in the room here. An event is read once (a
:class:`~server.store.events.RoomEvent`) and turned into its texts once (:func:`texts`, by
:mod:`server.net.wire`) for every socket of the room here.

A move of a socket here is fanned out to the room's other sockets here from the commit's
answer (:meth:`Hub.committed`), not read back from the room's channel: the channel's copy of
it is dropped (or, when it comes first, the answer's). The events of a room go out in the
order of their seqs: one after a gap waits while the events before it may still come, on the
channel behind an answer or in an answer behind the channel (:meth:`Hub._admit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Final, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from protocol.vocabulary import Role, RoomPhase

from ..metrics import Metrics
from ..quiet import Quiet
from ..store.events import APART, RoomEvent, parse_own
from ..store.keys import Keys
from ..transport.feed import Feed
from ..transport.shards import ShardSubscriber
from . import wire

log = logging.getLogger(__name__)
QUIET = Quiet(log)


class Listener(Protocol):
    """A socket as the hub sees it: who it is, where, and how to give it an event."""

    cid: str
    pid: str | None
    room: str | None
    role: str

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        """Forward a room event, ``delay_ms`` late (the socket may also hold it back while
        it catches up)."""

    def queue(self, text: str) -> None:
        """Send a frame."""

    def release_held(self) -> None:
        """Send the events held for later now."""


#: One event as a socket receives it: its seq, the text (None: nothing) and the delay in ms.
Seen = tuple[int, str | None, int]

_NO_RACERS: Final[frozenset[str]] = frozenset()


#: Decides what a socket gets of an event about a board, from the room's phase and watch
#: mode, the socket's role, whether the board is its own and the room's delay in ms: None
#: (the board's progress, what the other racers get) or how many ms late it gets the board
#: (:func:`server.rooms.visibility.board_wait`).
Judge = Callable[[str, str, str, bool, int], int | None]

#: How long an event after a gap waits for the events before it (:meth:`Hub._admit`)
#: before the hub reads them from the room's stored events.
EARLY_WAIT_S: Final = 0.25

#: How a move's delta ends on the room's channel (its OWN apart), and where its seq starts.
_APART_TAIL: Final = "\t" + APART
_SEQ_AT: Final = '\t{"seq":'


def _seq_of(published: str) -> int:
    """The seq of a published event that is a stamped message (0 if none is found): read
    without parsing the event, to drop the copy of a move fanned out already."""
    at = published.find(_SEQ_AT)
    if at < 0:
        return 0
    at += len(_SEQ_AT)
    end = published.find(",", at)
    digits = published[at:end]
    return int(digits) if digits.isdigit() else 0


_PLAYER: Final = Role.PLAYER
#: A live event is judged as the race's: boards change only while it runs, and at its end
#: the held events are released (:meth:`Hub._forward`).
_RACING: Final = RoomPhase.RACING


def view(
    conn: Listener, event: RoomEvent, full: str, racer: str | None, judge: Judge
) -> tuple[str | None, int]:
    """The text a connection receives for an event (or None) and how many ms later, as the
    ``judge`` decides (``full``: the event's message, ``racer``: what the other racers
    receive instead, None nothing). An event of the whole room (no ``pid``) is every
    racer's own; a spectator has no board of its own."""
    role = conn.role
    own = role == _PLAYER and (not event.pid or event.pid == conn.pid)
    wait = judge(_RACING, event.watch, role, own, event.delay_ms)
    if wait is None:
        return racer, 0
    return full, wait


def racers_of(event: RoomEvent) -> frozenset[str]:
    """The racers of a round, if the event is its ``started`` (else none)."""
    return frozenset(event.rest()) if event.kind == "started" else _NO_RACERS


#: What the sockets of a room may receive of one event, made once for all of them: its
#: message, what the other racers receive instead (None: nothing), the player's own view
#: (None: the event has none) and the racers of the round it starts (else none).
Texts = tuple[str, str | None, str | None, frozenset[str]]


def texts(event: RoomEvent) -> Texts:
    """The texts of ``event``."""
    full = wire.render(event)
    racer = full if event.racer == "" else event.racer
    return full, racer, wire.own_text(event, full), racers_of(event)


def shown(conn: Listener, event: RoomEvent, made: Texts, judge: Judge) -> tuple[str | None, int]:
    """What ``conn`` receives of ``event`` (the text or None, and the ms it waits): the
    player's own view on the sockets of that player's own board, else :func:`view`.

    At ``started``, every socket of an identity that races this round becomes a racer's
    first: an identity racing in a room cannot also watch it, and a second socket that
    entered as a spectator in the lobby (before its identity took a racer's seat again)
    would otherwise see every rival's board. The own view goes to a racer's sockets alone:
    for a board's ``delta`` those of its player (any of them), for ``started`` those of
    each racer of the round.
    """
    full, racer, own, racers = made
    pid = conn.pid
    if pid in racers:
        conn.role = "player"
    if (
        own is not None
        and pid
        and conn.role == "player"
        and (event.pid == pid if event.pid else pid in racers)
    ):
        return own or None, 0  # '': the legal moves did not come here; nor does the event
    return view(conn, event, full, racer, judge)


class Hub:
    """The local sockets of each room and the pub/sub reader that feeds them."""

    def __init__(
        self, redis: aioredis.Redis | RedisCluster, keys: Keys, metrics: Metrics, judge: Judge
    ) -> None:
        self.redis = redis
        #: Who sees what of a board's event (the rooms' visibility table).
        self.judge = judge
        self.keys = keys
        self.metrics = metrics
        self.rooms: dict[str, set[Listener]] = {}
        #: On a Redis Cluster: the rooms' channels on sharded pub/sub, each on its shard.
        self.shards: ShardSubscriber | None = None
        if isinstance(redis, RedisCluster):
            self.shards = ShardSubscriber(
                redis, self._shard_message, self._resubscribed, self.metrics.redis_errors.inc
            )
            self.feed: Feed | None = None
        else:
            self.feed = Feed(redis, self._shard_message, self._resubscribed, self._feed_failed)
        self._lock = asyncio.Lock()
        #: Called with (room, event) for every room-wide event (not a board's): the event as
        #: read off the channel, whose message the sockets receive.
        self.on_room_event: Callable[[str, RoomEvent], None] | None = None
        #: The highest seq forwarded to each room's sockets here, to catch up from.
        self.last_seq: dict[str, int] = {}
        #: Reads a room's stored events after a seq (the store's ``events_after``).
        self.fetch_after: (
            Callable[[str, int], Awaitable[tuple[int, list[RoomEvent]] | None]] | None
        ) = None
        self._catching_up: set[asyncio.Task[object]] = set()
        #: Called with the room id when its last local socket goes (forget its caches).
        self.on_room_empty: Callable[[str], None] | None = None
        #: The local sockets of each player in each room, and the player each counts for;
        #: a player's own channel in a room is followed while they have one here.
        self.tabs: dict[tuple[str, str], int] = {}
        self._tab_of: dict[tuple[Listener, str], str] = {}
        #: The players' own channels followed here: their (room, player).
        self.own_channels: dict[str, tuple[str, str]] = {}
        #: The last legal moves each room's players' own channels brought, by room: (seq,
        #: legal JSON), for the event of that seq, which the room's channel brings next.
        self.own_pending: dict[str, tuple[int, str]] = {}
        #: Moves of this instance's sockets being committed, by room and by mover's socket:
        #: their events may come on the room's channel before the commit's answer.
        self.inflight: dict[str, int] = {}
        self.movers: dict[str, int] = {}
        #: The seqs of this instance's moves of which one copy was forwarded, by room: each
        #: comes twice, from the commit's answer and on the room's channel; the second is
        #: dropped (:meth:`committed`).
        self.twins: dict[str, set[int]] = {}
        #: Events that came before one of a lower seq, by room and seq, and the timer that
        #: stops waiting for it (:meth:`_admit`).
        self.early: dict[str, dict[int, RoomEvent]] = {}
        self._early_timers: dict[str, asyncio.TimerHandle] = {}

    def start(self) -> None:
        """Run the reader (on a cluster, each shard's reader starts with its first room)."""
        if self.feed is not None:
            self.feed.start()

    async def close(self) -> None:
        """Stop the reader and drop the subscriptions."""
        if self.shards is not None:
            await self.shards.close()
        if self.feed is not None:
            await self.feed.close()

    def follows(self, room: str) -> bool:
        """Whether Redis has this instance's subscription to ``room``'s channel now (on one
        Redis; on a cluster it is not told: False). The move script then publishes a move
        only while another instance follows the room too: this one fans it out from the
        commit's answer (:meth:`committed`)."""
        return self.feed is not None and self.keys.channel(room) in self.feed.live

    def others_here(self, room: str, pid: str) -> bool:
        """Whether player ``pid`` has more than one socket in ``room`` here (a mover's other
        sockets here hear their legal moves on the player's own channel)."""
        return self.tabs.get((room, pid), 0) > 1

    async def attach(self, conn: Listener, room: str) -> None:
        """Add a socket to a room; subscribe (and wait for Redis to confirm) to the room's
        channel if it is the room's first here, and to its player's own channel in the room
        if it is the player's first there."""
        async with self._lock:
            channels = []
            conns = self.rooms.get(room)
            if conns is not None:
                conns.add(conn)
            else:
                self.rooms[room] = {conn}
                self.metrics.rooms_local.set(len(self.rooms))
                channels.append(self.keys.channel(room))
            if conn.pid and (conn, room) not in self._tab_of:  # counted once, however often
                tab = (room, conn.pid)
                self._tab_of[conn, room] = conn.pid
                self.tabs[tab] = self.tabs.get(tab, 0) + 1
                if self.tabs[tab] == 1:
                    own = self.keys.own_channel(room, conn.pid)
                    self.own_channels[own] = tab
                    channels.append(own)
            if channels:
                await asyncio.gather(*map(self._subscribe, channels))

    async def _subscribe(self, channel: str) -> None:
        if self.shards is not None:
            await self.shards.subscribe(channel)
        elif self.feed is not None:
            await self.feed.subscribe(channel)

    async def _unsubscribe(self, channel: str) -> None:
        with contextlib.suppress(RedisError, ConnectionError):
            if self.shards is not None:
                await self.shards.unsubscribe(channel)
            elif self.feed is not None:
                self.feed.unsubscribe(channel)

    async def detach(self, conn: Listener, room: str) -> None:
        """Remove a socket; unsubscribe when the room has no local socket left."""
        async with self._lock:
            conns = self.rooms.get(room)
            if conns is None:
                return
            conns.discard(conn)
            pid = self._tab_of.pop((conn, room), None)
            if pid is not None:
                tab = (room, pid)
                self.tabs[tab] -= 1
                if not self.tabs[tab]:
                    del self.tabs[tab]
                    own = self.keys.own_channel(*tab)
                    del self.own_channels[own]
                    await self._unsubscribe(own)
            if not conns:
                del self.rooms[room]
                self.last_seq.pop(room, None)
                self.own_pending.pop(room, None)
                self._forget_order(room)
                self.metrics.rooms_local.set(len(self.rooms))
                if self.on_room_empty is not None:
                    self.on_room_empty(room)
                await self._unsubscribe(self.keys.channel(room))

    def _feed_failed(self) -> None:
        self.metrics.redis_errors.inc()
        QUIET.failure("pubsub", "pub/sub reader failed")

    def _shard_message(self, channel: str, data: str) -> None:
        """A room event from a room's channel, or a player's legal moves from their own
        channel in a room (on a cluster, the room's shard's)."""
        try:
            tab = self.own_channels.get(channel)
            if tab is not None:
                self.own_pending[tab[0]] = parse_own(data)
                return
            room = Keys.room_of_channel(channel)
            twins = self.twins.get(room)
            if twins and data.endswith(_APART_TAIL):  # a move's: maybe ours, fanned out
                seq = _seq_of(data)
                if seq in twins:
                    twins.discard(seq)
                    return
            event = RoomEvent.parse_published(data)
            if event.origin in self.movers and event.own == APART:
                # A move of ours, on the channel before the commit's answer: this copy
                # goes out, the answer's is dropped.
                self._twin(room, event.seq)
            self._admit(room, event, False)
        except Exception:  # one bad event must not end the fan-out of every room
            log.exception("forwarding an event failed")

    def _resubscribed(self, channel: str) -> None:
        """A room's channel was subscribed again (a lost node, a failover): what the room
        published meanwhile reached no socket here; fetch it from the room's events.

        From the last seq forwarded *now*: the new subscription's first messages may be
        forwarded before the catch-up runs, and catching up after them would skip what was
        published between the two subscriptions."""
        if channel in self.own_channels:  # on the connection of the room's, which catches up
            return
        room = Keys.room_of_channel(channel)
        task = asyncio.create_task(self._catch_up_until_done(room, self.last_seq.get(room)))
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    def note_seq(self, room: str, seq: int) -> None:
        """A socket here was brought up to ``seq`` of ``room`` (a snapshot or a resume)."""
        if room in self.rooms:
            self.last_seq[room] = max(seq, self.last_seq.get(room, seq))
            early = self.early.get(room)
            if early:
                self._drain(room, early)

    def expect(self, room: str, cid: str) -> None:
        """Socket ``cid`` is committing a move in ``room``: its events may come on the
        room's channel before the commit's answer (:meth:`committed`); until
        :meth:`settle`, an event after a gap waits for them."""
        self.inflight[room] = self.inflight.get(room, 0) + 1
        self.movers[cid] = self.movers.get(cid, 0) + 1

    def settle(self, room: str, cid: str) -> None:
        """The commit :meth:`expect` announced has answered (or failed)."""
        for table, key in ((self.inflight, room), (self.movers, cid)):
            left = table.get(key, 0) - 1
            if left > 0:
                table[key] = left
            else:
                table.pop(key, None)

    def committed(self, room: str, events: list[RoomEvent], published: bool = True) -> None:
        """The events of a move of a socket here, from the commit's answer: fanned out to
        the room's sockets here as they would be from the room's channel. When the script
        ``published`` them (another instance follows the room), the channel's copy of each
        is dropped here (or, for one the channel brought first, this one)."""
        if room not in self.rooms:
            return
        for event in events:
            twins = self.twins.get(room)
            if twins is not None and event.seq in twins:
                twins.discard(event.seq)  # the channel's copy went out first
                continue
            if published:
                self._twin(room, event.seq)
            self._admit(room, event, True)

    def _twin(self, room: str, seq: int) -> None:
        twins = self.twins.setdefault(room, set())
        if len(twins) > 256:  # copies that never came (a lost channel): bounded
            twins.clear()
        twins.add(seq)

    def _admit(self, room: str, event: RoomEvent, local: bool) -> None:
        """Forward an event in its room's order: one after a gap waits (in :attr:`early`)
        while the events before it may still come: from the room's channel (behind a
        commit's answer of ours), or from a commit of ours in flight (behind the channel).
        A gap nobody here can fill goes out as it is (the sockets ask for a snapshot)."""
        seq, last = event.seq, self.last_seq.get(room)
        early = self.early.get(room)
        if last is None or seq <= last + 1:
            self._forward(room, event)
            if early:
                self._drain(room, early)
            return
        if not (early or local or room in self.inflight):
            self._forward(room, event)
            return
        if early is None:
            early = self.early[room] = {}
        early[seq] = event
        if room not in self._early_timers:
            self._early_timers[room] = asyncio.get_running_loop().call_later(
                EARLY_WAIT_S, self._stop_waiting, room
            )

    def _drain(self, room: str, early: dict[int, RoomEvent]) -> None:
        """Forward the early events whose turn has come."""
        while early:
            low = min(early)
            if low > self.last_seq.get(room, low) + 1:
                return
            self._forward(room, early.pop(low))
        self._forget_order(room, twins=False)

    def _stop_waiting(self, room: str) -> None:
        """An early event waited long enough: read what the room stored meanwhile, then
        forward the rest in order."""
        self._early_timers.pop(room, None)
        task = asyncio.create_task(self._fill_gap(room))
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    async def _fill_gap(self, room: str) -> None:
        await self.catch_up(room)
        early = self.early.pop(room, None)
        timer = self._early_timers.pop(room, None)
        if timer is not None:
            timer.cancel()
        for seq in sorted(early or ()):
            if seq > self.last_seq.get(room, 0) and early is not None:
                self._forward(room, early[seq])

    def _forget_order(self, room: str, twins: bool = True) -> None:
        """Drop a room's early events and their timer (and its twins' seqs)."""
        self.early.pop(room, None)
        timer = self._early_timers.pop(room, None)
        if timer is not None:
            timer.cancel()
        if twins:
            self.twins.pop(room, None)

    async def catch_up(self, room: str, after: int | None = None) -> bool:
        """Forward the events a room published after ``after`` (by default the last one
        forwarded here; its sockets drop any they already have: they apply each seq once).

        Returns:
            False when reading them failed (Redis did not answer).
        """
        last = self.last_seq.get(room) if after is None else after
        if last is None or self.fetch_after is None or room not in self.rooms:
            return True
        try:
            found = await self.fetch_after(room, last)
        except Exception:
            QUIET.failure("catch-up", "catching up a room's events failed")
            return False
        if found is None:
            return True  # too many to replay: each socket resyncs at the next event it sees
        for event in found[1]:
            self._forward(room, event)  # no origin: the mover drops its own twice
        return True

    async def _catch_up_until_done(self, room: str, after: int | None) -> None:
        """Catch a room up from ``after``, retrying while the cluster settles (a slot still
        migrating answers TRYAGAIN, a new master may not be known yet)."""
        for attempt in range(1, 11):
            if await self.catch_up(room, after):
                return
            await asyncio.sleep(0.1 * attempt)

    def _forward(self, room: str, event: RoomEvent) -> None:
        conns = self.rooms.get(room)
        if not conns:
            return
        if event.own == APART:  # its legal moves came just before, if anyone here needs them
            pending = self.own_pending.pop(room, None)
            if pending is not None and pending[0] == event.seq:
                event = event._replace(own=pending[1])
        made = texts(event)  # once for every socket of the room
        seq, origin = event.seq, event.origin
        self.last_seq[room] = max(seq, self.last_seq.get(room, seq))
        if not event.pid and self.on_room_event is not None:
            self.on_room_event(room, event)
        over = event.kind == "race_over"
        judge = self.judge
        for conn in conns:
            if conn.cid == origin:  # the mover's own delta went out with its ack
                continue
            if conn.room != room:
                # It has left (or is leaving) this room and waits for the unsubscribe:
                # a late event of the old room must not reach it.
                continue
            if over:  # the race is over: nothing is secret any more
                conn.release_held()
            text, delay = shown(conn, event, made, judge)
            if text is not None:
                conn.push(text, seq, delay)

    def seen(
        self, conn: Listener, events: list[RoomEvent], age: Callable[[str], int] | None = None
    ) -> list[Seen]:
        """What one socket receives of stored events.

        ``age`` gives how many ms ago a delayed event happened, to take off its delay
        (without it the delay runs from now: late, never early).
        """
        out: list[Seen] = []
        for event in events:
            text, delay = shown(conn, event, texts(event), self.judge)
            if delay and text is not None and age is not None:
                delay = max(0, delay - age(text))
            out.append((event.seq, text, delay))
        return out
