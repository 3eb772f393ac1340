"""What each instance keeps of the rooms it serves: their records and their boards.

A board is rebuilt by replaying its action log from Redis; after that, each committed action
is played on the cached copy, so a move costs one engine call and one Redis script. The
move script's version check tells when another instance changed the board: the copy is then
dropped and rebuilt. A room's record is read from Redis when unknown and kept in step with
the room-wide events passing through this instance.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from protocol.models import DEFAULT_DELAY_S
from protocol.vocabulary import TRANSITIONS, Mode, RoomPhase, WatchMode

from .engine import Board, parse_action
from .store.events import RoomEvent
from .store.store import Store

#: Boards kept per instance before the oldest are dropped.
CACHE_LIMIT = 50_000


@dataclass(slots=True)
class RoomState:
    """What an instance remembers of a room between events (refreshed from Redis).

    ``seq`` is the room's last event as of this state: a read from Redis that answers
    after a newer event passed through must not replace what that event taught.
    """

    room: str
    code: str
    cells: int
    round: int
    phase: RoomPhase
    starts_at: int
    mode: Mode
    watch: WatchMode = WatchMode.LIVE
    delay_s: int = DEFAULT_DELAY_S
    seq: int = 0
    public: bool = False  # listed for anyone to watch (never changes after creation)
    paired: bool = False  # made by the quick-race queue: no host (never changes either)
    par: int | None = None  # the deal's par (None: not known, a typed code of no pool)
    par_optimal: bool = False  # the par is proven the fewest actions that win

    @classmethod
    def from_fields(cls, room: str, fields: dict[str, str]) -> RoomState:
        """The state of a room's field hash."""
        return cls(
            room,
            fields["code"],
            int(fields["cells"]),
            int(fields["round"]),
            RoomPhase(fields["state"]),
            int(fields.get("starts_at") or 0),
            Mode(fields["mode"]),
            WatchMode(fields.get("watch") or WatchMode.LIVE),
            int(fields.get("delay_s") or DEFAULT_DELAY_S),
            int(fields.get("seq") or 0),
            fields.get("public") == "1",
            fields.get("paired") == "1",
            int(fields["par"]) if fields.get("par") else None,
            fields.get("par_optimal") == "1",
        )

    def follow(self, kind: str, phase: str | None = None) -> bool:
        """Apply a room-wide event's change of phase (``phase``: a ``room`` event's state).

        Returns:
            False when the event does not fit the phase held (the cache is stale).
        """
        rule = TRANSITIONS.get(kind)
        if rule is None:
            return True
        before, after = rule
        if self.phase not in before:
            return False
        self.phase = RoomPhase(phase) if after is None and phase else (after or self.phase)
        return True


@dataclass(slots=True)
class BoardEntry:
    """A board, its version (actions in its log) and what the log said."""

    board: Board
    version: int
    first_ms: int | None
    last_ms: int | None
    acked: dict[int, int] = field(default_factory=dict)
    over: bool = False  # given up here
    dropped: bool = False  # no longer trusted: whoever holds it must fetch a fresh one
    #: The board's legal moves as its player last heard them (``LegalMoves`` as a dict), from
    #: which the next delta's change is made; None until an action first needs them.
    legal: dict[str, Any] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def replay(code: str, log: list[str]) -> BoardEntry:
    """The board after a log of ``MS\\tID\\tACTION`` entries.

    Raises:
        EngineError: the log does not replay (a corrupt log; never expected).
    """
    board = Board.from_code(code)
    first: int | None = None
    last: int | None = None
    for line in log:
        ms, _id, action = line.split("\t", 2)
        board.play(parse_action(action))
        if first is None:
            first = int(ms)
        last = int(ms)
    return BoardEntry(board, len(log), first, last)


