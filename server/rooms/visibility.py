"""Who sees which board, and when: the fair view as one decision table.

Every place that shows a board asks :func:`sight`: the fan-out of live events
(:func:`server.net.hub.view`, handed this function by the app: the hub sits below the rooms)
and the snapshots (:func:`server.rooms.views.sees_board`). The room scripts only store the
room's watch word and delay with each board's event (``store/lua/move.lua``); what a viewer
makes of them is decided here, nowhere else.

What a viewer gets of one racer's board depends on the room's phase, its watch mode, the
viewer's role and whether the board is the viewer's own; the room's delay says how late a
delayed board comes. A racer never sees a rival's board, not even once the race is over
(the results say enough); nobody sees a board before the start (the deal is secret until
``started``); a spectator sees the boards as the watch mode allows: live, the delay late,
or only their progress until the race is over.
"""

from __future__ import annotations

from enum import Enum
from itertools import product
from typing import Final, NamedTuple

from protocol.vocabulary import Role, RoomPhase, WatchMode


class Sight(Enum):
    """What a viewer gets of one racer's board."""

    COUNTS = "counts"  # its progress only: foundation cards, moves, finished or not
    BOARD = "board"  # the board, at once
    LATE = "late"  # the board, the room's delay late


class Row(NamedTuple):
    """One row of the table: the phases, watch modes, roles and own-board flags it covers,
    what they see, and why."""

    phases: frozenset[str]
    watches: frozenset[str]
    roles: frozenset[str]
    owns: frozenset[bool]
    sees: Sight
    why: str

    def covers(self, phase: str, watch: str, role: str, own: bool) -> bool:
        """Whether the row decides this combination (when no row above it does)."""
        return (
            phase in self.phases
            and watch in self.watches
            and role in self.roles
            and own in self.owns
        )


_PHASES: Final = frozenset(RoomPhase)
_WATCHES: Final = frozenset(WatchMode)
_ROLES: Final = frozenset(Role)
_BEFORE: Final = frozenset({RoomPhase.LOBBY, RoomPhase.COUNTDOWN})
_RACING: Final = frozenset({RoomPhase.RACING})
_DONE: Final = frozenset({RoomPhase.DONE})
_PLAYER: Final = frozenset({Role.PLAYER})
_SPECTATOR: Final = frozenset({Role.SPECTATOR})
_EITHER: Final = frozenset({True, False})
_OWN: Final = frozenset({True})
_RIVAL: Final = frozenset({False})

#: The decision table: the first row that covers a (phase, watch mode, role, own board)
#: decides. Every combination is covered (``tests/server/rooms/test_visibility.py``).
TABLE: Final = (
    Row(_BEFORE, _WATCHES, _ROLES, _EITHER, Sight.COUNTS, "nothing of the deal before the start"),
    Row(_PHASES, _WATCHES, _ROLES, _OWN, Sight.BOARD, "one's own board"),
    Row(_PHASES, _WATCHES, _PLAYER, _RIVAL, Sight.COUNTS, "a racer never sees a rival's board"),
    Row(_DONE, _WATCHES, _SPECTATOR, _RIVAL, Sight.BOARD, "over: nothing is secret any more"),
    Row(_RACING, frozenset({WatchMode.LIVE}), _SPECTATOR, _RIVAL, Sight.BOARD, "live"),
    Row(_RACING, frozenset({WatchMode.DELAYED}), _SPECTATOR, _RIVAL, Sight.LATE, "delayed"),
    Row(_RACING, frozenset({WatchMode.PROGRESS}), _SPECTATOR, _RIVAL, Sight.COUNTS, "progress"),
)


def _expand() -> dict[tuple[str, str, str, bool], Sight]:
    """Every combination's sight, by (phase, watch mode, role, own board): the table read
    once, so that a lookup on the fan-out's path is one dictionary access."""
    out: dict[tuple[str, str, str, bool], Sight] = {}
    for phase, watch, role, own in product(RoomPhase, WatchMode, Role, (True, False)):
        for row in TABLE:
            if row.covers(phase, watch, role, own):
                out[phase, watch, role, own] = row.sees
                break
    return out


#: :data:`TABLE` for every combination.
SIGHTS: Final = _expand()


def sight(phase: str, watch: str, role: str, own: bool) -> Sight:
    """What a viewer in ``role`` gets of one racer's board in a room of ``phase`` and
    ``watch`` mode (``own``: the board is the viewer's). Anything unknown gets the counts
    only: the table fails closed."""
    return SIGHTS.get((phase, watch, role, own), Sight.COUNTS)


def wait_ms(seen: Sight, delay_ms: int) -> int:
    """How many ms after the event the viewer gets it: the room's delay for a late board,
    else none."""
    return delay_ms if seen is Sight.LATE else 0


#: :data:`SIGHTS` as the fan-out reads them: None (counts only), 0 (at once) or
#: :data:`_LATE` (the room's delay late).
_LATE: Final = -1
_WAITS: Final[dict[tuple[str, str, str, bool], int | None]] = {
    key: None if seen is Sight.COUNTS else _LATE if seen is Sight.LATE else 0
    for key, seen in SIGHTS.items()
}


def board_wait(phase: str, watch: str, role: str, own: bool, delay_ms: int) -> int | None:
    """:func:`sight` as the fan-out asks it (:data:`server.net.hub.Judge`): None when the
    viewer gets the board's progress only, else how many ms late it gets the board."""
    wait = _WAITS.get((phase, watch, role, own))  # unknown: None, the counts only
    return delay_ms if wait == _LATE else wait
