"""The words a room is described in on the wire, and the rules the protocol gives them.

A room's ``state`` (its phase), ``mode``, a member's ``role`` and the room's ``watch`` mode
appear verbatim in ``room`` and ``snapshot`` messages; :data:`TRANSITIONS` says which
room-wide event moves a room from which phases to which, so a client (or an instance's
cache of a room) can follow the phase from the events alone; :func:`deal_shown` is the rule
behind a room message's ``code`` being null. The models spell these values as ``Literal``
types (the published schema); a test ties each enum to its ``Literal``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class RoomPhase(StrEnum):
    """Where a room's round stands (a room message's ``state``)."""

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


class WatchMode(StrEnum):
    """What spectators see while a race runs (the host picks it in the lobby)."""

    LIVE = "live"  # every board, move by move
    DELAYED = "delayed"  # the boards ``delay_s`` seconds late
    PROGRESS = "progress"  # progress only; the boards once the race is over


#: The phase change each room-wide event makes: event type -> (phases it may follow,
#: the phase after it). ``room`` follows a rematch (``done`` -> ``lobby``) or any change of
#: members (no change of phase).
TRANSITIONS: Final[dict[str, tuple[frozenset[RoomPhase], RoomPhase | None]]] = {
    "countdown": (frozenset({RoomPhase.LOBBY}), RoomPhase.COUNTDOWN),
    "started": (frozenset({RoomPhase.COUNTDOWN}), RoomPhase.RACING),
    "race_over": (frozenset({RoomPhase.RACING}), RoomPhase.DONE),
    "room": (frozenset(RoomPhase), None),
}


def deal_shown(phase: str, typed: bool) -> bool:
    """Whether a room's members may know its deal (the game code, any board) now.

    Nothing of the deal before ``started``: a code known in the lobby can be studied with a
    solver before the clock runs. A code the host typed is known to the host anyway, so the
    lobby shows it to everyone and says that it was typed.
    """
    return typed or phase in (RoomPhase.RACING, RoomPhase.DONE)