class BoardCache:
    """Boards by (room, round, player id)."""

    def __init__(self, store: Store, on_rebuild: Callable[[], None] | None = None) -> None:
        self.store = store
        self.entries: dict[tuple[str, int, str], BoardEntry] = {}
        #: Called for each board rebuilt from its log in Redis (one not dealt here at its
        #: round's start, or a copy dropped as stale).
        self.on_rebuild = on_rebuild

    async def get(self, room: str, round_: int, pid: str, code: str) -> BoardEntry:
        """The cached board, or one rebuilt from its log."""
        key = (room, round_, pid)
        entry = self.entries.get(key)
        if entry is None:
            if self.on_rebuild is not None:
                self.on_rebuild()
            entry = replay(code, await self.store.read_log(room, round_, pid))
            self.put(key, entry)
        return entry

    def deal(self, room: str, round_: int, pids: Iterable[str], code: str) -> None:
        """Keep the opening board of a round that has just started for each of ``pids``
        (its racers with a socket here), so that their first actions read no log: at the
        start every log is empty, and every racer presses at once.

        A copy that is stale by the time it is used (another instance committed an action
        of that board first) fails the move script's version check and is rebuilt, as any.
        """
        opening: Board | None = None
        for pid in pids:
            key = (room, round_, pid)
            if key in self.entries:  # an action came first: that copy is the newer one
                continue
            if opening is None:
                opening = Board.from_code(code)
            self.put(key, BoardEntry(opening.copy(), 0, None, None))

    def put(self, key: tuple[str, int, str], entry: BoardEntry) -> None:
        """Keep a board read elsewhere (a snapshot), replacing an older copy."""
        old = self.entries.get(key)
        if old is not None and old is not entry:
            if old.version == entry.version:
                return
            old.dropped = True
        if len(self.entries) >= CACHE_LIMIT:
            for stale in list(self.entries)[: CACHE_LIMIT // 10]:
                del self.entries[stale]
        self.entries[key] = entry

    def drop(self, room: str, round_: int, pid: str) -> None:
        """Forget a board (its copy may be wrong)."""
        entry = self.entries.pop((room, round_, pid), None)
        if entry is not None:
            entry.dropped = True

    def drop_room(self, room: str) -> None:
        """Forget every board of a room."""
        for key in [k for k in self.entries if k[0] == room]:
            self.entries.pop(key).dropped = True


class RoomCache:
    """The records of the rooms this instance serves."""

    def __init__(self, store: Store, boards: BoardCache) -> None:
        self.store = store
        self.boards = boards
        self.rooms: dict[str, RoomState] = {}

    async def get(self, room: str | None, refresh: bool = False) -> RoomState | None:
        """The room's record, read from Redis when unknown or on ``refresh``."""
        if room is None:
            return None
        state = None if refresh else self.rooms.get(room)
        if state is None:
            fields = await self.store.room_fields(room)
            if not fields:
                self.rooms.pop(room, None)
                return None
            state = RoomState.from_fields(room, fields)
            held = self.rooms.get(room)
            if held is not None and held.seq > state.seq:
                # An event newer than this read passed through while it was on its way.
                return held
            self.rooms[room] = state
        return state

    def forget(self, room: str) -> None:
        """No local socket left in the room: drop its record and boards."""
        self.rooms.pop(room, None)
        self.boards.drop_room(room)

    def follow(self, room: str, event: RoomEvent) -> None:
        """Keep a cached record in step with a room-wide event passing through, as the hub
        read it off the channel (the values of a record, not the message made of them).

        An event that does not fit the phase held drops the record (it is read afresh).
        """
        state = self.rooms.get(room)
        if state is None:
            return
        state.seq = max(state.seq, event.seq)
        kind = event.kind
        if not kind:  # a message the server wrote (``ratings``): no change of the record
            return
        values = event.fields()
        if kind == "room":
            if int(values["round"]) != state.round:
                # A rematch: its deal is not in the message before the start; read it.
                self.boards.drop_room(room)
                self.rooms.pop(room, None)
                return
            state.watch = WatchMode(values.get("watch") or WatchMode.LIVE)
            if state.watch is WatchMode.DELAYED:  # the room message's delay_s (else null)
                state.delay_s = int(values.get("delay_s") or 0)
        elif kind == "countdown":
            state.starts_at = int(values["starts_at"])
        elif kind == "started":
            state.code = values["code"]
        if not state.follow(kind, values.get("state") if kind == "room" else None):
            self.rooms.pop(room, None)
