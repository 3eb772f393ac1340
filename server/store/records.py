"""The typed room record: its phases, the moves between them, and what an instance keeps.

A room's phase lives in Redis (``room:{R}`` field ``state``) and only the store's scripts
change it; :data:`TRANSITIONS` is the one table of which change each event makes, used to
keep a cached :class:`RoomState` in step and checked by the tests against the scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class RoomPhase(StrEnum):
    """Where a room's round stands."""

    LOBBY = "lobby"  # members gather; racers may join
    COUNTDOWN = "countdown"  # the host started; the boards open at ``starts_at``
    RACING = "racing"  # moves are taken
    DONE = "done"  # no racer is left playing; a rematch starts a new round


class Mode(StrEnum):
    """What a room is for."""

    RACE = "race"
    SOLO = "solo"
    DAILY = "daily"


class Role(StrEnum):
    """A member's part in a room."""

    PLAYER = "player"
    SPECTATOR = "spectator"


#: The phase change each room-wide event makes: event type -> (phases it may follow,
#: the phase after it). ``room`` follows a rematch (``done`` -> ``lobby``) or any change of
#: members (no change of phase).
TRANSITIONS: Final[dict[str, tuple[frozenset[RoomPhase], RoomPhase | None]]] = {
    "countdown": (frozenset({RoomPhase.LOBBY}), RoomPhase.COUNTDOWN),
    "started": (frozenset({RoomPhase.COUNTDOWN}), RoomPhase.RACING),
    "race_over": (frozenset({RoomPhase.RACING}), RoomPhase.DONE),
    "room": (frozenset(RoomPhase), None),
}

#: Phases in which a racer's moves count.
IN_PLAY: Final = frozenset({RoomPhase.COUNTDOWN, RoomPhase.RACING})


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
    seq: int = 0

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
            seq=int(fields.get("seq") or 0),
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
