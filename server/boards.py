"""Each instance's in-memory copy of the boards it serves, checked against Redis versions.

A board is rebuilt by replaying its action log from Redis; after that, each committed action
is played on the cached copy, so a move costs one engine call and one Redis script. The
script's version check tells when another instance changed the board: the copy is then
dropped and rebuilt.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .engine import Board, parse_action
from .store import Store

#: Boards kept per instance before the oldest are dropped.
CACHE_LIMIT = 50_000


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

    def __init__(self, store: Store) -> None:
        self.store = store
        self.entries: dict[tuple[str, int, str], BoardEntry] = {}

    async def get(self, room: str, round_: int, pid: str, code: str) -> BoardEntry:
        """The cached board, or one rebuilt from its log."""
        key = (room, round_, pid)
        entry = self.entries.get(key)
        if entry is None:
            entry = replay(code, await self.store.read_log(room, round_, pid))
            if len(self.entries) >= CACHE_LIMIT:
                for old in list(self.entries)[: CACHE_LIMIT // 10]:
                    del self.entries[old]
            self.entries[key] = entry
        return entry

    def drop(self, room: str, round_: int, pid: str) -> None:
        """Forget a board (its copy may be wrong)."""
        entry = self.entries.pop((room, round_, pid), None)
        if entry is not None:
            entry.dropped = True

    def drop_room(self, room: str) -> None:
        """Forget every board of a room."""
        for key in [k for k in self.entries if k[0] == room]:
            self.entries.pop(key).dropped = True
