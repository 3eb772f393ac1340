"""What the move script takes: a board's limits, the script's keys and arguments named once
(:data:`MOVE_KEYS`, :data:`MOVE_ARGV`, in the order ``lua/move.lua`` unpacks them), and one
request's commit (:class:`MoveCommit`), built by the move path and sent by
:meth:`server.store.store.Store.move`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .keys import Keys

#: Events kept per room for resume; an older last_seq gets a snapshot.
MAX_EVENTS: Final = 2000


@dataclass(frozen=True, slots=True)
class BoardLimits:
    """What one board may take, checked by the move script whatever socket sends.

    Attributes:
        rate_per_s, burst: the token bucket of a board's actions.
        max_actions: the most actions a board's log may hold.
    """

    rate_per_s: float = 20.0
    burst: int = 40
    max_actions: int = 5000


#: The keys of ``lua/move.lua`` by name, in the order it takes them: the script names them
#: in the same order (``tests/server/store/test_move_args.py`` holds the two to each other).
MOVE_KEYS: Final = ("meta", "log", "ids", "events", "res")
#: The arguments of ``lua/move.lua`` by name, in the order it takes them (as the keys).
MOVE_ARGV: Final = (
    "pid",
    "round",
    "id",
    "version",
    "entries",
    "bodies",
    "progress",
    "finishing",
    "time_ms",
    "moves",
    "result",
    "origin",
    "maxev",
    "ttl",
    "now",
    "rate",
    "burst",
    "max_actions",
    "legal",
    "perfect",
    "others",
    "here",
)


def move_keys(keys: Keys, room: str, round_: int, pid: str) -> dict[str, str]:
    """The keys of ``lua/move.lua`` for a board, by name (:data:`MOVE_KEYS`)."""
    return {
        "meta": keys.room(room),
        "log": keys.log(room, round_, pid),
        "ids": keys.ids(room, round_, pid),
        "events": keys.events(room),
        "res": keys.results(room, round_),
    }


@dataclass(frozen=True, slots=True)
class MoveCommit:
    """One accepted request to commit, as ``lua/move.lua`` takes it: one action, or the taps
    of a send home (one entry per action in each tuple, in order).

    Attributes:
        room, round, pid: whose board.
        action_id: the client's id (a resend with the same id is acknowledged, not applied).
        version: the board's version (log length) the request was played on.
        log_entries: ``MS\\tID\\tACTION`` for the action log, each.
        delta_bodies, progress_bodies: the events for the board's viewers and for the other
            racers (message bodies from :mod:`server.net.wire`, the seq still to stamp), each.
        legal: each delta's change of the board's legal moves (JSON,
            :func:`server.net.wire.legal_change`), which the board's own player alone
            receives with it.
        finishing: the request wins the board.
        time_ms, moves: the finish's clock and moves (used when ``finishing``).
        result: the result JSON kept for the round (used when ``finishing``).
        origin: the mover's connection, which gets its deltas with the ack.
        now: the server time of the request, in ms.
        lost: the board is practically lost after it (the mover hears ``lost``; not sent).
        perfect: the finish wins in exactly the deal's proven par (used when ``finishing``).
        others: the mover has another socket in the room on this instance (which then
            hears the legal moves on the player's own channel, as those on others do, when
            the room's channel brings the move before the commit's answer).
        here: Redis holds the mover's instance's subscription to the room's channel: the
            script publishes the deltas only if another instance follows it as well (the
            mover's instance fans them out from the answer, :mod:`server.net.hub`).
    """

    room: str
    round: int
    pid: str
    action_id: int
    version: int
    log_entries: tuple[str, ...]
    delta_bodies: tuple[str, ...]
    progress_bodies: tuple[str, ...]
    legal: tuple[str, ...]
    finishing: bool
    time_ms: int
    moves: int
    result: str
    origin: str
    now: int
    lost: bool = False
    perfect: bool = False
    others: bool = False
    here: bool = False

    def arguments(self, ttl: int, limits: BoardLimits) -> dict[str, str | int | float]:
        """The script's ARGV by name (:data:`MOVE_ARGV`; one line per action)."""
        return {
            "pid": self.pid,
            "round": self.round,
            "id": self.action_id,
            "version": self.version,
            "entries": "\n".join(self.log_entries),
            "bodies": "\n".join(self.delta_bodies),
            "progress": "\n".join(self.progress_bodies),
            "finishing": 1 if self.finishing else 0,
            "time_ms": self.time_ms,
            "moves": self.moves,
            "result": self.result,
            "origin": self.origin,
            "maxev": MAX_EVENTS,
            "ttl": ttl,
            "now": self.now,
            "rate": limits.rate_per_s,
            "burst": limits.burst,
            "max_actions": limits.max_actions,
            "legal": "\n".join(self.legal),
            "perfect": 1 if self.perfect else 0,
            "others": 1 if self.others else 0,
            "here": 1 if self.here else 0,
        }

    def argv(self, ttl: int, limits: BoardLimits) -> list[str | int | float]:
        """The script's ARGV, in the order of :data:`MOVE_ARGV`."""
        named = self.arguments(ttl, limits)
        return [named[name] for name in MOVE_ARGV]
